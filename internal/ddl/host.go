// SPDX-License-Identifier: MPL-2.0

package ddl

import (
	"fmt"
	"net/netip"
	"regexp"
	"strings"
	"unicode"
)

// Host and port rules for a server address. One rule, used at plan time by
// the provider (tenantdb_db_server's host and port, and a tenant's inline
// `server` object) and again by dbclient before it dials.
//
// A host is written in one form for both engines: a DNS name, an IPv4
// literal, or a bare IPv6 literal (`::1`, as libpq's host takes it; the
// client adds the brackets when it joins host and port). Everything else is
// refused: brackets, a port, spaces, an empty string, a URL, a socket path,
// user@host, a zone index.

const (
	maxHostLength  = 253 // a DNS name in text form
	maxLabelLength = 63
)

// hostLabel is one label of a DNS name. Underscores are accepted (they are
// common in internal names); a label never starts or ends with a hyphen.
var hostLabel = regexp.MustCompile(`^[A-Za-z0-9_](?:[A-Za-z0-9_-]*[A-Za-z0-9_])?$`)

// portSuffix is a trailing ":<digits>" (a port written into host).
var portSuffix = regexp.MustCompile(`^(.*):([0-9]+)$`)

// ValidateHost checks a server host. The refusal is InvalidIdentifier and
// says how to write the host instead.
func ValidateHost(s string) error {
	bad := func(why, fix string) error {
		return refuse(InvalidIdentifier, fmt.Sprintf("host %q", printable(s)), why, fix)
	}
	const plain = "Write a host name (db.internal), an IPv4 address (10.0.0.5) or a bare IPv6 address (::1), and the port in port."
	if s == "" {
		return bad("The host is empty.", plain)
	}
	if strings.TrimSpace(s) != s || strings.IndexFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0 {
		return bad("The host contains spaces or control characters.", "Remove them: "+plain)
	}
	if strings.HasPrefix(s, "[") {
		if i := strings.Index(s, "]"); i > 0 {
			inner := s[1:i]
			if i < len(s)-1 {
				return bad("The host includes a port ("+s[i+1:]+"); the port is a separate argument.",
					fmt.Sprintf("Write host = %q and set port.", inner))
			}
			return bad("IPv6 addresses are written without brackets (tenantdb adds them where a protocol needs them).",
				fmt.Sprintf("Write host = %q.", inner))
		}
		return bad("The host is not a host name or IP address.", plain)
	}
	if addr, err := netip.ParseAddr(s); err == nil {
		if addr.Zone() != "" {
			return bad("IPv6 zone indexes (%"+addr.Zone()+") are not supported.", "Use an address without a zone, or a host name.")
		}
		return nil
	}
	if strings.Contains(s, ":") {
		if m := portSuffix.FindStringSubmatch(s); m != nil && !strings.Contains(m[1], ":") {
			return bad("The host includes a port (:"+m[2]+"); the port is a separate argument.",
				fmt.Sprintf("Write host = %q and set port = %s.", m[1], m[2]))
		}
		return bad("The host is not a valid IPv6 address.", plain)
	}
	if strings.ContainsAny(s, "/@?#") {
		return bad("The host looks like a URL, a socket path or user@host; tenantdb connects over TCP to a host name or address.", plain)
	}
	if len(s) > maxHostLength {
		return bad(fmt.Sprintf("The host is %d characters long; a host name has at most %d.", len(s), maxHostLength), plain)
	}
	labels := strings.Split(s, ".")
	for _, l := range labels {
		if len(l) > maxLabelLength || !hostLabel.MatchString(l) {
			return bad("The host is not a host name or IP address: a host name is labels of letters, digits, '-' and '_' "+
				"(at most 63 each, not starting or ending with '-') separated by single dots.", plain)
		}
	}
	if isDigits(labels[len(labels)-1]) {
		// A top-level label is never all digits: this is a mistyped IPv4
		// address (256.1.1.1, 10.0.0, 010.0.0.1), not a name.
		return bad("The host is not a valid IPv4 address.", plain)
	}
	return nil
}

// ValidatePort checks a server port: 1-65535. An omitted port means the
// engine's default; a written 0 is refused, never read as the default.
func ValidatePort(port int64) error {
	if port < 1 || port > 65535 {
		return fmt.Errorf("port %d is outside 1-65535: set a TCP port, or omit port for the engine's default (3306 for mysql, 5432 for postgres)", port)
	}
	return nil
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
