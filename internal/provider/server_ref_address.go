// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"
	"net"
	"strconv"
	"strings"
)

// address is host:port, for messages (IPv6 literals in brackets).
func (r serverRef) address() string {
	return net.JoinHostPort(r.Host, strconv.FormatInt(r.Port, 10))
}

// reach is everything in a ref that decides which server it leads to and
// how: a change of any of it is a move, accepted only when the recorded
// object is found at the new address with the same identity. The CA is not
// part of it (it is the provider's ca_certs, never in state): a CA rotation
// is checked by the TLS handshake itself, and moves nothing.
func (r serverRef) reach() [4]string {
	return [4]string{r.Host, strconv.FormatInt(r.Port, 10), r.Username, r.TLS}
}

// moved says, in a sentence for diagnostics, what of reach changed between
// from and to: the address, the admin login, the TLS mode ("The server
// moved from 127.0.0.1:P to 127.0.0.1:P" named nothing that changed when
// only the admin login did).
func moved(from, to serverRef) string {
	var parts []string
	if from.address() != to.address() {
		parts = append(parts, fmt.Sprintf("the address moved from %s to %s", from.address(), to.address()))
	}
	if from.Username != to.Username {
		parts = append(parts, fmt.Sprintf("the admin login changed from %q to %q", from.Username, to.Username))
	}
	if from.TLS != to.TLS {
		parts = append(parts, fmt.Sprintf("tls changed from %q to %q", from.TLS, to.TLS))
	}
	if len(parts) == 0 {
		return "The server's connection changed."
	}
	s := strings.Join(parts, ", and ")
	return strings.ToUpper(s[:1]) + s[1:] + "."
}
