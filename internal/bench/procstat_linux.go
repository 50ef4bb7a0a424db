// SPDX-License-Identifier: MPL-2.0

package bench

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"
)

const supported = true

func numCPU() int { return runtime.NumCPU() }

// clockTicks is USER_HZ, the unit of /proc/<pid>/stat times: 100 on every
// Linux architecture Go supports (the kernel fixes it for user space).
const clockTicks = 100

// procTimes is a process's CPU time as /proc/<pid>/stat reports it.
type procTimes struct {
	self     time.Duration // utime + stime
	children time.Duration // cutime + cstime: children it waited for
}

// readProcTimes reads /proc/<pid>/stat. It works on a zombie too, which is
// how the bench reads terraform's own and its children's times between its
// exit and the reap (waitExited).
func readProcTimes(pid int) (procTimes, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procTimes{}, false
	}
	// The command name is in parentheses and may hold spaces: fields
	// count from the last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procTimes{}, false
	}
	f := strings.Fields(string(b[i+1:]))
	// f[0] is field 3 (state); utime..cstime are fields 14..17.
	if len(f) < 15 {
		return procTimes{}, false
	}
	ticks := func(s string) time.Duration {
		n, _ := strconv.ParseInt(s, 10, 64)
		return time.Duration(n) * time.Second / clockTicks
	}
	return procTimes{
		self:     ticks(f[11]) + ticks(f[12]),
		children: ticks(f[13]) + ticks(f[14]),
	}, true
}

// serverCPU is the CPU a server process tree has used so far: the
// process's own, its exited children's (reaped into it: PostgreSQL's
// backends) and its live children's own (PostgreSQL's backends and
// auxiliary processes). A child that exits between two readings moves
// from the third term to the second, so differences stay true.
func serverCPU(pid int) (time.Duration, bool) {
	if pid <= 0 {
		return 0, false
	}
	t, ok := readProcTimes(pid)
	if !ok {
		return 0, false
	}
	total := t.self + t.children
	for _, c := range childPIDs(pid) {
		if ct, ok := readProcTimes(c); ok {
			total += ct.self
		}
	}
	return total, true
}

// readHWM is VmHWM (peak resident set) from /proc/<pid>/status, in bytes.
func readHWM(pid int) uint64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			f := strings.Fields(rest)
			if len(f) >= 1 {
				kb, _ := strconv.ParseUint(f[0], 10, 64)
				return kb * 1024
			}
		}
	}
	return 0
}

// childPIDs lists pid's children (every thread's /proc/<pid>/task/<tid>/children).
func childPIDs(pid int) []int {
	tasks, _ := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/children")
	var out []int
	for _, t := range tasks {
		b, err := os.ReadFile(t)
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(f); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}

func procComm(pid int) string {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
	return strings.TrimSpace(string(b))
}

// procWatch polls a terraform process and its provider plugins (children
// named terraform-provider-*; the kernel's comm keeps 15 bytes,
// "terraform-provi") while a command runs.
type procWatch struct {
	pid  int
	stop chan struct{}
	done chan struct{}

	mu sync.Mutex
	// per provider process: last CPU time seen, peak RSS seen
	provCPU map[int]time.Duration
	provHWM map[int]uint64
	tfHWM   uint64
	// sshPort > 0 (BASTION=1): per provider process, the TCP sockets it
	// had connected to the bastion at 127.0.0.1:sshPort (by inode: one per
	// SSH connection it opened).
	sshPort  int
	sshConns map[int]map[uint64]bool
}

func watchProcess(pid int, every time.Duration, sshPort int) *procWatch {
	w := &procWatch{pid: pid, stop: make(chan struct{}), done: make(chan struct{}),
		provCPU: map[int]time.Duration{}, provHWM: map[int]uint64{}, sshPort: sshPort, sshConns: map[int]map[uint64]bool{}}
	go func() {
		defer close(w.done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			w.sample()
			select {
			case <-w.stop:
				return
			case <-t.C:
			}
		}
	}()
	return w
}

func (w *procWatch) sample() {
	hwm := readHWM(w.pid)
	type seen struct {
		cpu time.Duration
		hwm uint64
	}
	got := map[int]seen{}
	ssh := map[int][]uint64{}
	var toSSH map[uint64]bool
	for _, c := range childPIDs(w.pid) {
		if !strings.HasPrefix(procComm(c), "terraform-prov") {
			continue
		}
		pt, ok := readProcTimes(c)
		if !ok {
			continue
		}
		got[c] = seen{pt.self, readHWM(c)}
		if w.sshPort > 0 {
			if toSSH == nil {
				toSSH = tcpInodesTo(w.sshPort)
			}
			for _, ino := range socketInodes(c) {
				if toSSH[ino] {
					ssh[c] = append(ssh[c], ino)
				}
			}
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for pid, inos := range ssh {
		if w.sshConns[pid] == nil {
			w.sshConns[pid] = map[uint64]bool{}
		}
		for _, ino := range inos {
			w.sshConns[pid][ino] = true
		}
	}
	if hwm > w.tfHWM {
		w.tfHWM = hwm
	}
	for pid, s := range got {
		if s.cpu > w.provCPU[pid] {
			w.provCPU[pid] = s.cpu
		}
		if s.hwm > w.provHWM[pid] {
			w.provHWM[pid] = s.hwm
		}
	}
}

// finish stops polling and returns what it saw: the provider processes'
// CPU (sum of the last values seen: up to one interval short) and peak
// RSS (the largest of them), terraform's peak RSS, and how many provider
// processes ran.
func (w *procWatch) finish() (provCPU time.Duration, provHWM, tfHWM uint64, provs int) {
	close(w.stop)
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, c := range w.provCPU {
		provCPU += c
	}
	for _, h := range w.provHWM {
		provHWM = max(provHWM, h)
	}
	return provCPU, provHWM, w.tfHWM, len(w.provCPU)
}

// sshCounts is what the poller saw of SSH connections (BASTION=1): how
// many provider processes had one, how many they opened in all, and the
// most one process opened.
func (w *procWatch) sshCounts() (procs, total, most int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, inos := range w.sshConns {
		procs++
		total += len(inos)
		most = max(most, len(inos))
	}
	return procs, total, most
}

// tcpInodesTo is the socket inodes of established IPv4 TCP connections to
// port (/proc/net/tcp: rem_address is hex ip:port, st 01 is ESTABLISHED).
func tcpInodesTo(port int) map[uint64]bool {
	out := map[uint64]bool{}
	b, err := os.ReadFile("/proc/net/tcp")
	if err != nil {
		return out
	}
	for _, line := range strings.Split(string(b), "\n")[1:] {
		f := strings.Fields(line)
		if len(f) < 10 || f[3] != "01" {
			continue
		}
		_, hexPort, _ := strings.Cut(f[2], ":")
		if p, err := strconv.ParseUint(hexPort, 16, 32); err != nil || int(p) != port {
			continue
		}
		if ino, err := strconv.ParseUint(f[9], 10, 64); err == nil {
			out[ino] = true
		}
	}
	return out
}

// socketInodes is the inodes of pid's open sockets (/proc/<pid>/fd links
// "socket:[N]").
func socketInodes(pid int) []uint64 {
	dir := "/proc/" + strconv.Itoa(pid) + "/fd"
	ents, _ := os.ReadDir(dir)
	var out []uint64
	for _, e := range ents {
		link, err := os.Readlink(filepath.Join(dir, e.Name()))
		if err != nil {
			continue
		}
		if rest, ok := strings.CutPrefix(link, "socket:["); ok {
			if ino, err := strconv.ParseUint(strings.TrimSuffix(rest, "]"), 10, 64); err == nil {
				out = append(out, ino)
			}
		}
	}
	return out
}

// waitExited blocks until pid has exited without reaping it (waitid with
// WNOWAIT, as os.Process.Wait does first), so that /proc/<pid>/stat can
// still be read; the caller reaps it with cmd.Wait.
func waitExited(pid int) error {
	const pPID, wNOWAIT = 1, 0x01000000
	var info [128]byte // siginfo_t
	for {
		_, _, e := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(pid), uintptr(unsafe.Pointer(&info[0])),
			syscall.WEXITED|wNOWAIT, 0, 0)
		if e == syscall.EINTR {
			continue
		}
		if e != 0 {
			return e
		}
		return nil
	}
}

// rusageCPU is user + system time from a wait's rusage: the process and
// every descendant it waited for.
func rusageCPU(sys any) time.Duration {
	ru, ok := sys.(*syscall.Rusage)
	if !ok || ru == nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// machine describes this machine for the report.
func machine() (cpus string, mem string, model string) {
	cpus = strconv.Itoa(numCPU())
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
				if f := strings.Fields(rest); len(f) > 0 {
					kb, _ := strconv.ParseFloat(f[0], 64)
					mem = strconv.FormatFloat(kb/1024/1024, 'f', 1, 64) + " GiB"
				}
			}
		}
	}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
	}
	return cpus, mem, model
}
