// SPDX-License-Identifier: MPL-2.0

package demo

import (
	"bytes"
	"encoding/pem"
	"fmt"
)

// CAFromFile returns the certificates of a CA file (DEMO_CA_FILE) as clean
// PEM: every CERTIFICATE block re-encoded, and nothing of what PEM allows
// around the blocks (comments, blank lines, trailing bytes). The demo hands
// the PEM to terraform in an environment variable, which cannot hold a NUL
// byte, and MySQL's auto-generated ca.pem ends with one. A file with no
// certificate is refused saying what it holds instead.
func CAFromFile(name string, b []byte) (string, error) {
	var out bytes.Buffer
	other := 0
	for rest := b; ; {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		if block.Type != "CERTIFICATE" {
			other++
			continue
		}
		_ = pem.Encode(&out, &pem.Block{Type: block.Type, Bytes: block.Bytes})
	}
	if out.Len() == 0 {
		what := "no PEM block"
		if other > 0 {
			what = fmt.Sprintf("%d PEM block(s), none of them a CERTIFICATE", other)
		}
		return "", fmt.Errorf("%s holds %s: give the PEM file of the CA that signed the server's certificate "+
			"(-----BEGIN CERTIFICATE----- ...)", name, what)
	}
	return out.String(), nil
}
