// SPDX-License-Identifier: MPL-2.0

package demo

import (
	"strings"
	"testing"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/testserver"
)

// TestCAFromFile: what PEM allows around the blocks (MySQL's trailing NUL,
// comments, CRLF) is dropped and the certificates kept; a file with no
// certificate is refused saying what it holds.
func TestCAFromFile(t *testing.T) {
	bundle, err := testserver.CABundle(2, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	for name, in := range map[string]string{
		"trailing NUL (MySQL's ca.pem)": bundle + "\x00",
		"comments and CRLF":             "# our CA\r\n" + strings.ReplaceAll(bundle, "\n", "\r\n") + "\r\n\r\n",
	} {
		got, err := CAFromFile("ca.pem", []byte(in))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got != bundle {
			t.Errorf("%s: got\n%q\nwant\n%q", name, got, bundle)
		}
	}
	for in, want := range map[string]string{
		"not pem\x00": "ca.pem holds no PEM block",
		"-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n": "ca.pem holds 1 PEM block(s), none of them a CERTIFICATE",
	} {
		if _, err := CAFromFile("ca.pem", []byte(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", in, err, want)
		}
	}
}
