// SPDX-License-Identifier: MPL-2.0

package testserver

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
)

// Throwaway servers keep their data in memory. On this project's machines
// the disk syncs a write in about 5 ms, and MariaDB and MySQL sync several
// times per DDL statement (the privilege tables, the data dictionary, the
// database directory) whatever innodb_flush_* says: 700 statements took
// 9.4 s on disk and 1.4 s on tmpfs (TESTING.md, "Where the time goes").
// Nothing a test proves depends on the data surviving the machine.

// EnvScratch chooses where local servers keep their data: a directory
// (e.g. a tmpfs), "disk" for the system's temp dir (os.TempDir), or unset
// for /dev/shm when it is a tmpfs with room, else the system's temp dir.
// Servers in a Debian root keep theirs in the root's /tenantdb-scratch,
// which the harness mounts as a tmpfs (as root; unless EnvScratch is
// "disk"), else in the root's /tmp.
const EnvScratch = "TENANTDB_TEST_SCRATCH"

// scratchRoom is the free space a tmpfs needs to hold a test run's servers
// (each holds a few hundred MB at most; a run starts a handful per kind).
const scratchRoom = 2 << 30

const tmpfsMagic = 0x01021994

// scratchParent is the parent directory of a host server's temp dir: ""
// means the system's temp dir.
func scratchParent() string {
	switch v := os.Getenv(EnvScratch); v {
	case "disk":
		return ""
	case "":
		if isTmpfsWithRoom("/dev/shm") {
			return "/dev/shm"
		}
		return ""
	default:
		return v
	}
}

func isTmpfsWithRoom(dir string) bool {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return false
	}
	return st.Type == tmpfsMagic && st.Bavail*uint64(st.Bsize) >= scratchRoom
}

var rootTmpfsMu sync.Mutex

// mountRootTmpfs makes dir (inside a Debian root) a tmpfs and reports
// whether it is one, once per machine: several test processes start
// servers in the same root, so the check and the mount run under a lock
// file beside dir, and a dir that already is a tmpfs is left as it is. The
// dir is tenantdb's own, so the mount hides nothing anyone uses. Failing
// to mount only costs time: the servers then keep their data on disk, and
// the reason is printed.
func mountRootTmpfs(dir string) bool {
	if os.Getenv(EnvScratch) == "disk" || os.Geteuid() != 0 {
		return false
	}
	rootTmpfsMu.Lock()
	defer rootTmpfsMu.Unlock()
	if isTmpfsWithRoom(dir) {
		return true
	}
	lock, err := os.OpenFile(dir+".lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		fmt.Fprintf(os.Stderr, "testserver: servers keep their data on disk (lock %s: %v)\n", dir, err)
		return false
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		fmt.Fprintf(os.Stderr, "testserver: servers keep their data on disk (lock %s: %v)\n", dir, err)
		return false
	}
	defer func() { _ = syscall.Flock(int(lock.Fd()), syscall.LOCK_UN) }()
	if isTmpfsWithRoom(dir) { // another test process mounted it meanwhile
		return true
	}
	if err := os.MkdirAll(dir, 0o1777); err != nil {
		fmt.Fprintf(os.Stderr, "testserver: servers keep their data on disk: %v\n", err)
		return false
	}
	out, err := exec.Command("mount", "-t", "tmpfs", "-o", "mode=1777,size=8g", "tenantdb-scratch", dir).CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "testserver: servers keep their data on disk: mount tmpfs on %s: %v: %s\n", dir, err, strings.TrimSpace(string(out)))
		return false
	}
	return true
}
