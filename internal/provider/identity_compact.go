// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"regexp"
	"strconv"
	"strings"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient"
)

// Identities are kept short in private state. The framework stores private
// state base64-encoded inside a base64 string, so each byte of an identity
// costs about 1.8 bytes of every tenant's state, and a tenant's three
// resources hold three or four identities: written out, a MariaDB tenant
// took 3,102 bytes and a MySQL one 3,084, over DESIGN.md's 3 KB. Each usual
// form is kept as one punctuation character (no identity dbclient makes
// begins with one) and its fixed parts packed:
//
//	^ MySQL login   mysql-login:<uuid>:[tenantdb:<32 hex> | @<time>]   uuid (16 bytes), mark (16) or time (8), base64url
//	% MySQL db      mysql:<16 hex>:<time>                             nonce (8 bytes), time (4, or 8 past 2106), base64url
//	~ MariaDB db    mariadb:tenantdb:<32 hex>                         mark (16 bytes), base64url; 32 hex: the owner's form before
//	! MariaDB login mariadb-login:<rest>                              rest as it is
//	* PostgreSQL    pg:<system identifier>:<rest>                      identifier (8 bytes), base64url, then rest
//
// An identity is compacted only when its short form expands back to exactly
// it (so leading zeros, upper-case hex and foreign values stay long), and
// the long form an earlier version wrote is read as it is.

var (
	mysqlLoginForm    = regexp.MustCompile(`^mysql-login:([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}):(?:tenantdb:([0-9a-f]{32})|@([0-9]{1,19}))?$`)
	mysqlDatabaseForm = regexp.MustCompile(`^mysql:([0-9a-f]{16}):([0-9]{1,19})$`)
	mariadbClaimForm  = regexp.MustCompile(`^mariadb:tenantdb:([0-9a-f]{32})$`)
	postgresForm      = regexp.MustCompile(`^pg:([0-9]{1,20}):(.*)$`)
)

const mariadbLoginPrefix = "mariadb-login:"

// compactIdentity returns the short form of id, or id when it has none.
func compactIdentity(id dbclient.Identity) dbclient.Identity {
	s := string(id)
	var short string
	if m := mysqlLoginForm.FindStringSubmatch(s); m != nil {
		raw := hexBytes(strings.ReplaceAll(m[1], "-", "") + m[2])
		if m[3] != "" {
			raw = binary.BigEndian.AppendUint64(raw, parseUint(m[3]))
		}
		short = "^" + b64(raw)
	} else if m := mysqlDatabaseForm.FindStringSubmatch(s); m != nil {
		raw, t := hexBytes(m[1]), parseUint(m[2])
		if t <= 0xFFFFFFFF {
			raw = binary.BigEndian.AppendUint32(raw, uint32(t))
		} else {
			raw = binary.BigEndian.AppendUint64(raw, t)
		}
		short = "%" + b64(raw)
	} else if m := mariadbClaimForm.FindStringSubmatch(s); m != nil {
		short = "~" + b64(hexBytes(m[1]))
	} else if rest, ok := strings.CutPrefix(s, mariadbLoginPrefix); ok {
		short = "!" + rest
	} else if m := postgresForm.FindStringSubmatch(s); m != nil {
		short = "*" + b64(binary.BigEndian.AppendUint64(nil, parseUint(m[1]))) + m[2]
	} else {
		return id
	}
	if expandIdentity(dbclient.Identity(short)) != id {
		return id
	}
	return dbclient.Identity(short)
}

// expandIdentity is the inverse of compactIdentity: the long form of a
// short one; any other identity (a long one, or one that does not decode:
// compared as it is, it matches nothing) is returned unchanged.
func expandIdentity(id dbclient.Identity) dbclient.Identity {
	if id == "" {
		return id
	}
	kind, rest := id[0], string(id[1:])
	switch kind {
	case '!':
		return dbclient.Identity(mariadbLoginPrefix + rest)
	case '*':
		if len(rest) < 11 {
			return id
		}
		if raw, ok := unb64(rest[:11], 8); ok {
			return dbclient.Identity("pg:" + strconv.FormatUint(binary.BigEndian.Uint64(raw), 10) + ":" + rest[11:])
		}
	case '~':
		if len(rest) == 32 { // the owner's database before: the hex itself
			return dbclient.Identity("mariadb:tenantdb:" + rest)
		}
		if raw, ok := unb64(rest, 16); ok {
			return dbclient.Identity("mariadb:tenantdb:" + hex.EncodeToString(raw))
		}
	case '%':
		if raw, ok := unb64(rest, 12, 16); ok {
			t := uint64(0)
			if len(raw) == 12 {
				t = uint64(binary.BigEndian.Uint32(raw[8:]))
			} else {
				t = binary.BigEndian.Uint64(raw[8:])
			}
			return dbclient.Identity("mysql:" + hex.EncodeToString(raw[:8]) + ":" + strconv.FormatUint(t, 10))
		}
	case '^':
		if raw, ok := unb64(rest, 16, 24, 32); ok {
			u := hex.EncodeToString(raw[:16])
			long := "mysql-login:" + u[:8] + "-" + u[8:12] + "-" + u[12:16] + "-" + u[16:20] + "-" + u[20:] + ":"
			switch len(raw) {
			case 24:
				long += "@" + strconv.FormatUint(binary.BigEndian.Uint64(raw[16:]), 10)
			case 32:
				long += "tenantdb:" + hex.EncodeToString(raw[16:])
			}
			return dbclient.Identity(long)
		}
	}
	return id
}

func b64(raw []byte) string { return base64.RawURLEncoding.EncodeToString(raw) }

// unb64 decodes s when it is base64url of one of the given lengths.
func unb64(s string, lengths ...int) ([]byte, bool) {
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil, false
	}
	for _, n := range lengths {
		if len(raw) == n {
			return raw, true
		}
	}
	return nil, false
}

// hexBytes decodes hex a pattern above has checked.
func hexBytes(s string) []byte {
	raw, _ := hex.DecodeString(s)
	return raw
}

// parseUint parses digits a pattern above has checked; a value past
// uint64 parses as 0, and the round trip then keeps the long form.
func parseUint(s string) uint64 {
	v, _ := strconv.ParseUint(s, 10, 64)
	return v
}
