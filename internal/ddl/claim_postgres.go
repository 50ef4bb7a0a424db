// SPDX-License-Identifier: MPL-2.0

package ddl

import (
	"crypto/sha256"
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
	// Create makes the nonce database, closed to PUBLIC; its Undo drops it.
	Create Plan
	// Rename is the claim: the nonce database takes the tenant's name.
	Rename Plan
	// DropNonce removes the nonce database when the claim is lost.
	DropNonce Plan
}

// NonceDatabasePrefix starts every nonce database's name: one left behind
// by a provider process killed between create and rename is recognisable
// (and empty).
const NonceDatabasePrefix = "tenantdb_claim_"

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

// DropLeftoverNonce renders the drop of name, a nonce database a killed
// claim of db left; ok is false for any other name.
func DropLeftoverNonce(db DatabaseName, name string) (p Plan, ok bool) {
	prefix := NoncePrefixFor(db)
	if !strings.HasPrefix(name, prefix) || !nonceRandomPart.MatchString(name[len(prefix):]) {
		return Plan{}, false
	}
	return postgres{}.DropDatabase(DatabaseName{name}), true
}

// NewPostgresClaim renders the claim of db with mark's random part.
func NewPostgresClaim(db DatabaseName, cs Charset, co Collation, mark ClaimMark) PostgresClaim {
	nonce := DatabaseName{NoncePrefixFor(db) + strings.TrimPrefix(mark.s, "tenantdb:")[:24]}
	d := postgres{}
	create := d.CreateDatabase(nonce, cs, co)
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
