// SPDX-License-Identifier: MPL-2.0

package dbclient

import (
	"context"
	"sync"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// Registry holds one Server per admin spec for the life of the process.
type Registry struct {
	log      Logger // optional; set once before use
	mu       sync.Mutex
	servers  map[string]*Server
	counters Counters
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
func (r *Registry) ConnectionsOpened() int64 { return r.counters.opened.Load() }

// ConnectionAttempts reports how many connections this registry has tried
// to open, successfully or not (a retried failure counts once per try).
func (r *Registry) ConnectionAttempts() int64 { return r.counters.attempts.Load() }

// ReadQueries reports how many read queries this registry has sent.
func (r *Registry) ReadQueries() int64 { return r.counters.reads.Load() }

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
		s = &Server{spec: spec, registry: r}
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

// Server is one database server reached as its admin: the tenant
// operations, run through its admin session.
type Server struct {
	spec     Spec
	registry *Registry

	initMu sync.Mutex
	ready  bool
	sess   *Session
	proof  *Proofs
	info   ddl.ServerInfo
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
	sess, err := openSession(ctx, s.spec, s.registry.log, &s.registry.counters)
	if err != nil {
		return err
	}
	proof := &Proofs{spec: s.spec, info: sess.info, sess: sess}
	sess.hooks = WriteHooks{BeforeWrite: forgetDatabaseReads, AfterWrite: proof.invalidateAccounts}
	s.sess, s.proof, s.info, s.ready = sess, proof, sess.info, true
	return nil
}

func (s *Server) close() {
	if s.sess != nil {
		s.sess.close()
	}
}
