// SPDX-License-Identifier: MPL-2.0

package demo

import (
	"context"
	"os"
	"sync"
	"time"

	"github.com/testcontainers/testcontainers-go"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/testserver"
)

// throwawaySupported: internal/testserver starts servers on Linux.
const throwawaySupported = true

// startMu serialises starts: the backend is chosen through the environment.
var startMu sync.Mutex

// startThrowaway starts a fresh server with internal/testserver (TLS with a
// CA made at start-up on the local backend, an admin holding exactly the
// provider's documented rights, free loopback port) from the source the
// demo chose, whatever TENANTDB_TEST_* the caller has set.
func startThrowaway(ctx context.Context, f flavor, src source) (*target, error) {
	startMu.Lock()
	defer startMu.Unlock()
	env := map[string]string{testserver.EnvBackend: src.kind}
	if src.binDir != "" {
		env[testserver.EnvPostgresBinDir] = src.binDir
	}
	if src.kind == sourceDocker {
		if f == flavorPostgres {
			env[testserver.EnvPostgresImage] = f.dockerImage()
		} else {
			env[testserver.EnvMySQLImage] = f.dockerImage()
		}
	}
	restore := setenv(env)
	var opts []testserver.Option
	if f == flavorMySQL && src.kind == sourceLocal {
		opts = append(opts, testserver.WithMySQL())
	}
	srv, err := testserver.Start(ctx, f.engine(), opts...)
	restore()
	if err != nil {
		return nil, err
	}
	return &target{
		engine:  srv.Engine,
		host:    srv.Host,
		port:    srv.Port,
		admin:   login{srv.Admin.Username, srv.Admin.Password},
		tls:     srv.TLSMode(),
		caPEM:   srv.CAPEM,
		version: srv.Version(),
		dir:     srv.Dir(),
		stop:    srv.Stop,
	}, nil
}

// setenv sets the variables and returns a func that puts the old values back.
func setenv(vars map[string]string) (restore func()) {
	type old struct {
		v  string
		ok bool
	}
	saved := map[string]old{}
	for k, v := range vars {
		ov, ok := os.LookupEnv(k)
		saved[k] = old{ov, ok}
		os.Setenv(k, v)
	}
	return func() {
		for k, o := range saved {
			if o.ok {
				os.Setenv(k, o.v)
			} else {
				os.Unsetenv(k)
			}
		}
	}
}

// dockerAvailable tells whether a Docker daemon answers within about a
// second (a docker client binary alone proves nothing).
func dockerAvailable() bool {
	res := make(chan bool, 1)
	go func() {
		defer func() {
			if recover() != nil { // testcontainers may panic without a provider
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
		res <- p.Health(ctx) == nil
	}()
	select {
	case ok := <-res:
		return ok
	case <-time.After(1500 * time.Millisecond):
		return false
	}
}

// localMySQLRoot: the MySQL root testserver runs MySQL from is there and
// usable (this process is root).
func localMySQLRoot() bool {
	_, err := testserver.MySQLRoot()
	return err == nil
}
