// SPDX-License-Identifier: MPL-2.0

package testserver_test

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" database/sql driver

	"github.com/tenantdb/terraform-provider-tenantdb/internal/testserver"
)

func TestMain(m *testing.M) { os.Exit(testserver.RunMain(m)) }

var engines = []string{testserver.EngineMySQL, testserver.EnginePostgres}

// TestSharedServers starts both shared servers and reports what they cost.
func TestSharedServers(t *testing.T) {
	for _, engine := range engines {
		t.Run(engine, func(t *testing.T) {
			srv := testserver.Shared(t, engine)
			if srv.Engine != engine {
				t.Fatalf("Engine = %q, want %q", srv.Engine, engine)
			}
			if srv.Admin.Username != testserver.AdminUsername && srv.Backend != testserver.BackendDSN {
				t.Errorf("Admin.Username = %q, want %q", srv.Admin.Username, testserver.AdminUsername)
			}
			if len(srv.Admin.Password) != 24 {
				t.Errorf("admin password has %d characters, want 24", len(srv.Admin.Password))
			}
			if srv.Version() == "" {
				t.Error("Version() is empty")
			}
			if again := testserver.Shared(t, engine); again != srv {
				t.Error("Shared returned a different server on the second call")
			}
			msg := fmt.Sprintf("%s (%s backend, flavor %s) %s on %s: started in %v",
				engine, srv.Backend, srv.Flavor, srv.Version(), srv.Addr(), srv.StartupTime().Round(time.Millisecond))
			if pid := srv.PID(); pid != 0 {
				main, tree, n := rssKB(t, pid)
				msg += fmt.Sprintf(", VmRSS %d MiB (server process), %d MiB over %d processes", main/1024, tree/1024, n)
			}
			t.Log(msg)
		})
	}
}

// TestAdminOverVerifiedTLS connects as the admin over TCP with TLS verified
// against CAPEM the way a client configured with tls = "verify-full" does,
// and checks that the session really is encrypted.
func TestAdminOverVerifiedTLS(t *testing.T) {
	for _, engine := range engines {
		t.Run(engine, func(t *testing.T) {
			srv := testserver.Shared(t, engine)
			if srv.CAPEM == "" {
				t.Fatalf("%s backend offers no CA (TLSMode %q): this test needs the local backend", srv.Backend, srv.TLSMode())
			}
			db := openVerifyFull(t, srv, srv.Admin)
			var encrypted bool
			switch engine {
			case testserver.EngineMySQL:
				var name, cipher string
				if err := db.QueryRow("SHOW SESSION STATUS LIKE 'Ssl_cipher'").Scan(&name, &cipher); err != nil {
					t.Fatal(err)
				}
				encrypted = cipher != ""
			case testserver.EnginePostgres:
				if err := db.QueryRow("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()").Scan(&encrypted); err != nil {
					t.Fatal(err)
				}
			}
			if !encrypted {
				t.Error("admin session is not encrypted")
			}
		})
	}
}

// TestPlaintextAllowed: TLS is offered, not required, so tests can cover tls = "disable".
func TestPlaintextAllowed(t *testing.T) {
	for _, engine := range engines {
		t.Run(engine, func(t *testing.T) {
			srv := testserver.Shared(t, engine)
			var db *sql.DB
			var err error
			if engine == testserver.EngineMySQL {
				db, err = sql.Open("mysql", fmt.Sprintf("%s:%s@tcp(%s)/", srv.Admin.Username, srv.Admin.Password, srv.Addr()))
			} else {
				db, err = sql.Open("pgx", fmt.Sprintf("host=%s port=%d user=%s password=%s dbname=postgres sslmode=disable",
					srv.Host, srv.Port, srv.Admin.Username, srv.Admin.Password))
			}
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if err := db.Ping(); err != nil {
				t.Fatalf("plaintext admin connection: %v", err)
			}
		})
	}
}

// TestVerifyFullRejectsOtherCA: a client trusting some other CA must fail,
// which shows the verified connections above verify something.
func TestVerifyFullRejectsOtherCA(t *testing.T) {
	srv := testserver.Shared(t, testserver.EnginePostgres)
	other := testserver.Shared(t, testserver.EngineMySQL) // every server has its own CA
	if other.CAPEM == "" || other.CAPEM == srv.CAPEM {
		t.Fatal("need two servers with distinct CAs")
	}
	caFile := filepath.Join(t.TempDir(), "other-ca.pem")
	if err := os.WriteFile(caFile, []byte(other.CAPEM), 0o600); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("pgx", fmt.Sprintf("host=%s port=%d user=%s password=%s dbname=postgres sslmode=verify-full sslrootcert=%s",
		srv.Host, srv.Port, srv.Admin.Username, srv.Admin.Password, caFile))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Ping(); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Fatalf("connection trusting another CA: got %v, want a certificate error", err)
	}
}

func TestAdminIsNotSuperuser(t *testing.T) {
	t.Run("mysql", func(t *testing.T) {
		srv := testserver.Shared(t, testserver.EngineMySQL)
		super, err := srv.SuperDB("")
		if err != nil {
			t.Fatal(err)
		}
		var superPriv, grantPriv, createUserPriv string
		if err := super.QueryRow("SELECT Super_priv, Grant_priv, Create_user_priv FROM mysql.user WHERE User = ? AND Host = '%'",
			srv.Admin.Username).Scan(&superPriv, &grantPriv, &createUserPriv); err != nil {
			t.Fatal(err)
		}
		if superPriv != "N" || grantPriv != "Y" || createUserPriv != "Y" {
			t.Errorf("admin Super/Grant/Create_user = %s/%s/%s, want N/Y/Y", superPriv, grantPriv, createUserPriv)
		}
		db := openVerifyFull(t, srv, srv.Admin)
		rows, err := db.Query("SHOW GRANTS")
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var g string
			if err := rows.Scan(&g); err != nil {
				t.Fatal(err)
			}
			if strings.Contains(g, "ALL PRIVILEGES") || strings.Contains(g, "SUPER") {
				t.Errorf("admin grant too wide: %s", g)
			}
		}
		rows.Close()
		// A SUPER-only action must be refused (1227: access denied; you need SUPER).
		_, err = db.Exec("SET GLOBAL max_connections = 200")
		var me *mysql.MySQLError
		if !errors.As(err, &me) || me.Number != 1227 {
			t.Errorf("SET GLOBAL as admin: got %v, want error 1227", err)
		}
	})
	t.Run("postgres", func(t *testing.T) {
		srv := testserver.Shared(t, testserver.EnginePostgres)
		db := openVerifyFull(t, srv, srv.Admin)
		var isSuper, createDB, createRole bool
		if err := db.QueryRow("SELECT rolsuper, rolcreatedb, rolcreaterole FROM pg_roles WHERE rolname = current_user").
			Scan(&isSuper, &createDB, &createRole); err != nil {
			t.Fatal(err)
		}
		if isSuper || !createDB || !createRole {
			t.Errorf("admin rolsuper/rolcreatedb/rolcreaterole = %v/%v/%v, want false/true/true", isSuper, createDB, createRole)
		}
		if _, err := db.Exec("ALTER SYSTEM SET work_mem = '8MB'"); err == nil || !strings.Contains(err.Error(), "42501") {
			t.Errorf("ALTER SYSTEM as admin: got %v, want SQLSTATE 42501", err)
		}
		// And the super login really is one.
		sdb, err := srv.SuperDB("")
		if err != nil {
			t.Fatal(err)
		}
		if err := sdb.QueryRow("SELECT rolsuper FROM pg_roles WHERE rolname = current_user").Scan(&isSuper); err != nil || !isSuper {
			t.Errorf("super login: rolsuper = %v, err %v", isSuper, err)
		}
	})
}

// TestAdminCanCreateDatabaseAndUser runs, as the admin, what the provider does
// for a tenant: database, login, grant, and the reverse.
func TestAdminCanCreateDatabaseAndUser(t *testing.T) {
	t.Run("mysql", func(t *testing.T) {
		srv := testserver.Shared(t, testserver.EngineMySQL)
		db := openVerifyFull(t, srv, srv.Admin)
		mustExec(t, db,
			"CREATE DATABASE tenant_probe",
			"CREATE USER 'tenant_probe_user'@'%' IDENTIFIED BY 'Pr0bePassw0rd'",
			"GRANT SELECT, INSERT, UPDATE, DELETE, CREATE, DROP ON `tenant\\_probe`.* TO 'tenant_probe_user'@'%'",
			"DROP USER 'tenant_probe_user'@'%'",
			"DROP DATABASE tenant_probe",
		)
	})
	t.Run("postgres", func(t *testing.T) {
		srv := testserver.Shared(t, testserver.EnginePostgres)
		db := openVerifyFull(t, srv, srv.Admin)
		mustExec(t, db,
			"CREATE DATABASE tenant_probe",
			"CREATE ROLE tenant_probe_user LOGIN PASSWORD 'Pr0bePassw0rd'",
			"GRANT CONNECT ON DATABASE tenant_probe TO tenant_probe_user",
			"REVOKE CONNECT ON DATABASE tenant_probe FROM tenant_probe_user",
			"DROP ROLE tenant_probe_user",
			"DROP DATABASE tenant_probe",
		)
	})
}

// TestCreateLogin makes a weaker admin and checks it is indeed weaker.
func TestCreateLogin(t *testing.T) {
	t.Run("mysql", func(t *testing.T) {
		srv := testserver.Shared(t, testserver.EngineMySQL)
		weak := srv.CreateLogin(t, "weak_admin", "We4kPassw0rd", "GRANT CREATE USER ON *.* TO 'weak_admin'@'%'")
		db := openVerifyFull(t, srv, weak)
		_, err := db.Exec("CREATE DATABASE weak_probe")
		var me *mysql.MySQLError
		if !errors.As(err, &me) || me.Number != 1044 {
			t.Errorf("CREATE DATABASE as weak login: got %v, want error 1044", err)
		}
	})
	t.Run("postgres", func(t *testing.T) {
		srv := testserver.Shared(t, testserver.EnginePostgres)
		weak := srv.CreateLogin(t, "weak_admin", "We4kPassw0rd", "ALTER ROLE weak_admin CREATEROLE")
		db := openVerifyFull(t, srv, weak)
		if _, err := db.Exec("CREATE DATABASE weak_probe"); err == nil || !strings.Contains(err.Error(), "42501") {
			t.Errorf("CREATE DATABASE as weak login: got %v, want SQLSTATE 42501", err)
		}
	})
}

func TestMustExecAndSuperDB(t *testing.T) {
	srv := testserver.Shared(t, testserver.EnginePostgres)
	srv.MustExec(t, "CREATE DATABASE super_probe")
	db, err := srv.SuperDB("super_probe")
	if err != nil {
		t.Fatal(err)
	}
	var name string
	if err := db.QueryRow("SELECT current_database()").Scan(&name); err != nil || name != "super_probe" {
		t.Fatalf("current_database() = %q, %v", name, err)
	}
	if again, _ := srv.SuperDB("super_probe"); again != db {
		t.Error("SuperDB is not cached per database")
	}
	mdb, err := testserver.Shared(t, testserver.EngineMySQL).SuperDB("mysql")
	if err != nil {
		t.Fatal(err)
	}
	if err := mdb.QueryRow("SELECT DATABASE()").Scan(&name); err != nil || name != "mysql" {
		t.Fatalf("DATABASE() = %q, %v", name, err)
	}
}

// TestDSNBackend points the dsn backend at the local shared servers, through
// their superuser, and checks it adds a uniquely named admin and drops it on Stop.
func TestDSNBackend(t *testing.T) {
	for _, engine := range engines {
		t.Run(engine, func(t *testing.T) {
			target := testserver.Shared(t, engine)
			caFile := filepath.Join(t.TempDir(), "ca.pem")
			if err := os.WriteFile(caFile, []byte(target.CAPEM), 0o600); err != nil {
				t.Fatal(err)
			}
			if engine == testserver.EngineMySQL {
				t.Setenv(testserver.EnvMySQLDSN, fmt.Sprintf("%s:%s@tcp(%s)/?tls=skip-verify",
					target.Super.Username, target.Super.Password, target.Addr()))
			} else {
				t.Setenv(testserver.EnvPostgresDSN, fmt.Sprintf("postgres://%s:%s@%s/postgres?sslmode=verify-full&sslrootcert=%s",
					target.Super.Username, target.Super.Password, target.Addr(), caFile))
			}
			t.Setenv(testserver.EnvBackend, "") // auto: a DSN for the engine selects dsn
			t.Setenv(testserver.EnvCAFile, caFile)

			srv, err := testserver.Start(context.Background(), engine)
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Stop()
			if srv.Backend != testserver.BackendDSN || srv.Flavor != target.Flavor || srv.Version() != target.Version() {
				t.Errorf("backend/flavor/version = %s/%s/%s, want dsn/%s/%s", srv.Backend, srv.Flavor, srv.Version(), target.Flavor, target.Version())
			}
			if srv.TLSMode() != "verify-full" || srv.CAPEM != target.CAPEM {
				t.Errorf("TLSMode %q (CAPEM set: %v), want verify-full with the CA file", srv.TLSMode(), srv.CAPEM != "")
			}
			if !strings.HasPrefix(srv.Admin.Username, testserver.AdminUsername+"_") || srv.Super != target.Super {
				t.Errorf("admin %q / super %q: want a suffixed admin and the DSN's login", srv.Admin.Username, srv.Super.Username)
			}
			admin, err := srv.Open(srv.Admin, "")
			if err != nil {
				t.Fatal(err)
			}
			if err := admin.Ping(); err != nil {
				t.Fatalf("admin connection: %v", err)
			}
			admin.Close()
			if err := srv.Stop(); err != nil {
				t.Fatalf("Stop: %v", err)
			}
			super, err := target.SuperDB("")
			if err != nil {
				t.Fatal(err)
			}
			q := "SELECT COUNT(*) FROM mysql.user WHERE User = ?"
			if engine == testserver.EnginePostgres {
				q = "SELECT COUNT(*) FROM pg_roles WHERE rolname = $1"
			}
			var n int
			if err := super.QueryRow(q, srv.Admin.Username).Scan(&n); err != nil || n != 0 {
				t.Errorf("admin %s after Stop: count %d, err %v; want it dropped", srv.Admin.Username, n, err)
			}
		})
	}
}

// TestStopRemovesDirAndProcess starts fresh (unshared) servers and checks that
// Stop leaves neither processes nor files behind. Their first start attempt
// gets a port that is taken, so the bind-failure retry runs too.
func TestStopRemovesDirAndProcess(t *testing.T) {
	testserver.BusyFirstPort(t)
	for _, engine := range engines {
		t.Run(engine, func(t *testing.T) {
			skipUnselected(t, engine)
			t.Parallel()
			srv, err := testserver.Start(context.Background(), engine)
			if err != nil {
				t.Fatal(err)
			}
			if n := testserver.StartAttempts(srv); n != 2 {
				t.Errorf("server took %d start attempts, want 2 (first port busy)", n)
			}
			// docker: a container, not a dir (its server process is on
			// this machine too when the daemon is).
			pid, dir, ctr := srv.PID(), srv.Dir(), testserver.ContainerID(srv)
			t.Logf("fresh %s: started in %v, pid %d, dir %s, container %s", engine, srv.StartupTime().Round(time.Millisecond), pid, dir, ctr)
			switch srv.Backend {
			case testserver.BackendLocal:
				if _, err := os.Stat(dir); err != nil {
					t.Fatalf("server dir: %v", err)
				}
			case testserver.BackendDocker:
				if !testserver.ContainerExists(t, ctr) {
					t.Fatalf("container %s not found", ctr)
				}
			default:
				srv.Stop()
				t.Fatalf("backend %s: this test needs the local or docker backend", srv.Backend)
			}
			t0 := time.Now()
			if err := srv.Stop(); err != nil {
				t.Fatalf("Stop: %v", err)
			}
			t.Logf("fresh %s: stopped in %v", engine, time.Since(t0).Round(time.Millisecond))
			if err := srv.Stop(); err != nil {
				t.Errorf("second Stop: %v", err)
			}
			if ctr != "" && testserver.ContainerExists(t, ctr) {
				t.Errorf("container %s still there after Stop", ctr)
			}
			if pid != 0 && alive(pid) {
				t.Errorf("server process %d still alive after Stop", pid)
			}
			if dir != "" {
				if _, err := os.Stat(dir); !os.IsNotExist(err) {
					t.Errorf("dir %s still there after Stop (stat: %v)", dir, err)
				}
				if left := processesMentioning(dir); len(left) > 0 {
					t.Errorf("processes still mention %s after Stop: %v", dir, left)
				}
			}
			if _, err := srv.SuperDB(""); err == nil {
				t.Error("SuperDB after Stop succeeded")
			}
		})
	}
}

// TestCleanupAfterAbnormalExit runs this test binary as a child that starts a
// server and then dies without running its deferred cleanup: by a panic in a
// test goroutine (only the watchdog can clean up), and by SIGTERM (RunMain's
// handler stops the server).
func TestCleanupAfterAbnormalExit(t *testing.T) {
	cases := []struct{ mode, engine string }{
		{"panic", testserver.EnginePostgres},
		{"sigterm", testserver.EngineMySQL},
	}
	for _, c := range cases {
		t.Run(c.mode, func(t *testing.T) {
			skipUnselected(t, c.engine)
			t.Parallel()
			cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.v")
			cmd.Env = append(os.Environ(), "TESTSERVER_HELPER_MODE="+c.mode, "TESTSERVER_HELPER_ENGINE="+c.engine)
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			cmd.Stderr = cmd.Stdout
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			var pid int
			var dir string
			var transcript []string
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				line := sc.Text()
				transcript = append(transcript, line)
				if f := strings.Fields(line); len(f) == 3 && f[0] == "HELPER-SERVER" {
					pid, _ = strconv.Atoi(f[1])
					dir = f[2]
					if c.mode == "sigterm" {
						_ = cmd.Process.Signal(syscall.SIGTERM)
					}
				}
			}
			err = cmd.Wait()
			if pid == 0 {
				t.Fatalf("helper did not report a server: %v\n%s", err, strings.Join(transcript, "\n"))
			}
			if c.mode == "sigterm" {
				var ee *exec.ExitError
				if !errors.As(err, &ee) || ee.ExitCode() != 128+int(syscall.SIGTERM) {
					t.Errorf("helper exit: %v, want status %d", err, 128+int(syscall.SIGTERM))
				}
			}
			// The SIGTERM path cleans up before exiting; the watchdog needs a
			// moment (its rm may still be exiting when the dir is gone).
			// docker: the helper names its container instead of a dir, and
			// the watchdog removes it.
			ctr, isCtr := strings.CutPrefix(dir, "container:")
			ctrLeft := func() bool { return isCtr && testserver.ContainerExists(t, ctr) }
			deadline := time.Now().Add(30 * time.Second)
			for time.Now().Before(deadline) && (alive(pid) || exists(dir) || len(processesMentioning(dir)) > 0 || ctrLeft()) {
				time.Sleep(50 * time.Millisecond)
			}
			if ctrLeft() {
				t.Errorf("container %s survived the helper's %s", ctr, c.mode)
			}
			if alive(pid) {
				t.Errorf("server process %d survived the helper's %s", pid, c.mode)
			}
			if exists(dir) {
				t.Errorf("dir %s survived the helper's %s", dir, c.mode)
			}
			if left := processesMentioning(dir); len(left) > 0 {
				t.Errorf("processes still mention %s: %v", dir, left)
			}
		})
	}
}

// TestHelperProcess is the child of TestCleanupAfterAbnormalExit; it does
// nothing in a normal run.
func TestHelperProcess(t *testing.T) {
	mode := os.Getenv("TESTSERVER_HELPER_MODE")
	if mode == "" {
		return
	}
	srv := testserver.Shared(t, os.Getenv("TESTSERVER_HELPER_ENGINE"))
	where := srv.Dir()
	if id := testserver.ContainerID(srv); id != "" {
		where = "container:" + id
	}
	fmt.Printf("HELPER-SERVER %d %s\n", srv.PID(), where)
	switch mode {
	case "panic":
		panic("simulated crash in a test goroutine")
	case "sigterm":
		time.Sleep(time.Minute) // the parent sends SIGTERM
	}
}

// ---------------------------------------------------------------------------
// helpers

// skipUnselected skips a test that starts a server of engine with Start
// (Shared skips by itself) when TENANTDB_TEST_ENGINES leaves engine out.
func skipUnselected(t *testing.T, engine string) {
	t.Helper()
	kind := engine // Start(ctx, "mysql") starts MariaDB, kind "mariadb"
	if engine == testserver.EngineMySQL {
		kind = testserver.KindMariaDB
	}
	if !testserver.EngineSelected(kind) {
		t.Skipf("%s=%q leaves out engine %q", testserver.EnvEngines, os.Getenv(testserver.EnvEngines), engine)
	}
}

// openVerifyFull connects over TCP with TLS verified against CAPEM and the
// host name, as a client configured with tls = "verify-full" does: a
// registered tls.Config for go-sql-driver, sslmode=verify-full with
// sslrootcert for pgx.
func openVerifyFull(t *testing.T, srv *testserver.Server, login testserver.Login) *sql.DB {
	t.Helper()
	var db *sql.DB
	var err error
	switch srv.Engine {
	case testserver.EngineMySQL:
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM([]byte(srv.CAPEM)) {
			t.Fatal("CAPEM holds no certificate")
		}
		name := fmt.Sprintf("verify-full-%d", srv.Port)
		// ServerName left empty: go-sql-driver fills in the DSN's host.
		if err := mysql.RegisterTLSConfig(name, &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}); err != nil {
			t.Fatal(err)
		}
		db, err = sql.Open("mysql", fmt.Sprintf("%s:%s@tcp(%s)/?tls=%s", login.Username, login.Password, srv.Addr(), name))
	case testserver.EnginePostgres:
		caFile := filepath.Join(t.TempDir(), "ca.pem")
		if err := os.WriteFile(caFile, []byte(srv.CAPEM), 0o600); err != nil {
			t.Fatal(err)
		}
		db, err = sql.Open("pgx", fmt.Sprintf("host=%s port=%d user=%s password=%s dbname=postgres sslmode=verify-full sslrootcert=%s",
			srv.Host, srv.Port, login.Username, login.Password, caFile))
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Ping(); err != nil {
		t.Fatalf("connect as %s with verify-full: %v", login.Username, err)
	}
	return db
}

func mustExec(t *testing.T, db *sql.DB, stmts ...string) {
	t.Helper()
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// alive reports whether pid is a live process (a zombie counts as dead).
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || !strings.HasPrefix(s[i+1:], " Z")
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// processesMentioning lists live processes whose command line contains s.
func processesMentioning(s string) []string {
	entries, _ := os.ReadDir("/proc")
	var found []string
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.Contains(string(b), s) && alive(pid) {
			found = append(found, fmt.Sprintf("%d: %s", pid, strings.ReplaceAll(string(b), "\x00", " ")))
		}
	}
	return found
}

// rssKB returns VmRSS of pid, the sum over pid and its descendants (shared
// memory is counted once per process), and the number of processes.
func rssKB(t *testing.T, pid int) (main, tree int, n int) {
	t.Helper()
	children := map[int][]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) > 1 {
			ppid, _ := strconv.Atoi(f[1])
			children[ppid] = append(children[ppid], p)
		}
	}
	var walk func(int)
	walk = func(p int) {
		kb := vmRSS(p)
		if p == pid {
			main = kb
		}
		tree += kb
		n++
		for _, c := range children[p] {
			walk(c)
		}
	}
	walk(pid)
	return main, tree, n
}

func vmRSS(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			f := strings.Fields(rest)
			if len(f) > 0 {
				kb, _ := strconv.Atoi(f[0])
				return kb
			}
		}
	}
	return 0
}

// TestCABundle: n certificates, the included CA among them, fresh fillers
// per call, generated quickly.
func TestCABundle(t *testing.T) {
	t.Parallel()
	ca := testserver.UnrelatedCAPEM(t)
	start := time.Now()
	a, err := testserver.CABundle(111, ca, 50)
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	b, err := testserver.CABundle(111, ca, 7)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(a, "-----BEGIN CERTIFICATE-----"); n != 111 {
		t.Fatalf("%d certificates, want 111", n)
	}
	if !strings.Contains(a, ca) || !strings.Contains(b, ca) || a == b {
		t.Fatal("each bundle must hold the CA, with different fillers")
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM([]byte(a)) {
		t.Fatal("not PEM")
	}
	t.Logf("111 certificates, %d bytes, in %v", len(a), took)
}
