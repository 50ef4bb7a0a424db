// SPDX-License-Identifier: MPL-2.0

package connect

import (
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// TLSMode is how the client protects the connection.
type TLSMode string

const (
	TLSDisable    TLSMode = "disable"     // plaintext
	TLSRequire    TLSMode = "require"     // encrypted, certificate not verified
	TLSVerifyCA   TLSMode = "verify-ca"   // encrypted, chain verified, host name not
	TLSVerifyFull TLSMode = "verify-full" // encrypted, chain and host name verified
)

// TLSModes lists the accepted modes, for validators.
var TLSModes = []string{string(TLSDisable), string(TLSRequire), string(TLSVerifyCA), string(TLSVerifyFull)}

// Spec is how to reach one server as its admin. The password is a
// ddl.Password, so no format verb can print it.
type Spec struct {
	Name     string // the tenantdb_db_server name, for messages
	Engine   ddl.Engine
	Host     string
	Port     int
	Username string
	Password ddl.Password
	TLS      TLSMode
	CAPEM    string
	// ClientCert is the certificate the admin presents (mutual TLS); nil
	// for none.
	ClientCert *ClientCert
	// Bastion is the SSH jump host the connections go through; nil for
	// a direct connection (dial_ssh.go).
	Bastion *SSHBastion
	// Proxy is the SOCKS5 proxy the connections go through; nil for none
	// (dial_socks5.go). Never together with Bastion.
	Proxy *SOCKS5Proxy
	// LockTimeout bounds how long one statement waits for a lock held by
	// someone else (0: defaultLockTimeout).
	LockTimeout time.Duration
	// ShallowGrantRefresh: PostgreSQL grants are refreshed from the catalog
	// snapshot only (database-level privileges, the principal's identity),
	// never from inside the tenant database (see ReadGrant).
	ShallowGrantRefresh bool
	// Auth: a token login (no Password; a fresh token for every new
	// connection, auth_token.go). Zero: password login.
	Auth CloudAuth
}

// defaultLockTimeout is the provider's lock_timeout when none is set.
const defaultLockTimeout = 30 * time.Second

// EffectiveLockTimeout is the effective wait, whole seconds for MySQL's variables.
func (s Spec) EffectiveLockTimeout() time.Duration {
	if s.LockTimeout <= 0 {
		return defaultLockTimeout
	}
	return s.LockTimeout
}

// PoolKey identifies a pool. It includes a digest of the password and the
// CA so a changed password or CA opens a new pool; the key lives in memory
// only.
func (s Spec) PoolKey() string {
	ca := caDigest(s.CAPEM)
	h := sha256.Sum256([]byte(s.Password.Reveal() + "\x00" + string(ca[:])))
	return fmt.Sprintf("%s|%s|%d|%s|%s|%s|%s|%t|%q|%s|%s", s.Engine, s.Host, s.Port, s.Username, s.TLS, hex.EncodeToString(h[:8]), s.EffectiveLockTimeout(),
		s.ShallowGrantRefresh, s.Auth.key(), s.ClientCert.digest(), s.bastionID()+s.proxyID())
}

// caDigests remembers the SHA-256 of each CA this process has connected
// with. A CA can be a cloud provider's bundle of a hundred certificates
// (about 140 KB) and every resource operation computes its pool key: this
// hashes it once (a lookup compares the string, which is the same string
// for every call from one provider configuration). Bounded: a process sees
// one CA per server.
var caDigests struct {
	sync.Mutex
	m map[string][32]byte
}

func caDigest(pem string) [32]byte {
	caDigests.Lock()
	defer caDigests.Unlock()
	if d, ok := caDigests.m[pem]; ok {
		return d
	}
	if caDigests.m == nil || len(caDigests.m) >= 8 {
		caDigests.m = make(map[string][32]byte, 8)
	}
	d := sha256.Sum256([]byte(pem))
	caDigests.m[pem] = d
	return d
}

// Describe names the server in errors, without secrets.
func (s Spec) Describe() string {
	return fmt.Sprintf("server %q (%s at %s as %s)", s.Name, s.Engine, s.Addr(), s.Username)
}

// Addr is host:port for dialling and messages; an IPv6 host gets its
// brackets here ([::1]:3306), and only here.
func (s Spec) Addr() string { return net.JoinHostPort(s.Host, strconv.Itoa(s.Port)) }

// Check applies the provider's plan-time rules for host and port again
// before anything is dialled (ddl holds the one rule).
func (s Spec) Check() error {
	if err := ddl.ValidateHost(s.Host); err != nil {
		return err
	}
	if err := ddl.ValidatePort(int64(s.Port)); err != nil {
		return fmt.Errorf("server %q: %w", s.Name, err)
	}
	if s.ClientCert != nil && s.TLS == TLSDisable {
		return fmt.Errorf("server %q: %w", s.Name, errClientCertWithoutTLS)
	}
	return nil
}

// tlsConfig builds the client TLS configuration for this server's mode.
func (s Spec) tlsConfig() (*tls.Config, error) {
	cfg, err := ClientTLS(s.TLS, s.Host, s.CAPEM)
	if err != nil {
		return nil, err
	}
	return s.withClientCert(cfg)
}

// ClientTLS builds the client side of a tls mode for host, verifying
// against caPEM (the system roots when ""). It is nil for "disable".
func ClientTLS(mode TLSMode, host, caPEM string) (*tls.Config, error) {
	if mode == "" {
		mode = TLSRequire
	}
	if mode == TLSDisable {
		return nil, nil
	}
	var roots *x509.CertPool
	if caPEM != "" {
		roots = x509.NewCertPool()
		if !roots.AppendCertsFromPEM([]byte(caPEM)) {
			return nil, errors.New("the CA (the provider's ca_certs) holds no PEM certificate")
		}
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, RootCAs: roots, ServerName: host}
	switch mode {
	case TLSRequire:
		cfg.InsecureSkipVerify = true
	case TLSVerifyCA:
		// Verify the chain against the CA but not the host name, as
		// libpq's verify-ca does.
		cfg.InsecureSkipVerify = true
		cfg.VerifyPeerCertificate = func(raw [][]byte, _ [][]*x509.Certificate) error {
			return verifyChain(raw, roots)
		}
	case TLSVerifyFull:
	default:
		return nil, fmt.Errorf("unknown tls mode %q", mode)
	}
	return cfg, nil
}

func verifyChain(raw [][]byte, roots *x509.CertPool) error {
	if len(raw) == 0 {
		return errors.New("server sent no certificate")
	}
	certs := make([]*x509.Certificate, len(raw))
	for i, r := range raw {
		c, err := x509.ParseCertificate(r)
		if err != nil {
			return err
		}
		certs[i] = c
	}
	inter := x509.NewCertPool()
	for _, c := range certs[1:] {
		inter.AddCert(c)
	}
	_, err := certs[0].Verify(x509.VerifyOptions{Roots: roots, Intermediates: inter})
	return err
}
