// SPDX-License-Identifier: MPL-2.0

package tenant

import (
	"context"
	"sync"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/connect"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/proof"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/session"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// Registry holds one Server per admin spec for the life of the process.
type Registry struct {
	log      session.Logger // optional; set once before use
	mu       sync.Mutex
	servers  map[string]*Server
	counters session.Counters
}

// newRegistry returns an empty registry; a provider process has one.
func newRegistry() *Registry { return &Registry{servers: map[string]*Server{}} }

// NewRegistryWithLogger is newRegistry whose servers report every statement
// they execute (redacted: no secret literal ever reaches log).
func NewRegistryWithLogger(log session.Logger) *Registry {
	r := newRegistry()
	r.log = log
	return r
}

// ConnectionsOpened reports how many connections this registry has opened.
func (r *Registry) ConnectionsOpened() int64 { return r.counters.Opened.Load() }

// ConnectionAttempts reports how many connections this registry has tried
// to open, successfully or not (a retried failure counts once per try).
func (r *Registry) ConnectionAttempts() int64 { return r.counters.Attempts.Load() }

// ReadQueries reports how many read queries this registry has sent.
func (r *Registry) ReadQueries() int64 { return r.counters.Reads.Load() }

// Server returns the server for spec, connecting and detecting its flavor
// on first use. Later calls reuse the pool and the detected version.
func (r *Registry) Server(ctx context.Context, spec connect.Spec) (*Server, error) {
	if err := spec.Check(); err != nil {
		return nil, err
	}
	key := spec.PoolKey()
	r.mu.Lock()
	s, ok := r.servers[key]
	if !ok {
		s = &Server{spec: spec, registry: r}
		r.servers[key] = s
		if spec.Bastion != nil {
			connect.HoldTunnel(spec.Bastion)
		}
	}
	r.mu.Unlock()
	if err := s.init(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// Close closes every pool, and lets go of the SSH connections of its
// servers' bastions (another registry's stay open).
func (r *Registry) Close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for k, s := range r.servers {
		s.close()
		if s.spec.Bastion != nil {
			connect.ReleaseTunnel(s.spec.Bastion)
		}
		delete(r.servers, k)
	}
}

// Server is one database server reached as its admin: the tenant
// operations, run through its admin session.
type Server struct {
	spec     connect.Spec
	registry *Registry

	initMu sync.Mutex
	ready  bool
	sess   *session.Session
	proof  *proof.Server
	info   ddl.ServerInfo

	// settingsChecked: the plan-time verdicts on database settings, by
	// character set and collation (preflight.go).
	settingsMu      sync.Mutex
	settingsChecked map[[2]string]error
	// passwordPolicy: the server's password-validation variables, read
	// once per process by the first plan-time password check.
	policyMu sync.Mutex
	policy   *ddl.PasswordPolicy
}

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
	sess, err := session.OpenSession(ctx, s.spec, s.registry.log, &s.registry.counters)
	if err != nil {
		return err
	}
	s.sess, s.proof, s.info, s.ready = sess, proof.New(sess), sess.Info(), true
	return nil
}

func (s *Server) close() {
	if s.sess != nil {
		s.sess.Close()
	}
}
