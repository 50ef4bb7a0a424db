// SPDX-License-Identifier: MPL-2.0

package testserver

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// WithClientCertAdmin starts a server that refuses the admin login without
// a client certificate signed by the server's CA (mutual TLS):
// MySQL/MariaDB `ALTER USER admin REQUIRE X509` (the servers already trust
// their CA for client certificates, --ssl-ca); PostgreSQL `hostssl … admin
// … scram-sha-256 clientcert=verify-full` before the other lines of
// pg_hba.conf, a `reject` for the admin without TLS, and ssl_ca_file set to
// the CA. The password is still checked. Server.ClientCertPEM and
// ClientKeyPEM hold the admin's certificate (CN = the admin's name, as
// verify-full requires) and key; the harness's own connections present
// it. Start checks both ways before returning: the admin without the
// certificate is refused, with it gets in. The local backend only; other
// logins are as on any server.
func WithClientCertAdmin() Option {
	return func(o *startOptions) { o.clientCertAdmin = true }
}

// issuers keeps the key of every CA newCertBundle made in this process, by
// its DER, so a test can be given a client certificate the server trusts.
// In memory only; a test process makes a handful.
var issuers struct {
	sync.Mutex
	m map[string]issuer
}

type issuer struct {
	cert *x509.Certificate
	key  crypto.Signer
}

func rememberIssuer(der []byte, cert *x509.Certificate, key crypto.Signer) {
	issuers.Lock()
	defer issuers.Unlock()
	if issuers.m == nil {
		issuers.m = map[string]issuer{}
	}
	issuers.m[string(der)] = issuer{cert, key}
}

// issuerOf is the CA that signed the server certificates of caPEM.
func issuerOf(caPEM string) (issuer, error) {
	b, _ := pem.Decode([]byte(caPEM))
	if b == nil {
		return issuer{}, errors.New("the server has no CA of this harness")
	}
	issuers.Lock()
	defer issuers.Unlock()
	is, ok := issuers.m[string(b.Bytes)]
	if !ok {
		return issuer{}, errors.New("the server's CA was not made by this process")
	}
	return is, nil
}

// ClientCert issues a client certificate for commonName signed by the
// server's CA (one the server accepts), as PEM certificate and PKCS#8 key.
func (s *Server) ClientCert(commonName string) (certPEM, keyPEM string, err error) {
	is, err := issuerOf(s.CAPEM)
	if err != nil {
		return "", "", err
	}
	return issueClientCert(is, commonName)
}

func issueClientCert(is issuer, commonName string) (certPEM, keyPEM string, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return "", "", err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: randomSerial(),
		Subject:      pkix.Name{CommonName: commonName, Organization: []string{"tenantdb tests"}},
		NotBefore:    now.Add(-time.Hour), NotAfter: now.Add(7 * 24 * time.Hour),
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, is.cert, &key.PublicKey, is.key)
	if err != nil {
		return "", "", fmt.Errorf("create client certificate: %w", err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return "", "", err
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})),
		string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER})), nil
}

// pgHBAClientCertAdmin is pgHBA with the admin's lines first: over TLS
// with a verified certificate whose CN is the admin, never without TLS.
func pgHBAClientCertAdmin(admin string) string {
	return `# written by internal/testserver (WithClientCertAdmin)
local   all  all                 trust
hostssl all  ` + admin + `  127.0.0.1/32   scram-sha-256 clientcert=verify-full
host    all  ` + admin + `  127.0.0.1/32   reject
hostssl all  all  127.0.0.1/32   scram-sha-256
host    all  all  127.0.0.1/32   scram-sha-256
`
}

// requireClientCertAdmin is WithClientCertAdmin on a started server.
func requireClientCertAdmin(ctx context.Context, s *Server) error {
	if s.dir == "" || s.tlsConf == nil {
		return errors.New("WithClientCertAdmin: only a local server with this harness's CA")
	}
	certPEM, keyPEM, err := s.ClientCert(s.Admin.Username)
	if err != nil {
		return err
	}
	pair, err := tls.X509KeyPair([]byte(certPEM), []byte(keyPEM))
	if err != nil {
		return err
	}
	db, err := s.SuperDB("")
	if err != nil {
		return err
	}
	switch s.Engine {
	case EngineMySQL:
		if _, err := db.ExecContext(ctx, "ALTER USER "+mysqlAccount(s.Admin.Username)+" REQUIRE X509"); err != nil {
			return err
		}
	case EnginePostgres:
		hba := filepath.Join(s.dir, "data", "pg_hba.conf") // keeps its owner (the server's user)
		if err := os.WriteFile(hba, []byte(pgHBAClientCertAdmin(s.Admin.Username)), 0o600); err != nil {
			return err
		}
		for _, stmt := range []string{
			"ALTER SYSTEM SET ssl_ca_file = " + pgString(filepath.Join(s.dir, "ca.pem")),
			"SELECT pg_reload_conf()",
		} {
			if _, err := db.ExecContext(ctx, stmt); err != nil {
				return err
			}
		}
	}
	// The reload is asynchronous: wait until the admin without the
	// certificate is refused, then check it gets in with it.
	deadline := time.Now().Add(30 * time.Second)
	for {
		err := s.pingAs(ctx, s.Admin)
		if err != nil {
			break
		}
		if time.Now().After(deadline) {
			return errors.New("WithClientCertAdmin: the admin still logs in without a client certificate")
		}
		time.Sleep(100 * time.Millisecond)
	}
	s.tlsConf.Certificates = []tls.Certificate{pair}
	if err := s.pingAs(ctx, s.Admin); err != nil {
		return fmt.Errorf("WithClientCertAdmin: the admin cannot log in with its client certificate: %w", err)
	}
	s.ClientCertPEM, s.ClientKeyPEM = certPEM, keyPEM
	return nil
}

// pingAs opens one connection as login and closes it.
func (s *Server) pingAs(ctx context.Context, login Login) error {
	db, err := s.open(login, "")
	if err != nil {
		return err
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	return db.PingContext(ctx)
}
