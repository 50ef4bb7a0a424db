// SPDX-License-Identifier: MPL-2.0

package ddl

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"regexp"
	"strings"
)

// PostgresClaim is how a PostgreSQL tenant database is claimed so that a
// lost connection never leaves the outcome unknown. PostgreSQL has no
// comment in CREATE DATABASE to carry a claim mark, so the database is
// made under a name nobody else can choose (the mark's random part) and
// only then renamed to the tenant's name; the rename is the claim (it
// fails if the name exists). Each step can be re-read on a new connection:
// the nonce database exists or not; after the rename, the tenant's name
// has the nonce database's OID or it does not.
type PostgresClaim struct {
	Nonce DatabaseName
	// Create makes the nonce database, marked (NonceOID) and closed to
	// PUBLIC; its Undo drops it.
	Create Plan
	// Rename is the claim: the nonce database takes the tenant's name.
	Rename Plan
	// DropNonce removes the nonce database when the claim is lost.
	DropNonce Plan
}

// NonceDatabasePrefix starts every nonce database's name: one left behind
// by a provider process killed between create and rename is recognisable
// (and empty). Tenant names in this namespace, in any case, are refused
// (NewDatabaseName): scratch names are the provider's.
const NonceDatabasePrefix = "tenantdb_claim_"

// isScratchName reports whether s is in the claim scratch namespace, in any
// case: MariaDB with lower_case_table_names folds names, and a name that
// differs from a scratch name only in case is still too close to one.
func isScratchName(s string) bool {
	return len(s) >= len(NonceDatabasePrefix) && strings.EqualFold(s[:len(NonceDatabasePrefix)], NonceDatabasePrefix)
}

// NoncePrefixFor starts the name of every nonce database a claim of db
// makes: the prefix, 16 hex digits of the name's SHA-256 and "_", then 96
// random bits. A claim runs under db's lock, so a nonce database of db
// that exists when the next claim of db starts was left by a claim that
// was killed before its rename (LeftoverNonce).
func NoncePrefixFor(db DatabaseName) string {
	h := sha256.Sum256([]byte(db.s))
	return NonceDatabasePrefix + hex.EncodeToString(h[:8]) + "_"
}

var nonceRandomPart = regexp.MustCompile(`^[0-9a-f]{24}$`)

// firstNormalOID is PostgreSQL's FirstNormalObjectId: CREATE DATABASE ...
// OID accepts no lower value (outside pg_upgrade), and every object of a
// database copied from template0 has a lower one.
const firstNormalOID = 16384

// NonceOID is the mark a claim puts on its nonce database, in the same
// statement that creates it: the database's OID, derived from the nonce's
// name. A database the server numbered itself (anyone's CREATE DATABASE
// without OID) carries it by a 1 in 2^32 chance; only a CREATE DATABASE
// that chose this OID for this name does, so a leftover with it was made
// by a claim of the name the nonce's prefix hashes. No statement boundary
// separates the database from its mark (a COMMENT would leave one).
func NonceOID(nonce string) uint32 {
	h := sha256.Sum256([]byte("tenantdb-nonce-oid:" + nonce))
	return firstNormalOID + binary.BigEndian.Uint32(h[:4])%(1<<32-1-firstNormalOID)
}

// NonceCandidate is a database named like a nonce of a claim, as read
// from the server.
type NonceCandidate struct {
	Name string
	OID  uint32
	// OwnedByAdmin: the database's owner is the admin login itself.
	OwnedByAdmin bool
}

// IsLeftoverNonce reports whether c is a nonce database a killed claim of
// db left: named for db, carrying its mark (NonceOID), owned by the admin.
// Anything else named like one is someone else's and is left alone. Whether
// it holds nothing is the caller's second check (it needs a connection to
// the database itself), before DropLeftoverNonce.
func IsLeftoverNonce(db DatabaseName, c NonceCandidate) bool {
	prefix := NoncePrefixFor(db)
	return strings.HasPrefix(c.Name, prefix) && nonceRandomPart.MatchString(c.Name[len(prefix):]) &&
		c.OID == NonceOID(c.Name) && c.OwnedByAdmin
}

// DropLeftoverNonce renders the drop of c, a nonce database a killed claim
// of db left (IsLeftoverNonce) and that holds nothing; ok is false for any
// other database.
func DropLeftoverNonce(db DatabaseName, c NonceCandidate) (p Plan, ok bool) {
	if !IsLeftoverNonce(db, c) {
		return Plan{}, false
	}
	return postgres{}.DropDatabase(DatabaseName{c.Name}), true
}

// NonceHoldsSomethingQuery, run inside a nonce database, counts the
// objects in it that its template did not bring: template0 holds only
// objects numbered below FirstNormalObjectId, so any relation (table,
// index, sequence, view), schema, function, type, extension or large
// object made since has a higher OID. One indexed read per catalog.
const NonceHoldsSomethingQuery = `SELECT (SELECT count(*) FROM pg_class WHERE oid >= 16384)
 + (SELECT count(*) FROM pg_namespace WHERE oid >= 16384)
 + (SELECT count(*) FROM pg_proc WHERE oid >= 16384)
 + (SELECT count(*) FROM pg_type WHERE oid >= 16384)
 + (SELECT count(*) FROM pg_extension WHERE oid >= 16384)
 + (SELECT count(*) FROM pg_largeobject_metadata WHERE oid >= 16384)`

// NewPostgresClaim renders the claim of db with mark's random part.
func NewPostgresClaim(db DatabaseName, cs Charset, co Collation, mark ClaimMark) PostgresClaim {
	nonce := DatabaseName{NoncePrefixFor(db) + strings.TrimPrefix(mark.s, "tenantdb:")[:24]}
	d := postgres{}
	// The mark is part of the CREATE itself: a claim killed right after it
	// leaves a nonce the next claim can prove its own.
	create := d.createDatabase(nonce, cs, co, NonceOID(nonce.s))
	// The nonce's name is random: creating it claims nothing (no retry
	// after a lost connection though: the caller re-reads instead).
	drop := d.DropDatabase(nonce)
	create.Undo = drop.Statements
	return PostgresClaim{
		Nonce:  nonce,
		Create: create,
		Rename: Plan{Statements: []Statement{
			sql("ALTER DATABASE ", pgIdent(nonce.s), " RENAME TO ", pgIdent(db.s)).claims().done(),
		}},
		DropNonce: drop,
	}
}
