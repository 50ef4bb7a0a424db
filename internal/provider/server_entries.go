// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// serverEntries is a provider map of objects keyed by server name
// (client_certs, ssh_bastions, socks5_proxies) as Configure reads it: the
// string attributes of each known entry, and what is not known yet (the
// whole map, or some entries), so a connection that needs it says so.
type serverEntries struct {
	known        map[string]map[string]string
	unknown      bool
	unknownNames []string
}

// readServerEntries reads m; a key that is not a server name is an error
// on its path, and no value is ever filed under it.
func readServerEntries(m types.Map, name string, diags *diag.Diagnostics) serverEntries {
	e := serverEntries{known: map[string]map[string]string{}}
	if m.IsUnknown() {
		e.unknown = true
		return e
	}
	for server, v := range m.Elements() {
		if _, err := ddl.NewServerName(server); err != nil {
			addAttributeError(diags, path.Root(name).AtMapKey(server), err)
			continue
		}
		obj, ok := v.(types.Object)
		if !ok || obj.IsUnknown() {
			e.unknownNames = append(e.unknownNames, server)
			continue
		}
		if obj.IsNull() {
			continue
		}
		if values, ok := knownStrings(obj.Attributes()); ok {
			e.known[server] = values
		} else {
			e.unknownNames = append(e.unknownNames, server)
		}
	}
	return e
}

// knownStrings is every string attribute ("" when null); false when one
// is unknown.
func knownStrings(attrs map[string]attr.Value) (map[string]string, bool) {
	out := map[string]string{}
	for k, v := range attrs {
		s, ok := v.(types.String)
		if !ok {
			continue
		}
		if s.IsUnknown() {
			return nil, false
		}
		out[k] = s.ValueString()
	}
	return out, true
}

// isKnown reports whether the entry of server is known (present or not).
func (e serverEntries) isKnown(server string) bool {
	return !e.unknown && !slices.Contains(e.unknownNames, server)
}
