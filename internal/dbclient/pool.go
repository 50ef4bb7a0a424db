// SPDX-License-Identifier: MPL-2.0

package dbclient

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// Pool sizes. Terraform runs 10 operations at once by default; the admin
// pool serves them all, tenant-database pools (PostgreSQL) are few, small
// and closed when idle. The admin pool keeps every connection it opened
// (idle up to a minute): a plugin process lives for one terraform command,
// and a connection closed on return is dialled again by the next burst,
// TLS handshake and login included (through an SSH bastion at N=500: 62
// connections opened for a create instead of 11 with an idle limit of 4).
const (
	adminPoolMaxOpen  = 8
	adminPoolMaxIdle  = adminPoolMaxOpen
	tenantPoolMaxOpen = 1
	maxTenantPools    = 2
	// maxTenantConns bounds the tenant-database connections open at once,
	// idle or busy: with the admin pool that is 12 per server, Terraform's
	// default parallelism + 2, however many tenants a run touches.
	maxTenantConns      = 4
	tenantPoolIdleClose = 2 * time.Second
	connectTimeout      = 10 * time.Second
)

// Logger receives one line per executed statement, in redacted form only.
type Logger func(ctx context.Context, msg string, fields map[string]any)

// Registry holds one Server per admin spec for the life of the process.
type Registry struct {
	log      Logger // optional; set once before use
	mu       sync.Mutex
	servers  map[string]*Server
	opened   atomic.Int64 // connections opened, all servers
	attempts atomic.Int64 // connection attempts, successful or not, all servers
	reads    atomic.Int64 // read queries sent, all servers
}

// newRegistry returns an empty registry; a provider process has one.
func newRegistry() *Registry { return &Registry{servers: map[string]*Server{}} }

// NewRegistryWithLogger is newRegistry whose servers report every statement
// they execute (redacted: no secret literal ever reaches log).
func NewRegistryWithLogger(log Logger) *Registry {
	r := newRegistry()
	r.log = log
	return r
}

// ConnectionsOpened reports how many connections this registry has opened.
func (r *Registry) ConnectionsOpened() int64 { return r.opened.Load() }

// ConnectionAttempts reports how many connections this registry has tried
// to open, successfully or not (a retried failure counts once per try).
func (r *Registry) ConnectionAttempts() int64 { return r.attempts.Load() }

// ReadQueries reports how many read queries this registry has sent.
func (r *Registry) ReadQueries() int64 { return r.reads.Load() }

// Server returns the server for spec, connecting and detecting its flavor
// on first use. Later calls reuse the pool and the detected version.
func (r *Registry) Server(ctx context.Context, spec Spec) (*Server, error) {
	if err := spec.check(); err != nil {
		return nil, err
	}
	key := spec.poolKey()
	r.mu.Lock()
	s, ok := r.servers[key]
	if !ok {
		s = &Server{spec: spec, registry: r, tenantPools: map[string]*tenantPool{}}
		r.servers[key] = s
	}
	r.mu.Unlock()
	if err := s.init(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// Close closes every pool.
func (r *Registry) Close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for k, s := range r.servers {
		s.close()
		delete(r.servers, k)
	}
	closeTunnels()
}

// Server is one database server reached as its admin.
type Server struct {
	spec     Spec
	registry *Registry

	initMu sync.Mutex
	ready  bool
	db     *sql.DB // admin pool on the maintenance database
	info   ddl.ServerInfo

	catalog catalog

	poolMu      sync.Mutex
	poolFreed   *sync.Cond // on poolMu: a tenant pool was released or closed
	tenantPools map[string]*tenantPool
	// tenantPoolsPeak is the most tenant pools ever open at once (tests).
	tenantPoolsPeak int
	// exiting holds the backend PIDs of tenant-pool connections this
	// process has closed, with when. Closing a connection only asks its
	// backend to exit, so for a moment it is still in pg_stat_activity;
	// sessions must not report it as foreign (DROP DATABASE itself waits
	// up to 5 s for such backends to go).
	exiting map[int]time.Time

	// fresh: databases this process claimed that no statement of this
	// process has run inside since (fresh_databases.go).
	freshMu sync.Mutex
	fresh   map[string]bool
}

type tenantPool struct {
	db       *sql.DB
	lastUsed time.Time
	inUse    int
	pids     map[int]bool // backend PIDs of its connections (PostgreSQL)
}

// exitingGrace is how long a closed connection's PID is remembered.
const exitingGrace = 30 * time.Second

// Info is the detected flavor and version.
func (s *Server) Info() ddl.ServerInfo { return s.info }

// dialect renders for this server.
func (s *Server) dialect() ddl.Dialect { return ddl.NewDialect(s.info) }

func (s *Server) init(ctx context.Context) error {
	s.initMu.Lock()
	defer s.initMu.Unlock()
	if s.ready {
		return nil
	}
	db, err := s.open("", nil)
	if err != nil {
		return fmt.Errorf("%s: %w", s.spec.describe(), err)
	}
	db.SetMaxOpenConns(adminPoolMaxOpen)
	db.SetMaxIdleConns(adminPoolMaxIdle)
	db.SetConnMaxIdleTime(time.Minute)
	info, err := detect(ctx, s.spec, db)
	if err != nil {
		db.Close()
		return err
	}
	if err := ddl.CheckSupported(s.spec.Name, s.spec.Engine, info); err != nil {
		db.Close()
		return err
	}
	s.db, s.info, s.ready = db, info, true
	return nil
}

func (s *Server) close() {
	s.poolMu.Lock()
	for name, p := range s.tenantPools {
		p.db.Close()
		delete(s.tenantPools, name)
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
func (s *Server) open(database string, onConnect func(pid int)) (*sql.DB, error) {
	counter := func() { s.registry.opened.Add(1) }
	attempt := func() { s.registry.attempts.Add(1) }
	switch s.spec.Engine {
	case ddl.EngineMySQL:
		cfg, err := s.spec.mysqlConfig(database)
		if err != nil {
			return nil, err
		}
		conn, err := mysql.NewConnector(cfg)
		if err != nil {
			return nil, err
		}
		return sql.OpenDB(classifyingConnector{countingConnector{conn, counter}, s.spec, attempt}), nil
	case ddl.EnginePostgres:
		// The maintenance pool opens before the version is known (0);
		// a tenant database's pool after it (admin_session_postgres.go).
		cfg, err := s.spec.pgxConfig(database, s.info.Version.Major)
		if err != nil {
			return nil, err
		}
		opts := []stdlib.OptionOpenDB{stdlib.OptionAfterConnect(func(ctx context.Context, c *pgx.Conn) error {
			counter()
			if database != "" && pinPostgresSessions && verifyTenantSessions {
				// Before its first statement: a session in a tenant
				// database that is not the admin's as pinned runs nothing.
				if err := verifyAdminSession(ctx, c, s.spec.Username, database, cfg.RuntimeParams, s.serverReadOnly); err != nil {
					c.Close(context.WithoutCancel(ctx))
					return err
				}
			}
			if onConnect != nil {
				onConnect(int(c.PgConn().PID()))
			}
			return nil
		})}
		if token := s.spec.pgBeforeConnect(); token != nil {
			opts = append(opts, stdlib.OptionBeforeConnect(token))
		}
		conn := stdlib.GetConnector(*cfg, opts...)
		if database == "" {
			return sql.OpenDB(classifyingConnector{conn, s.spec, attempt}), nil
		}
		return sql.OpenDB(tenantConnector{classifyingConnector{conn, s.spec, attempt}, s, database}), nil
	}
	return nil, fmt.Errorf("unknown engine %q", s.spec.Engine)
}

// mysqlConfig is the go-sql-driver configuration for spec on database.
func (s Spec) mysqlConfig(database string) (*mysql.Config, error) {
	tlsCfg, err := s.tlsConfig()
	if err != nil {
		return nil, err
	}
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd = s.Username, s.Password.Reveal()
	// JoinHostPort: an IPv6 host needs its brackets ([::1]:3306).
	cfg.Net, cfg.Addr = "tcp", s.addr()
	// Wait for the server's greeting before the driver does, so the wrong
	// engine's port is a clear error, not a long silence.
	cfg.DialFunc = s.dialMySQL
	cfg.DBName = database
	cfg.TLS = tlsCfg
	cfg.Timeout = connectTimeout
	// Every statement waits for a lock at most lock_timeout (whole seconds,
	// at least 1): metadata locks and InnoDB row locks alike.
	wait := strconv.Itoa(max(1, int(s.lockTimeout().Seconds())))
	cfg.Params = map[string]string{"sql_mode": "'" + ddl.MySQLSessionSQLMode + "'",
		"lock_wait_timeout": wait, "innodb_lock_wait_timeout": wait}
	cfg.Collation = "utf8mb4_general_ci"
	cfg.InterpolateParams = false
	cfg.AllowNativePasswords = true
	if err := s.applyMySQLToken(cfg); err != nil {
		return nil, err
	}
	return cfg, nil
}

// pgPinnedSettings names, in pgx's connection string, every libpq setting
// pgx would otherwise take from the PG* environment variables of the
// process (Terraform's, so a CI runner's): a connection string setting wins
// over the environment. TLS, host, port, user, password, database and the
// run-time parameters are then set from the provider's own settings, so no
// variable (PGOPTIONS, PGTARGETSESSIONATTRS, PGSSLMODE, PGHOST, ...) changes
// what the provider's sessions do. PGSERVICE cannot be pinned (pgx reads
// the service whenever it is set): one it cannot read fails the connection
// with a message naming it; what a readable one sets is replaced like the
// rest.
const pgPinnedSettings = "host=localhost port=5432 dbname=postgres user=tenantdb password=unused passfile='' " +
	"sslmode=disable sslrootcert='' sslcert='' sslkey='' sslpassword='' sslsni=1 sslcertmode=allow sslnegotiation=postgres " +
	"target_session_attrs=any connect_timeout=0 min_protocol_version=3.0 max_protocol_version=3.0 " +
	"channel_binding=prefer require_auth='' krbsrvname='' krbspn='' options='' application_name=tenantdb timezone='' servicefile=''"

// pgxConfig is the pgx configuration for spec on database ("" = postgres),
// for a server of major version major (0: not known yet).
func (s Spec) pgxConfig(database string, major int) (*pgx.ConnConfig, error) {
	tlsCfg, err := s.tlsConfig()
	if err != nil {
		return nil, err
	}
	cfg, err := pgx.ParseConfig(pgPinnedSettings)
	if err != nil {
		if service, ok := os.LookupEnv("PGSERVICE"); ok {
			return nil, fmt.Errorf("server %q: the environment variable PGSERVICE=%q names a PostgreSQL service that cannot "+
				"be read (tenantdb takes no setting from it, but the driver reads it whenever it is set): unset it: %w", s.Name, service, err)
		}
		return nil, err
	}
	// What the environment could still have set is replaced: the session's
	// run-time parameters are exactly tenantdb's (PGOPTIONS, PGTZ and a
	// service file's options land in RuntimeParams).
	cfg.RuntimeParams = map[string]string{}
	cfg.ValidateConnect = nil
	// A cancelled context sends the server a cancel request and waits for
	// the statement's answer (cancelWait at most), instead of closing the
	// socket: a backend waiting for a lock does not notice a closed socket,
	// and the connection (with the advisory lock it holds for the undo)
	// stays usable.
	cfg.BuildContextWatcherHandler = func(c *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.CancelRequestContextWatcherHandler{Conn: c, DeadlineDelay: cancelWait}
	}
	// pgx takes the bare host (an IPv6 address without brackets, as
	// libpq's host) and joins it with the port itself (net.JoinHostPort).
	cfg.Host, cfg.Port = s.Host, uint16(s.Port)
	cfg.User, cfg.Password = s.Username, s.Password.Reveal()
	cfg.Database = database
	if database == "" {
		cfg.Database = "postgres"
	}
	cfg.TLSConfig = tlsCfg
	cfg.Fallbacks = nil
	if s.Bastion != nil || s.Proxy != nil {
		// Through the bastion or proxy, which resolves the host itself
		// (a name only the private network knows; socks5:// resolves it
		// here, in dialNet).
		cfg.DialFunc = s.dialNet
		cfg.LookupFunc = func(_ context.Context, host string) ([]string, error) { return []string{host}, nil }
	}
	cfg.ConnectTimeout = connectTimeout
	// The session's parameters are tenantdb's, whatever the database or
	// role sets (admin_session_postgres.go).
	pinSession(cfg.RuntimeParams, major, s.lockTimeout().Milliseconds())
	return cfg, nil
}

// detect reads flavor, version and (MySQL/MariaDB) lower_case_table_names
// from a fresh connection, in one round trip (MySQL 8.0.16+: a second one
// for partial_revokes).
func detect(ctx context.Context, spec Spec, db *sql.DB) (ddl.ServerInfo, error) {
	var version string
	var lowerCase, validators, skipNameResolve int
	var err error
	err = retry(ctx, spec, func(ctx context.Context) error {
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
		err = retry(ctx, spec, func(ctx context.Context) error {
			return db.QueryRowContext(ctx, "SELECT @@GLOBAL.partial_revokes").Scan(&info.PartialRevokes)
		})
		if err != nil {
			return ddl.ServerInfo{}, connectError(spec, err)
		}
	}
	return info, nil
}

// connectError names the server and says what to check.
func connectError(spec Spec, err error) error {
	if _, ok := err.(*ddl.Error); ok {
		return err
	}
	return fmt.Errorf("cannot connect to %s: %w%s", spec.describe(), err, readDetailHint(err))
}

// tenantDB returns a small pool inside one tenant database (PostgreSQL
// statements that act on schemas and tables). Call release when done; idle
// pools are closed, and at most maxTenantPools stay open.
func (s *Server) tenantDB(database string) (*sql.DB, func(), error) {
	s.poolMu.Lock()
	defer s.poolMu.Unlock()
	if s.poolFreed == nil {
		s.poolFreed = sync.NewCond(&s.poolMu)
	}
	s.reapLocked(maxTenantPools)
	p, ok := s.tenantPools[database]
	for !ok && len(s.tenantPools) >= maxTenantConns {
		// Every slot is taken: close the least recently used idle pool,
		// else wait for one. A holder never waits for anything but its
		// own statement, so this cannot deadlock.
		s.reapLocked(s.idleTenantPoolsLocked() - 1)
		if len(s.tenantPools) < maxTenantConns {
			break
		}
		s.poolFreed.Wait()
		p, ok = s.tenantPools[database]
	}
	if !ok {
		p = &tenantPool{pids: map[int]bool{}}
		db, err := s.open(database, func(pid int) {
			s.poolMu.Lock()
			p.pids[pid] = true
			s.poolMu.Unlock()
		})
		if err != nil {
			return nil, nil, err
		}
		db.SetMaxOpenConns(tenantPoolMaxOpen)
		db.SetMaxIdleConns(tenantPoolMaxOpen)
		db.SetConnMaxIdleTime(tenantPoolIdleClose)
		p.db = db
		s.tenantPools[database] = p
		s.tenantPoolsPeak = max(s.tenantPoolsPeak, len(s.tenantPools))
	}
	p.inUse++
	release := func() {
		s.poolMu.Lock()
		defer s.poolMu.Unlock()
		p.inUse--
		p.lastUsed = time.Now()
		s.reapLocked(maxTenantPools)
		s.poolFreed.Broadcast()
	}
	return p.db, release, nil
}

// reapLocked closes the tenant pools idle for longer than
// tenantPoolIdleClose, then the least recently used idle ones until at most
// keep stay open idle. Least recently used first: an operation runs its
// read and its statements one after the other, each taking the pool and
// releasing it, and the pool it released a moment ago is the one its next
// statement wants (closing it costs a new connection: fork, TLS and SCRAM
// on the server).
func (s *Server) reapLocked(keep int) {
	var idle []string
	for name, p := range s.tenantPools {
		switch {
		case p.inUse > 0:
		case time.Since(p.lastUsed) > tenantPoolIdleClose:
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
		return s.tenantPools[a].lastUsed.Compare(s.tenantPools[b].lastUsed)
	})
	for _, name := range idle[:len(idle)-keep] {
		s.closePoolLocked(name, s.tenantPools[name])
	}
}

// idleTenantPoolsLocked counts the tenant pools open and not in use.
func (s *Server) idleTenantPoolsLocked() int {
	n := 0
	for _, p := range s.tenantPools {
		if p.inUse == 0 {
			n++
		}
	}
	return n
}

// closePoolLocked closes a tenant pool and remembers its backends as
// exiting.
func (s *Server) closePoolLocked(name string, p *tenantPool) {
	p.db.Close()
	delete(s.tenantPools, name)
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
	for pid := range p.pids {
		s.exiting[pid] = now
	}
}

// closeTenantPool closes this process's connections into database, so a
// drop does not count them as foreign sessions, and returns the PIDs of
// backends this process closed recently, which may still be exiting.
func (s *Server) closeTenantPool(database string) map[int]bool {
	s.poolMu.Lock()
	defer s.poolMu.Unlock()
	if p, ok := s.tenantPools[database]; ok && p.inUse == 0 {
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
