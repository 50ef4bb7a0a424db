// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/objectvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	pschema "github.com/hashicorp/terraform-plugin-framework/provider/schema"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// An SSH bastion is split like every other connection setting: where it is
// (host, port, user) is the db_server's `ssh_bastion`, non-secret, carried
// in the ref (`ssh=user@host:port`) so destroy and import reach the server
// from state; how to get in (the private key or an ssh-agent socket) and
// which host key to trust are the provider's `ssh_bastions` by server
// name, never in state. A ref without a bastion is byte-identical to one
// written before bastions existed.

// sshBastionAttribute is tenantdb_db_server.ssh_bastion.
func sshBastionAttribute() rschema.SingleNestedAttribute {
	return rschema.SingleNestedAttribute{
		Optional: true,
		MarkdownDescription: "An SSH jump host the admin's connections go through (like `ssh -J`): every connection to " +
			"the database is a channel of one SSH connection per server, and the bastion resolves `host` (a private " +
			"name is fine). The key and the pinned host key are the provider's `ssh_bastions` entry for this server's " +
			"name. Part of `ref`, so destroy and import go through the bastion too. Not together with `socks5_proxy`.",
		Validators: []validator.Object{objectvalidator.ConflictsWith(path.MatchRoot("socks5_proxy"))},
		Attributes: map[string]rschema.Attribute{
			"host": rschema.StringAttribute{Required: true, MarkdownDescription: "The bastion's host name or IP address (" + hostDescription + ")",
				Validators: []validator.String{hostValidator{}}},
			"port": rschema.Int64Attribute{Optional: true, MarkdownDescription: "The bastion's SSH port (default 22).",
				Validators: []validator.Int64{int64validator.Between(1, 65535)}},
			"user": rschema.StringAttribute{Required: true, MarkdownDescription: "The user to log in to the bastion as."},
		},
	}
}

// sshBastionsAttribute is the provider's ssh_bastions.
func sshBastionsAttribute() pschema.MapNestedAttribute {
	return pschema.MapNestedAttribute{
		MarkdownDescription: "How to log in to the SSH bastion of each `tenantdb_db_server` that has `ssh_bastion`, keyed " +
			"by server name: `private_key` (PEM or OpenSSH; sensitive) with an optional `private_key_passphrase`, or " +
			"`agent_socket` (the path of a running ssh-agent's socket, e.g. `SSH_AUTH_SOCK`'s value: the provider reads " +
			"no environment variable itself), and the bastion's host key pinned by `known_hosts` (lines as `ssh-keyscan` " +
			"prints them) or `host_key_fingerprint` (`SHA256:…`, the second field `ssh-keygen -lf` prints). There is no way to " +
			"accept any host key: an unknown or changed key refuses the connection, naming the fingerprint seen. Never " +
			"written to state or plan.",
		Optional: true,
		NestedObject: pschema.NestedAttributeObject{
			Attributes: map[string]pschema.Attribute{
				"private_key":            pschema.StringAttribute{Optional: true, Sensitive: true, MarkdownDescription: "The private key, PEM or OpenSSH format. Sensitive."},
				"private_key_passphrase": pschema.StringAttribute{Optional: true, Sensitive: true, MarkdownDescription: "The private key's passphrase, if it has one. Sensitive."},
				"agent_socket":           pschema.StringAttribute{Optional: true, MarkdownDescription: "The path of an ssh-agent socket, instead of `private_key`."},
				"known_hosts":            pschema.StringAttribute{Optional: true, MarkdownDescription: "known_hosts lines that pin the bastion's host key."},
				"host_key_fingerprint":   pschema.StringAttribute{Optional: true, MarkdownDescription: "The bastion's host key fingerprint, `SHA256:…` (`ssh-keygen -lf KEY.pub | awk '{print $2}'`)."},
			},
		},
		Validators: []validator.Map{mapvalidator.KeysAre(identifierValidator{kind: "server name"})},
	}
}

// bastionLogins is what providerData knows of ssh_bastions, and the
// checked bastions it made from them (parsing a key per operation would
// cost every tenant resource).
type bastionLogins struct {
	entries serverEntries

	mu   sync.Mutex
	made map[string]*dbclient.SSHBastion // by server name + "\x00" + the ref's ssh
}

// configureSSHBastions files the ssh_bastions entries by server name.
func configureSSHBastions(m types.Map, data *providerData, diags *diag.Diagnostics) {
	data.bastions = &bastionLogins{entries: readServerEntries(m, "ssh_bastions", diags), made: map[string]*dbclient.SSHBastion{}}
}

// withBastion puts the server's bastion into spec when its ref has one.
func (d *providerData) withBastion(spec *dbclient.Spec, ref serverRef) error {
	if ref.SSH == "" {
		return nil
	}
	b := d.bastions
	if b == nil {
		b = &bastionLogins{}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	key := ref.Name + "\x00" + ref.SSH
	if made, ok := b.made[key]; ok {
		spec.Bastion = made
		return nil
	}
	l, ok := b.entries.known[ref.Name]
	if !ok {
		if !b.entries.isKnown(ref.Name) {
			return fmt.Errorf("the SSH bastion login of server %q is not known yet: the provider's ssh_bastions depends on "+
				"values known only after apply; give it from a file, a variable or an ephemeral resource", ref.Name)
		}
		return fmt.Errorf("server %q goes through the SSH bastion %s, but the provider's ssh_bastions has no entry %q: "+
			"give its private_key (or agent_socket) and its known_hosts (or host_key_fingerprint)", ref.Name, ref.SSH, ref.Name)
	}
	user, host, port, err := splitSSH(ref.SSH)
	if err != nil {
		return err
	}
	made, err := dbclient.NewSSHBastion(dbclient.SSHBastionConfig{Host: host, Port: port, User: user, Server: ref.Name,
		PrivateKey: l["private_key"], Passphrase: l["private_key_passphrase"], AgentSocket: l["agent_socket"],
		KnownHosts: l["known_hosts"], HostKeyFingerprint: l["host_key_fingerprint"]})
	if err != nil {
		return fmt.Errorf("the provider's ssh_bastions[%q]: %w", ref.Name, err)
	}
	if b.made == nil {
		b.made = map[string]*dbclient.SSHBastion{}
	}
	b.made[key] = made
	spec.Bastion = made
	return nil
}

// sshFromModel is the ref's ssh field of an ssh_bastion object: "" when
// null; ok false while unknown.
func sshFromModel(o types.Object) (string, bool, error) {
	if o.IsUnknown() {
		return "", false, nil
	}
	if o.IsNull() {
		return "", true, nil
	}
	attrs := o.Attributes()
	for _, k := range []string{"host", "user", "port"} {
		if v, ok := attrs[k]; !ok || v.IsUnknown() {
			return "", false, nil
		}
	}
	strs, _ := knownStrings(attrs) // all known, checked above
	host, user := strs["host"], strs["user"]
	port := int64(22)
	if p, ok := attrs["port"].(types.Int64); ok && !p.IsNull() {
		port = p.ValueInt64()
	}
	s := user + "@" + net.JoinHostPort(host, strconv.FormatInt(port, 10))
	_, _, _, err := splitSSH(s)
	return s, true, err
}

// splitSSH reads "user@host:port" and validates it.
func splitSSH(s string) (user, host string, port int, err error) {
	at := strings.LastIndex(s, "@")
	if at <= 0 {
		return "", "", 0, fmt.Errorf("ssh_bastion %q: the user is missing (user@host:port)", s)
	}
	user = s[:at]
	if strings.ContainsAny(user, "@:/ \t\r\n") {
		return "", "", 0, fmt.Errorf("ssh_bastion user %q: no '@', ':', '/' or white space", user)
	}
	h, p, err := net.SplitHostPort(s[at+1:])
	if err != nil {
		return "", "", 0, fmt.Errorf("ssh_bastion %q: %v", s, err)
	}
	if err := ddl.ValidateHost(h); err != nil {
		return "", "", 0, fmt.Errorf("ssh_bastion host: %w", err)
	}
	n, err := strconv.Atoi(p)
	if err != nil || n < 1 || n > 65535 {
		return "", "", 0, fmt.Errorf("ssh_bastion port %q is not 1-65535", p)
	}
	return user, h, n, nil
}

// sshBastionType is ssh_bastion's object type, for state built in Go
// (import).
var sshBastionType = map[string]attr.Type{"host": types.StringType, "port": types.Int64Type, "user": types.StringType}
