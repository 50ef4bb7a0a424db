// SPDX-License-Identifier: MPL-2.0

package ddl

import (
	"fmt"
	"net/netip"
	"regexp"
	"strconv"
	"strings"
)

// The host part of a MySQL/MariaDB account ('user'@'host'), issue 46. Not
// the server's address (host.go): this is where a login may connect from,
// as the server matches it. An account 'u'@'10.%' is another principal
// than 'u'@'%': everything tenantdb renders or reads about a login names
// both parts (Username carries its host).
//
// Accepted, as MySQL and MariaDB read them:
//   - "%" (any host, the default) and "localhost";
//   - an IPv4 or IPv6 address;
//   - an IPv4 pattern with the LIKE wildcards % and _ ("10.20.%");
//   - an IPv4 address with a netmask ("10.20.0.0/255.255.0.0");
//   - an IPv4 CIDR block ("10.20.0.0/16"): MySQL 8.0.23+ only
//     (CheckAccountHost refuses it elsewhere, naming the version);
//   - a host name or host name pattern ("app%.internal").
//
// Stored as the server stores it: lower-case (the server compares host
// names without regard to case), so a plan compares what the server keeps.

// AnyHost is the host of an account that may connect from anywhere.
const AnyHost = "%"

// maxAccountHostLength is mysql.user.Host's width (MySQL 8.0.17+, MariaDB).
const maxAccountHostLength = 255

// AccountHost is a validated account host part, lower-cased.
type AccountHost struct{ s string }

func (h AccountHost) String() string {
	if h.s == "" {
		return AnyHost
	}
	return h.s
}

var (
	ipv4Pattern     = regexp.MustCompile(`^[0-9%_]{1,3}(\.[0-9%_]{1,3}){0,3}$|^%$`)
	hostNamePattern = regexp.MustCompile(`^[a-z0-9_%]([a-z0-9_%-]*[a-z0-9_%])?(\.[a-z0-9_%]([a-z0-9_%-]*[a-z0-9_%])?)*$`)
)

// NewAccountHost validates a host part. The refusal is InvalidIdentifier.
func NewAccountHost(s string) (AccountHost, error) {
	bad := func(why string) error {
		return refuse(InvalidIdentifier, fmt.Sprintf("host %q", printable(s)), why,
			`Write "%" (any host), "localhost", an IP address (10.0.0.5), an IPv4 pattern (10.20.%), an IPv4 netmask `+
				`(10.20.0.0/255.255.0.0), a CIDR block on MySQL 8.0.23+ (10.20.0.0/16), or a host name pattern (app%.internal).`)
	}
	if s == "" {
		return AccountHost{}, bad("The host is empty.")
	}
	if len(s) > maxAccountHostLength {
		return AccountHost{}, bad(fmt.Sprintf("The host is %d bytes; the server keeps at most %d.", len(s), maxAccountHostLength))
	}
	h := strings.ToLower(s)
	if strings.HasSuffix(h, ".") {
		return AccountHost{}, bad("The host ends with a dot: the server matches the name a client resolves to, which never has one, so the account could never log in.")
	}
	if addr, err := netip.ParseAddr(h); err == nil {
		if addr.Zone() != "" {
			return AccountHost{}, bad("The address has a zone index.")
		}
		return AccountHost{h}, nil
	}
	if i := strings.IndexByte(h, '/'); i >= 0 {
		if err := checkMasked(h[:i], h[i+1:]); err != "" {
			return AccountHost{}, bad(err)
		}
		return AccountHost{h}, nil
	}
	if allDigitsOrWild(h) {
		// Digits, dots and wildcards only: an IPv4 pattern (an address
		// without wildcards was taken above).
		if !ipv4Pattern.MatchString(h) || !strings.ContainsAny(h, "%_") {
			return AccountHost{}, bad("The host reads as an IPv4 address or pattern but is not one.")
		}
		for _, part := range strings.Split(h, ".") {
			if n, err := strconv.Atoi(part); err == nil && n > 255 {
				return AccountHost{}, bad("An IPv4 part is above 255.")
			}
		}
		return AccountHost{h}, nil
	}
	if !hostNamePattern.MatchString(h) {
		return AccountHost{}, bad("The host is not an address, an address pattern or a host name pattern (letters, digits, '-', '.', and the wildcards % and _).")
	}
	return AccountHost{h}, nil
}

// allDigitsOrWild reports a host made only of digits, dots and wildcards.
func allDigitsOrWild(h string) bool { return strings.Trim(h, "0123456789.%_") == "" }

// checkMasked checks "addr/netmask" and "addr/prefix" (IPv4 only, as the
// server reads them); it returns why the host is refused, or "".
func checkMasked(a, m string) string {
	addr, err := netip.ParseAddr(a)
	if err != nil || !addr.Is4() {
		return "Only an IPv4 address takes a netmask or a prefix length."
	}
	var bits int
	if n, err := strconv.Atoi(m); err == nil && !strings.Contains(m, ".") {
		if n < 0 || n > 32 || strconv.Itoa(n) != m {
			return "The prefix length is not 0 to 32."
		}
		bits = n
	} else {
		mask, err := netip.ParseAddr(m)
		if err != nil || !mask.Is4() {
			return "The netmask is not an IPv4 netmask."
		}
		v := ipv4Uint(mask)
		ones := 0
		for ones < 32 && v&(1<<(31-ones)) != 0 {
			ones++
		}
		if ones < 32 && v<<ones != 0 {
			return "The netmask's one bits are not contiguous."
		}
		bits = ones
	}
	if p := netip.PrefixFrom(addr, bits); p.Masked().Addr() != addr {
		return fmt.Sprintf("The address has bits set outside its mask: the server would match no client (write %s).", p.Masked().Addr())
	}
	return ""
}

func ipv4Uint(a netip.Addr) uint32 {
	b := a.As4()
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
}

// IsCIDR reports an "addr/prefix" host (MySQL 8.0.23+).
func (h AccountHost) IsCIDR() bool {
	i := strings.IndexByte(h.s, '/')
	return i >= 0 && !strings.Contains(h.s[i+1:], ".")
}

// IsHostName reports a host name or host name pattern ("app%.internal",
// "db1"): not "%", "localhost", an address, an address pattern, a netmask
// or a CIDR block. Only such a host needs the server to resolve the
// client's address to a name.
func (h AccountHost) IsHostName() bool {
	if h.s == "" || h.s == AnyHost || h.s == "localhost" || strings.ContainsRune(h.s, '/') || allDigitsOrWild(h.s) {
		return false
	}
	_, err := netip.ParseAddr(h.s)
	return err != nil
}

// HostNeverMatches reports an account host that can never match a client
// on this server: a host name pattern where the server skips name
// resolution (skip_name_resolve), so it compares client addresses only.
// The account is made all the same (a DBA may turn resolution on); the
// provider warns.
func HostNeverMatches(info ServerInfo, h AccountHost) bool {
	return info.SkipNameResolve && h.IsHostName()
}

// CheckAccountHost refuses, before any SQL, a host the connected server
// cannot read: a CIDR block on MariaDB or on MySQL before 8.0.23 (they
// would store it as a name pattern that matches no client).
func CheckAccountHost(info ServerInfo, h AccountHost) error {
	if !h.IsCIDR() || info.Flavor == FlavorMySQL && info.Version.AtLeast(8, 0, 23) {
		return nil
	}
	return ErrHostCIDRUnsupported(info, h)
}

// Username.host: "" means AnyHost, so logins built without a host (every
// PostgreSQL role, every account before issue 46) compare equal to
// 'u'@'%'.

// Host is the login's host part ("%" unless WithHost set another).
func (n Username) Host() string {
	if n.host == "" {
		return AnyHost
	}
	return n.host
}

// WithHost is the same user name at host h.
func (n Username) WithHost(h AccountHost) Username {
	if h.s == AnyHost {
		h.s = ""
	}
	return Username{s: n.s, host: h.s}
}

// AccountHost is the login's host part as a validated value.
func (n Username) AccountHost() AccountHost { return AccountHost{n.Host()} }

// Account keys a login in maps of accounts: the name for 'u'@'%' (and
// every PostgreSQL role), "u@host" otherwise (no user name holds '@').
func (n Username) Account() string { return AccountKey(n.s, n.Host()) }

// AccountKey is Username.Account for a user and host read from a catalog.
func AccountKey(user, host string) string {
	if host == AnyHost || host == "" {
		return user
	}
	return user + "@" + host
}

// Quoted renders the login for people: 'u'@'host' on MySQL/MariaDB when
// the host is not "%", the bare name otherwise.
func (n Username) Quoted() string {
	if n.host == "" {
		return n.s
	}
	return mysqlAccount(n)
}

// ParseAccountKey is the login an AccountKey names (the host validated as
// NewAccountHost does).
func ParseAccountKey(engine Engine, key string) (Username, error) {
	name, host, scoped := strings.Cut(key, "@")
	u, err := NewUsername(engine, name)
	if err != nil || !scoped {
		return u, err
	}
	h, err := NewAccountHost(host)
	if err != nil {
		return Username{}, err
	}
	return u.WithHost(h), nil
}
