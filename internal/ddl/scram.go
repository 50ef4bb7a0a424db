// SPDX-License-Identifier: MPL-2.0

package ddl

import (
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"unicode/utf8"

	"github.com/xdg-go/stringprep"
)

// SCRAM parameters PostgreSQL uses by default.
const (
	ScramIterations = 4096
	scramSaltLen    = 16
)

// ScramVerifier computes the SCRAM-SHA-256 verifier PostgreSQL stores for a
// password, so CREATE/ALTER ROLE carries the verifier and the plaintext never
// reaches the server or its logs:
//
//	SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>
func ScramVerifier(pw Password, salt []byte, iterations int) string {
	salted, err := pbkdf2.Key(sha256.New, saslPrep(pw.s), salt, iterations, sha256.Size)
	if err != nil {
		// Only reachable with invalid parameters, which callers never pass.
		panic(fmt.Sprintf("ddl: pbkdf2: %v", err))
	}
	clientKey := hmacSHA256(salted, "Client Key")
	storedKey := sha256.Sum256(clientKey)
	serverKey := hmacSHA256(salted, "Server Key")
	b64 := base64.StdEncoding.EncodeToString
	return fmt.Sprintf("SCRAM-SHA-256$%d:%s$%s:%s", iterations, b64(salt), b64(storedKey[:]), b64(serverKey))
}

// newScramVerifier uses a fresh random salt, as PostgreSQL does.
func newScramVerifier(pw Password) string {
	salt := make([]byte, scramSaltLen)
	if _, err := rand.Read(salt); err != nil {
		panic(fmt.Sprintf("ddl: crypto/rand: %v", err))
	}
	return ScramVerifier(pw, salt, ScramIterations)
}

func hmacSHA256(key []byte, msg string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(msg))
	return m.Sum(nil)
}

// saslPrep mirrors PostgreSQL's pg_saslprep: pure ASCII is used as is; other
// UTF-8 is SASLprep-normalised; a password SASLprep prohibits is used as raw
// bytes, as the server and libpq do.
func saslPrep(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return s
	}
	prepped, err := stringprep.SASLprep.Prepare(s)
	if err != nil {
		return s
	}
	return prepped
}
