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

// A MySQL login's identity is long: "mysql-login:<server_uuid>:tenantdb:<32
// hex>" (90 bytes; a principal tenantdb did not create has no mark but
// "@<unix time>", about 60; earlier versions recorded nothing there, 49).
// Private state is base64 inside base64, so each byte costs about 1.8 in
// every tenant's state, and a MySQL tenant went over the 3 KB budget
// (3,188 B). In private state it is kept as "^" and the unpadded base64url
// of the UUID's 16 bytes and the mark's 16 bytes (44 bytes), or the time's
// 8 (33), or nothing (23). Only an identity that is exactly that form, and that decodes back
// to itself, is compacted; anything else is kept as it is, and an identity
// written in the long form by an earlier version is read as it is.
const compactLoginPrefix = "^"

var mysqlLoginForm = regexp.MustCompile(
	`^mysql-login:([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}):(?:tenantdb:([0-9a-f]{32})|@([0-9]{1,19}))?$`)

// compactLoginIdentity returns the short form of a MySQL login identity,
// or id unchanged when it is not one.
func compactLoginIdentity(id dbclient.Identity) dbclient.Identity {
	m := mysqlLoginForm.FindStringSubmatch(string(id))
	if m == nil {
		return id
	}
	raw, err := hex.DecodeString(strings.ReplaceAll(m[1], "-", "") + m[2])
	if err != nil {
		return id
	}
	if m[3] != "" {
		t, err := strconv.ParseUint(m[3], 10, 64)
		if err != nil {
			return id
		}
		raw = binary.BigEndian.AppendUint64(raw, t)
	}
	short := dbclient.Identity(compactLoginPrefix + base64.RawURLEncoding.EncodeToString(raw))
	if expandLoginIdentity(short) != id {
		return id
	}
	return short
}

// expandLoginIdentity is the inverse of compactLoginIdentity: the long
// form of a compacted identity; any other identity is returned unchanged
// (no identity dbclient makes begins with "^").
func expandLoginIdentity(id dbclient.Identity) dbclient.Identity {
	rest, ok := strings.CutPrefix(string(id), compactLoginPrefix)
	if !ok {
		return id
	}
	raw, err := base64.RawURLEncoding.DecodeString(rest)
	if err != nil || (len(raw) != 16 && len(raw) != 24 && len(raw) != 32) {
		return id // not ours to read: compared as it is, it matches nothing
	}
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
