// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// reattachedProvider is a workspace's provider binary started in debug
// mode for one terraform command (providerReattached,
// cli_inprocess_test.go): one process serves every phase of the command
// that terraform would have started a process for.
type reattachedProvider struct {
	cmd    *exec.Cmd
	env    string // the TF_REATTACH_PROVIDERS entry that sends terraform to it
	exited chan struct{}
}

// startReattached starts w's provider binary with -debug and env, as the
// leader of a process group of its own (the group a killed command's
// terraform joins, see startApplyInGroup), and waits for the reattach
// configuration it prints. tf6server gives its server 2 s to come up; on a
// loaded machine a start that missed it is tried again.
func (w *cliWorkspace) startReattached(env []string) *reattachedProvider {
	w.t.Helper()
	var why string
	for range 3 {
		p, err := w.tryStartReattached(env)
		if err == "" {
			return p
		}
		why = err
	}
	w.t.Fatalf("the provider binary in debug mode gave no reattach configuration, three times:\n%s", why)
	return nil
}

func (w *cliWorkspace) tryStartReattached(env []string) (*reattachedProvider, string) {
	cmd := exec.Command(filepath.Join(w.bin, "terraform-provider-tenantdb"), "-debug")
	cmd.Dir, cmd.Env = w.dir, env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		w.t.Fatal(err)
	}
	var stderr tailBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		w.t.Fatal(err)
	}
	// Every read of the pipe ends before Wait, which closes it (os/exec).
	found, read := make(chan string, 1), make(chan struct{})
	go func() {
		defer close(read)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			// The POSIX line: TF_REATTACH_PROVIDERS='{...}'
			line := strings.TrimSpace(sc.Text())
			if v, ok := strings.CutPrefix(line, "TF_REATTACH_PROVIDERS='"); ok {
				found <- strings.ReplaceAll(strings.TrimSuffix(v, "'"), `'"'"'`, `'`)
				break
			}
		}
		_, _ = io.Copy(io.Discard, stdout)
	}()
	p := &reattachedProvider{cmd: cmd, exited: make(chan struct{})}
	go func() {
		<-read
		_ = cmd.Wait()
		close(p.exited)
	}()
	select {
	case raw := <-found:
		entry, err := onlyReattachEntry(raw)
		if err != nil {
			p.stop()
			w.t.Fatalf("the provider's reattach configuration %s: %v", raw, err)
		}
		if p.env, err = reattachEnv(entry); err != nil {
			p.stop()
			w.t.Fatal(err)
		}
		return p, ""
	case <-p.exited:
		return nil, stderr.String()
	case <-time.After(30 * time.Second):
		p.stop()
		return nil, "no reattach configuration within 30 s\n" + stderr.String()
	}
}

// pgid is the process group the provider leads.
func (p *reattachedProvider) pgid() int { return p.cmd.Process.Pid }

// stop kills the provider's process group (terraform, when it joined it,
// has ended or is killed with it) and waits for the provider to end.
func (p *reattachedProvider) stop() {
	_ = syscall.Kill(-p.pgid(), syscall.SIGKILL)
	<-p.exited
}

// onlyReattachEntry is the one provider's entry of a TF_REATTACH_PROVIDERS
// value.
func onlyReattachEntry(raw string) (json.RawMessage, error) {
	var providers map[string]json.RawMessage
	if err := json.Unmarshal([]byte(raw), &providers); err != nil {
		return nil, err
	}
	if len(providers) != 1 {
		return nil, fmt.Errorf("%d providers, want 1", len(providers))
	}
	for _, entry := range providers {
		return entry, nil
	}
	return nil, nil
}

// tailBuffer keeps the last 16 KiB written to it, for a process's stderr
// read after (or while) it runs.
type tailBuffer struct {
	mu sync.Mutex
	b  []byte
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.b = append(b.b, p...)
	if over := len(b.b) - 16<<10; over > 0 {
		b.b = b.b[over:]
	}
	return len(p), nil
}

func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.b)
}
