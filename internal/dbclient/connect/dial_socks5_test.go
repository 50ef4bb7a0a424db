// SPDX-License-Identifier: MPL-2.0

package connect

import (
	"errors"
	"strings"
	"testing"
)

// TestSOCKS5RefusedLogin: the proxy refusing the login is a configuration
// error (never retried) that names the username and never the password;
// other dial failures are left as they are.
func TestSOCKS5RefusedLogin(t *testing.T) {
	const pw = "Socks-secret-91"
	withAuth, err := NewSOCKS5Proxy("socks5h://proxy:1080", "jump", pw)
	if err != nil {
		t.Fatal(err)
	}
	noAuth, err := NewSOCKS5Proxy("socks5://proxy:1080", "", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		p    *SOCKS5Proxy
		err  string
		want string // "" for not a configuration error
	}{
		{withAuth, "socks connect tcp proxy:1080->db:5432: username/password authentication failed", `refused the username and password of the provider's socks5_proxies["main"] (username "jump")`},
		{withAuth, "socks connect tcp proxy:1080->db:5432: no acceptable authentication methods", "username and password (socks5_proxies"},
		{noAuth, "socks connect tcp proxy:1080->db:5432: no acceptable authentication methods", "no authentication, as the provider's socks5_proxies has no entry"},
		{withAuth, "dial tcp 10.0.0.1:1080: connect: connection refused", ""},
	} {
		ce := c.p.refusedLogin("main", errors.New(c.err))
		switch {
		case c.want == "" && ce != nil:
			t.Errorf("%q: a configuration error: %v", c.err, ce)
		case c.want != "" && (ce == nil || !strings.Contains(ce.Error(), c.want)):
			t.Errorf("%q: %v, want %q", c.err, ce, c.want)
		case ce != nil && (strings.Contains(ce.Error(), pw) || !IsConfigError(ce)):
			t.Errorf("%q: %v quotes the password or is not a configuration error", c.err, ce)
		}
	}
}
