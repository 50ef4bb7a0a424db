// SPDX-License-Identifier: MPL-2.0

// Package connect is how tenantdb reaches a database server and logs in,
// and nothing else: the admin's Spec (host, port, TLS mode and CA, the
// password or a cloud IAM token), the dialers it may go through (an SSH
// bastion with pinned host keys, a SOCKS5 proxy, a client certificate),
// the driver configurations built from it, and the errors that say a
// server cannot be reached as configured (a TLS verification, a host name
// that does not resolve, the other engine's port) before any retry sees
// them.
//
// It promises that a connection is made only as the Spec says (no
// environment variable of the process changes where it goes or how it
// authenticates), that no secret is printable from its types, and that a
// failed dial names the hop that failed. It runs no statement: what a
// connection runs, and in which session, is internal/dbclient/session's.
package connect
