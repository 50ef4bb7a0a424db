// SPDX-License-Identifier: MPL-2.0

package testserver

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// certBundle is a throwaway CA and a server certificate it signed, in PEM.
type certBundle struct {
	caPEM   []byte
	certPEM []byte
	keyPEM  []byte // PKCS#8, accepted by both OpenSSL-based servers
}

// newCertBundle makes a fresh CA and server certificate for loopback use.
// The server certificate names IP 127.0.0.1, IP ::1 and DNS localhost, so a
// client verifying the host name ("verify-full") accepts it whichever of those
// it dials. ECDSA P-256 keeps generation well under a millisecond.
func newCertBundle() (*certBundle, error) {
	now := time.Now()
	// Backdate a little: a server or client clock a second behind must not
	// see a not-yet-valid certificate. A week covers any test run.
	notBefore, notAfter := now.Add(-time.Hour), now.Add(7*24*time.Hour)

	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	caTmpl := &x509.Certificate{
		SerialNumber:          randomSerial(),
		Subject:               pkix.Name{CommonName: "tenantdb testserver CA", Organization: []string{"tenantdb tests"}},
		NotBefore:             notBefore,
		NotAfter:              notAfter,
		IsCA:                  true,
		BasicConstraintsValid: true,
		MaxPathLenZero:        true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("create CA certificate: %w", err)
	}
	caCert, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, err
	}

	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: randomSerial(),
		Subject:      pkix.Name{CommonName: "localhost", Organization: []string{"tenantdb tests"}},
		NotBefore:    notBefore,
		NotAfter:     notAfter,
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:     []string{"localhost", BastionOnlyHost},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &key.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("create server certificate: %w", err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, err
	}
	rememberIssuer(caDER, caCert, caKey)
	return &certBundle{
		caPEM:   pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}),
		certPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		keyPEM:  pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}),
	}, nil
}

func randomSerial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		panic("testserver: crypto/rand: " + err.Error())
	}
	return n.Add(n, big.NewInt(1)) // serial numbers must be positive
}

// clientTLSConfig verifies the server against caPEM and the host name
// serverName, as a "verify-full" client would.
func clientTLSConfig(caPEM []byte, serverName string) (*tls.Config, error) {
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		return nil, fmt.Errorf("no certificate found in CA PEM")
	}
	return &tls.Config{RootCAs: pool, ServerName: serverName, MinVersion: tls.VersionTLS12}, nil
}

// UnrelatedCAPEM returns the PEM of a fresh CA that signed nothing any test
// server presents: tests give it as ca_cert to prove verification fails.
func UnrelatedCAPEM(t testing.TB) string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: randomSerial(), Subject: pkix.Name{CommonName: "tenantdb tests: not the servers' CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
}

// fillerKey is the one RSA key every filler certificate of CABundle uses:
// generating a 2048-bit key takes a noticeable fraction of a second,
// signing with it about a millisecond.
var fillerKey struct {
	once sync.Once
	key  *rsa.PrivateKey
	err  error
}

// CABundle returns a PEM bundle of n certificates, like the CA files cloud
// providers publish for verify-full (one CA per region): n-1 fresh filler
// CA certificates (RSA 2048, self-signed, signing nothing any server
// presents; about 1.1 KB of PEM each) with include (a PEM, e.g. a test
// server's CA) inserted at position at (clamped to the bundle). Each call
// makes different fillers, so two bundles holding the same CA differ.
func CABundle(n int, include string, at int) (string, error) {
	fillerKey.once.Do(func() { fillerKey.key, fillerKey.err = rsa.GenerateKey(rand.Reader, 2048) })
	if fillerKey.err != nil {
		return "", fillerKey.err
	}
	now := time.Now()
	var b strings.Builder
	at = max(0, min(at, n-1))
	for i := range n {
		if i == at {
			b.WriteString(include)
			continue
		}
		tmpl := &x509.Certificate{
			SerialNumber: randomSerial(),
			Subject: pkix.Name{CommonName: fmt.Sprintf("tenantdb tests filler CA %d", i),
				Organization: []string{"tenantdb tests"}, OrganizationalUnit: []string{"region " + strconv.Itoa(i)}},
			NotBefore: now.Add(-time.Hour), NotAfter: now.Add(7 * 24 * time.Hour),
			IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &fillerKey.key.PublicKey, fillerKey.key)
		if err != nil {
			return "", err
		}
		b.Write(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
	}
	return b.String(), nil
}
