// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient"
)

// Mutual TLS: the admin's client certificate and key are the provider's
// `client_certs = { <server name> = { cert = ..., key = ... } }`, like
// ca_certs and admin_passwords: provider configuration is never written to
// state, so the key never is, and a rotation plans no change on any tenant
// (the server's client_cert_fingerprint shows it, once). They are not part
// of the ref for the same reason.

// clientCertsAttribute is the provider schema's client_certs.
func clientCertsAttribute() schema.MapNestedAttribute {
	return schema.MapNestedAttribute{
		MarkdownDescription: "Client certificates (mutual TLS) keyed by `tenantdb_db_server` name: the certificate " +
			"and private key the admin presents to a server that requires one (PostgreSQL `hostssl … cert` or " +
			"`clientcert=verify-full` in `pg_hba.conf`, MySQL/MariaDB `REQUIRE X509`/`REQUIRE SUBJECT` on the admin). " +
			"`cert` is PEM (the certificate, optionally followed by intermediates); `key` is its unencrypted PEM " +
			"private key (PKCS#1, PKCS#8 or SEC 1) and is sensitive. Never written to state or plan; values may come " +
			"from files, variables or ephemeral resources. The server's `client_cert_fingerprint` shows which " +
			"certificate is in use, so a rotation plans an update of the server only, never of a tenant. A server with " +
			"`tls = \"disable\"` cannot have one (refused at plan time). The admin password is still sent: the server " +
			"decides whether it checks both.",
		Optional: true,
		NestedObject: schema.NestedAttributeObject{
			Attributes: map[string]schema.Attribute{
				"cert": schema.StringAttribute{
					Required:            true,
					MarkdownDescription: "The client certificate, PEM.",
				},
				"key": schema.StringAttribute{
					Required:            true,
					Sensitive:           true,
					MarkdownDescription: "The certificate's private key, unencrypted PEM. Sensitive.",
				},
			},
		},
		Validators: []validator.Map{mapvalidator.KeysAre(identifierValidator{kind: "server name"})},
	}
}

// clientCertNames is what providerData knows of client_certs: the
// checked pairs, and which entries are not known yet.
type clientCertNames struct {
	certs   map[string]*dbclient.ClientCert
	entries serverEntries
}

// configureClientCerts files the client_certs entries by server name,
// checking each pair. An error names the server, never the key.
func configureClientCerts(m types.Map, data *providerData, diags *diag.Diagnostics) {
	e := readServerEntries(m, "client_certs", diags)
	data.clientCerts = clientCertNames{certs: map[string]*dbclient.ClientCert{}, entries: e}
	for name, v := range e.known {
		cc, err := dbclient.NewClientCert(v["cert"], v["key"])
		if err != nil {
			addAttributeError(diags, path.Root("client_certs").AtMapKey(name), fmt.Errorf("server %q: %w", name, err))
			continue
		}
		data.clientCerts.certs[name] = cc
	}
}

// clientCert is the client certificate the provider's client_certs gives
// server (nil for none); known is false while client_certs (or its entry)
// is unknown.
func (d *providerData) clientCert(server string) (cc *dbclient.ClientCert, known bool) {
	if d == nil {
		return nil, false
	}
	if cc, ok := d.clientCerts.certs[server]; ok {
		return cc, true
	}
	return nil, d.clientCerts.entries.isKnown(server)
}

// clientCertFingerprint is tenantdb_db_server.client_cert_fingerprint:
// the SHA-256 (hex) of the client certificate's DER, null without one.
func clientCertFingerprint(cc *dbclient.ClientCert) types.String {
	if cc == nil {
		return types.StringNull()
	}
	return types.StringValue(cc.Fingerprint())
}

// clientCertWithoutTLSSummary refuses a client certificate on a server
// with tls = "disable" at plan time.
const clientCertWithoutTLSSummary = `client_certs needs TLS`

func clientCertWithoutTLSDetail(name string) string {
	return fmt.Sprintf("The provider's client_certs gives server %q a client certificate, but the server has "+
		"tls = \"disable\", which sends none. Set tls = \"verify-full\" (or \"verify-ca\", \"require\"), or remove "+
		"the client_certs entry.", name)
}

// withClientCert puts the server's client certificate into spec, or says
// why it cannot be known yet.
func (d *providerData) withClientCert(spec *dbclient.Spec, server string) error {
	cc, known := d.clientCert(server)
	if !known {
		return fmt.Errorf("the client certificate of server %q is not known yet: the provider's client_certs depends "+
			"on values known only after apply; give it from a file, a variable or an ephemeral resource", server)
	}
	spec.ClientCert = cc
	return nil
}

// clientCertHint adds to a rejected login what a missing client
// certificate looks like: MySQL/MariaDB answer REQUIRE X509 without one
// with the same 1045 as a wrong password.
func clientCertHint(cc *dbclient.ClientCert) string {
	if cc != nil {
		return ", and that the server accepts the client certificate of the provider's client_certs"
	}
	return "; if the server requires a client certificate of this login (MySQL/MariaDB REQUIRE X509, PostgreSQL " +
		"clientcert or the cert method), give it in the provider's client_certs"
}

// planClientCert sets the planned client_cert_fingerprint from the
// provider's client_certs (unknown while they are), and refuses a client
// certificate on a server with tls = "disable".
func planClientCert(plan *dbServerModel, data *providerData, diags *diag.Diagnostics) {
	plan.ClientCertFingerprint = types.StringUnknown()
	if plan.Name.IsUnknown() {
		return
	}
	cc, known := data.clientCert(plan.Name.ValueString())
	if !known {
		return
	}
	plan.ClientCertFingerprint = clientCertFingerprint(cc)
	if cc != nil && plan.TLS.ValueString() == string(dbclient.TLSDisable) {
		diags.AddAttributeError(path.Root("tls"), clientCertWithoutTLSSummary, clientCertWithoutTLSDetail(plan.Name.ValueString()))
	}
}
