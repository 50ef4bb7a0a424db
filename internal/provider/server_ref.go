// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// serverRef is the non-secret settings of a tenantdb_db_server: its `ref`
// attribute, and the `server` attribute of every tenant resource, kept in
// their state so destroy and import reach the server with nothing else.
type serverRef struct {
	Name              string
	Engine            string
	Host              string
	Port              int64
	Username          string
	TLS               string
	ReservedUsernames []string
	// Auth is how the admin logs in (iam_auth.go); zero: password.
	Auth dbclient.CloudAuth
	// SSH is the bastion, "user@host:port"; "" for none (bastion.go).
	SSH string
	// Proxy is the SOCKS5 proxy URL, no credentials; "" for none (socks5.go).
	Proxy string
}

// serverRefModel is the Terraform shape of serverRef.
type serverRefModel struct {
	Name              types.String `tfsdk:"name"`
	Engine            types.String `tfsdk:"engine"`
	Host              types.String `tfsdk:"host"`
	Port              types.Int64  `tfsdk:"port"`
	Username          types.String `tfsdk:"username"`
	TLS               types.String `tfsdk:"tls"`
	ReservedUsernames types.Set    `tfsdk:"reserved_usernames"`
	iamAuthModel
	SSHBastion  types.Object `tfsdk:"ssh_bastion"`
	SOCKS5Proxy types.String `tfsdk:"socks5_proxy"`
}

func defaultPort(engine string) int64 {
	if engine == string(ddl.EnginePostgres) {
		return 5432
	}
	return 3306
}

// hostDescription documents the one accepted form of a host.
const hostDescription = "Host name or IP address, without port: a DNS name (`db.internal`), an IPv4 address " +
	"(`10.0.0.5`) or an IPv6 address written bare (`::1`, not `[::1]`), for both engines. A port, brackets, " +
	"spaces or anything else is refused at plan time (`InvalidIdentifier`)."

// portValidator: 1-65535 when written; an omitted port is the engine's
// default, a written 0 is an error (never read as the default).
func portValidator() validator.Int64 { return int64validator.Between(1, 65535) }

// serverAttribute is the `server` argument of tenant resources: the
// db_server's ref, one short string (encode). A string, not a nested
// object, because the framework's per-attribute work grows with every
// tenant resource that repeats the object (BENCHMARKS.md).
func serverAttribute() schema.StringAttribute {
	return schema.StringAttribute{
		MarkdownDescription: "The server to provision on: pass `tenantdb_db_server.<name>.ref` (the server's non-secret " +
			"settings in one short string). Kept in state so that destroy and import can reach the server. Changing its " +
			"`name` or `engine` is refused (`ImmutableAttribute`); other changes (host, port, TLS) update state in " +
			"place and run no SQL.",
		Required: true,
	}
}

// refFromModel reads a ref; ok is false when any part is unknown.
func refFromModel(ctx context.Context, m serverRefModel) (serverRef, bool, diag.Diagnostics) {
	var diags diag.Diagnostics
	if m.Name.IsUnknown() || m.Engine.IsUnknown() || m.Host.IsUnknown() || m.Port.IsUnknown() ||
		m.Username.IsUnknown() || m.TLS.IsUnknown() || m.ReservedUsernames.IsUnknown() || m.unknown() {
		return serverRef{}, false, diags
	}
	r := serverRef{
		Name: m.Name.ValueString(), Engine: m.Engine.ValueString(), Host: m.Host.ValueString(),
		Port: m.Port.ValueInt64(), Username: m.Username.ValueString(), TLS: m.TLS.ValueString(),
		Auth: m.cloudAuth(),
	}
	// Only an omitted port means the default: a written 0 stays 0 and
	// validate refuses it (it used to plan as 0 and connect to 3306).
	if m.Port.IsNull() {
		r.Port = defaultPort(r.Engine)
	}
	if r.TLS == "" {
		r.TLS = string(dbclient.TLSRequire)
	}
	if !m.ReservedUsernames.IsNull() {
		diags.Append(m.ReservedUsernames.ElementsAs(ctx, &r.ReservedUsernames, false)...)
	}
	ssh, known, err := sshFromModel(m.SSHBastion)
	if !known {
		return serverRef{}, false, diags
	}
	if err != nil {
		diags.AddAttributeError(path.Root("ssh_bastion"), "Invalid ssh_bastion", err.Error())
	}
	r.SSH = ssh
	if m.SOCKS5Proxy.IsUnknown() {
		return serverRef{}, false, diags
	}
	r.Proxy = m.SOCKS5Proxy.ValueString()
	return r, true, diags
}

// refJSON is the JSON form of a ref: what a hand-written jsonencode, an
// import ID's object, a list resource's `server` and state written before
// schema version 3 hold. parseRef reads it; encode no longer writes it.
type refJSON struct {
	Name              string   `json:"name"`
	Engine            string   `json:"engine"`
	Host              string   `json:"host"`
	Port              *int64   `json:"port,omitempty"`
	Username          string   `json:"username"`
	TLS               string   `json:"tls,omitempty"`
	ReservedUsernames []string `json:"reserved_usernames,omitempty"`
	SSH               string   `json:"ssh,omitempty"`
	Proxy             string   `json:"socks5_proxy,omitempty"`
	// CACert is read only to refuse it with a message saying where the CA
	// went (an import ID or a hand-written server from an earlier version);
	// encode never writes it.
	CACert *string `json:"ca_cert,omitempty"`
	iamAuthJSON
}

// encode renders the ref as the string tenant resources keep: a URL with
// the engine as scheme, the admin login, host and port, the server's name
// as the path, and the other settings as query fields named as the
// db_server's arguments:
//
//	mysql://tenantdb_admin@db.internal:3306/main?tls=require&reserved_usernames=app,replicator
//
// Every tenant resource (and, on Terraform 1.12+, its identity) keeps a
// copy, so its length is state per tenant: this form is about half the
// JSON object's once JSON-escaped in the state file (BENCHMARKS.md; the
// state file writes each & as \u0026, so the name is the path rather than
// a query field). The fields keep this order, reserved_usernames sorted and
// left out when empty: the encoding is state, and changing it shows every
// tenant resource as changed (schema version 3 moved from JSON to this
// form). It never holds the CA (the provider's ca_certs does) nor a
// password.
func (r serverRef) encode() string {
	reserved := slices.Clone(r.ReservedUsernames)
	slices.Sort(reserved)
	u := url.URL{Scheme: r.Engine, User: url.User(r.Username), Host: net.JoinHostPort(r.Host, strconv.FormatInt(r.Port, 10)),
		Path: "/" + r.Name}
	q := "tls=" + url.QueryEscape(r.TLS)
	if len(reserved) > 0 {
		for i, name := range reserved {
			reserved[i] = url.QueryEscape(name)
		}
		q += "&reserved_usernames=" + strings.Join(reserved, ",")
	}
	q += encodeAuth(r.Auth)
	// Last, and only when set: a ref without a bastion is the same string
	// as before bastions existed.
	if r.SSH != "" {
		q += "&ssh=" + url.QueryEscape(r.SSH)
	}
	if r.Proxy != "" {
		q += "&proxy=" + url.QueryEscape(r.Proxy)
	}
	u.RawQuery = q
	return u.String()
}

// refMustBe starts every error about a server string that is not a ref.
const refMustBe = "server must be tenantdb_db_server.<name>.ref"

// parseRef reads a ref: the string a db_server's ref holds, or its JSON
// form (an import ID's object, a hand-written jsonencode, state written
// before schema version 3), filling the defaults of an omitted port and
// tls. It does not validate the values (validate does).
func parseRef(raw []byte) (serverRef, error) {
	text := strings.TrimSpace(string(raw))
	switch {
	case strings.HasPrefix(text, "{"):
		return parseRefJSON(raw)
	case strings.Contains(text, "://"):
		return parseRefURL(text)
	}
	return serverRef{}, fmt.Errorf("%s (the server's settings, as the db_server's ref gives them or as a JSON object)", refMustBe)
}

func parseRefJSON(raw []byte) (serverRef, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var j refJSON
	if err := dec.Decode(&j); err != nil {
		return serverRef{}, fmt.Errorf("%s (the server's settings as a JSON object): %v", refMustBe, err)
	}
	if dec.More() {
		return serverRef{}, fmt.Errorf("%s: trailing data after the JSON object", refMustBe)
	}
	for _, f := range []struct{ name, v string }{{"name", j.Name}, {"engine", j.Engine}, {"username", j.Username}} {
		if f.v == "" {
			return serverRef{}, fmt.Errorf("%s: %q is missing", refMustBe, f.name)
		}
	}
	if j.CACert != nil {
		return serverRef{}, errCACertMoved(j.Name)
	}
	r := serverRef{Name: j.Name, Engine: j.Engine, Host: j.Host, Username: j.Username, TLS: j.TLS,
		ReservedUsernames: j.ReservedUsernames, Auth: j.cloudAuth(), SSH: j.SSH, Proxy: j.Proxy}
	// Only an omitted port means the default: a written 0 stays 0 and
	// validate refuses it.
	if r.Port = defaultPort(r.Engine); j.Port != nil {
		r.Port = *j.Port
	}
	if r.TLS == "" {
		r.TLS = string(dbclient.TLSRequire)
	}
	return r, nil
}

// parseRefURL reads the form encode writes. It is strict (one path
// segment, the name; no password, no field it does not know, none twice),
// so that a string it accepts means exactly one ref; an omitted port or tls
// takes the default, as in the JSON form.
func parseRefURL(text string) (serverRef, error) {
	bad := func(format string, args ...any) (serverRef, error) {
		return serverRef{}, fmt.Errorf(refMustBe+": "+format, args...)
	}
	u, err := url.Parse(text)
	if err != nil {
		return bad("%v", err)
	}
	if u.User == nil || u.User.Username() == "" {
		return bad("the admin username is missing (engine://username@host:port/name?tls=...)")
	}
	if _, has := u.User.Password(); has {
		return bad("it must not carry a password (the provider's admin_passwords holds it)")
	}
	if u.Fragment != "" || u.Opaque != "" || u.RawFragment != "" {
		return bad("unexpected fragment in %q", text)
	}
	name, ok := strings.CutPrefix(u.Path, "/")
	if !ok || name == "" {
		return bad("the server's name is missing (engine://username@host:port/name?tls=...)")
	}
	if strings.Contains(name, "/") {
		return bad("the path must be the server's name alone, got %q", u.Path)
	}
	r := serverRef{Name: name, Engine: u.Scheme, Host: u.Hostname(), Username: u.User.Username(), Port: defaultPort(u.Scheme),
		TLS: string(dbclient.TLSRequire)}
	if p := u.Port(); p != "" {
		if r.Port, err = strconv.ParseInt(p, 10, 64); err != nil {
			return bad("port %q is not a number", p)
		}
	}
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return bad("%v", err)
	}
	for key, values := range q {
		if len(values) != 1 {
			return bad("%q is given %d times", key, len(values))
		}
		switch v := values[0]; key {
		case "tls":
			r.TLS = v
		case "reserved_usernames":
			if v != "" {
				r.ReservedUsernames = strings.Split(v, ",")
			}
		case "ssh":
			r.SSH = v
		case "proxy":
			r.Proxy = v
		default:
			if !parseAuthField(&r.Auth, key, v) {
				return bad("unknown field %q", key)
			}
		}
	}
	r.Auth = normalAuth(r.Auth)
	return r, nil
}

// validate checks a ref's values with the engine's rules. Tenant resources
// call it from ModifyPlan (plan time) and before any connection.
func (r serverRef) validate() error {
	if _, err := ddl.NewServerName(r.Name); err != nil {
		return err
	}
	if _, err := ddl.ParseEngine(r.Engine); err != nil {
		return err
	}
	if err := ddl.ValidateHost(r.Host); err != nil {
		return err
	}
	switch dbclient.TLSMode(r.TLS) {
	case dbclient.TLSDisable, dbclient.TLSRequire, dbclient.TLSVerifyCA, dbclient.TLSVerifyFull:
	default:
		return fmt.Errorf("tls must be one of disable, require, verify-ca, verify-full; got %q", r.TLS)
	}
	for _, u := range r.ReservedUsernames {
		if _, err := ddl.NewUsername(r.engine(), u); err != nil {
			return err
		}
	}
	if err := validateAuth(r.Auth, r.TLS); err != nil {
		return err
	}
	if r.SSH != "" {
		if _, _, _, err := splitSSH(r.SSH); err != nil {
			return err
		}
	}
	if r.Proxy != "" {
		if r.SSH != "" {
			return fmt.Errorf("server %q: socks5_proxy and ssh_bastion cannot be combined: choose one way to the server", r.Name)
		}
		if _, err := dbclient.ParseSOCKS5URL(r.Proxy); err != nil {
			return err
		}
	}
	return ddl.ValidatePort(r.Port)
}

func (r serverRef) engine() ddl.Engine { return ddl.Engine(r.Engine) }

// reserved is the set of principals no tenant may own or be granted to.
func (r serverRef) reserved() ddl.ReservedNames {
	return ddl.NewReservedNames(r.Name, r.Username, r.ReservedUsernames)
}

func (r serverRef) spec() (dbclient.Spec, error) {
	if err := r.validate(); err != nil {
		return dbclient.Spec{}, err
	}
	return dbclient.Spec{
		Name: r.Name, Engine: r.engine(), Host: r.Host, Port: int(r.Port),
		Username: r.Username, TLS: dbclient.TLSMode(r.TLS), Auth: r.Auth,
	}, nil
}

// parsedRefs remembers what parseRef gave for a server string. Every tenant
// resource of a configuration carries the same string, so a plan of 1,000
// tenants would otherwise parse the same string
// several thousand times. Bounded: cleared when it reaches refCacheSize.
var parsedRefs struct {
	sync.Mutex
	m map[string]parsedRef
}

type parsedRef struct {
	ref serverRef
	err error
}

const refCacheSize = 64

// parseRefCached is parseRef with parsedRefs in front. The ref it returns
// shares its ReservedUsernames with the cache: callers never modify it.
func parseRefCached(s string) (serverRef, error) {
	parsedRefs.Lock()
	defer parsedRefs.Unlock()
	if p, ok := parsedRefs.m[s]; ok {
		return p.ref, p.err
	}
	ref, err := parseRef([]byte(s))
	if parsedRefs.m == nil || len(parsedRefs.m) >= refCacheSize {
		parsedRefs.m = make(map[string]parsedRef, refCacheSize)
	}
	parsedRefs.m[s] = parsedRef{ref: ref, err: err}
	return ref, err
}
