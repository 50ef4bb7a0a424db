// SPDX-License-Identifier: MPL-2.0

package tenant

import (
	"testing"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/session"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// TestAccountsSnapshot: a refresh of many owners and grants costs a fixed
// number of queries on MySQL/MariaDB (the logins and the grant rows, once),
// reports what the server really has, and a write by this process is
// never hidden by the snapshot.
func TestAccountsSnapshot(t *testing.T) {
	forEngines(t, func(t *testing.T, e *env) {
		const n = 12
		type tenant struct {
			db          ddl.DatabaseName
			owner, peer ddl.Username
			ids         GrantIdentity
		}
		tenants := make([]tenant, n)
		sel := mustPrivileges(t, e.engine, "SELECT")
		peer := e.plainLogin("snappeer", granteePW)
		for i := range tenants {
			db, owner := e.newTenant("snap", "Snap-pw-1")
			ids, err := e.s.CreateGrant(e.ctx, db, peer, sel)
			if err != nil {
				t.Fatal(err)
			}
			tenants[i] = tenant{db, owner, peer, ids}
		}

		reg := newRegistry()
		defer reg.Close()
		s, err := reg.Server(e.ctx, adminSpec(t, e.ts, e.ts.Admin))
		if err != nil {
			t.Fatal(err)
		}
		before := reg.ReadQueries()
		for _, tn := range tenants {
			o, err := s.Owner(e.ctx, tn.db, tn.owner)
			if err != nil || o == nil {
				t.Fatalf("Owner(%s, %s) = %v, %v", tn.db, tn.owner, o, err)
			}
			direct, _, err := s.proof.LoginIdentity(e.ctx, tn.owner)
			if err != nil || o.Identity != direct {
				t.Fatalf("snapshot identity %q, direct %q (%v)", o.Identity, direct, err)
			}
			g, err := s.ReadGrant(e.ctx, tn.db, tn.peer)
			if err != nil || !g.PrincipalFound || !g.DatabaseFound {
				t.Fatalf("ReadGrant(%s, %s) = %+v, %v", tn.db, tn.peer, g, err)
			}
			if got := g.Held.Any; len(got) != 1 || got[0] != ddl.Privilege("SELECT") {
				t.Fatalf("ReadGrant(%s) held %v, want [SELECT]", tn.db, got)
			}
		}
		// The direct LoginIdentity calls above cost one query each; on
		// MySQL 8.0.21+ two (the account, then its ledger rows), and the
		// refresh reads the ledger once (ledger_mysql.go).
		direct, most := int64(n), int64(4)
		if s.proof.UsesLedger() {
			direct, most = 2*int64(n), 5
		}
		reads := reg.ReadQueries() - before - direct
		t.Logf("refresh of %d owners and %d grants: %d queries", n, n, reads)
		if !e.isPG() && reads > most {
			t.Errorf("refresh of %d owners and %d grants cost %d queries, want at most %d (logins, the ledger on MySQL, grant rows, catalog, server id)", n, n, reads, most)
		}

		// A write by this process is read back, not served stale.
		tn := tenants[0]
		if err := s.UpdateGrant(e.ctx, tn.db, tn.peer, mustPrivileges(t, e.engine, "SELECT", "INSERT"), tn.ids); err != nil {
			t.Fatal(err)
		}
		g, err := s.ReadGrant(e.ctx, tn.db, tn.peer)
		if err != nil || len(g.Held.Any) != 2 {
			t.Fatalf("after granting INSERT the refresh reads %v (%v), want SELECT and INSERT", g.Held.Any, err)
		}
		if _, err := s.RevokeGrant(e.ctx, tn.db, tn.peer, tn.ids); err != nil {
			t.Fatal(err)
		}
		if g, err := s.ReadGrant(e.ctx, tn.db, tn.peer); err != nil || len(g.Held.Any) != 0 {
			t.Fatalf("after the revoke the refresh reads %v (%v), want nothing", g.Held.Any, err)
		}
	})
}

// TestTenantConnectionsBounded: PostgreSQL grant reads each need a
// connection inside their tenant database; however many run at once, at
// most TenantConns are open, so with the admin pool a run stays within
// parallelism + 2 connections per server.
func TestTenantConnectionsBounded(t *testing.T) {
	forEngines(t, func(t *testing.T, e *env) {
		if !e.isPG() {
			t.Skip("MySQL/MariaDB reach every database from the admin pool")
		}
		const n = 16
		peer := e.plainLogin("boundpeer", granteePW)
		dbs := make([]ddl.DatabaseName, n)
		for i := range dbs {
			dbs[i] = e.newDB("bound")
			if err := e.s.CreateDatabase(e.ctx, dbs[i], ddl.DefaultCharset(e.engine), ddl.DefaultCollation(e.engine)); err != nil {
				t.Fatal(err)
			}
		}
		reg := newRegistry()
		defer reg.Close()
		s, err := reg.Server(e.ctx, adminSpec(t, e.ts, e.ts.Admin))
		if err != nil {
			t.Fatal(err)
		}
		errs := make(chan error, n)
		for _, db := range dbs {
			go func() {
				_, err := s.ReadGrant(e.ctx, db, peer)
				errs <- err
			}()
		}
		for range dbs {
			if err := <-errs; err != nil {
				t.Fatal(err)
			}
		}
		peak := s.sess.TenantPoolsPeak()
		t.Logf("%d concurrent grant reads in %d databases: at most %d tenant connections", n, n, peak)
		if peak > session.TenantConns {
			t.Fatalf("%d tenant connections open at once, want at most %d", peak, session.TenantConns)
		}
	})
}
