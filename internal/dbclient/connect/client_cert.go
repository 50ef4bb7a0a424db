// SPDX-License-Identifier: MPL-2.0

package connect

import (
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
)

// ClientCert is the certificate and private key the admin presents to a
// server that requires one (mutual TLS: PostgreSQL `clientcert=verify-full`
// or the `cert` method, MySQL/MariaDB `REQUIRE X509`). The key never
// prints: every fmt verb gives "[redacted]", like ddl.Password.
type ClientCert struct {
	certPEM string
	keyPEM  string
	pair    tls.Certificate
}

// NewClientCert checks that certPEM and keyPEM (PEM, an unencrypted
// PKCS#1, PKCS#8 or SEC 1 key) form a pair. The error never quotes either:
// crypto/tls's messages name what is wrong, not the bytes.
func NewClientCert(certPEM, keyPEM string) (*ClientCert, error) {
	pair, err := tls.X509KeyPair([]byte(certPEM), []byte(keyPEM))
	if err != nil {
		return nil, fmt.Errorf("the client certificate and key are not a usable pair (PEM certificate, then an unencrypted PEM key of that certificate): %s", redactedTLSError(err))
	}
	return &ClientCert{certPEM: certPEM, keyPEM: keyPEM, pair: pair}, nil
}

// redactedTLSError keeps crypto/tls's explanation; none of its messages
// quotes key material, but only the fixed texts are passed on, so no later
// Go release can change that.
func redactedTLSError(err error) string {
	msg := err.Error()
	for _, known := range []string{
		"tls: failed to find any PEM data in certificate input",
		"tls: failed to find certificate PEM data in certificate input, but did find a private key; PEM inputs may have been switched",
		"tls: failed to find any PEM data in key input",
		"tls: found a certificate rather than a key in the PEM for the private key",
		"tls: private key type does not match public key type",
		"tls: private key does not match public key",
		"tls: failed to parse private key",
		"tls: unknown public key algorithm",
	} {
		if msg == known {
			return msg
		}
	}
	return "the key or certificate could not be parsed"
}

// Fingerprint is the SHA-256 (hex) of the certificate's DER: what
// tenantdb_db_server.client_cert_fingerprint shows. Not secret.
func (c *ClientCert) Fingerprint() string {
	sum := sha256.Sum256(c.pair.Certificate[0])
	return hex.EncodeToString(sum[:])
}

// digest identifies the pair in pool keys (in memory only).
func (c *ClientCert) digest() string {
	if c == nil {
		return ""
	}
	d := caDigest(c.certPEM + "\x00" + c.keyPEM)
	return hex.EncodeToString(d[:8])
}

func (c *ClientCert) String() string             { return "[redacted]" }
func (c *ClientCert) GoString() string           { return "dbclient.ClientCert([redacted])" }
func (c *ClientCert) Format(f fmt.State, _ rune) { fmt.Fprint(f, "[redacted]") }

// errClientCertWithoutTLS: a client certificate travels inside TLS only.
var errClientCertWithoutTLS = errors.New(`a client certificate is configured (the provider's client_certs) but tls = "disable" ` +
	`sends none: use tls = "require", "verify-ca" or "verify-full", or remove the client_certs entry`)

// withClientCert adds the client certificate to a tls mode's
// configuration.
func (s Spec) withClientCert(cfg *tls.Config) (*tls.Config, error) {
	if s.ClientCert == nil {
		return cfg, nil
	}
	if cfg == nil {
		return nil, fmt.Errorf("server %q: %w", s.Name, errClientCertWithoutTLS)
	}
	cfg.Certificates = []tls.Certificate{s.ClientCert.pair}
	return cfg, nil
}
