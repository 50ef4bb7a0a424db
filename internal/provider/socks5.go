// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	pschema "github.com/hashicorp/terraform-plugin-framework/provider/schema"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient"
)

// A SOCKS5 proxy is split like a bastion: its URL (no credentials) is the
// db_server's socks5_proxy, carried in the ref (`proxy=`), left out when
// unset; its username and password are the provider's socks5_proxies by
// server name. ALL_PROXY/NO_PROXY are not read (dial_socks5.go says why).

// socks5ProxyAttribute is tenantdb_db_server.socks5_proxy.
func socks5ProxyAttribute() rschema.StringAttribute {
	return rschema.StringAttribute{
		Optional: true,
		MarkdownDescription: "A SOCKS5 proxy the admin's connections go through: `socks5://host:port` (this machine " +
			"resolves `host`) or `socks5h://host:port` (the proxy does). No credentials here: give them in the " +
			"provider's `socks5_proxies`. `ALL_PROXY`/`NO_PROXY` are never read: the environment of a CI runner must not " +
			"silently change where admin connections go. Not together with `ssh_bastion`. Part of `ref`.",
	}
}

// socks5ProxiesAttribute is the provider's socks5_proxies.
func socks5ProxiesAttribute() pschema.MapNestedAttribute {
	return pschema.MapNestedAttribute{
		MarkdownDescription: "Credentials of the SOCKS5 proxy of each `tenantdb_db_server` that has `socks5_proxy`, " +
			"keyed by server name (username/password authentication, RFC 1929). Not needed for a proxy without " +
			"authentication. Never written to state or plan.",
		Optional: true,
		NestedObject: pschema.NestedAttributeObject{
			Attributes: map[string]pschema.Attribute{
				"username": pschema.StringAttribute{Required: true, MarkdownDescription: "The proxy username."},
				"password": pschema.StringAttribute{Required: true, Sensitive: true, MarkdownDescription: "The proxy password. Sensitive."},
			},
		},
		Validators: []validator.Map{mapvalidator.KeysAre(identifierValidator{kind: "server name"})},
	}
}

func configureSOCKS5Proxies(m types.Map, data *providerData, diags *diag.Diagnostics) {
	data.proxies = readServerEntries(m, "socks5_proxies", diags)
}

// withProxy puts the server's SOCKS5 proxy into spec when its ref has one.
func (d *providerData) withProxy(spec *dbclient.Spec, ref serverRef) error {
	if ref.Proxy == "" {
		return nil
	}
	if !d.proxies.isKnown(ref.Name) {
		return fmt.Errorf("the SOCKS5 proxy credentials of server %q are not known yet: the provider's socks5_proxies "+
			"depends on values known only after apply", ref.Name)
	}
	l := d.proxies.known[ref.Name]
	p, err := dbclient.NewSOCKS5Proxy(ref.Proxy, l["username"], l["password"])
	if err != nil {
		return fmt.Errorf("server %q: %w", ref.Name, err)
	}
	spec.Proxy = p
	return nil
}
