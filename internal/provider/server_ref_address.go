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

// reach is everything that decides which server a ref leads to and how:
// a change of any of it is a move, accepted only when the recorded object
// is found at the new address with the same identity.
func (r serverRef) reach() [5]string {
	return [5]string{r.Host, strconv.FormatInt(r.Port, 10), r.Username, r.TLS, r.CACert}
}
