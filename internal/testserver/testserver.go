// SPDX-License-Identifier: MPL-2.0

package testserver

import (
	"context"
	"crypto/tls"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"sort"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/testcontainers/testcontainers-go"
)

// Engine, flavor and backend names. The engine names are the provider's:
// MariaDB is engine "mysql".
const (
	EngineMySQL    = "mysql"
	EnginePostgres = "postgres"

	FlavorMariaDB  = "mariadb"
	FlavorMySQL    = "mysql"
	FlavorPostgres = "postgres"

	BackendLocal  = "local"
	BackendDocker = "docker"
	BackendDSN    = "dsn"

	// AdminUsername is the minimal-rights tenant admin the provider uses.
	AdminUsername = "tenantdb_admin"
	// SuperUsername is the setup superuser.
	SuperUsername = "tenantdb_super"
)

// Login is a username and password pair.
type Login struct{ Username, Password string }

// Server is one running database server and the logins set up on it.
type Server struct {
	Engine  string // "mysql" or "postgres" (the provider's engine names; MariaDB is engine "mysql")
	Flavor  string // "mariadb", "mysql" or "postgres"
	Host    string // "127.0.0.1" for local; whatever the backend reports otherwise
	Port    int
	CAPEM   string // PEM of the CA that signed the server cert; "" when the backend has none of ours
	Admin   Login  // the minimal-rights tenant admin the provider uses ("tenantdb_admin")
	Super   Login  // a setup superuser for inspection and out-of-band changes ("tenantdb_super")
	Backend string // "local", "docker" or "dsn"
	// ClientCertPEM and ClientKeyPEM: the admin's client certificate and
	// key under WithClientCertAdmin; "" otherwise.
	ClientCertPEM, ClientKeyPEM string

	version string
	startup time.Duration
	opts    startOptions // the options it was started with
	tlsMode string       // the provider tls mode that works against this server
	tlsConf *tls.Config  // verifies against CAPEM; nil when CAPEM is ""
	pid     int          // local and docker backends: the server process (postmaster for PostgreSQL), as this machine numbers it
	dir     string       // local backend: the temp dir holding data, socket, certs and logs
	// docker backend: the container
	ctr *testcontainers.DockerContainer
	// local backend: server starts it took to bind a free port
	attempts int
	// local PostgreSQL: the collector's jsonlog file, read by the statement log
	pgJSONLogFile string
	// local PostgreSQL 14 and older (no jsonlog): its csvlog file instead
	pgCSVLogFile string
	// docker PostgreSQL: the jsonlog in the container
	pgLogSrc pgLogSource

	// open opens a *sql.DB for the login on the database, over TCP (+TLS per
	// tlsMode). Set by the backend because DSN-based servers keep the DSN's
	// own connection options.
	open func(login Login, database string) (*sql.DB, error)
	// stopBackend ends the server (local process, container) or, for dsn,
	// does nothing. Called once, after dropSQL ran and the pools closed.
	stopBackend func() error
	// crash and restart: the local backend's Crash and Restart (crash.go).
	crash   func() error
	restart func(ctx context.Context) error
	// dropSQL runs as superuser at Stop before anything is closed (dsn backend:
	// drop the admin login we created on someone else's server).
	dropSQL []string

	mu      sync.Mutex
	dbs     map[string]*sql.DB
	stopped bool
	stopErr error

	// Statement log (statementlog.go), set up on first use.
	logMu       sync.Mutex
	stmtLog     statementLogReader
	logRestored bool // dsn: restore statements for settings we changed are queued in dropSQL
}

// Start starts a fresh server of the given engine ("mysql" or "postgres") using
// the backend chosen by environment (see the package comment), configured by
// opts (e.g. WithLowerCaseTableNames). Caller must call Stop (RunMain stops
// leftovers too).
func Start(ctx context.Context, engine string, opts ...Option) (*Server, error) {
	if engine != EngineMySQL && engine != EnginePostgres {
		return nil, fmt.Errorf("testserver: unknown engine %q (want %q or %q)", engine, EngineMySQL, EnginePostgres)
	}
	o, err := resolveKind(engine, newStartOptions(opts))
	if err != nil {
		return nil, err
	}
	if err := o.check(engine); err != nil {
		return nil, err
	}
	backend, err := chooseBackend(engine, o)
	if err != nil {
		return nil, err
	}
	if o.needsLocal(backend) && backend != BackendLocal {
		which := "only the local backend"
		if !o.localOnly() {
			which = "only the local backend or docker"
		}
		return nil, fmt.Errorf("testserver: %s %s: %s can start such a server, and %s chose the %s backend "+
			"(set %s=local, or unset %s)", engine, o, which, EnvBackend, backend, EnvBackend, dsnEnv(engine))
	}
	t0 := time.Now()
	var s *Server
	switch backend {
	case BackendLocal:
		s, err = startLocal(ctx, engine, o)
	case BackendDocker:
		s, err = startDocker(ctx, engine, o)
	case BackendDSN:
		s, err = startDSN(ctx, engine)
	}
	if err != nil {
		return nil, fmt.Errorf("testserver: start %s%s (%s backend): %w", engine, o.suffix(), backend, err)
	}
	if o.clientCertAdmin {
		if err := requireClientCertAdmin(ctx, s); err != nil {
			_ = s.Stop()
			return nil, fmt.Errorf("testserver: start %s%s: %w", engine, o.suffix(), err)
		}
	}
	s.startup = time.Since(t0)
	s.Backend = backend
	s.opts = o
	track(s)
	recordVersion(s)
	return s, nil
}

// Stop drops what the harness created on a shared (dsn) server, closes the
// cached superuser pools, stops the server and removes its temp dir. It is
// idempotent and safe to call concurrently; later calls return the first
// call's error.
func (s *Server) Stop() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return s.stopErr
	}
	s.stopped = true
	defer untrack(s)

	var errs []error
	if len(s.dropSQL) > 0 {
		if db, err := s.superDBLocked(""); err != nil {
			errs = append(errs, err)
		} else {
			for _, stmt := range s.dropSQL {
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				if _, err := db.ExecContext(ctx, stmt); err != nil {
					errs = append(errs, fmt.Errorf("cleanup %q: %w", stmt, err))
				}
				cancel()
			}
		}
	}
	// Closing a pool whose connections the server already ended (a test
	// dropped that database WITH (FORCE)) reports a broken pipe: the
	// connections are gone either way, so that is not a failure.
	for _, db := range s.dbs {
		_ = db.Close()
	}
	s.dbs = nil
	if s.stopBackend != nil {
		if err := s.stopBackend(); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		s.stopErr = fmt.Errorf("testserver: stop %s%s (%s): %w", s.Engine, s.opts.suffix(), s.Backend, err)
	}
	return s.stopErr
}

// Version returns the server version string as the server reports it
// (MySQL/MariaDB: SELECT VERSION(), e.g. "10.11.14-MariaDB-0+deb12u2";
// PostgreSQL: SHOW server_version, e.g. "15.18 (Debian 15.18-0+deb12u1)").
func (s *Server) Version() string { return s.version }

// StartupTime is how long Start took, backend selection excluded.
func (s *Server) StartupTime() time.Duration { return s.startup }

// PID is the server's process id (the postmaster for PostgreSQL) for the local
// backend and, as this machine numbers it, for the docker backend's container
// (when the daemon runs here; 0 when unknown); 0 for dsn.
func (s *Server) PID() int { return s.pid }

// Dir is the temp dir of a local server ("" for other backends). Stop removes it.
func (s *Server) Dir() string { return s.dir }

// Addr is "host:port".
func (s *Server) Addr() string { return joinHostPort(s.Host, s.Port) }

// TLSMode is the provider tls mode that works against this server:
// "verify-full" when CAPEM is set, else "require" or "disable" as the
// backend allows.
func (s *Server) TLSMode() string { return s.tlsMode }

// TLSConfig returns a fresh client TLS config that verifies the server against
// CAPEM (and the host name 127.0.0.1/localhost), or nil when CAPEM is "".
func (s *Server) TLSConfig() *tls.Config {
	if s.tlsConf == nil {
		return nil
	}
	return s.tlsConf.Clone()
}

// Open opens a new *sql.DB as the given login on the named database ("" =
// default) over TCP, with TLS as TLSMode says (verified against CAPEM when
// set). Not cached: the caller closes it.
func (s *Server) Open(login Login, database string) (*sql.DB, error) {
	return s.open(login, database)
}

// SuperDB opens a *sql.DB as the superuser on the named database ("" =
// default: none for mysql, "postgres" for PostgreSQL) over TCP (+TLS verified
// against CAPEM when set). Cached per database name, closed by Stop: do not
// close it yourself.
func (s *Server) SuperDB(database string) (*sql.DB, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return nil, fmt.Errorf("testserver: %s server already stopped", s.Engine)
	}
	return s.superDBLocked(database)
}

func (s *Server) superDBLocked(database string) (*sql.DB, error) {
	if db, ok := s.dbs[database]; ok {
		return db, nil
	}
	db, err := s.open(s.Super, database)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if err := db.PingContext(ctx); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("testserver: connect as superuser %q to %s database %q: %w", s.Super.Username, s.Engine, database, err)
	}
	if s.dbs == nil {
		s.dbs = map[string]*sql.DB{}
	}
	s.dbs[database] = db
	return db, nil
}

// MustExec runs statements, one per string, as the superuser on the default
// database, failing the test on the first error.
func (s *Server) MustExec(t testing.TB, stmts ...string) {
	t.Helper()
	db, err := s.SuperDB("")
	if err != nil {
		t.Fatalf("%v", err)
	}
	for _, stmt := range stmts {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		_, err := db.ExecContext(ctx, stmt)
		cancel()
		if err != nil {
			t.Fatalf("testserver: %s superuser exec %q: %v", s.Engine, stmt, err)
		}
	}
}

// CreateLogin creates an extra login (MySQL: 'name'@'%') with the given
// password, then runs the grants, complete statements such as
// "GRANT CREATE ON *.* TO 'weak'@'%'" or "ALTER ROLE weak CREATEDB", as
// superuser. For tests that need e.g. a weaker admin. The login is dropped
// (best effort) when the test ends, so tests may reuse names; on a shared dsn
// server, pick names that parallel runs do not share.
func (s *Server) CreateLogin(t testing.TB, name, password string, grants ...string) Login {
	t.Helper()
	s.MustExec(t, createLoginSQL(s.Engine, name, password))
	t.Cleanup(func() {
		db, err := s.SuperDB("")
		if err != nil {
			t.Logf("testserver: drop login %q: %v", name, err)
			return
		}
		if _, err := db.Exec(dropLoginSQL(s.Engine, name)); err != nil {
			t.Logf("testserver: drop login %q (left behind): %v", name, err)
		}
	})
	s.MustExec(t, grants...)
	return Login{Username: name, Password: password}
}

// ---------------------------------------------------------------------------
// Package-wide servers: Shared, RunMain and the live-server registry.

// startTimeout bounds a Shared start. Local servers are ready in seconds;
// the docker backend may first have to pull an image.
const startTimeout = 5 * time.Minute

type sharedEntry struct {
	once sync.Once
	srv  *Server
	err  error
}

var (
	runMainActive atomic.Bool
	sharedMu      sync.Mutex
	shared        = map[string]*sharedEntry{}

	liveMu sync.Mutex
	live   = map[*Server]struct{}{}
)

func track(s *Server) {
	liveMu.Lock()
	live[s] = struct{}{}
	liveMu.Unlock()
}

func untrack(s *Server) {
	liveMu.Lock()
	delete(live, s)
	liveMu.Unlock()
}

// Shared returns the package-wide server of that engine and options, starting
// it on first use, and fails the test (t.Fatalf, never t.Skip) when it cannot
// start. Servers are shared per engine and set of options: Shared(t, "mysql")
// and Shared(t, "mysql", WithLowerCaseTableNames()) are two servers. A failed
// start is not retried: every later caller fails with the same error. The
// test binary's TestMain must use RunMain, which stops the servers.
//
// The one skip: when TENANTDB_TEST_ENGINES is set and leaves the server's
// kind out (EngineSelected: "mariadb" for Shared(t, "mysql"), "mysql" for
// Shared(t, "mysql", WithMySQL()), "postgres"), Shared skips the test,
// saying so, and starts nothing.
func Shared(t testing.TB, engine string, opts ...Option) *Server {
	t.Helper()
	o, err := resolveKind(engine, newStartOptions(opts))
	if err != nil {
		t.Fatalf("%v", err)
	}
	if kind := kindOf(engine, o); !EngineSelected(kind) {
		t.Skipf("testserver: %s=%q leaves out the %s server", EnvEngines, os.Getenv(EnvEngines), kind)
	}
	key := engine + o.suffix()
	if !runMainActive.Load() {
		t.Fatalf("testserver.Shared(%q): TestMain must call testserver.RunMain so that shared servers are stopped: "+
			"func TestMain(m *testing.M) { os.Exit(testserver.RunMain(m)) }", key)
	}
	sharedMu.Lock()
	e := shared[key]
	if e == nil {
		e = &sharedEntry{}
		shared[key] = e
	}
	sharedMu.Unlock()
	e.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
		defer cancel()
		e.srv, e.err = Start(ctx, engine, opts...)
	})
	if e.err != nil {
		t.Fatalf("%v", e.err)
	}
	return e.srv
}

// StartKind is Start for a server kind (AllKinds; "mariadb" and "postgres"
// are the process's release of the family, see kinds.go), with more options.
func StartKind(ctx context.Context, kind string, opts ...Option) (*Server, error) {
	engine, opt := KindServer(kind)
	return Start(ctx, engine, append([]Option{opt}, opts...)...)
}

// Kind is the server's family kind: "mariadb", "mysql" (MySQL) or
// "postgres", the names tests compare; MariaDB 11.8 and PostgreSQL 18
// serve their family's tests and answer "mariadb" and "postgres" (Release
// names them). A dsn server is the kind it was asked for, whatever it
// turned out to be.
func (s *Server) Kind() string { return familyOf(kindOf(s.Engine, s.opts)) }

// Release is the server's kind as TENANTDB_TEST_ENGINES names it: Kind, or
// "mariadb11" and "postgres18" for the newer releases (kinds.go).
func (s *Server) Release() string { return kindOf(s.Engine, s.opts) }

// SharedKind is Shared for a server kind (AllKinds, as StartKind), with
// more options (e.g. WithLowerCaseTableNames).
func SharedKind(t testing.TB, kind string, opts ...Option) *Server {
	t.Helper()
	engine, opt := KindServer(kind)
	return Shared(t, engine, append([]Option{opt}, opts...)...)
}

// RunMain wraps testing.M: it runs the tests, then stops every server still
// running (those Shared started and any Start left); it also stops them on
// SIGINT/SIGTERM before exiting with 128+signal. A Stop failure turns a
// passing run into exit code 1. Names under .invalid resolve in-process
// (dns_invalid.go). Usage:
//
//	func TestMain(m *testing.M) { os.Exit(testserver.RunMain(m)) }
func RunMain(m *testing.M) (code int) {
	runMainActive.Store(true)
	answerInvalidNamesInProcess()

	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-sigs:
			fmt.Fprintf(os.Stderr, "testserver: %v received, stopping throwaway servers\n", sig)
			if err := stopAll(); err != nil {
				fmt.Fprintln(os.Stderr, err)
			}
			n := 1
			if s, ok := sig.(syscall.Signal); ok {
				n = 128 + int(s)
			}
			os.Exit(n)
		case <-done:
		}
	}()

	// The deferred stop also runs when TestMain's own goroutine panics. A
	// panic in a test goroutine kills the process without unwinding here;
	// the per-server watchdog cleans up in that case.
	defer func() {
		signal.Stop(sigs)
		close(done)
		if err := stopAll(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			if code == 0 {
				code = 1
			}
		}
	}()
	return m.Run()
}

// stopAll stops every live server, concurrently (stopping is mostly waiting).
func stopAll() error {
	liveMu.Lock()
	servers := make([]*Server, 0, len(live))
	for s := range live {
		servers = append(servers, s)
	}
	liveMu.Unlock()
	sort.Slice(servers, func(i, j int) bool { return servers[i].Engine < servers[j].Engine })

	errs := make([]error, len(servers))
	var wg sync.WaitGroup
	for i, s := range servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = s.Stop()
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}
