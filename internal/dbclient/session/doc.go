// SPDX-License-Identifier: MPL-2.0

// Package session runs every statement and read tenantdb sends a server,
// as the admin, and is the one place to check how: it opens the admin
// pool and the small pools inside tenant databases, pins and verifies each
// PostgreSQL session before its first statement (session parameters a
// tenant may set on its database never change what the admin's statements
// do; a session that is not the admin's runs nothing), runs a ddl.Plan
// (Exec: in one transaction where the plan says so, its undo after a
// failure, retries only where nothing ran), bounds every lock wait and
// names the blocker while it waits, cancels on the server (KILL QUERY,
// PostgreSQL cancel requests) and reads the outcome back before saying
// "cancelled", takes the per-tenant advisory lock (WithLock), reports
// every statement in redacted form (the Logger), and classifies errors
// (transient, outcome unknown, terminal).
//
// It knows nothing of tenants, owners or proofs: internal/dbclient/proof
// and internal/dbclient/tenant call it, never the other way round (they
// keep their caches true through WriteHooks).
package session
