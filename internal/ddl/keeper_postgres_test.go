// SPDX-License-Identifier: MPL-2.0

package ddl

import (
	"errors"
	"strings"
	"testing"
)

// TestKeeperName: one keeper per database, in the scratch namespace, short
// enough for a PostgreSQL identifier, and a tenant may not take its name.
func TestKeeperName(t *testing.T) {
	t.Parallel()
	a, _ := NewDatabaseName(EnginePostgres, "acme_1")
	b, _ := NewDatabaseName(EnginePostgres, "acme_2")
	ka, kb := KeeperName(a).String(), KeeperName(b).String()
	for _, c := range []struct {
		what string
		ok   bool
	}{
		{"prefix", strings.HasPrefix(ka, NonceDatabasePrefix+"k")},
		{"length 32", len(ka) == 32},
		{"stable", ka == KeeperName(a).String()},
		{"one per database", ka != kb},
		{"IsKeeperOf its own", IsKeeperOf(a, ka)},
		{"not another's", !IsKeeperOf(b, ka)},
	} {
		if !c.ok {
			t.Errorf("%s: %q %q", c.what, ka, kb)
		}
	}
	r := NewReservedNames("main", "tenantdb_admin", nil)
	for _, name := range []string{ka, strings.ToUpper(ka), "tenantdb_claim_x"} {
		if err := r.CheckOwner(name); err == nil || !strings.Contains(err.Error(), "scratch namespace") {
			t.Errorf("owner %q: %v, want refused as tenantdb's scratch namespace", name, err)
		}
		if err := r.CheckGrantee(name); err == nil {
			t.Errorf("grantee %q accepted", name)
		}
	}
}

// TestErrKeeperTampered: each fault is named, and the refusal says whether
// the login is already locked out.
func TestErrKeeperTampered(t *testing.T) {
	t.Parallel()
	db, _ := NewDatabaseName(EnginePostgres, "acme_1")
	user, _ := NewUsername(EnginePostgres, "acme_app")
	if !(KeeperFault{}).Empty() {
		t.Fatal("an empty fault is not Empty")
	}
	for _, c := range []struct {
		f         KeeperFault
		lockedOut bool
		want      []string
	}{
		{KeeperFault{Attributes: []string{"LOGIN", "CREATEROLE"}}, true, []string{"it has LOGIN, CREATEROLE", `Login "acme_app" is already locked out`}},
		{KeeperFault{MemberOf: []string{"pg_read_server_files"}}, false, []string{"member of pg_read_server_files", "Nothing was changed"}},
		{KeeperFault{Members: []string{"eve"}}, true, []string{"granted to eve"}},
		{KeeperFault{Elsewhere: []string{"other"}}, true, []string{"in database(s) other"}},
		{KeeperFault{NotAdmin: true}, true, []string{"does not administer it"}},
	} {
		if c.f.Empty() {
			t.Errorf("%+v reads as Empty", c.f)
		}
		err := ErrKeeperTampered("main", db, user, c.f, c.lockedOut)
		var e *Error
		if !errors.As(err, &e) || e.Reason != IdentityMismatch {
			t.Errorf("%+v: %v, want IdentityMismatch", c.f, err)
			continue
		}
		for _, w := range append(c.want, KeeperName(db).String(), "DROP ROLE") {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%+v: %q lacks %q", c.f, err, w)
			}
		}
	}
}
