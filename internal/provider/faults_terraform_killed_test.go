// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Terraform itself killed mid-apply (a CI runner cancelled, an HCP
// Terraform run discarded): SIGKILL to terraform and the provider while a
// statement of the operation waits on a lock someone else holds, so the
// kill lands at a known statement boundary. State then lacks whatever the
// killed call did. The next apply must finish or undo it with no manual
// SQL, going forward (same configuration) or back (the previous one).

// applyKilledAt starts terraform apply in its own process group, waits
// until one of the admin's backends waits on a lock in a statement starting
// with prefix, then SIGKILLs the whole group (terraform and the provider),
// and ends that backend as the server would once it noticed its client
// was gone.
func (s accServer) applyKilledAt(t *testing.T, w *cliWorkspace, prefix string) {
	t.Helper()
	cmd, out, done := w.startApplyInGroup(t)
	deadline := time.Now().Add(2 * time.Minute)
	for {
		var pid int
		err := s.super(t, "").QueryRow(`SELECT pid FROM pg_stat_activity WHERE usename = $1 AND wait_event_type = 'Lock'
  AND query LIKE $2 LIMIT 1`, s.Admin.Username, prefix+"%").Scan(&pid)
		if err == nil {
			killGroup(cmd)
			<-done
			s.exec(t, "", fmt.Sprintf("SELECT pg_terminate_backend(%d)", pid))
			return
		}
		select {
		case err := <-done:
			t.Fatalf("terraform apply ended before blocking on %q (%v):\n%s", prefix, err, out.String())
		default:
		}
		if time.Now().After(deadline) {
			killGroup(cmd)
			t.Fatalf("no statement starting with %q waited on a lock:\n%s", prefix, out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// startApplyInGroup starts terraform apply in a process group of its own
// (so a SIGKILL to the group, killGroup, reaches the provider too), with
// extra environment variables, which the provider gets too; done receives
// its end. The kill-point suite's provider runs reattached
// (interruptedApplyProvider): the test starts it as the group's leader, terraform
// joins its group, and it is killed when terraform ends, as terraform
// ends its plugin processes.
func (w *cliWorkspace) startApplyInGroup(t *testing.T, env ...string) (cmd *exec.Cmd, out *strings.Builder, done chan error) {
	t.Helper()
	cmd = exec.Command(cliBinary(), "apply", "-auto-approve", "-no-color")
	cmd.Dir, cmd.Env = w.dir, append(append(os.Environ(), w.env...), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var provider *reattachedProvider
	if interruptedApplyProvider(w.tags, w.ownProcess, w.base, w.env, os.Environ()) == providerReattached {
		provider = w.startReattached(cmd.Env)
		cmd.Env = append(cmd.Env, provider.env)
		cmd.SysProcAttr.Pgid = provider.pgid()
	}
	out = &strings.Builder{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		if provider != nil {
			provider.stop()
		}
		t.Fatal(err)
	}
	done = make(chan error, 1)
	go func() {
		err := cmd.Wait()
		if provider != nil {
			provider.stop()
		}
		done <- err
	}()
	return cmd, out, done
}

// killGroup SIGKILLs the process group of a command startApplyInGroup
// started: its own, or the reattached provider's that it joined.
func killGroup(cmd *exec.Cmd) {
	pgid := cmd.Process.Pid
	if cmd.SysProcAttr != nil && cmd.SysProcAttr.Pgid != 0 {
		pgid = cmd.SysProcAttr.Pgid
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
}

// TestAccFaults_terraformKilledDuringOwnerCreate (PostgreSQL): terraform
// and the provider are killed while the owner's ALTER DATABASE ... OWNER TO
// waits on a lock. The create is one transaction (issue 34), so the kill
// leaves nothing: no login, the database still the admin's, no owner in
// state (before, its CREATE ROLE had committed and the next apply had to
// finish a half-made login from its mark). The next apply creates the
// owner: it logs in with its password and owns the database, the plan is
// empty, destroy drops the login.
func TestAccFaults_terraformKilledDuringOwnerCreate(t *testing.T) {
	s := testAccServer(t, "postgres")
	db, user := uniqueName("kil"), uniqueName("kilo")
	t.Cleanup(func() {
		s.dropDatabase(t, db)
		s.dropLogins(t, user)
	})
	pw := "Kill-pw-1"
	w := newCLIWorkspace(t)
	// The database alone first, under the label ownerHCL gives it.
	w.write(withLockTimeout(s.serverHCL("")+fmt.Sprintf("resource \"tenantdb_tenant_database\" \"db\" {\n  server = tenantdb_db_server.main.ref\n  name   = %q\n}\n", db), "5m"))
	w.run("apply", "-auto-approve").mustSucceed(t, "create the database")
	cfg := withLockTimeout(s.serverHCL("")+ownerHCL(db, user, pw, 1, ""), "5m")
	w.write(cfg)
	release := s.holdLock(t, "", "GRANT CONNECT ON DATABASE "+s.ident(db)+" TO "+s.ident(s.Super.Username))
	s.applyKilledAt(t, w, "ALTER DATABASE")
	release()
	if s.loginExists(t, user) || w.stateHas("tenantdb_tenant_owner") || s.databaseOwner(t, db) != s.Admin.Username {
		t.Fatalf("the kill left part of the create (login exists %v, in state %v, database owned by %q): its transaction "+
			"did not roll back", s.loginExists(t, user), w.stateHas("tenantdb_tenant_owner"), s.databaseOwner(t, db))
	}
	r := w.run("apply", "-auto-approve")
	if r.Err != nil {
		t.Fatalf("the apply after the kill failed: %v\n%+v", r.Err, r.Diagnostics)
	}
	if err := s.as(user, pw, db, "CREATE TABLE t (v int)"); err != nil {
		t.Fatalf("the finished owner does not work: %v", err)
	}
	w.run("plan", "-detailed-exitcode").mustSucceed(t, "empty plan")
	w.run("destroy", "-auto-approve").mustSucceed(t, "destroy")
	if s.loginExists(t, user) {
		t.Fatal("destroy left the login")
	}
}

// TestAccFaults_terraformKilledDuringRotation (PostgreSQL): terraform and
// the provider are killed while a username rotation's REASSIGN OWNED waits
// on a table lock. The handover is one transaction (issue 34), so the kill
// leaves the tenant as before: no new login, the database and the table
// the old login's, state naming it (before, the new login and its
// ownership of the database had committed, and the next apply finished or
// undid the half-made rotation from its mark). Applying the new
// configuration again rotates; applying the previous one changes nothing.
// Either way the tenant works, the plan is empty, and destroy leaves no
// login of the run.
func TestAccFaults_terraformKilledDuringRotation(t *testing.T) {
	for _, direction := range []string{"forward", "back"} {
		t.Run(direction, func(t *testing.T) {
			s := testAccServer(t, "postgres")
			w, db, a, b, pw, cfg := s.blockedRotation(t, "kir", "5m")
			release := s.holdLock(t, db, "SELECT v FROM t")
			w.write(cfg(b))
			s.applyKilledAt(t, w, "REASSIGN OWNED")
			release()
			if !s.loginExists(t, a) || s.loginExists(t, b) || s.databaseOwner(t, db) != a {
				t.Fatalf("the kill left part of the handover (a exists %v, b exists %v, database owned by %q): its "+
					"transaction did not roll back", s.loginExists(t, a), s.loginExists(t, b), s.databaseOwner(t, db))
			}
			if n := s.count(t, db, `SELECT count(*) FROM pg_class WHERE relname = 't' AND pg_get_userbyid(relowner) = $1`, a); n != 1 {
				t.Fatalf("after the kill table t is not the old login's")
			}

			want, gone := b, a
			if direction == "back" {
				want, gone = a, b
				w.write(cfg(a))
			}
			r := w.run("apply", "-auto-approve")
			if r.Err != nil {
				t.Fatalf("the apply after the kill failed: %v\n%+v", r.Err, r.Diagnostics)
			}
			if s.loginExists(t, gone) {
				t.Fatalf("login %s is left after the apply that finished (%s)", gone, direction)
			}
			if err := s.as(want, pw, db, "SELECT v FROM t", "ALTER TABLE t ADD COLUMN w int", "CREATE TABLE t2 (v int)"); err != nil {
				t.Fatalf("%s does not own the tenant after the apply: %v", want, err)
			}
			w.run("plan", "-detailed-exitcode").mustSucceed(t, "empty plan")
			w.run("destroy", "-auto-approve").mustSucceed(t, "destroy")
			if s.loginExists(t, a) || s.loginExists(t, b) {
				t.Fatal("destroy left a login of the run")
			}
		})
	}
}

// TestAccFaults_terraformInterruptedDuringRotation (PostgreSQL): one
// SIGINT (what HCP Terraform sends when a run is cancelled) while a
// username rotation waits on a table lock. Terraform cancels the operation
// in flight; the provider's statement is cancelled, the handover is undone,
// and state is saved: the old login owns and connects, state names it, no
// new login is left, and the next apply (lock gone) finishes the rotation.
func TestAccFaults_terraformInterruptedDuringRotation(t *testing.T) {
	s := testAccServer(t, "postgres")
	w, db, a, b, pw, cfg := s.blockedRotation(t, "sig", "5m")
	release := s.holdLock(t, db, "SELECT v FROM t")
	w.write(cfg(b))
	cmd := exec.Command(cliBinary(), "apply", "-auto-approve", "-no-color")
	cmd.Dir, cmd.Env = w.dir, append(os.Environ(), w.env...)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		var n int
		if err := s.super(t, "").QueryRow(`SELECT count(*) FROM pg_stat_activity WHERE usename = $1 AND wait_event_type = 'Lock'
  AND query LIKE 'REASSIGN OWNED%'`, s.Admin.Username).Scan(&n); err == nil && n > 0 {
			break
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatalf("the rotation never waited on the lock:\n%s", out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err == nil {
		t.Fatalf("the interrupted apply succeeded:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "Interrupt received") {
		t.Fatalf("terraform did not see the interrupt:\n%s", out.String())
	}
	if s.loginExists(t, b) {
		t.Fatalf("the new login is left after the interrupted rotation:\n%s", out.String())
	}
	if got := w.stateAttr("tenantdb_tenant_owner", "username"); got != a {
		t.Fatalf("state names %v after the interrupted rotation, want %q", got, a)
	}
	if err := s.as(a, pw, db, "CREATE TABLE t2 (v int)"); err != nil {
		t.Fatalf("the old login does not work after the interrupt: %v", err)
	}
	release()
	w.run("apply", "-auto-approve").mustSucceed(t, "the rotation once the lock is gone")
	if s.loginExists(t, a) {
		t.Fatal("the old login survived the finished rotation")
	}
	if err := s.as(b, pw, db, "SELECT v FROM t", "SELECT v FROM t2"); err != nil {
		t.Fatalf("the new login does not own the tenant: %v", err)
	}
}
