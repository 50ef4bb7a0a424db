// SPDX-License-Identifier: MPL-2.0

package tenant

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/session"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

func asStatementError(err error, target **session.StatementError) bool { return errors.As(err, target) }

// TestPoolReuse: one Server per spec, and a sequence of ~20 operations opens
// a handful of connections, not one per statement.
func TestPoolReuse(t *testing.T) {
	forEngines(t, func(t *testing.T, e *env) {
		again, err := e.reg.Server(e.ctx, adminSpec(t, e.ts, e.ts.Admin))
		if err != nil {
			t.Fatal(err)
		}
		if again != e.s {
			t.Fatal("a second Registry.Server call for the same spec returned another *Server")
		}
		all := mustPrivileges(t, e.engine, "ALL PRIVILEGES")
		db, db2 := e.newDB("pool"), e.newDB("pool")
		owner, grantee := e.newUser("poolo"), e.plainLogin("poolg", "Pool-pw-1")
		cs, co := ddl.DefaultCharset(e.engine), ddl.DefaultCollation(e.engine)
		ops := []struct {
			name string
			fn   func(ctx context.Context) error
		}{
			{"check admin rights", func(ctx context.Context) error { _, err := e.s.proof.CheckAdminRights(ctx); return err }},
			{"create database", func(ctx context.Context) error { return e.s.CreateDatabase(ctx, db, cs, co) }},
			{"read database", func(ctx context.Context) error { _, err := e.s.proof.Database(ctx, db); return err }},
			{"create login", func(ctx context.Context) error {
				return e.s.CreateLogin(ctx, db, owner, mustPassword(t, "Pool-owner-1"), all)
			}},
			{"login exists", func(ctx context.Context) error { _, err := e.s.LoginExists(ctx, owner); return err }},
			{"grant ALL", func(ctx context.Context) error { return e.s.SyncPrivileges(ctx, db, grantee, all) }},
			{"read privileges", func(ctx context.Context) error { _, err := e.s.proof.Privileges(ctx, db, grantee); return err }},
			{"narrow", func(ctx context.Context) error {
				return e.s.SyncPrivileges(ctx, db, grantee, mustPrivileges(t, e.engine, "SELECT", "DELETE"))
			}},
			{"swap", func(ctx context.Context) error {
				return e.s.SyncPrivileges(ctx, db, grantee, mustPrivileges(t, e.engine, "SELECT", "INSERT"))
			}},
			{"read privileges", func(ctx context.Context) error { _, err := e.s.proof.Privileges(ctx, db, grantee); return err }},
			{"revoke all", func(ctx context.Context) error { return e.s.RevokeAll(ctx, db, grantee) }},
			{"set password", func(ctx context.Context) error {
				return e.s.Exec(ctx, e.s.dialect().SetPassword(owner, mustPassword(t, "Pool-owner-2"), false))
			}},
			{"sessions", func(ctx context.Context) error { _, err := e.s.proof.Sessions(ctx, db); return err }},
			{"create second database", func(ctx context.Context) error { return e.s.CreateDatabase(ctx, db2, cs, co) }},
			{"alter second database", func(ctx context.Context) error {
				err := e.s.AlterDatabase(ctx, db2, cs, co)
				if ddl.ReasonOf(err) == ddl.ImmutableAttribute {
					return nil // PostgreSQL refuses before connecting
				}
				return err
			}},
			{"read second database", func(ctx context.Context) error { _, err := e.s.proof.Database(ctx, db2); return err }},
			{"drop second database", func(ctx context.Context) error { return e.s.DropDatabase(ctx, db2) }},
			{"drop login", func(ctx context.Context) error { return e.s.Exec(ctx, e.s.dialect().DropLogin(db, owner)) }},
			{"login gone", func(ctx context.Context) error {
				if ok, err := e.s.LoginExists(ctx, owner); err != nil || ok {
					return fmt.Errorf("exists %v, %v", ok, err)
				}
				return nil
			}},
			{"drop database", func(ctx context.Context) error { return e.s.DropDatabase(ctx, db) }},
			{"check admin rights", func(ctx context.Context) error { _, err := e.s.proof.CheckAdminRights(ctx); return err }},
		}
		for _, op := range ops {
			if err := op.fn(e.ctx); err != nil {
				t.Fatalf("%s: %v", op.name, err)
			}
		}
		opened := e.reg.ConnectionsOpened()
		t.Logf("%d operations opened %d connections", len(ops), opened)
		if opened > 12 {
			t.Errorf("%d operations opened %d connections, want at most 12", len(ops), opened)
		}
	})
}

// TestAdvisoryLock: two withLock calls on one tenant never overlap; a lock
// on another tenant is not blocked by them. No wall time is asserted: the
// first holder keeps the tenant's lock until the other tenant's lock has
// been taken (or a minute has passed), so "other" comes before the first
// "exit" exactly when the other lock did not wait for the tenant's.
func TestAdvisoryLock(t *testing.T) {
	forEngines(t, func(t *testing.T, e *env) {
		tenant, other := e.newDB("lock"), e.newDB("lock")
		var mu sync.Mutex
		var events []string
		record := func(s string) {
			mu.Lock()
			events = append(events, s)
			mu.Unlock()
		}
		holding, otherTaken := make(chan struct{}, 2), make(chan struct{})
		var wg sync.WaitGroup
		for _, who := range []string{"a", "b"} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				err := e.s.proof.WithLock(e.ctx, tenant, func(context.Context) error {
					record("enter " + who)
					holding <- struct{}{}
					select {
					case <-otherTaken:
					case <-time.After(time.Minute):
					}
					time.Sleep(100 * time.Millisecond) // room for the other holder to overlap, if it could
					record("exit " + who)
					return nil
				})
				if err != nil {
					t.Errorf("%s: %v", who, err)
				}
			}()
		}
		// While one of them holds the tenant's lock, another tenant's lock
		// is free.
		<-holding
		if err := e.s.proof.WithLock(e.ctx, other, func(context.Context) error { record("other"); return nil }); err != nil {
			t.Error(err)
		}
		close(otherTaken)
		wg.Wait()
		t.Logf("order: %v", events)
		var seq []string
		for _, ev := range events {
			if ev != "other" {
				seq = append(seq, ev)
			} else if len(seq) != 1 {
				t.Errorf("the lock on another tenant waited for this tenant's holder: %v", events)
			}
		}
		ok := len(seq) == 4
		for i := 0; ok && i < 4; i += 2 {
			k1, w1, _ := strings.Cut(seq[i], " ")
			k2, w2, _ := strings.Cut(seq[i+1], " ")
			ok = k1 == "enter" && k2 == "exit" && w1 == w2
		}
		if !ok {
			t.Errorf("critical sections overlapped: %v", seq)
		}
	})
}
