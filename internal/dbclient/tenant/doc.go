// SPDX-License-Identifier: MPL-2.0

// Package tenant is the operations on tenant databases, owner logins and
// grants that the provider calls through the facade internal/dbclient: a
// claim (create without IF NOT EXISTS, undone if it fails half way), an
// alter, a rotation, an offboarding, a drop. Each checks, under the
// tenant's advisory lock, that the object is still the one state records
// (internal/dbclient/proof) before it alters or drops anything, and runs
// its statements through internal/dbclient/session; it never opens a
// connection itself.
//
// Server's exported methods are the whole surface the provider may call
// (surface_test.go): an unchecked create, alter or drop is not among them.
package tenant
