// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
)

// Issue 46: logins scoped to the hosts they connect from. Every check
// reads the server (mysql.user, mysql.db) or logs in as the login.

// accountHosts lists the hosts of user's accounts, sorted, as mysql.user
// keeps them.
func (s accServer) accountHosts(t *testing.T, user string) []string {
	t.Helper()
	return s.superStrings(t, `SELECT Host FROM mysql.user WHERE User = ? ORDER BY Host`, user)
}

// dbRows maps each host of user's mysql.db rows on db (escaped, as
// tenantdb grants) to its Select, Insert and Update flags ("YNN").
func (s accServer) dbRows(t *testing.T, db, user string) map[string]string {
	t.Helper()
	pattern := strings.NewReplacer(`_`, `\_`, `%`, `\%`).Replace(db)
	rows, err := s.super(t, "").Query(`SELECT Host, CONCAT(Select_priv, Insert_priv, Update_priv) FROM mysql.db WHERE User = ? AND (Db = ? OR Db = ?)`,
		user, pattern, db)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var h, flags string
		if err := rows.Scan(&h, &flags); err != nil {
			t.Fatal(err)
		}
		out[h] = flags
	}
	return out
}

// plainRun runs a terraform command that takes no -json (state rm,
// import) and fails the test when it fails.
func (w *cliWorkspace) plainRun(t *testing.T, args ...string) {
	t.Helper()
	if out, err := tryEnv(w.dir, append(os.Environ(), w.env...), cliBinary(), args...); err != nil {
		t.Fatalf("terraform %s: %v\n%s", args[0], err, out)
	}
}

func hostLine(host string) string { return fmt.Sprintf("  host = %q", host) }

// TestAccAccountHost_ownerScoped: an owner scoped to 127.0.0.1 is the
// account 'u'@'127.0.0.1' alone and connects over TCP from the loopback;
// moved to '10.%' (create-before-drop) it is refused by the server from
// there, its table kept; import returns the host; destroy leaves no
// account of the user and no row of any host on the database.
func TestAccAccountHost_ownerScoped(t *testing.T) {
	onMySQLFamily(t, func(t *testing.T, s accServer) {
		db, owner := uniqueName("hst"), uniqueName("hsto")
		t.Cleanup(func() {
			s.dropDatabase(t, db)
			s.exec(t, "", fmt.Sprintf("DROP USER IF EXISTS '%s'@'127.0.0.1', '%s'@'10.%%', '%s'@'%%'", owner, owner, owner))
		})
		pw, version := "Host-pw-1", 1
		w := newCLIWorkspace(t)
		cfg := func(host string) string { return s.serverHCL("") + ownerHCL(db, owner, pw, version, hostLine(host)) }
		w.write(cfg("127.0.0.1"))
		w.run("apply", "-auto-approve").mustSucceed(t, "create the scoped owner")
		if got := s.accountHosts(t, owner); !slices.Equal(got, []string{"127.0.0.1"}) {
			t.Fatalf("accounts of %s = %v, want only 127.0.0.1", owner, got)
		}
		if err := s.as(owner, pw, db, "CREATE TABLE "+s.table(db, "t")+" (v int)", "INSERT INTO "+s.table(db, "t")+" VALUES (1)"); err != nil {
			t.Fatalf("the owner scoped to 127.0.0.1 cannot log in over TCP from the loopback: %v", err)
		}
		w.requireEmptyPlan(t, "after the create")

		// Import returns the host (JSON ID with "host").
		w.plainRun(t, "state", "rm", "tenantdb_tenant_owner.o")
		id, _ := json.Marshal(map[string]string{"server": w.stateAttr("tenantdb_db_server", "ref").(string), "database": db,
			"username": owner, "host": "127.0.0.1"})
		w.plainRun(t, "import", "tenantdb_tenant_owner.o", string(id))
		if got := w.stateAttr("tenantdb_tenant_owner", "host"); got != "127.0.0.1" {
			t.Fatalf("imported host = %v, want 127.0.0.1", got)
		}
		if got := w.stateAttr("tenantdb_tenant_owner", "id"); !strings.HasSuffix(fmt.Sprint(got), "/"+owner+"@127.0.0.1") {
			t.Fatalf("imported id = %v, want it to end with /%s@127.0.0.1", got, owner)
		}
		// Back to a created owner, so the host change below may drop the old account.
		w.plainRun(t, "state", "rm", "tenantdb_tenant_owner.o")
		s.exec(t, "", fmt.Sprintf("DROP USER '%s'@'127.0.0.1'", owner))
		w.run("apply", "-auto-approve").mustSucceed(t, "create again")

		// A password bump reaches the account at its host.
		pw, version = "Host-pw-2", 2
		w.write(cfg("127.0.0.1"))
		w.run("apply", "-auto-approve").mustSucceed(t, "password bump")
		if err := s.as(owner, pw, db, "SELECT v FROM "+s.table(db, "t")); err != nil {
			t.Fatalf("the scoped owner does not log in with its new password: %v", err)
		}

		w.write(cfg("10.%"))
		w.run("apply", "-auto-approve").mustSucceed(t, "move the owner to 10.%")
		if got := s.accountHosts(t, owner); !slices.Equal(got, []string{"10.%"}) {
			t.Fatalf("accounts of %s after the host change = %v, want only 10.%%", owner, got)
		}
		err := s.as(owner, pw, db, "SELECT 1")
		if err == nil {
			t.Fatal("the owner scoped to 10.% logged in from the loopback")
		}
		if !strings.Contains(err.Error(), "1045") && !strings.Contains(err.Error(), "1130") {
			t.Fatalf("the server refused the login with %v, want access denied (1045) or host not allowed (1130)", err)
		}
		if got := s.dbRows(t, db, owner); len(got) != 1 || got["10.%"] != "YYY" {
			t.Fatalf("privilege rows of %s on %s = %v, want one row at 10.%%", owner, db, got)
		}
		w.requireEmptyPlan(t, "after the host change")

		// Another account of the owner's user, made by hand at '%', is not
		// the owner: the plan stays empty and destroy leaves it.
		s.exec(t, "", fmt.Sprintf("CREATE USER '%s'@'%%' IDENTIFIED BY 'Other-pw-1'", owner))
		w.requireEmptyPlan(t, "with another account of the owner's user")
		w.run("destroy", "-auto-approve").mustSucceed(t, "destroy")
		if got := s.accountHosts(t, owner); !slices.Equal(got, []string{"%"}) {
			t.Fatalf("after destroy the accounts of %s are at %v, want the hand-made one at %% alone", owner, got)
		}
		s.dropLogins(t, owner)
		if got := s.dbRows(t, db, owner); len(got) != 0 {
			t.Fatalf("destroy left privilege rows of %s on %s: %v", owner, db, got)
		}
	})
}

// TestAccAccountHost_grantIsolation: 'r'@'127.0.0.1' and 'r'@'%' are two
// principals: a grant to either never touches the other's row, both ways,
// and a grant's host change grants the new account before it revokes the
// old one (statement log order).
func TestAccAccountHost_grantIsolation(t *testing.T) {
	onMySQLFamily(t, func(t *testing.T, s accServer) {
		db, owner, r := uniqueName("hsg"), uniqueName("hsgo"), uniqueName("hsgr")
		s.principal(t, r) // 'r'@'%'
		s.exec(t, "", fmt.Sprintf("CREATE USER '%s'@'127.0.0.1' IDENTIFIED BY '%s'", r, principalPW))
		s.exec(t, "", fmt.Sprintf("CREATE USER '%s'@'localhost' IDENTIFIED BY '%s'", r, principalPW))
		t.Cleanup(func() {
			s.dropDatabase(t, db)
			s.exec(t, "", fmt.Sprintf("DROP USER IF EXISTS '%s'@'127.0.0.1', '%s'@'localhost'", r, r))
			s.dropLogins(t, owner)
		})
		w := newCLIWorkspace(t)
		base := s.serverHCL("") + ownerHCL(db, owner, "Owner-pw-1", 1, "")
		scoped := grantHCL("lo", "tenantdb_tenant_database.db.name", r, `["SELECT"]`, hostLine("127.0.0.1")+"\n  depends_on = [tenantdb_tenant_owner.o]")
		anyHost := func(extra string) string {
			return grantHCL("any", "tenantdb_tenant_database.db.name", r, `["INSERT"]`, extra+"\n  depends_on = [tenantdb_tenant_owner.o]")
		}

		w.write(base + scoped)
		w.run("apply", "-auto-approve").mustSucceed(t, "grant to 127.0.0.1")
		if got := s.dbRows(t, db, r); len(got) != 1 || got["127.0.0.1"] != "YNN" {
			t.Fatalf("after the grant to '%s'@'127.0.0.1': rows %v, want only 127.0.0.1 with SELECT", r, got)
		}

		w.write(base + scoped + anyHost(""))
		w.run("apply", "-auto-approve").mustSucceed(t, "grant to %")
		if got := s.dbRows(t, db, r); len(got) != 2 || got["127.0.0.1"] != "YNN" || got["%"] != "NYN" {
			t.Fatalf("after the grant to '%s'@'%%': rows %v, want 127.0.0.1 SELECT and %% INSERT", r, got)
		}
		w.requireEmptyPlan(t, "with both grants")

		w.write(base + anyHost(""))
		w.run("apply", "-auto-approve").mustSucceed(t, "revoke from 127.0.0.1")
		if got := s.dbRows(t, db, r); len(got) != 1 || got["%"] != "NYN" {
			t.Fatalf("after revoking '%s'@'127.0.0.1': rows %v, want %% INSERT alone", r, got)
		}

		w.write(base + scoped + anyHost(""))
		w.run("apply", "-auto-approve").mustSucceed(t, "grant to 127.0.0.1 again")
		mark := s.MarkLog(t)
		w.write(base + scoped + anyHost(hostLine("localhost")))
		w.run("apply", "-auto-approve").mustSucceed(t, "move the % grant to localhost")
		if got := s.dbRows(t, db, r); len(got) != 2 || got["127.0.0.1"] != "YNN" || got["localhost"] != "NYN" {
			t.Fatalf("after moving the %% grant of %s to localhost: rows %v, want 127.0.0.1 SELECT and localhost INSERT", r, got)
		}
		var order []string
		for _, st := range s.adminDDLSince(t, mark) {
			if q := st.Text; strings.Contains(q, r) {
				order = append(order, q)
			}
		}
		granted, revoked := -1, -1
		for i, q := range order {
			if granted < 0 && strings.Contains(q, "GRANT INSERT") && strings.Contains(q, "'localhost'") {
				granted = i
			}
			if revoked < 0 && strings.Contains(q, "REVOKE") && strings.Contains(q, "'%'") {
				revoked = i
			}
		}
		if granted < 0 || revoked < 0 || granted > revoked {
			t.Fatalf("the host change ran %q; want the GRANT to 'localhost' before the REVOKE from '%%'", order)
		}
		w.requireEmptyPlan(t, "after the grant's host change")
		var hosts []string
		for _, res := range w.state()["resources"].([]any) {
			if res.(map[string]any)["type"] == "tenantdb_tenant_grant" {
				for _, i := range res.(map[string]any)["instances"].([]any) {
					hosts = append(hosts, fmt.Sprint(i.(map[string]any)["attributes"].(map[string]any)["host"]))
				}
			}
		}
		if slices.Sort(hosts); !slices.Equal(hosts, []string{"127.0.0.1", "localhost"}) {
			t.Fatalf("grant hosts in state = %v, want 127.0.0.1 and localhost", hosts)
		}

		w.write(base)
		w.run("apply", "-auto-approve").mustSucceed(t, "revoke both")
		if got := s.dbRows(t, db, r); len(got) != 0 {
			t.Fatalf("rows of %s left after both grants went: %v", r, got)
		}
		if got := s.accountHosts(t, r); len(got) != 3 {
			t.Fatalf("accounts of %s = %v: a grant must never drop a principal", r, got)
		}
	})
}

// TestAccAccountHost_stateWithoutHost: state the previous schema wrote
// (owner and grant without host, in attributes and identity) plans no
// change, and an apply sends no statement; the owner still logs in.
func TestAccAccountHost_stateWithoutHost(t *testing.T) {
	onMySQLFamily(t, func(t *testing.T, s accServer) {
		db, owner, r := uniqueName("hsu"), uniqueName("hsuo"), uniqueName("hsur")
		s.principal(t, r)
		t.Cleanup(func() {
			s.dropDatabase(t, db)
			s.dropLogins(t, owner, r)
		})
		w := newCLIWorkspace(t)
		w.write(s.serverHCL("") + ownerHCL(db, owner, "Owner-pw-1", 1, "") +
			grantHCL("g", "tenantdb_tenant_database.db.name", r, `["SELECT"]`, "  depends_on = [tenantdb_tenant_owner.o]"))
		w.run("apply", "-auto-approve").mustSucceed(t, "create")
		removed := 0
		w.editState(func(st map[string]any) {
			for _, res := range st["resources"].([]any) {
				typ := res.(map[string]any)["type"]
				if typ != "tenantdb_tenant_owner" && typ != "tenantdb_tenant_grant" {
					continue
				}
				for _, i := range res.(map[string]any)["instances"].([]any) {
					inst := i.(map[string]any)
					if _, ok := inst["attributes"].(map[string]any)["host"]; ok {
						delete(inst["attributes"].(map[string]any), "host")
						removed++
					}
					if id, ok := inst["identity"].(map[string]any); ok {
						delete(id, "host")
					}
				}
			}
		})
		if removed != 2 {
			t.Fatalf("removed host from %d resources, want 2: the test edits nothing", removed)
		}
		mark := s.MarkLog(t)
		w.requireEmptyPlan(t, "state without host")
		w.run("apply", "-auto-approve").mustSucceed(t, "apply")
		s.AssertNoDDL(t, mark, s.Admin.Username)
		if err := s.as(owner, "Owner-pw-1", db, "SELECT 1"); err != nil {
			t.Fatal(err)
		}
	})
}

// TestAccAccountHost_refusals: a host ending in a dot is refused at plan
// time; on PostgreSQL any host is (InvalidIdentifier); a CIDR block is
// refused on MariaDB naming its version, before any statement, and is an
// account of its own on MySQL 9.7.
func TestAccAccountHost_refusals(t *testing.T) {
	for _, engine := range engines() {
		t.Run(engine, func(t *testing.T) {
			s := testAccServer(t, engine)
			db, owner := uniqueName("hsr"), uniqueName("hsro")
			t.Cleanup(func() {
				s.dropDatabase(t, db)
				if s.Engine != "postgres" {
					s.exec(t, "", fmt.Sprintf("DROP USER IF EXISTS '%s'@'10.20.0.0/16'", owner))
				}
				s.dropLogins(t, owner)
			})
			w := newCLIWorkspace(t)
			cfg := func(host string) string {
				return s.serverHCL("") + ownerHCL(db, owner, "Owner-pw-1", 1, hostLine(host))
			}
			w.write(cfg("app.example."))
			w.run("plan").mustFail(t, "a host ending in a dot").requireDiag(t, "error", "InvalidIdentifier")
			if s.Engine == "postgres" {
				w.write(cfg("10.%"))
				w.run("plan").mustFail(t, "a host on PostgreSQL").requireDiag(t, "error", "InvalidIdentifier")
				return
			}
			w.write(cfg("10.20.0.0/16"))
			if s.Flavor == "mariadb" {
				mark := s.MarkLog(t)
				r := w.run("apply", "-auto-approve").mustFail(t, "CIDR on MariaDB")
				d := r.requireDiag(t, "error", "InvalidIdentifier")
				if !strings.Contains(d.Detail, "mariadb") || !strings.Contains(d.Detail, s.Version()[:3]) {
					t.Fatalf("the refusal does not name the server's version %s: %s", s.Version(), d.Detail)
				}
				for _, st := range s.adminDDLSince(t, mark) {
					if strings.Contains(st.Text, owner) {
						t.Fatalf("a statement about %s ran before the refusal: %s", owner, st.Text)
					}
				}
				return
			}
			w.run("apply", "-auto-approve").mustSucceed(t, "CIDR on MySQL 9.7")
			if got := s.accountHosts(t, owner); !slices.Equal(got, []string{"10.20.0.0/16"}) {
				t.Fatalf("accounts of %s = %v, want 10.20.0.0/16", owner, got)
			}
			w.run("destroy", "-auto-approve").mustSucceed(t, "destroy")
		})
	}
}

// TestAccAccountHost_ledgerUpgrade (MySQL 8.0.21+: the ledger): a ledger
// the previous version made (no host column) still proves its logins (an
// empty plan reads it as it is), and the next owner claim adds the column
// in place: the earlier row is kept, reads as '%', and still proves its
// login (its destroy drops it).
func TestAccAccountHost_ledgerUpgrade(t *testing.T) {
	s := testAccServerOnly(t, "mysql", "the ledger is MySQL's")
	dbA, ownerA, dbB, ownerB := uniqueName("hla"), uniqueName("hlao"), uniqueName("hlb"), uniqueName("hlbo")
	t.Cleanup(func() {
		s.dropDatabase(t, dbA, dbB)
		s.dropLogins(t, ownerA, ownerB)
	})
	w := newCLIWorkspace(t)
	a := s.serverHCL("") + ownerHCL(dbA, ownerA, "Owner-pw-1", 1, "")
	w.write(a)
	w.run("apply", "-auto-approve").mustSucceed(t, "owner A")
	// The previous version's table: no host column.
	s.exec(t, "", "ALTER TABLE tenantdb_claim_ledger.claims DROP COLUMN host")
	rows := func() int {
		return s.count(t, "", "SELECT COUNT(*) FROM tenantdb_claim_ledger.claims WHERE object = ? AND status = 'done'", ownerA)
	}
	if rows() != 1 {
		t.Fatalf("owner A has %d done ledger rows, want 1", rows())
	}
	w.requireEmptyPlan(t, "on the previous version's ledger").forbidDiag(t, "DriftDetected")

	b := strings.NewReplacer(`"tenantdb_tenant_database" "db"`, `"tenantdb_tenant_database" "db_b"`,
		`tenantdb_tenant_database.db.name`, `tenantdb_tenant_database.db_b.name`,
		`"tenantdb_tenant_owner" "o"`, `"tenantdb_tenant_owner" "o_b"`).Replace(ownerHCL(dbB, ownerB, "Owner-pw-2", 1, ""))
	w.write(a + b)
	w.run("apply", "-auto-approve").mustSucceed(t, "owner B: the first claim upgrades the ledger")
	if n := s.count(t, "", "SELECT COUNT(*) FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'tenantdb_claim_ledger' AND TABLE_NAME = 'claims' AND COLUMN_NAME = 'host'"); n != 1 {
		t.Fatal("the ledger has no host column after the claim")
	}
	if n := s.count(t, "", "SELECT COUNT(*) FROM tenantdb_claim_ledger.claims WHERE object = ? AND host = '%' AND status = 'done'", ownerA); n != 1 {
		t.Fatalf("owner A's row after the upgrade: %d rows at host %%, want 1", n)
	}
	w.requireEmptyPlan(t, "after the upgrade").forbidDiag(t, "DriftDetected")
	w.run("destroy", "-auto-approve").mustSucceed(t, "destroy")
	if s.loginExists(t, ownerA) || s.loginExists(t, ownerB) {
		t.Fatal("destroy kept an owner: its ledger row no longer proves it")
	}
}

// TestAccAccountHost_hostNameNeverMatches: the test servers run with
// skip_name_resolve on (checked from the server), so an owner or a grant
// at a host name pattern is made as declared and warned about (the server
// compares client addresses only: no client can log in as it); an owner
// at an address is not warned about.
func TestAccAccountHost_hostNameNeverMatches(t *testing.T) {
	onMySQLFamily(t, func(t *testing.T, s accServer) {
		if got := s.superStrings(t, "SELECT @@skip_name_resolve"); len(got) != 1 || got[0] != "1" {
			t.Fatalf("the test server's skip_name_resolve = %v, want 1: the test's premise", got)
		}
		db, owner, r := uniqueName("hsn"), uniqueName("hsno"), uniqueName("hsnr")
		s.exec(t, "", fmt.Sprintf("CREATE USER '%s'@'%%.example.com' IDENTIFIED BY '%s'", r, principalPW))
		t.Cleanup(func() {
			s.dropDatabase(t, db)
			s.exec(t, "", fmt.Sprintf("DROP USER IF EXISTS '%s'@'app%%.internal', '%s'@'127.0.0.1', '%s'@'%%.example.com'", owner, owner, r))
		})
		w := newCLIWorkspace(t)
		grant := grantHCL("g", "tenantdb_tenant_database.db.name", r, `["SELECT"]`,
			hostLine("%.Example.com")+"\n  depends_on = [tenantdb_tenant_owner.o]")
		w.write(s.serverHCL("") + ownerHCL(db, owner, "Owner-pw-1", 1, hostLine("app%.internal")) + grant)
		res := w.run("apply", "-auto-approve").mustSucceed(t, "owner and grant at host name patterns")
		warned := 0
		for _, d := range res.Diagnostics {
			if d.Severity == "warning" && d.Summary == summaryHostNeverMatches {
				warned++
				if !strings.Contains(d.Detail, "skip_name_resolve") || !strings.Contains(d.Detail, db) {
					t.Errorf("the warning does not name the setting and the database: %s", d.Detail)
				}
			}
		}
		if warned != 2 {
			t.Fatalf("%d %q warnings, want 2 (the owner and the grant):\n%+v", warned, summaryHostNeverMatches, res.Diagnostics)
		}
		if got := s.accountHosts(t, owner); !slices.Equal(got, []string{"app%.internal"}) {
			t.Fatalf("accounts of %s = %v, want app%%.internal: the account is made as declared", owner, got)
		}
		if got := s.dbRows(t, db, r); len(got) != 1 || got["%.example.com"] != "YNN" {
			t.Fatalf("rows of %s on %s = %v, want %%.example.com with SELECT", r, db, got)
		}

		w.write(s.serverHCL("") + ownerHCL(db, owner, "Owner-pw-1", 1, hostLine("127.0.0.1")))
		w.run("apply", "-auto-approve").mustSucceed(t, "the owner moved to an address, the grant removed").forbidDiag(t, summaryHostNeverMatches)
		w.run("destroy", "-auto-approve").mustSucceed(t, "destroy")
	})
}
