// SPDX-License-Identifier: MPL-2.0

package ddl

import (
	"crypto/rand"
	"encoding/hex"
	"regexp"
)

// ClaimMark is a random marker tenantdb stores with a database it creates,
// where the engine stores one in the same statement as CREATE DATABASE
// (MariaDB 10.5+: the schema COMMENT, kept by dumps, replicas and ALTER
// DATABASE). It is what tells "the database this resource made" from a
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
// mark: MariaDB has schema comments; MySQL 8 and PostgreSQL do not
// (PostgreSQL identifies a database by its OID instead).
func StoresClaimMark(info ServerInfo) bool { return info.Flavor == FlavorMariaDB }
