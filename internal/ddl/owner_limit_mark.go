// SPDX-License-Identifier: MPL-2.0

package ddl

import (
	"crypto/sha256"
	"encoding/binary"
	"strconv"
)

// The owner mark of a MySQL/MariaDB tenant database. Neither engine has a
// database owner, and a tenant grant of ALL PRIVILEGES leaves exactly the
// privilege row an owner has, so "holds ALL" cannot tell the owner login
// from a grantee (a grant made before the owner was taken for a second
// owner; an owner declaring fewer privileges was not recognised at all).
//
// The owner login is marked instead, in its CREATE USER, with a per-hour
// update limit derived from the database's name: MAX_UPDATES_PER_HOUR
// between 4,000,000,000 and 4,268,435,455 (MariaDB and MySQL keep these
// limits as 32-bit counts, at most 4,294,967,295). That many updates an
// hour (over a million a second, sustained) never binds, so the mark
// changes nothing a tenant can do. Only an account with CREATE USER (or a
// GRANT ... WITH by a holder of GRANT OPTION, which tenantdb never gives)
// can set it: the login itself cannot change it (1227), and a tenant_grant
// never alters its principal, so no grantee acquires it. A DBA may reset
// it (the login is then not recognised as the owner, as before the mark);
// a superuser may copy it (a superuser is trusted). The mark names the
// database by a 28-bit hash: the owner of one database granted on another
// is not taken for that one's owner (a collision is one in 268 million).

const (
	ownerLimitMarkBase  = 4_000_000_000
	ownerLimitMarkRange = 1 << 28
)

// OwnerLimitMark is the MAX_UPDATES_PER_HOUR value that marks db's owner.
func OwnerLimitMark(db DatabaseName) uint64 {
	h := sha256.Sum256([]byte("tenantdb owner of " + db.s))
	return ownerLimitMarkBase + uint64(binary.BigEndian.Uint32(h[:4]))%ownerLimitMarkRange
}

// IsOwnerLimitMark reports whether a per-hour update limit is an owner
// mark of some database (of db when it equals OwnerLimitMark(db)).
func IsOwnerLimitMark(limit uint64) bool {
	return limit >= ownerLimitMarkBase && limit < ownerLimitMarkBase+ownerLimitMarkRange
}

// ownerLimitMarkClause is the CREATE USER clause that marks db's owner.
func ownerLimitMarkClause(db DatabaseName) string {
	return " WITH MAX_UPDATES_PER_HOUR " + strconv.FormatUint(OwnerLimitMark(db), 10)
}
