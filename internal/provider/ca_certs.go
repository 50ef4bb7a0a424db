// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient"
)

// The CA that verifies a server's certificate is the provider's
// `ca_certs = { <server name> = "<PEM>" }`, like admin_passwords: provider
// configuration is never written to state, so a CA bundle of a hundred
// certificates does not repeat in every tenant resource's state and plan,
// and rotating it plans no change on any tenant. Schema versions 0 and 1
// kept it as tenantdb_db_server.ca_cert, copied into every ref.

// caCertsLine is the line to write in the provider block for server name.
func caCertsLine(name string) string {
	return fmt.Sprintf(`ca_certs = { %s = file("${path.module}/ca.pem") }`, hclKey(name))
}

// caCertMovedSummary is the summary of the error a configuration that still
// sets ca_cert gets at validate time.
const caCertMovedSummary = "ca_cert moved to the provider's ca_certs"

// caCertMovedDetail says where the CA went, with the line to write.
func caCertMovedDetail(name string) string {
	if name == "" {
		name = "<server name>"
	}
	return fmt.Sprintf("tenantdb_db_server no longer takes ca_cert: the CA is configured once, in the provider block, "+
		"by server name (like admin_passwords), so it is never copied into the state of every tenant resource. "+
		"Remove ca_cert from this resource and give the same PEM to the provider:\n\n"+
		"provider \"tenantdb\" {\n  %s\n}\n\n"+
		"(any expression that gives the PEM works: a file committed with the configuration, a variable, a data "+
		"source). State written by an earlier version is upgraded in place; once the CA has moved, the plan is empty.",
		caCertsLine(name))
}

// errCACertMoved refuses a server JSON (an import ID, a hand-written
// server) that still carries ca_cert.
func errCACertMoved(name string) error {
	return errors.New("ca_cert is no longer part of the server settings (a ref, a server or an import ID): " +
		"leave it out, and give the CA to the provider instead: " + caCertsLine(name))
}

// verifies reports whether tls mode mode checks the certificate chain,
// which is when a CA is used at all.
func verifies(mode string) bool {
	return mode == string(dbclient.TLSVerifyCA) || mode == string(dbclient.TLSVerifyFull)
}

// caFingerprint is tenantdb_db_server.ca_fingerprint: the SHA-256 of the
// DER of every certificate in pemText, in order, as hex; null when the
// mode does not verify or no CA is given (the system roots). Hashing the
// certificates rather than the text means reformatting the PEM (line
// endings, comments, a trailing newline) changes nothing.
func caFingerprint(mode, pemText string) types.String {
	if !verifies(mode) || pemText == "" {
		return types.StringNull()
	}
	h := sha256.New()
	n := 0
	rest := []byte(pemText)
	for {
		var b *pem.Block
		b, rest = pem.Decode(rest)
		if b == nil {
			break
		}
		if b.Type != "CERTIFICATE" {
			continue
		}
		h.Write(b.Bytes)
		n++
	}
	if n == 0 {
		return types.StringNull()
	}
	return types.StringValue(hex.EncodeToString(h.Sum(nil)))
}
