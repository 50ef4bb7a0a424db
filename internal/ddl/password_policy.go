// SPDX-License-Identifier: MPL-2.0

package ddl

import (
	"fmt"
	"strconv"
	"strings"
)

// PasswordPolicy is what a MySQL/MariaDB password-validation plugin's
// variables say a password must have, as far as it can be judged without
// sending the password: MySQL's validate_password (length; at MEDIUM and
// STRONG, letters of both cases, digits and other characters) and
// MariaDB's simple_password_check (the same four counts). What needs the
// server (STRONG's dictionary, cracklib, password_reuse_check, a password
// equal to the user name) is left to the apply. The plan reports only a
// certain refusal: a length counted in bytes (never fewer than the
// characters the server counts), and the character classes of ASCII
// passwords only.
type PasswordPolicy struct {
	settings string // every validation variable, "name = value", for the message
	rules    []passwordRule
}

type passwordRule struct {
	setting string // "validate_password.length = 8"
	min     int
	count   func(pw string) int
	ascii   bool // judged on ASCII passwords only
}

// ParsePasswordPolicy reads the variables (lower-case name, value) the
// server has; none means no policy.
func ParsePasswordPolicy(settings [][2]string) PasswordPolicy {
	var p PasswordPolicy
	vars := map[string]string{}
	var all []string
	for _, kv := range settings {
		vars[kv[0]] = kv[1]
		all = append(all, kv[0]+" = "+kv[1])
	}
	p.settings = strings.Join(all, ", ")
	// MySQL's component names its variables validate_password.x, the older
	// plugin validate_password_x.
	for _, prefix := range []string{"validate_password.", "validate_password_"} {
		length, ok := vars[prefix+"length"]
		if !ok {
			continue
		}
		p.add(prefix+"length", length, bytesOf, false)
		if policy := strings.ToUpper(vars[prefix+"policy"]); policy == "MEDIUM" || policy == "STRONG" || policy == "1" || policy == "2" {
			p.add(prefix+"mixed_case_count", vars[prefix+"mixed_case_count"], upperOf, true)
			p.add(prefix+"mixed_case_count", vars[prefix+"mixed_case_count"], lowerOf, true)
			p.add(prefix+"number_count", vars[prefix+"number_count"], digitsOf, true)
			p.add(prefix+"special_char_count", vars[prefix+"special_char_count"], othersOf, true)
		}
	}
	const mariadb = "simple_password_check_"
	if length, ok := vars[mariadb+"minimal_length"]; ok {
		p.add(mariadb+"minimal_length", length, bytesOf, false)
		p.add(mariadb+"letters_same_case", vars[mariadb+"letters_same_case"], upperOf, true)
		p.add(mariadb+"letters_same_case", vars[mariadb+"letters_same_case"], lowerOf, true)
		p.add(mariadb+"digits", vars[mariadb+"digits"], digitsOf, true)
		p.add(mariadb+"other_characters", vars[mariadb+"other_characters"], othersOf, true)
	}
	return p
}

func (p *PasswordPolicy) add(name, value string, count func(string) int, ascii bool) {
	n, err := strconv.Atoi(strings.TrimSpace(value))
	if err != nil || n <= 0 {
		return
	}
	p.rules = append(p.rules, passwordRule{setting: name + " = " + strconv.Itoa(n), min: n, count: count, ascii: ascii})
}

// Unmet lists the settings pw certainly fails (none: the plan lets the
// apply judge). It never quotes the password nor its length.
func (p PasswordPolicy) Unmet(pw Password) []string {
	ascii := isASCII(pw.s)
	var out []string
	for _, r := range p.rules {
		if r.ascii && !ascii {
			continue
		}
		if r.count(pw.s) < r.min && (len(out) == 0 || out[len(out)-1] != r.setting) {
			out = append(out, r.setting)
		}
	}
	return out
}

// PasswordPolicyError is the plan-time refusal of a password the
// server's policy would reject: the settings it fails and the whole
// policy, never the password.
type PasswordPolicyError struct {
	Server, User, Unmet, Policy string
}

func (e *PasswordPolicyError) Error() string {
	return fmt.Sprintf("server %q: the server's password policy would reject the password of login %q (\"Your password "+
		"does not satisfy the current policy requirements\"): it does not meet %s. The policy: %s. Found at plan "+
		"time from the server's variables (the password was not sent); nothing was created. Choose a password that "+
		"meets it; tenantdb never weakens or bypasses it.", e.Server, e.User, e.Unmet, e.Policy)
}

// ErrPasswordPolicy is the refusal of a password that fails unmet.
func (p PasswordPolicy) ErrPasswordPolicy(server string, user Username, unmet []string) error {
	return &PasswordPolicyError{Server: server, User: user.String(), Unmet: strings.Join(unmet, ", "), Policy: p.settings}
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

func bytesOf(s string) int { return len(s) }

func countASCII(s string, in func(byte) bool) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if in(s[i]) {
			n++
		}
	}
	return n
}

func upperOf(s string) int  { return countASCII(s, func(c byte) bool { return c >= 'A' && c <= 'Z' }) }
func lowerOf(s string) int  { return countASCII(s, func(c byte) bool { return c >= 'a' && c <= 'z' }) }
func digitsOf(s string) int { return countASCII(s, func(c byte) bool { return c >= '0' && c <= '9' }) }
func othersOf(s string) int {
	return countASCII(s, func(c byte) bool {
		return !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9')
	})
}
