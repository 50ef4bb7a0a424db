// SPDX-License-Identifier: MPL-2.0

package session

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/connect"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// Pool sizes. Terraform runs 10 operations at once by default, and at most
// that + 2 connections are open to one server at once (MaxServerConns).
// The admin pool keeps every connection it opened (idle up to a minute): a
// plugin process lives for one terraform command, and a connection closed
// on return is dialled again by the next burst, TLS handshake and login
// included (through an SSH bastion at N=500: 62 connections opened for a
// create instead of 11 with an idle limit of 4).
//
// MySQL and MariaDB run everything on the admin pool. On PostgreSQL an
// operation holds one admin connection for its tenant lock and needs one
// in its tenant database, so the bound is split in half: six operations
// run at once, each finding a tenant connection (with eight admin and four
// tenant connections, eight offboardings shared four and closed each
// other's between their steps: three new backends per offboarding, each
// 50-120 ms of the server's CPU on the bench machine; issue 59).
const (
	MaxServerConns      = 12
	AdminPoolMaxOpen    = 8
	PGAdminPoolMaxOpen  = MaxServerConns / 2
	TenantConns         = MaxServerConns - PGAdminPoolMaxOpen
	tenantPoolMaxOpen   = 1
	TenantPoolIdleClose = 2 * time.Second
)

// adminPoolMaxOpen is the admin pool's size on engine's servers.
func adminPoolMaxOpen(engine ddl.Engine) int {
	if engine == ddl.EnginePostgres {
		return PGAdminPoolMaxOpen
	}
	return AdminPoolMaxOpen
}

// Logger receives one line per executed statement, in redacted form only.
type Logger func(ctx context.Context, msg string, fields map[string]any)

// Counters count, for a whole provider process, what its sessions cost the
// servers (the bench and tests read them through the Registry).
type Counters struct {
	Opened   atomic.Int64 // connections opened, all servers
	Attempts atomic.Int64 // connection attempts, successful or not, all servers
	Reads    atomic.Int64 // read queries sent, all servers
}

// Session is the admin's side of one server: the pools its statements and
// reads run on, and what they learned when the first connection opened.
type Session struct {
	spec     connect.Spec
	log      Logger    // optional
	counters *Counters // shared by every server of the process

	db   *sql.DB // admin pool on the maintenance database
	info ddl.ServerInfo

	poolMu      sync.Mutex
	poolFreed   *sync.Cond // on poolMu: a tenant pool was released or closed
	TenantPools map[string]*TenantPool
	// tenantPoolsPeak is the most tenant pools ever open at once (tests).
	tenantPoolsPeak int
	// exiting holds the backend PIDs of tenant-pool connections this
	// process has closed, with when. Closing a connection only asks its
	// backend to exit, so for a moment it is still in pg_stat_activity;
	// sessions must not report it as foreign (DROP DATABASE itself waits
	// up to 5 s for such backends to go).
	exiting map[int]time.Time
	// liveOps: the lock connections of operations running now (WithLock).
	// An idle pool whose operation still runs is closed only after every
	// other idle pool: an owner's offboarding takes its tenant database's
	// connection three times between admin statements, and closing it in
	// between cost a new backend each time (issue 59).
	liveOps map[*sql.Conn]bool

	// fresh: databases this process claimed that no statement of this
	// process has run inside since (fresh_databases.go).
	freshMu sync.Mutex
	fresh   map[string]bool

	hooks WriteHooks
}

// Spec is the server's connection settings.
func (s *Session) Spec() connect.Spec { return s.spec }

// Info is the server's flavor and version, read when the session opened.
func (s *Session) Info() ddl.ServerInfo { return s.info }

// AdminPool is the admin's pool on the maintenance database, for tests
// that look at the connections it hands out; operations run through Exec
// and Query.
func (s *Session) AdminPool() *sql.DB { return s.db }

// TenantPoolsPeak is the most tenant-database pools ever open at once
// (tests: the bound TenantConns holds).
func (s *Session) TenantPoolsPeak() int {
	s.poolMu.Lock()
	defer s.poolMu.Unlock()
	return s.tenantPoolsPeak
}

// SetWriteHooks sets the hooks every plan run calls; before any operation.
func (s *Session) SetWriteHooks(h WriteHooks) { s.hooks = h }

// WriteHooks keep the caches of the layer above true: each plan run forgets
// what its operation read (BeforeWrite), and once a plan that changed
// something has run, the snapshots are dropped (AfterWrite).
type WriteHooks struct {
	BeforeWrite func(ctx context.Context)
	AfterWrite  func()
}

type TenantPool struct {
	DB       *sql.DB
	LastUsed time.Time
	InUse    int
	PIDs     map[int]bool // backend PIDs of its connections (PostgreSQL)
	// op is the lock connection of the operation that used it last (nil:
	// a read outside any operation's lock).
	op *sql.Conn
}

// exitingGrace is how long a closed connection's PID is remembered.
const exitingGrace = 30 * time.Second

// OpenSession connects to spec's server as its admin: the admin pool,
// the server's flavor and version, and the check that tenantdb supports it.
func OpenSession(ctx context.Context, spec connect.Spec, log Logger, counters *Counters) (*Session, error) {
	s := &Session{spec: spec, log: log, counters: counters, TenantPools: map[string]*TenantPool{}}
	db, err := s.open("", nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.spec.Describe(), err)
	}
	db.SetMaxOpenConns(adminPoolMaxOpen(spec.Engine))
	db.SetMaxIdleConns(adminPoolMaxOpen(spec.Engine))
	db.SetConnMaxIdleTime(time.Minute)
	info, err := detect(ctx, s.spec, db)
	if err != nil {
		db.Close()
		return nil, err
	}
	if err := ddl.CheckSupported(s.spec.Name, s.spec.Engine, info); err != nil {
		db.Close()
		return nil, err
	}
	s.db, s.info = db, info
	return s, nil
}

func (s *Session) Close() {
	s.poolMu.Lock()
	for name, p := range s.TenantPools {
		p.DB.Close()
		delete(s.TenantPools, name)
	}
	s.poolMu.Unlock()
	if s.db != nil {
		s.db.Close()
	}
}

// open returns a database/sql pool on database ("" = maintenance).
// onConnect, when set, learns each new PostgreSQL connection's backend PID.
// Every connection attempt goes through classifyingConnector, so a
// configuration error is named before retry sees it.
func (s *Session) open(database string, onConnect func(pid int)) (*sql.DB, error) {
	counter := func() { s.counters.Opened.Add(1) }
	attempt := func() { s.counters.Attempts.Add(1) }
	switch s.spec.Engine {
	case ddl.EngineMySQL:
		cfg, err := s.spec.MySQLConfig(database)
		if err != nil {
			return nil, err
		}
		conn, err := mysql.NewConnector(cfg)
		if err != nil {
			return nil, err
		}
		return sql.OpenDB(connect.NewClassifyingConnector(connect.NewCountingConnector(conn, counter), s.spec, attempt)), nil
	case ddl.EnginePostgres:
		// The maintenance pool opens before the version is known (0);
		// a tenant database's pool after it (admin_session_postgres.go).
		cfg, err := PgxSessionConfig(s.spec, database, s.info.Version.Major)
		if err != nil {
			return nil, err
		}
		opts := []stdlib.OptionOpenDB{stdlib.OptionAfterConnect(func(ctx context.Context, c *pgx.Conn) error {
			counter()
			if database != "" && PinPostgresSessions && VerifyTenantSessions {
				// Before its first statement: a session in a tenant
				// database that is not the admin's as pinned runs nothing.
				if err := VerifyAdminSession(ctx, c, s.spec.Username, database, cfg.RuntimeParams, s.ServerReadOnly); err != nil {
					c.Close(context.WithoutCancel(ctx))
					return err
				}
			}
			if onConnect != nil {
				onConnect(int(c.PgConn().PID()))
			}
			return nil
		})}
		if token := s.spec.PGBeforeConnect(); token != nil {
			opts = append(opts, stdlib.OptionBeforeConnect(token))
		}
		if database == "" {
			conn := stdlib.GetConnector(*cfg, opts...)
			return sql.OpenDB(connect.NewClassifyingConnector(conn, s.spec, attempt)), nil
		}
		// A tenant database's connection lives for one or two operations
		// (TenantPoolIdleClose), so the statement cache that pays off on
		// the admin pool costs a round trip here: it prepares every query
		// first (Parse, then Bind); the Exec mode sends both at once. The
		// liveness ping before a connection's second use stays: a server
		// restarted since is then met with a new connection, not a
		// statement whose outcome is unknown.
		cfg.DefaultQueryExecMode = pgx.QueryExecModeExec
		conn := stdlib.GetConnector(*cfg, opts...)
		return sql.OpenDB(tenantConnector{connect.NewClassifyingConnector(conn, s.spec, attempt), s, database}), nil
	}
	return nil, fmt.Errorf("unknown engine %q", s.spec.Engine)
}

// PgxSessionConfig is the pgx configuration of an admin session on
// database: spec's connection settings, the session's parameters pinned
// (admin_session_postgres.go), and a cancelled context answered by a cancel
// request instead of a closed socket: a backend waiting for a lock does not
// notice a closed socket, and the connection (with the advisory lock it
// holds for the undo) stays usable.
func PgxSessionConfig(spec connect.Spec, database string, major int) (*pgx.ConnConfig, error) {
	cfg, err := spec.PgxConfig(database)
	if err != nil {
		return nil, err
	}
	cfg.BuildContextWatcherHandler = func(c *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.CancelRequestContextWatcherHandler{Conn: c, DeadlineDelay: cancelWait}
	}
	// The session's parameters are tenantdb's, whatever the database or
	// role sets.
	pinSession(cfg.RuntimeParams, major, spec.EffectiveLockTimeout().Milliseconds())
	return cfg, nil
}

// detect reads flavor, version and (MySQL/MariaDB) lower_case_table_names
// from a fresh connection, in one round trip (MySQL 8.0.16+: a second one
// for partial_revokes).
func detect(ctx context.Context, spec connect.Spec, db *sql.DB) (ddl.ServerInfo, error) {
	var version string
	var lowerCase, validators, skipNameResolve int
	var err error
	err = Retry(ctx, spec, func(ctx context.Context) error {
		if spec.Engine == ddl.EnginePostgres {
			return db.QueryRowContext(ctx, "SHOW server_version").Scan(&version)
		}
		return db.QueryRowContext(ctx, `SELECT VERSION(), @@lower_case_table_names, (SELECT COUNT(*) FROM information_schema.PLUGINS
  WHERE PLUGIN_TYPE = 'PASSWORD VALIDATION' AND PLUGIN_STATUS = 'ACTIVE'), @@skip_name_resolve`).Scan(&version, &lowerCase, &validators,
			&skipNameResolve)
	})
	if err != nil {
		return ddl.ServerInfo{}, connectError(spec, err)
	}
	v, err := ddl.ParseVersion(version)
	if err != nil {
		return ddl.ServerInfo{}, err
	}
	flavor := ddl.FlavorPostgres
	if spec.Engine == ddl.EngineMySQL {
		flavor = ddl.FlavorMySQL
		if strings.Contains(strings.ToLower(version), "mariadb") {
			flavor = ddl.FlavorMariaDB
		}
	}
	info := ddl.ServerInfo{Flavor: flavor, Version: v, LowerCaseTableNames: lowerCase,
		PasswordValidation: flavor == ddl.FlavorMariaDB && validators > 0, SkipNameResolve: skipNameResolve != 0}
	if flavor == ddl.FlavorPostgres {
		if info.Admin, err = ddl.NewRoleName(spec.Username); err != nil {
			return ddl.ServerInfo{}, err
		}
	}
	if flavor == ddl.FlavorMySQL && v.AtLeast(8, 0, 16) {
		// partial_revokes decides how GRANT reads a database name (see
		// ddl.ServerInfo.PartialRevokes); MariaDB and MySQL before 8.0.16
		// have no such variable. Read once per pool, i.e. per provider process.
		err = Retry(ctx, spec, func(ctx context.Context) error {
			return db.QueryRowContext(ctx, "SELECT @@GLOBAL.partial_revokes").Scan(&info.PartialRevokes)
		})
		if err != nil {
			return ddl.ServerInfo{}, connectError(spec, err)
		}
	}
	return info, nil
}

// connectError names the server and says what to check.
func connectError(spec connect.Spec, err error) error {
	if _, ok := err.(*ddl.Error); ok {
		return err
	}
	return fmt.Errorf("cannot connect to %s: %w%s", spec.Describe(), err, readDetailHint(err))
}

// tenantDB returns a small pool inside one tenant database (PostgreSQL
// statements that act on schemas and tables). Call release when done. Idle
// pools stay open for TenantPoolIdleClose, so an operation's next
// statement (or the next resource's, in the same database) finds its
// connection; when all TenantConns are open, the least recently used idle
// pool is closed (a running operation's last), else the caller waits for
// one.
func (s *Session) tenantDB(ctx context.Context, database string) (*sql.DB, func(), error) {
	s.poolMu.Lock()
	defer s.poolMu.Unlock()
	if s.poolFreed == nil {
		s.poolFreed = sync.NewCond(&s.poolMu)
	}
	// Never more than TenantConns are open, so this closes only the pools
	// idle past TenantPoolIdleClose (as does release).
	s.reapLocked(TenantConns)
	p, ok := s.TenantPools[database]
	for !ok && len(s.TenantPools) >= TenantConns {
		// Every slot is taken: close the least recently used idle pool,
		// else wait for one. A holder never waits for anything but its
		// own statement (its admin reads go through its lock's
		// connection, or the admin pool, which never waits for a tenant
		// pool), so this cannot deadlock.
		s.reapLocked(s.idleTenantPoolsLocked() - 1)
		if len(s.TenantPools) < TenantConns {
			break
		}
		s.poolFreed.Wait()
		p, ok = s.TenantPools[database]
	}
	if !ok {
		p = &TenantPool{PIDs: map[int]bool{}}
		db, err := s.open(database, func(pid int) {
			s.poolMu.Lock()
			p.PIDs[pid] = true
			s.poolMu.Unlock()
		})
		if err != nil {
			return nil, nil, err
		}
		db.SetMaxOpenConns(tenantPoolMaxOpen)
		db.SetMaxIdleConns(tenantPoolMaxOpen)
		db.SetConnMaxIdleTime(TenantPoolIdleClose)
		p.DB = db
		s.TenantPools[database] = p
		s.tenantPoolsPeak = max(s.tenantPoolsPeak, len(s.TenantPools))
	}
	p.InUse++
	p.op, _ = ctx.Value(LockedConnKey{}).(*sql.Conn) // nil outside an operation's lock
	release := func() {
		s.poolMu.Lock()
		defer s.poolMu.Unlock()
		p.InUse--
		p.LastUsed = time.Now()
		s.reapLocked(TenantConns)
		s.poolFreed.Broadcast()
	}
	return p.DB, release, nil
}

// opStarted and opEnded track the operations running now (WithLock), by
// their lock connection.
func (s *Session) opStarted(op *sql.Conn) {
	s.poolMu.Lock()
	defer s.poolMu.Unlock()
	if s.liveOps == nil {
		s.liveOps = map[*sql.Conn]bool{}
	}
	s.liveOps[op] = true
}

func (s *Session) opEnded(op *sql.Conn) {
	s.poolMu.Lock()
	defer s.poolMu.Unlock()
	delete(s.liveOps, op)
}

// reapLocked closes the tenant pools idle for longer than
// tenantPoolIdleClose, then the least recently used idle ones until at most
// keep stay open idle. Least recently used first: an operation runs its
// read and its statements one after the other, each taking the pool and
// releasing it, and the pool it released a moment ago is the one its next
// statement wants (closing it costs a new connection: fork, TLS and SCRAM
// on the server).
func (s *Session) reapLocked(keep int) {
	var idle []string
	for name, p := range s.TenantPools {
		switch {
		case p.InUse > 0:
		case time.Since(p.LastUsed) > TenantPoolIdleClose:
			s.closePoolLocked(name, p)
		default:
			idle = append(idle, name)
		}
	}
	keep = max(keep, 0)
	if len(idle) <= keep {
		return
	}
	slices.SortFunc(idle, func(a, b string) int {
		pa, pb := s.TenantPools[a], s.TenantPools[b]
		if la, lb := s.liveOps[pa.op], s.liveOps[pb.op]; la != lb {
			if la {
				return 1 // a's operation still runs: close it later
			}
			return -1
		}
		return pa.LastUsed.Compare(pb.LastUsed)
	})
	for _, name := range idle[:len(idle)-keep] {
		s.closePoolLocked(name, s.TenantPools[name])
	}
}

// idleTenantPoolsLocked counts the tenant pools open and not in use.
func (s *Session) idleTenantPoolsLocked() int {
	n := 0
	for _, p := range s.TenantPools {
		if p.InUse == 0 {
			n++
		}
	}
	return n
}

// closePoolLocked closes a tenant pool and remembers its backends as
// exiting.
func (s *Session) closePoolLocked(name string, p *TenantPool) {
	p.DB.Close()
	delete(s.TenantPools, name)
	if s.poolFreed != nil {
		s.poolFreed.Broadcast()
	}
	now := time.Now()
	if s.exiting == nil {
		s.exiting = map[int]time.Time{}
	}
	for pid, at := range s.exiting {
		if now.Sub(at) > exitingGrace {
			delete(s.exiting, pid)
		}
	}
	for pid := range p.PIDs {
		s.exiting[pid] = now
	}
}

// CloseTenantPool closes this process's connections into database, so a
// drop does not count them as foreign sessions, and returns the PIDs of
// backends this process closed recently, which may still be exiting.
func (s *Session) CloseTenantPool(database string) map[int]bool {
	s.poolMu.Lock()
	defer s.poolMu.Unlock()
	if p, ok := s.TenantPools[database]; ok && p.InUse == 0 {
		s.closePoolLocked(database, p)
	}
	own := make(map[int]bool, len(s.exiting))
	for pid, at := range s.exiting {
		if time.Since(at) <= exitingGrace {
			own[pid] = true
		}
	}
	return own
}
