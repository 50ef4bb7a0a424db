// SPDX-License-Identifier: MPL-2.0

package ddl

import (
	"encoding/base64"
	"strings"
	"testing"
)

// TestScramVerifierVector checks the verifier against one PostgreSQL 15
// computed itself: `SET password_encryption = 'scram-sha-256'; CREATE ROLE
// v PASSWORD 'pencil'` stored the verifier below; recomputing it with the
// same salt and iterations must give the same text. (The integration tests
// in internal/dbclient repeat this against the live server for hostile
// passwords.)
func TestScramVerifierVector(t *testing.T) {
	t.Parallel()
	vectors := map[string]string{
		"pencil": "SCRAM-SHA-256$4096:zIDaHR9GZga/lPmOwKu+TA==$yUtwxRsGSkd8EdGy9qIZz/cNayoSTGjmuOBci4uT1Iw=:H+0cW6RZz/4xS7m+sJJqe+huVYgTPmWdYzqEYMQ41dY=",
		// Non-ASCII with a no-break space: the server SASLprep-normalised it.
		"päss\u00a0wörd": "SCRAM-SHA-256$4096:QMSD9pUpogj97olbJNYJSg==$j2/HLq8eOS3V6o1i6SlEOWWl3+KEjPw1wjv8ok0pQAY=:qaPllk+XDUhhAjBWXcEk4UBzGVPnvdnHrWwmfUHi8r0=",
	}
	for password, stored := range vectors {
		parts := strings.SplitN(strings.TrimPrefix(stored, "SCRAM-SHA-256$"), "$", 2)
		iterSalt := strings.SplitN(parts[0], ":", 2)
		salt, err := base64.StdEncoding.DecodeString(iterSalt[1])
		if err != nil {
			t.Fatal(err)
		}
		if got := ScramVerifier(must(NewPassword(password)), salt, 4096); got != stored {
			t.Errorf("verifier for %q\n got %s\nwant %s", password, got, stored)
		}
	}
}

func TestScramSASLprep(t *testing.T) {
	t.Parallel()
	salt := []byte("0123456789abcdef")
	// U+00A0 (no-break space) maps to a space; U+00AD (soft hyphen) maps to nothing.
	a := ScramVerifier(must(NewPassword("pass word")), salt, 4096)
	b := ScramVerifier(must(NewPassword("pass\u00a0wo\u00adrd")), salt, 4096)
	if a != b {
		t.Error("SASLprep mapping not applied")
	}
	// ASCII control characters are used as is (PostgreSQL's ASCII fast path).
	if ScramVerifier(must(NewPassword("a\x01b")), salt, 4096) == ScramVerifier(must(NewPassword("ab")), salt, 4096) {
		t.Error("ASCII control characters must not be removed")
	}
}
