// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"net"
	"strconv"
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
