// SPDX-License-Identifier: MPL-2.0

package ddl

import (
	"crypto/rand"
	"encoding/hex"
	"regexp"
)

// ClaimMark is a random marker tenantdb stores with a database it creates
// (MariaDB 10.5+: the schema COMMENT, in the CREATE DATABASE itself, kept by
// dumps, replicas and ALTER DATABASE; MySQL 8+: the name of a procedure the
// admin creates in it, see claim_mark_mysql.go). It is what tells "the database this resource made" from a
// later database of the same name. It is not a secret: it only identifies.
type ClaimMark struct{ s string }

// claimMarkPattern is the only form a mark takes: a fixed prefix and 128
// random bits in hex, so it renders as a literal without any escaping.
var claimMarkPattern = regexp.MustCompile(`^tenantdb:[0-9a-f]{32}$`)

// NewClaimMark returns a fresh random mark.
func NewClaimMark() ClaimMark {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("crypto/rand failed: " + err.Error()) // never on supported platforms
	}
	return ClaimMark{"tenantdb:" + hex.EncodeToString(b[:])}
}

// ParseClaimMark recognises a mark read back from the server; ok is false
// for any other comment (a database tenantdb did not create, or one made
// before marks existed).
func ParseClaimMark(s string) (ClaimMark, bool) {
	if !claimMarkPattern.MatchString(s) {
		return ClaimMark{}, false
	}
	return ClaimMark{s}, true
}

func (m ClaimMark) String() string { return m.s }

// IsZero reports whether the mark was never made.
func (m ClaimMark) IsZero() bool { return m.s == "" }

// StoresClaimMark reports whether CREATE DATABASE on this server records a
// mark in the statement itself: MariaDB has schema comments; MySQL 8 does
// not (its mark is a procedure the claim's next statement creates, see
// ClaimPlan), nor PostgreSQL (which identifies a database by its OID).
func StoresClaimMark(info ServerInfo) bool { return info.Flavor == FlavorMariaDB }

// KeepsClaimMark reports whether a claim on this server leaves a mark with
// the database that a later read returns (the Marker of a database read):
// MariaDB's comment, MySQL's mark procedure.
func KeepsClaimMark(info ServerInfo) bool {
	return info.Flavor == FlavorMariaDB || info.Flavor == FlavorMySQL
}
