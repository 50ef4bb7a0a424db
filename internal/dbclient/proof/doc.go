// SPDX-License-Identifier: MPL-2.0

// Package proof is what a server holds and whose it is, as tenantdb reads
// and records it: the catalog snapshot that serves a plan's refreshes in
// one query, the reads of databases, logins, privileges and sessions, the
// identities state records (Identity, Compare and its Verdict), the marks
// that prove a half-made object is a claim's own work, and the ledger
// (MySQL/MariaDB) that records every claim and every privilege tenantdb
// granted, so that revokes touch only its own rows.
//
// Every read and write goes through internal/dbclient/session. A proof
// counts only if no one but the admin (or a superuser) can write it; what
// is merely missing is Unproven, never Replaced (PROOFS.md lists every
// proof, who can write and remove it, and its test).
package proof
