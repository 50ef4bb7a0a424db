// SPDX-License-Identifier: MPL-2.0

package connect

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"

	"golang.org/x/net/proxy"
)

// A SOCKS5 proxy per server: the proxy's URL (socks5:// or socks5h://,
// host and port only) is the db_server's; a username and password, when
// the proxy wants them, are the provider configuration's. ALL_PROXY and
// NO_PROXY are not read: the environment of whoever runs Terraform (a CI
// runner's proxy settings) must not silently change where the admin's
// connections go, like every other setting of this provider.

// SOCKS5Proxy is a checked proxy. It never prints its password.
type SOCKS5Proxy struct {
	addr      string
	remoteDNS bool // socks5h: the proxy resolves the database host
	auth      *proxy.Auth
	id        string
}

// NewSOCKS5Proxy checks rawURL (socks5://host:port or socks5h://host:port,
// no credentials in it) and takes the credentials apart.
func NewSOCKS5Proxy(rawURL, username, password string) (*SOCKS5Proxy, error) {
	u, err := ParseSOCKS5URL(rawURL)
	if err != nil {
		return nil, err
	}
	p := &SOCKS5Proxy{addr: u.Host, remoteDNS: u.Scheme == "socks5h"}
	if username != "" || password != "" {
		if len(username) > 255 || len(password) > 255 {
			return nil, errors.New("SOCKS5 usernames and passwords are at most 255 bytes")
		}
		p.auth = &proxy.Auth{User: username, Password: password}
	}
	sum := sha256.Sum256([]byte(rawURL + "\x00" + username + "\x00" + password))
	p.id = hex.EncodeToString(sum[:12])
	return p, nil
}

// ParseSOCKS5URL reads socks5://host:port or socks5h://host:port.
func ParseSOCKS5URL(rawURL string) (*url.URL, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("socks5_proxy %q: %v", rawURL, err)
	}
	if u.Scheme != "socks5" && u.Scheme != "socks5h" {
		return nil, fmt.Errorf("socks5_proxy %q: the scheme must be socks5:// (this machine resolves the database host) or socks5h:// (the proxy does)", rawURL)
	}
	if u.User != nil {
		return nil, fmt.Errorf("socks5_proxy must not carry credentials: give them in the provider's socks5_proxies")
	}
	if (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("socks5_proxy %q: only scheme, host and port", rawURL)
	}
	port, err := strconv.Atoi(u.Port())
	if err != nil || port < 1 || port > 65535 || u.Hostname() == "" {
		return nil, fmt.Errorf("socks5_proxy %q: host and port (1-65535) are required", rawURL)
	}
	return u, nil
}

func (p *SOCKS5Proxy) String() string   { return "socks5 proxy " + p.addr }
func (p *SOCKS5Proxy) GoString() string { return "dbclient.SOCKS5Proxy(" + p.addr + ")" }

// dial opens a connection to addr through the proxy.
func (p *SOCKS5Proxy) dial(ctx context.Context, server, addr string) (net.Conn, error) {
	if !p.remoteDNS {
		host, port, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		if net.ParseIP(host) == nil {
			ips, err := net.DefaultResolver.LookupHost(ctx, host)
			if err != nil {
				return nil, err
			}
			addr = net.JoinHostPort(ips[0], port)
		}
	}
	d, err := proxy.SOCKS5("tcp", p.addr, p.auth, &net.Dialer{})
	if err != nil {
		return nil, err
	}
	cd, ok := d.(proxy.ContextDialer)
	if !ok {
		return nil, fmt.Errorf("the SOCKS5 dialer of server %q cannot take a context", server)
	}
	c, err := cd.DialContext(ctx, "tcp", addr)
	if err != nil {
		if ce := p.refusedLogin(server, err); ce != nil {
			return nil, ce
		}
		return nil, p.hopFailure(ctx, addr, err)
	}
	return c, nil
}

// hopFailure names the hop that failed: the proxy (not reached, or silent
// within the connect timeout), or the database, which the proxy reports it
// could not connect to (a SOCKS5 reply, which x/net reports only as text:
// "unknown error connection refused", "... host unreachable").
func (p *SOCKS5Proxy) hopFailure(ctx context.Context, addr string, err error) error {
	if strings.Contains(err.Error(), "unknown error ") && ctx.Err() == nil {
		return NewHopError(ctx, HopDatabase, addr, "SOCKS5 proxy "+p.addr, err, false)
	}
	return NewHopError(ctx, HopProxy, p.addr, "", err, false)
}

// refusedLogin words a login the proxy refused as a configuration error
// (retrying cannot help), or returns nil. x/net's socks client reports
// these only as error text.
func (p *SOCKS5Proxy) refusedLogin(server string, err error) *ConfigError {
	switch {
	case strings.Contains(err.Error(), "username/password authentication failed") && p.auth != nil:
		return &ConfigError{Kind: "SOCKS5", Msg: fmt.Sprintf("the proxy %s of server %q refused the username and password "+
			"of the provider's socks5_proxies[%q] (username %q): check them", p.addr, server, server, p.auth.User)}
	case strings.Contains(err.Error(), "no acceptable authentication methods"):
		offered := "no authentication, as the provider's socks5_proxies has no entry for it"
		if p.auth != nil {
			offered = fmt.Sprintf("username and password (socks5_proxies[%q])", server)
		}
		return &ConfigError{Kind: "SOCKS5", Msg: fmt.Sprintf("the proxy %s of server %q accepts none of the authentication "+
			"methods offered: %s", p.addr, server, offered)}
	}
	return nil
}

// proxyID is the proxy's part of the pool key ("" without one).
func (s Spec) proxyID() string {
	if s.Proxy == nil {
		return ""
	}
	return s.Proxy.id
}
