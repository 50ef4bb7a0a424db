// SPDX-License-Identifier: MPL-2.0

package tenant

import (
	"crypto/tls"
	"crypto/x509"
	"net"
	"strings"
	"testing"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/connect"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// TestTLSHostMismatchSaysTheCertificateNamesNoIP: verify-full to an IP
// against a certificate that names no IP (MySQL's auto-generated one) says
// so, rather than leaving the reader to inspect the certificate.
func TestTLSHostMismatchSaysTheCertificateNamesNoIP(t *testing.T) {
	spec := connect.Spec{Name: "s", Engine: ddl.EngineMySQL, Host: "127.0.0.1", Port: 3306, CAPEM: "x"}
	cases := []struct {
		name, host string
		cert       *x509.Certificate
		want, not  string
	}{
		{"no names at all", "127.0.0.1", &x509.Certificate{},
			"not valid for 127.0.0.1 (it names no IP address and no DNS name)", ""},
		{"DNS names only", "127.0.0.1", &x509.Certificate{DNSNames: []string{"db.internal", "db"}},
			"not valid for 127.0.0.1 (it names no IP address, only the DNS names db.internal, db)", ""},
		{"another IP", "127.0.0.1", &x509.Certificate{IPAddresses: []net.IP{net.ParseIP("10.0.0.1")}},
			"not valid for 127.0.0.1;", "names no IP"},
		{"a DNS host", "db.example", &x509.Certificate{},
			"not valid for db.example;", "names no IP"},
	}
	for _, c := range cases {
		err := &tls.CertificateVerificationError{Err: x509.HostnameError{Host: c.host, Certificate: c.cert}}
		got := connect.TLSProblem(spec, err)
		if !strings.Contains(got, c.want) || (c.not != "" && strings.Contains(got, c.not)) {
			t.Errorf("%s: %q, want it to say %q (and not %q)", c.name, got, c.want, c.not)
		}
	}
}
