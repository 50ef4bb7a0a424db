// SPDX-License-Identifier: MPL-2.0

package testserver

import (
	"bytes"
	"context"
	"crypto/tls"
	"database/sql"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/jackc/pgx/v5"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/network"
	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
	tcexec "github.com/testcontainers/testcontainers-go/exec"
	"github.com/testcontainers/testcontainers-go/wait"
)

// Docker backend (testcontainers-go): the official mariadb, mysql and
// postgres images, or images that behave like them (scripts/docker-images.sh).
// Each container gets what a local server gets: the harness's CA and server
// certificate (TLS offered, verify-full), the minimal admin, the statement
// log (MariaDB/MySQL: general_log to a table, turned on at first use;
// PostgreSQL: the logging settings of the local backend, the jsonlog written
// in the data directory and read with docker exec) and the
// lower_case_table_names=1 variant (a server flag). The server listens on a
// port chosen by the harness: with host networking
// (TENANTDB_TEST_DOCKER_NETWORK=host, for daemons without a bridge network)
// the server itself listens on it, on 127.0.0.1; otherwise the container's
// standard port is published on 127.0.0.1 at that port (fixed, so that a
// Restart keeps it).

// The official images each kind runs by default (dockerImage).
const (
	defaultMySQLImage      = "mariadb:11.4"
	defaultPostgresImage   = "postgres:15"
	defaultMySQL97Image    = "mysql:9" // the 9.x line (9.7 LTS); no 9.7 tag could be checked here
	defaultMariaDB11Image  = "mariadb:11.8"
	defaultPostgres18Image = "postgres:18"
)

const (
	// dockerReadyTimeout bounds the wait for a container's server to accept
	// the harness's connection after the image's own initialisation (its
	// readiness line) is done; a restarted container has it to recover.
	dockerReadyTimeout = 2 * time.Minute
	// dockerTLSDir holds the harness's CA, server certificate and key in the
	// container (copied in before it starts).
	dockerTLSDir = "/tenantdb-tls"
	// dockerLabelRun labels every container with TENANTDB_TEST_DOCKER_RUN,
	// so that a script can remove what a killed test process left behind.
	dockerLabelRun = "org.tenantdb.testserver.run"
	// pgDockerLogDir: the PostgreSQL container's log directory, relative
	// to its data directory (PGDATA differs between images).
	pgDockerLogDir = "tenantdb-log"
)

// Docker network modes (TENANTDB_TEST_DOCKER_NETWORK).
const (
	DockerNetworkPublished = "published"
	DockerNetworkHost      = "host"
)

var (
	dockerOnce sync.Once
	dockerOK   bool
)

// dockerAvailable reports whether a Docker daemon answers, within about a
// second, once per process. A docker client binary without a daemon (as on
// the project's machines) answers false in microseconds.
func dockerAvailable() bool {
	dockerOnce.Do(func() {
		res := make(chan bool, 1)
		go func() {
			// testcontainers may panic when no provider can be configured
			// (its own SkipIfProviderIsNotHealthy recovers too).
			defer func() {
				if recover() != nil {
					res <- false
				}
			}()
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			p, err := testcontainers.NewDockerProvider()
			if err != nil {
				res <- false
				return
			}
			res <- p.Health(ctx) == nil // Health also closes the provider
		}()
		// The provider constructor takes no context: bound the whole check.
		select {
		case dockerOK = <-res:
		case <-time.After(1500 * time.Millisecond):
		}
	})
	return dockerOK
}

// dockerImageCheckTimeout bounds asking the daemon whether a registry
// serves an image it does not have (once per image and process).
const dockerImageCheckTimeout = 5 * time.Second

var (
	dockerImagesMu sync.Mutex
	dockerImages   = map[string]bool{} // image -> the daemon can start it
)

// dockerImage is the image the docker backend runs for a server kind
// (kindOf): each kind has its variable, the families' default kinds the
// engine's (TENANTDB_TEST_MYSQL_IMAGE, TENANTDB_TEST_POSTGRES_IMAGE).
func dockerImage(kind string) string {
	switch kind {
	case KindMySQL:
		return envOr(EnvMySQL97Image, defaultMySQL97Image)
	case KindMariaDB11:
		return envOr(EnvMariaDB11Image, defaultMariaDB11Image)
	case KindPostgres18:
		return envOr(EnvPostgres18Image, defaultPostgres18Image)
	case KindPostgres:
		return envOr(EnvPostgresImage, defaultPostgresImage)
	}
	return envOr(EnvMySQLImage, defaultMySQLImage)
}

// dockerCanStart reports whether auto mode may use Docker for engine: a
// daemon answers (dockerAvailable) and can start its image, because it has
// it or a registry it asks serves it. A daemon with neither (no images, no
// registry, as on the project's machines) would fail every test: auto mode
// runs local servers then, and says so once per image on stderr. Checked
// once per image and process.
func dockerCanStart(kind string) bool {
	if !dockerAvailable() {
		return false
	}
	image := dockerImage(kind)
	dockerImagesMu.Lock()
	defer dockerImagesMu.Unlock()
	if ok, done := dockerImages[image]; done {
		return ok
	}
	ok, why := dockerImageServed(image)
	dockerImages[image] = ok
	if !ok {
		fmt.Fprintf(os.Stderr, "testserver: %s=auto: the Docker daemon answers but cannot start %s (%s): running local servers instead "+
			"(%s=docker uses Docker regardless)\n", EnvBackend, image, why, EnvBackend)
	}
	return ok
}

// dockerImageServed asks the daemon whether it has image, else whether a
// registry serves it (the daemon asks the registry, bounded by
// dockerImageCheckTimeout); when neither, why not.
func dockerImageServed(image string) (bool, string) {
	ctx, cancel := context.WithTimeout(context.Background(), dockerImageCheckTimeout)
	defer cancel()
	cli, err := testcontainers.NewDockerClientWithOpts(ctx)
	if err != nil {
		return false, fmt.Sprintf("no client: %v", err)
	}
	defer cli.Close()
	if _, err := cli.ImageInspect(ctx, image); err == nil {
		return true, ""
	} else if !cerrdefs.IsNotFound(err) {
		return false, fmt.Sprintf("inspecting the image: %v", err)
	}
	if _, err := cli.DistributionInspect(ctx, image, client.DistributionInspectOptions{}); err != nil {
		return false, fmt.Sprintf("the daemon has no such image, and no registry serves it: %v", err)
	}
	return true, ""
}

func envOr(name, def string) string {
	if v := strings.TrimSpace(os.Getenv(name)); v != "" {
		return v
	}
	return def
}

// dockerHostNetwork applies TENANTDB_TEST_DOCKER_NETWORK.
func dockerHostNetwork() (bool, error) {
	switch v := strings.ToLower(envOr(EnvDockerNetwork, DockerNetworkPublished)); v {
	case DockerNetworkPublished:
		return false, nil
	case DockerNetworkHost:
		return true, nil
	default:
		return false, fmt.Errorf("%s=%q: want %q or %q", EnvDockerNetwork, v, DockerNetworkPublished, DockerNetworkHost)
	}
}

// isMariaDBImage tells MariaDB images (mariadb:11.4, docker.io/library/mariadb,
// quay.io/mariadb-foundation/mariadb-devel, ...) from MySQL ones by the
// repository name, without the tag.
func isMariaDBImage(image string) bool {
	repo := image
	if i := strings.LastIndex(repo, "/"); i >= 0 {
		repo = repo[i+1:]
	}
	if i := strings.IndexAny(repo, ":@"); i >= 0 {
		repo = repo[:i]
	}
	return strings.Contains(strings.ToLower(repo), "mariadb")
}

// dockerSpec is what differs per engine: the image, its environment, the
// server flags (the images' entrypoints take a first argument starting with
// "-" as flags for the server), and the port the server listens on inside
// the container unless told otherwise.
type dockerSpec struct {
	image   string
	env     map[string]string
	cmd     func(port int, hostNet bool) []string
	ctrPort int
}

// dockerServer is a started container and how to reach it.
type dockerServer struct {
	ctr      *testcontainers.DockerContainer
	host     string
	port     int
	hostNet  bool
	attempts int
	watchdog *watchdog
}

func startDocker(ctx context.Context, engine string, o startOptions) (*Server, error) {
	hostNet, err := dockerHostNetwork()
	if err != nil {
		return nil, err
	}
	certs, err := newCertBundle()
	if err != nil {
		return nil, err
	}
	tlsConf, err := clientTLSConfig(certs.caPEM, "127.0.0.1")
	if err != nil {
		return nil, err
	}
	image := dockerImage(kindOf(engine, o))
	if engine == EngineMySQL {
		return startDockerMySQL(ctx, image, o, hostNet, certs, tlsConf)
	}
	return startDockerPostgres(ctx, image, hostNet, certs, tlsConf)
}

// runDocker starts the container on a free port, retrying on a new port when
// the chosen one was taken meanwhile, and waits for the image's readiness
// line and then for ready to accept ready's connection.
func runDocker(ctx context.Context, spec dockerSpec, hostNet bool, certs *certBundle, readyLine string,
	ready func(ctx context.Context, host string, port int) error,
) (*dockerServer, error) {
	for attempt := 1; ; attempt++ {
		// Fresh readers per attempt: a container consumes them.
		files := []testcontainers.ContainerFile{
			{Reader: bytes.NewReader(certs.caPEM), ContainerFilePath: dockerTLSDir + "/ca.pem", FileMode: 0o644},
			{Reader: bytes.NewReader(certs.certPEM), ContainerFilePath: dockerTLSDir + "/server-cert.pem", FileMode: 0o644},
			// Readable by the server's user; PostgreSQL gets its own copy
			// (see pgDockerCmd), MariaDB/MySQL do not check the mode.
			{Reader: bytes.NewReader(certs.keyPEM), ContainerFilePath: dockerTLSDir + "/server-key.pem", FileMode: 0o644},
		}
		port, err := pickPort(attempt)
		if err != nil {
			return nil, err
		}
		ctrPort := strconv.Itoa(spec.ctrPort) + "/tcp"
		opts := []testcontainers.ContainerCustomizer{
			testcontainers.WithEnv(spec.env),
			testcontainers.WithCmd(spec.cmd(port, hostNet)...),
			testcontainers.WithFiles(files...),
			testcontainers.WithLabels(map[string]string{dockerLabelRun: envOr(EnvDockerRun, "none")}),
			testcontainers.WithWaitStrategy(wait.ForLog(readyLine).WithStartupTimeout(startTimeout)),
		}
		if hostNet {
			opts = append(opts, testcontainers.WithHostConfigModifier(func(hc *container.HostConfig) {
				hc.NetworkMode = "host"
			}),
				// testcontainers attaches every container to its default
				// network (reaper_default when the daemon has no bridge);
				// a container on the host's network can have no other.
				testcontainers.WithEndpointSettingsModifier(func(m map[string]*network.EndpointSettings) { clear(m) }))
		} else {
			opts = append(opts, testcontainers.WithExposedPorts(ctrPort),
				testcontainers.WithHostConfigModifier(func(hc *container.HostConfig) {
					p := network.MustParsePort(ctrPort)
					hc.PortBindings = network.PortMap{p: {{HostIP: netip.AddrFrom4([4]byte{127, 0, 0, 1}), HostPort: strconv.Itoa(port)}}}
				}))
		}
		ctr, err := testcontainers.Run(ctx, spec.image, opts...)
		if err == nil {
			ds := &dockerServer{ctr: ctr, host: "127.0.0.1", port: port, hostNet: hostNet, attempts: attempt}
			if err = ds.waitReady(ctx, ready); err == nil {
				if ds.watchdog, err = startDockerWatchdog(ctx, ctr.GetContainerID()); err == nil {
					return ds, nil
				}
			}
		}
		var tail string
		if ctr != nil {
			tail = containerLogTail(ctr)
			_ = testcontainers.TerminateContainer(ctr)
		}
		if attempt < bindAttempts && (portTaken(err, tail) || portBusy(port)) {
			continue
		}
		return nil, fmt.Errorf("run %s on port %d: %w%s", spec.image, port, err, tail)
	}
}

// waitReady waits until ready succeeds, failing at once when the container
// stops (a server that could not start).
func (ds *dockerServer) waitReady(ctx context.Context, ready func(ctx context.Context, host string, port int) error) error {
	deadline := time.Now().Add(dockerReadyTimeout)
	var last error
	for {
		pctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		last = ready(pctx, ds.host, ds.port)
		cancel()
		if last == nil {
			return nil
		}
		if st, err := ds.ctr.State(ctx); err == nil && !st.Running {
			return fmt.Errorf("the container stopped (exit code %d; last connect error: %v)", st.ExitCode, last)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not ready after %v: %w", dockerReadyTimeout, last)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (last error: %v)", ctx.Err(), last)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func portTaken(err error, logTail string) bool {
	s := logTail
	if err != nil {
		s += err.Error()
	}
	return strings.Contains(s, "Address already in use") || strings.Contains(s, "port is already allocated")
}

// portBusy: the port is taken now that our container is gone.
func portBusy(port int) bool {
	l, err := net.Listen("tcp", joinHostPort("127.0.0.1", port))
	if err != nil {
		return true
	}
	_ = l.Close()
	return false
}

// containerLogTail is the end of the container's output, for error messages.
func containerLogTail(ctr *testcontainers.DockerContainer) string {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	rc, err := ctr.Logs(ctx)
	if err != nil {
		return ""
	}
	defer rc.Close()
	b, _ := io.ReadAll(rc)
	const max = 3000
	if len(b) > max {
		b = b[len(b)-max:]
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return ""
	}
	return "\ncontainer output (end):\n" + string(b)
}

// crash kills the container's processes with SIGKILL (no shutdown of any
// kind) and waits until it is down; restart starts it again on the same
// port with the same data (the image's entrypoint skips its initialisation;
// the server recovers as after a crash).
func (ds *dockerServer) crash() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cli, err := testcontainers.NewDockerClientWithOpts(ctx)
	if err != nil {
		return err
	}
	defer cli.Close()
	if _, err := cli.ContainerKill(ctx, ds.ctr.GetContainerID(), client.ContainerKillOptions{Signal: "KILL"}); err != nil {
		return fmt.Errorf("testserver: kill container: %w", err)
	}
	for {
		st, err := ds.ctr.State(ctx)
		if err != nil {
			return err
		}
		if !st.Running {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("testserver: the killed container still runs: %w", ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// restarter is Restart; then (if not nil) runs once the server is ready.
func (ds *dockerServer) restarter(s *Server, ready func(ctx context.Context, host string, port int) error,
	then func(ctx context.Context) error,
) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		if err := ds.ctr.Start(ctx); err != nil {
			return fmt.Errorf("testserver: restart container: %w", err)
		}
		if err := ds.waitReady(ctx, ready); err != nil {
			return fmt.Errorf("testserver: restarted container: %w%s", err, containerLogTail(ds.ctr))
		}
		s.pid = ds.mainPID(ctx)
		if then != nil {
			return then(ctx)
		}
		return nil
	}
}

// mainPID is the host's process id of the container's main process: the
// server (the images' entrypoints exec it), 0 when unknown.
func (ds *dockerServer) mainPID(ctx context.Context) int {
	st, err := ds.ctr.State(ctx)
	if err != nil || !st.Running {
		return 0
	}
	return st.Pid
}

func (ds *dockerServer) stop() error {
	err := testcontainers.TerminateContainer(ds.ctr)
	if ds.watchdog != nil {
		ds.watchdog.dismiss()
	}
	return err
}

// dockerWatchdogScript is the docker backend's watchdog (see
// watchdogScript): when the test process is gone, however it died, it
// removes the container with the docker CLI. Started as `sh -c script
// testserver-watchdog ID`; DOCKER_HOST names the daemon testcontainers uses.
const dockerWatchdogScript = `
id=$1
while IFS= read -r line; do :; done
docker rm -f -v "$id" >/dev/null 2>&1
`

// startDockerWatchdog starts the container's watchdog; with no docker CLI on
// PATH there is none (testcontainers' reaper, when enabled, does the same).
func startDockerWatchdog(ctx context.Context, id string) (*watchdog, error) {
	if cli, _ := exec.LookPath("docker"); cli == "" {
		return nil, nil
	}
	cli, err := testcontainers.NewDockerClientWithOpts(ctx)
	if err != nil {
		return nil, err
	}
	host := cli.DaemonHost()
	_ = cli.Close()
	return runWatchdog(dockerWatchdogScript, []string{"DOCKER_HOST=" + host}, id)
}

// ---------------------------------------------------------------------------
// MariaDB and MySQL.

func startDockerMySQL(ctx context.Context, image string, o startOptions, hostNet bool, certs *certBundle, tlsConf *tls.Config) (_ *Server, err error) {
	flavor := FlavorMySQL
	if o.kind != KindMySQL && isMariaDBImage(image) {
		flavor = FlavorMariaDB
	}
	root := Login{Username: "root", Password: randomPassword()}
	spec := dockerSpec{
		image: image,
		// Both images read MYSQL_ROOT_PASSWORD (MariaDB also MARIADB_ROOT_PASSWORD).
		env:     map[string]string{"MYSQL_ROOT_PASSWORD": root.Password, "MARIADB_ROOT_PASSWORD": root.Password},
		ctrPort: 3306,
		cmd: func(port int, hostNet bool) []string {
			args := []string{
				"--innodb-buffer-pool-size=32M",
				"--performance-schema=OFF",
				"--skip-name-resolve",
				"--ssl-ca=" + dockerTLSDir + "/ca.pem",
				"--ssl-cert=" + dockerTLSDir + "/server-cert.pem",
				"--ssl-key=" + dockerTLSDir + "/server-key.pem",
			}
			switch {
			case flavor == FlavorMariaDB && o.kind == KindMariaDB11:
				// No character-set flags: as the local backend, 11.8's
				// own defaults (Debian 13's config sets none either).
				args = append(args, innodbLogFileSize)
			case flavor == FlavorMariaDB:
				// As the local backend (Debian 12's defaults).
				args = append(args, innodbLogFileSize, "--character-set-server=utf8mb4", "--collation-server=utf8mb4_general_ci")
			default:
				// No X Protocol listener: with host networking every
				// container's would want port 33060. No binary log, as
				// the local backend: with it, MySQL refuses a trigger or
				// stored function from a login without SUPER (1419), which
				// the tests' tenant owners create.
				args = append(args, "--mysqlx=OFF", "--skip-log-bin")
			}
			if o.lowerCaseTableNames {
				// The images give the server's flags to their
				// initialisation too (mariadb-install-db, mysqld
				// --initialize), as the setting requires.
				args = append(args, lowerCaseTableNamesFlag)
			}
			if hostNet {
				args = append(args, "--port="+strconv.Itoa(port), "--bind-address=127.0.0.1")
			}
			return args
		},
	}
	ready := func(ctx context.Context, host string, port int) error {
		db, err := openMySQL(mysqlTCPConfig(host, port, root, "", tlsConf))
		if err != nil {
			return err
		}
		defer db.Close()
		return db.PingContext(ctx)
	}
	// "MariaDB init process done. Ready for start up." / "MySQL init
	// process done. Ready for start up.": the temporary server of the
	// initialisation is gone (it listens on no TCP port anyway).
	ds, err := runDocker(ctx, spec, hostNet, certs, "init process done. Ready for start up.", ready)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			_ = ds.stop()
		}
	}()

	// The setup session stays out of the general log (it sets the Super and
	// Admin passwords), as on the local backend.
	cfg := mysqlTCPConfig(ds.host, ds.port, root, "", tlsConf)
	cfg.Params = map[string]string{"sql_log_off": "1"}
	rootDB, err := openMySQL(cfg)
	if err != nil {
		return nil, err
	}
	defer rootDB.Close()
	super := Login{Username: SuperUsername, Password: randomPassword()}
	admin := Login{Username: AdminUsername, Password: randomPassword()}
	if err := setupLogins(ctx, rootDB, EngineMySQL, flavor, super, admin); err != nil {
		return nil, fmt.Errorf("set up logins: %w", err)
	}
	// The general log in mysql.general_log, from now on and again after a
	// Restart (SET GLOBAL does not outlive the server; flags would reach
	// the images' initialisation too).
	logOn := func(ctx context.Context) error {
		db, err := openMySQL(cfg)
		if err != nil {
			return err
		}
		defer db.Close()
		return execAll(ctx, db, []string{"SET GLOBAL log_output = 'TABLE'", "SET GLOBAL general_log = 1"})
	}
	if err := logOn(ctx); err != nil {
		return nil, fmt.Errorf("turn the general log on: %w", err)
	}
	s := newDockerServer(ctx, EngineMySQL, flavor, ds, certs, tlsConf, super, admin)
	s.open = func(login Login, database string) (*sql.DB, error) {
		return openMySQL(mysqlTCPConfig(s.Host, s.Port, login, database, s.tlsConf))
	}
	s.restart = ds.restarter(s, ready, logOn)
	if err := finishSetup(ctx, s); err != nil {
		return nil, fmt.Errorf("%w%s", err, containerLogTail(ds.ctr))
	}
	if err := requirePasswords(ctx, s); err != nil {
		return nil, err
	}
	return s, nil
}

// ---------------------------------------------------------------------------
// PostgreSQL.

// pgDockerCmd starts the image's entrypoint with the local backend's server
// settings, after giving the postgres user its own copy of the key (the
// server refuses a key it does not own, and files copied into a container
// belong to root). The postgres images run a command that is not the server
// as it is; their entrypoint is docker-entrypoint.sh on PATH.
func pgDockerCmd(port int, hostNet bool) []string {
	const own = "/var/lib/postgresql/" + "tenantdb-tls"
	script := "install -d -o postgres -g postgres -m 700 " + own +
		" && install -o postgres -g postgres -m 600 " + dockerTLSDir + "/server-key.pem " + own + "/server-key.pem" +
		` && exec docker-entrypoint.sh "$@"`
	args := []string{"bash", "-c", script, "tenantdb-testserver", "postgres",
		"-c", "fsync=off",
		"-c", "full_page_writes=off",
		"-c", "password_encryption=scram-sha-256",
		"-c", "ssl=on",
		"-c", "ssl_cert_file=" + dockerTLSDir + "/server-cert.pem",
		"-c", "ssl_key_file=" + own + "/server-key.pem",
	}
	// The local backend's statement log (local_postgres.go), in a directory
	// of the data directory: JSON lines in postgres.json, text in
	// postgres.log (the server's own messages go there too, not to the
	// container's output, once the collector runs).
	args = append(args, pgLogArgs("stderr,jsonlog", pgDockerLogDir)...)
	if hostNet {
		// The image's temporary server (initialisation) adds its own
		// listen_addresses='' and -p after these.
		args = append(args, "-c", "listen_addresses=127.0.0.1", "-p", strconv.Itoa(port))
	}
	return args
}

func startDockerPostgres(ctx context.Context, image string, hostNet bool, certs *certBundle, tlsConf *tls.Config) (_ *Server, err error) {
	root := Login{Username: "postgres", Password: randomPassword()}
	spec := dockerSpec{
		image: image,
		env: map[string]string{
			"POSTGRES_USER": root.Username, "POSTGRES_PASSWORD": root.Password, "POSTGRES_DB": "postgres",
			// As the local backend: the same catalog whatever the image's
			// LANG, and passwords required over TCP. initdb's default is
			// trust for 127.0.0.1 (the images add a password line for
			// every other address), which with host networking is where
			// the harness and the provider connect from.
			"POSTGRES_INITDB_ARGS": "-E UTF8 --no-locale --no-sync --auth-local=trust --auth-host=scram-sha-256",
		},
		ctrPort: 5432,
		cmd:     pgDockerCmd,
	}
	rootCfg := func(host string, port int) (*pgx.ConnConfig, error) {
		cfg, err := pgConnConfig(host, port, root, "postgres", tlsConf)
		if err != nil {
			return nil, err
		}
		// Keep the harness's own sessions out of the statement log.
		cfg.RuntimeParams = map[string]string{"log_statement": "none"}
		return cfg, nil
	}
	ready := func(ctx context.Context, host string, port int) error {
		cfg, err := rootCfg(host, port)
		if err != nil {
			return err
		}
		return pgConnect(ctx, cfg)
	}
	ds, err := runDocker(ctx, spec, hostNet, certs, "PostgreSQL init process complete; ready for start up.", ready)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			_ = ds.stop()
		}
	}()
	cfg, err := rootCfg(ds.host, ds.port)
	if err != nil {
		return nil, err
	}
	rootDB := openPG(cfg)
	defer rootDB.Close()
	super := Login{Username: SuperUsername, Password: randomPassword()}
	admin := Login{Username: AdminUsername, Password: randomPassword()}
	if err := setupLogins(ctx, rootDB, EnginePostgres, FlavorPostgres, super, admin); err != nil {
		return nil, fmt.Errorf("set up roles: %w%s", err, containerLogTail(ds.ctr))
	}
	// Where the collector writes the jsonlog, as a path in the container.
	var logFile sql.NullString
	if err := rootDB.QueryRowContext(ctx, "SELECT current_setting('data_directory') || '/' || pg_current_logfile('jsonlog')").Scan(&logFile); err != nil {
		return nil, fmt.Errorf("find the jsonlog: %w", err)
	}
	if !logFile.Valid {
		return nil, fmt.Errorf("%s writes no jsonlog (PostgreSQL 15+ images only)", image)
	}

	s := newDockerServer(ctx, EnginePostgres, FlavorPostgres, ds, certs, tlsConf, super, admin)
	s.open = func(login Login, database string) (*sql.DB, error) {
		cfg, err := pgConnConfig(s.Host, s.Port, login, database, s.tlsConf)
		if err != nil {
			return nil, err
		}
		return openPG(cfg), nil
	}
	s.restart = ds.restarter(s, ready, nil)
	s.pgLogSrc = pgContainerSource{ctr: ds.ctr, path: logFile.String}
	if err := finishSetup(ctx, s); err != nil {
		return nil, fmt.Errorf("%w%s", err, containerLogTail(ds.ctr))
	}
	if err := requirePasswords(ctx, s); err != nil {
		return nil, err
	}
	return s, nil
}

// requirePasswords fails unless the server refuses the admin with a wrong
// password: tests of refusals and rotations mean nothing on a server that
// lets anyone in (an image's pg_hba.conf may trust some addresses).
func requirePasswords(ctx context.Context, s *Server) error {
	db, err := s.open(Login{Username: s.Admin.Username, Password: "wrong-" + randomPassword()}, "")
	if err != nil {
		return err
	}
	defer db.Close()
	pctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	if err := db.PingContext(pctx); err == nil {
		return fmt.Errorf("the server let %q in with a wrong password over TCP: it must require passwords", s.Admin.Username)
	}
	return nil
}

func newDockerServer(ctx context.Context, engine, flavor string, ds *dockerServer, certs *certBundle, tlsConf *tls.Config, super, admin Login) *Server {
	return &Server{
		Engine: engine, Flavor: flavor, Host: ds.host, Port: ds.port,
		CAPEM: string(certs.caPEM), Admin: admin, Super: super,
		tlsMode: "verify-full", tlsConf: tlsConf,
		pid:         ds.mainPID(ctx),
		attempts:    ds.attempts,
		ctr:         ds.ctr,
		stopBackend: ds.stop,
		crash:       ds.crash,
	}
}

// pgContainerSource reads the jsonlog in a container from a byte offset on,
// with docker exec (tail), through testcontainers.
type pgContainerSource struct {
	ctr  *testcontainers.DockerContainer
	path string
}

func (c pgContainerSource) read(ctx context.Context, off int64) (string, []byte, error) {
	code, r, err := c.ctr.Exec(ctx, []string{"tail", "-c", "+" + strconv.FormatInt(off+1, 10), c.path}, tcexec.Multiplexed())
	if err != nil {
		return "", nil, fmt.Errorf("read %s in the container: %w", c.path, err)
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return "", nil, fmt.Errorf("read %s in the container: %w", c.path, err)
	}
	if code != 0 {
		return "", nil, fmt.Errorf("read %s in the container: tail exited %d: %s", c.path, code, bytes.TrimSpace(data))
	}
	return c.path, data, nil
}
