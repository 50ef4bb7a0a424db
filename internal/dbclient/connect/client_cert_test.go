// SPDX-License-Identifier: MPL-2.0

package connect

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// selfSignedPair is a throwaway certificate and its PKCS#8 key, PEM.
func selfSignedPair(t *testing.T) (string, string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "admin"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	k, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})),
		string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: k}))
}

// TestClientCert: a pair is checked, never printed, changes the pool key,
// and is refused without TLS; a mismatched pair's error quotes neither.
func TestClientCert(t *testing.T) {
	cert, key := selfSignedPair(t)
	cert2, key2 := selfSignedPair(t)
	cc, err := NewClientCert(cert, key)
	if err != nil {
		t.Fatal(err)
	}
	keyLine := strings.Split(key, "\n")[1]
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x"} {
		if out := fmt.Sprintf(verb, cc); strings.Contains(out, keyLine) || strings.Contains(out, "PRIVATE") {
			t.Fatalf("%s prints the key: %s", verb, out)
		}
	}
	for name, pair := range map[string][2]string{
		"mismatched": {cert, key2}, "swapped": {key, cert}, "empty key": {cert, ""}, "garbage key": {cert, "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"},
	} {
		_, err := NewClientCert(pair[0], pair[1])
		if err == nil {
			t.Fatalf("%s: accepted", name)
		}
		if strings.Contains(err.Error(), keyLine) || strings.Contains(err.Error(), strings.Split(key2, "\n")[1]) {
			t.Fatalf("%s: the error quotes a key: %v", name, err)
		}
	}
	spec := Spec{Name: "main", Engine: ddl.EnginePostgres, Host: "127.0.0.1", Port: 5432, Username: "a", TLS: TLSRequire}
	with := spec
	with.ClientCert = cc
	other := spec
	if other.ClientCert, err = NewClientCert(cert2, key2); err != nil {
		t.Fatal(err)
	}
	if spec.PoolKey() == with.PoolKey() || with.PoolKey() == other.PoolKey() {
		t.Fatal("the pool key does not follow the client certificate")
	}
	if strings.Contains(with.PoolKey(), keyLine) {
		t.Fatal("the pool key holds the key")
	}
	cfg, err := with.tlsConfig()
	if err != nil || len(cfg.Certificates) != 1 {
		t.Fatalf("tls config: %v, %d certificates", err, len(cfg.Certificates))
	}
	with.TLS = TLSDisable
	if err := with.Check(); err == nil || !strings.Contains(err.Error(), "client_certs") {
		t.Fatalf("tls = disable with a client certificate: %v", err)
	}
	if _, err := with.tlsConfig(); err == nil {
		t.Fatal("tls = disable with a client certificate gives a configuration")
	}
}
