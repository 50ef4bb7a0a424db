// SPDX-License-Identifier: MPL-2.0

package testserver

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/modules/mariadb"
	"github.com/testcontainers/testcontainers-go/modules/mysql"
	"github.com/testcontainers/testcontainers-go/modules/postgres"
)

// Docker backend (testcontainers-go). No certificate of ours is installed in
// the containers: CAPEM is "" and TLSMode says what the image offers.

const (
	defaultMySQLImage    = "mariadb:11.4"
	defaultPostgresImage = "postgres:15"
	// dockerReadyTimeout: the module's wait strategy has already seen the
	// "ready" log line; this only covers the last moments before TCP accepts.
	dockerReadyTimeout = 60 * time.Second
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

func envOr(name, def string) string {
	if v := strings.TrimSpace(os.Getenv(name)); v != "" {
		return v
	}
	return def
}

func startDocker(ctx context.Context, engine string) (*Server, error) {
	if engine == EngineMySQL {
		return startDockerMySQL(ctx)
	}
	return startDockerPostgres(ctx)
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

func splitEndpoint(endpoint string) (string, int, error) {
	host, p, err := net.SplitHostPort(endpoint)
	if err != nil {
		return "", 0, fmt.Errorf("container endpoint %q: %w", endpoint, err)
	}
	port, err := strconv.Atoi(p)
	if err != nil {
		return "", 0, fmt.Errorf("container endpoint %q: %w", endpoint, err)
	}
	return host, port, nil
}

func startDockerMySQL(ctx context.Context) (_ *Server, err error) {
	image := envOr(EnvMySQLImage, defaultMySQLImage)
	flavor := FlavorMySQL
	if isMariaDBImage(image) {
		flavor = FlavorMariaDB
	}
	rootPW := randomPassword()

	var ctr testcontainers.Container
	if flavor == FlavorMariaDB {
		c, runErr := mariadb.Run(ctx, image,
			mariadb.WithUsername("root"), mariadb.WithPassword(rootPW), mariadb.WithDatabase(""))
		if c != nil {
			ctr = c
		}
		err = runErr
	} else {
		c, runErr := mysql.Run(ctx, image,
			mysql.WithUsername("root"), mysql.WithPassword(rootPW), mysql.WithDatabase(""))
		if c != nil {
			ctr = c
		}
		err = runErr
	}
	if ctr != nil {
		defer func() {
			if err != nil {
				_ = testcontainers.TerminateContainer(ctr)
			}
		}()
	}
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", image, err)
	}
	endpoint, err := ctr.PortEndpoint(ctx, "3306/tcp", "")
	if err != nil {
		return nil, err
	}
	host, port, err := splitEndpoint(endpoint)
	if err != nil {
		return nil, err
	}

	// "preferred": TLS when the server offers it (MariaDB 11.4+ and MySQL 8
	// images make a self-signed certificate), without verification since the
	// CA is the image's own.
	const tlsName = "preferred"
	rootDB, err := openMySQL(mysqlTCPConfig(host, port, Login{"root", rootPW}, "", nil, tlsName))
	if err != nil {
		return nil, err
	}
	defer rootDB.Close()
	if err := waitFor(ctx, dockerReadyTimeout, nil, rootDB.PingContext); err != nil {
		return nil, err
	}
	tlsMode := "disable"
	var haveSSL string
	if err := rootDB.QueryRowContext(ctx, "SELECT @@have_ssl").Scan(&haveSSL); err == nil && haveSSL == "YES" {
		tlsMode = "require"
	}
	super := Login{Username: SuperUsername, Password: randomPassword()}
	admin := Login{Username: AdminUsername, Password: randomPassword()}
	if err := setupLogins(ctx, rootDB, EngineMySQL, flavor, super, admin); err != nil {
		return nil, fmt.Errorf("set up logins: %w", err)
	}

	s := &Server{
		Engine: EngineMySQL, Flavor: flavor, Host: host, Port: port,
		Admin: admin, Super: super, tlsMode: tlsMode,
	}
	s.open = func(login Login, database string) (*sql.DB, error) {
		return openMySQL(mysqlTCPConfig(host, port, login, database, nil, tlsName))
	}
	s.stopBackend = func() error { return testcontainers.TerminateContainer(ctr) }
	if err := finishSetup(ctx, s); err != nil {
		return nil, err
	}
	return s, nil
}

func startDockerPostgres(ctx context.Context) (_ *Server, err error) {
	image := envOr(EnvPostgresImage, defaultPostgresImage)
	bootstrapPW := randomPassword()
	c, err := postgres.Run(ctx, image,
		postgres.WithUsername("postgres"), postgres.WithPassword(bootstrapPW), postgres.WithDatabase("postgres"),
		// The image starts the server twice (init, then for real): wait for
		// the second "ready" and the port.
		postgres.BasicWaitStrategies())
	if c != nil {
		defer func() {
			if err != nil {
				_ = testcontainers.TerminateContainer(c)
			}
		}()
	}
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", image, err)
	}
	endpoint, err := c.PortEndpoint(ctx, "5432/tcp", "")
	if err != nil {
		return nil, err
	}
	host, port, err := splitEndpoint(endpoint)
	if err != nil {
		return nil, err
	}

	// The postgres images have ssl = off unless configured; connect in the clear.
	cfg, err := pgConnConfig(host, port, Login{"postgres", bootstrapPW}, "postgres", nil)
	if err != nil {
		return nil, err
	}
	rootDB := openPG(cfg)
	defer rootDB.Close()
	if err := waitFor(ctx, dockerReadyTimeout, nil, rootDB.PingContext); err != nil {
		return nil, err
	}
	tlsMode := "disable"
	var ssl string
	if err := rootDB.QueryRowContext(ctx, "SHOW ssl").Scan(&ssl); err == nil && ssl == "on" {
		tlsMode = "require"
	}
	super := Login{Username: SuperUsername, Password: randomPassword()}
	admin := Login{Username: AdminUsername, Password: randomPassword()}
	if err := setupLogins(ctx, rootDB, EnginePostgres, FlavorPostgres, super, admin); err != nil {
		return nil, fmt.Errorf("set up roles: %w", err)
	}

	s := &Server{
		Engine: EnginePostgres, Flavor: FlavorPostgres, Host: host, Port: port,
		Admin: admin, Super: super, tlsMode: tlsMode,
	}
	s.open = func(login Login, database string) (*sql.DB, error) {
		cfg, err := pgConnConfig(host, port, login, database, nil)
		if err != nil {
			return nil, err
		}
		return openPG(cfg), nil
	}
	s.stopBackend = func() error { return testcontainers.TerminateContainer(c) }
	if err := finishSetup(ctx, s); err != nil {
		return nil, err
	}
	return s, nil
}
