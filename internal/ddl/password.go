// SPDX-License-Identifier: MPL-2.0

package ddl

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// InvalidPassword refuses a password the servers cannot store exactly. The
// diagnostic never contains the password.
const InvalidPassword Reason = "InvalidPassword"

const maxPasswordBytes = 1024

// Password is a validated secret. It never prints: every fmt verb and
// String() give "[redacted]".
type Password struct{ s string }

// NewPassword validates a password: 1–1024 bytes of UTF-8 without NUL (a NUL
// cannot travel in a PostgreSQL string and truncates C clients).
func NewPassword(s string) (Password, error) {
	bad := func(why string) (Password, error) {
		return Password{}, refuse(InvalidPassword, "password", "The password "+why+".",
			"Supply a password of 1 to 1024 bytes of UTF-8 text without NUL characters.")
	}
	switch {
	case s == "":
		return bad("is empty")
	case len(s) > maxPasswordBytes:
		return bad(fmt.Sprintf("is longer than %d bytes", maxPasswordBytes))
	case !utf8.ValidString(s):
		return bad("is not valid UTF-8")
	case strings.ContainsRune(s, 0):
		return bad("contains a NUL character")
	}
	return Password{s}, nil
}

// Reveal returns the plaintext, for the renderer and for tests that log in.
func (p Password) Reveal() string { return p.s }

func (p Password) String() string   { return "[redacted]" }
func (p Password) GoString() string { return "ddl.Password([redacted])" }

// Format makes every verb print "[redacted]".
func (p Password) Format(f fmt.State, _ rune) { fmt.Fprint(f, "[redacted]") }

// MarshalText keeps encoders from writing the secret.
func (p Password) MarshalText() ([]byte, error) { return []byte("[redacted]"), nil }
