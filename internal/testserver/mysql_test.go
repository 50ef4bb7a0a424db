// SPDX-License-Identifier: MPL-2.0

package testserver_test

import (
	"context"
	"database/sql"
	"strings"
	"testing"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/testserver"
)

// TestMySQLServer: the MySQL kind is MySQL 9 (not MariaDB) on engine
// "mysql", the admin reaches it over verified TLS with caching_sha2_password
// and holds exactly README's rights (no SUPER, no ALL), and the statement
// log shows what the admin sent.
func TestMySQLServer(t *testing.T) {
	srv := testserver.SharedKind(t, testserver.KindMySQL)
	if srv.Engine != testserver.EngineMySQL || srv.Flavor != testserver.FlavorMySQL {
		t.Fatalf("engine %q flavor %q, want mysql/mysql", srv.Engine, srv.Flavor)
	}
	if !strings.HasPrefix(srv.Version(), "9.") || strings.Contains(strings.ToLower(srv.Version()), "mariadb") {
		t.Fatalf("version %q, want MySQL 9", srv.Version())
	}
	if srv.TLSMode() != "verify-full" {
		t.Fatalf("TLSMode %q, want verify-full", srv.TLSMode())
	}
	db := openVerifyFull(t, srv, srv.Admin)
	var name, cipher string
	if err := db.QueryRow("SHOW SESSION STATUS LIKE 'Ssl_cipher'").Scan(&name, &cipher); err != nil || cipher == "" {
		t.Fatalf("the admin's session is not encrypted (cipher %q, %v)", cipher, err)
	}
	var plugin string
	if err := mustSuper(t, srv).QueryRow("SELECT plugin FROM mysql.user WHERE user = ?", srv.Admin.Username).Scan(&plugin); err != nil || plugin != "caching_sha2_password" {
		t.Fatalf("the admin authenticates with %q (%v), want caching_sha2_password", plugin, err)
	}
	rows, err := db.Query("SHOW GRANTS")
	if err != nil {
		t.Fatal(err)
	}
	var grants []string
	for rows.Next() {
		var g string
		if err := rows.Scan(&g); err != nil {
			t.Fatal(err)
		}
		grants = append(grants, g)
	}
	rows.Close()
	all := strings.Join(grants, "\n")
	if strings.Contains(all, "ALL PRIVILEGES") || strings.Contains(all, " SUPER") || !strings.Contains(all, "CREATE USER") {
		t.Fatalf("the admin's grants are not README's minimal rights:\n%s", all)
	}

	mark := srv.MarkLog(t)
	if _, err := db.Exec("CREATE DATABASE mysql_kind_probe"); err != nil {
		t.Fatal(err)
	}
	srv.MustExec(t, "DROP DATABASE mysql_kind_probe")
	ddl, err := srv.DDLSince(context.Background(), mark, srv.Admin.Username)
	if err != nil || len(ddl) != 1 || ddl[0].Text != "CREATE DATABASE mysql_kind_probe" {
		t.Fatalf("the statement log shows %v (%v) for the admin, want its one CREATE DATABASE", ddl, err)
	}
}

// TestMySQLLowerCaseTableNames: the variant folds names on MySQL too.
func TestMySQLLowerCaseTableNames(t *testing.T) {
	srv := testserver.SharedKind(t, testserver.KindMySQL, testserver.WithLowerCaseTableNames())
	var lctn int
	if err := mustSuper(t, srv).QueryRow("SELECT @@lower_case_table_names").Scan(&lctn); err != nil || lctn != 1 {
		t.Fatalf("lower_case_table_names = %d (%v), want 1", lctn, err)
	}
	srv.MustExec(t, "CREATE DATABASE Folded_X")
	defer srv.MustExec(t, "DROP DATABASE folded_x")
	var n int
	if err := mustSuper(t, srv).QueryRow("SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = 'folded_x'").Scan(&n); err != nil || n != 1 {
		t.Fatalf("CREATE DATABASE Folded_X made %d folded_x (%v), want 1", n, err)
	}
}

func mustSuper(t *testing.T, srv *testserver.Server) *sql.DB {
	t.Helper()
	db, err := srv.SuperDB("")
	if err != nil {
		t.Fatal(err)
	}
	return db
}
