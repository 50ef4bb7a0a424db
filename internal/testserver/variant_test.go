// SPDX-License-Identifier: MPL-2.0

package testserver_test

import (
	"context"
	"strings"
	"testing"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/testserver"
)

// TestLowerCaseTableNames: the shared lower_case_table_names=1 MariaDB is a
// server of its own, with the setting on, the same TLS and the same minimal
// admin, and it folds database names to lower case.
func TestLowerCaseTableNames(t *testing.T) {
	srv := testserver.Shared(t, testserver.EngineMySQL, testserver.WithLowerCaseTableNames())
	if again := testserver.Shared(t, testserver.EngineMySQL, testserver.WithLowerCaseTableNames()); again != srv {
		t.Error("Shared returned a different lower-case server on the second call")
	}
	normal := testserver.Shared(t, testserver.EngineMySQL)
	if normal == srv || normal.Port == srv.Port {
		t.Fatal("the lower-case server is the default server")
	}
	t.Logf("lower-case %s on %s: started in %v", srv.Version(), srv.Addr(), srv.StartupTime())

	for _, c := range []struct {
		srv  *testserver.Server
		want int
	}{{srv, 1}, {normal, 0}} {
		super, err := c.srv.SuperDB("")
		if err != nil {
			t.Fatal(err)
		}
		var lctn int
		if err := super.QueryRow("SELECT @@lower_case_table_names").Scan(&lctn); err != nil {
			t.Fatal(err)
		}
		if lctn != c.want {
			t.Errorf("server on %s: @@lower_case_table_names = %d, want %d", c.srv.Addr(), lctn, c.want)
		}
	}

	// The admin, over TLS verified against this server's CA, creates a
	// mixed-case database: the server stores it lower-cased.
	admin := openVerifyFull(t, srv, srv.Admin)
	var cipher, name string
	if err := admin.QueryRow("SHOW SESSION STATUS LIKE 'Ssl_cipher'").Scan(&name, &cipher); err != nil || cipher == "" {
		t.Errorf("admin session on the lower-case server not encrypted: %q, %v", cipher, err)
	}
	srv.MustExec(t, "DROP DATABASE IF EXISTS foo_x")
	mustExec(t, admin, "CREATE DATABASE Foo_X")
	t.Cleanup(func() { srv.MustExec(t, "DROP DATABASE IF EXISTS foo_x") })
	rows, err := admin.Query("SHOW DATABASES")
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	for rows.Next() {
		var db string
		if err := rows.Scan(&db); err != nil {
			t.Fatal(err)
		}
		if strings.EqualFold(db, "foo_x") {
			found = append(found, db)
		}
	}
	rows.Close()
	if len(found) != 1 || found[0] != "foo_x" {
		t.Errorf("databases named foo_x in any case: %q, want exactly [foo_x]", found)
	}
	// And the name is matched without regard to case.
	if _, err := admin.Exec("CREATE DATABASE FOO_X"); err == nil {
		t.Error("CREATE DATABASE FOO_X succeeded next to foo_x")
	}

	// The same minimal admin as the default server: not a superuser.
	super, _ := srv.SuperDB("")
	var superPriv, createUserPriv string
	if err := super.QueryRow("SELECT Super_priv, Create_user_priv FROM mysql.user WHERE User = ? AND Host = '%'",
		srv.Admin.Username).Scan(&superPriv, &createUserPriv); err != nil {
		t.Fatal(err)
	}
	if superPriv != "N" || createUserPriv != "Y" {
		t.Errorf("admin Super/Create_user = %s/%s, want N/Y", superPriv, createUserPriv)
	}
	// Its statement log works like the default server's.
	srv.RequireStatementLog(t)
}

// TestLowerCaseTableNamesRefusals: the option is for MariaDB/MySQL on the
// local and docker backends only, and says so.
func TestLowerCaseTableNamesRefusals(t *testing.T) {
	_, err := testserver.Start(context.Background(), testserver.EnginePostgres, testserver.WithLowerCaseTableNames())
	if err == nil || !strings.Contains(err.Error(), "WithLowerCaseTableNames") {
		t.Errorf("postgres with WithLowerCaseTableNames: %v, want a refusal naming the option", err)
	}
	t.Setenv(testserver.EnvBackend, testserver.BackendDSN)
	_, err = testserver.Start(context.Background(), testserver.EngineMySQL, testserver.WithLowerCaseTableNames())
	if err == nil || !strings.Contains(err.Error(), "only the local backend") {
		t.Errorf("dsn backend with WithLowerCaseTableNames: %v, want a refusal naming the local backend", err)
	}
}

// TestPostgresBinDirRefusals: WithPostgresBinDir is for PostgreSQL on the
// local backend, with a dir that holds the binaries, and says so otherwise.
func TestPostgresBinDirRefusals(t *testing.T) {
	_, err := testserver.Start(context.Background(), testserver.EngineMySQL, testserver.WithPostgresBinDir(t.TempDir()))
	if err == nil || !strings.Contains(err.Error(), "WithPostgresBinDir") {
		t.Errorf("mysql with WithPostgresBinDir: %v, want a refusal naming the option", err)
	}
	t.Setenv(testserver.EnvBackend, testserver.BackendLocal)
	_, err = testserver.Start(context.Background(), testserver.EnginePostgres, testserver.WithPostgresBinDir(t.TempDir()))
	if err == nil || !strings.Contains(err.Error(), "no postgres and initdb there") {
		t.Errorf("postgres from an empty dir: %v, want an error saying the binaries are missing", err)
	}
	t.Setenv(testserver.EnvBackend, testserver.BackendDSN)
	_, err = testserver.Start(context.Background(), testserver.EnginePostgres, testserver.WithPostgresBinDir(t.TempDir()))
	if err == nil || !strings.Contains(err.Error(), "only the local backend") {
		t.Errorf("dsn backend with WithPostgresBinDir: %v, want a refusal naming the local backend", err)
	}
}
