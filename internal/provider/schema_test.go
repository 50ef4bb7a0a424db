// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"testing"

	fwprovider "github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
)

// TestSchemasAreDocumented fails on any attribute without a
// MarkdownDescription: docs/ is generated from them.
func TestSchemasAreDocumented(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := New("test")()
	var presp fwprovider.SchemaResponse
	p.Schema(ctx, fwprovider.SchemaRequest{}, &presp)
	if presp.Schema.MarkdownDescription == "" {
		t.Error("provider has no MarkdownDescription")
	}
	for name, a := range presp.Schema.Attributes {
		if a.GetMarkdownDescription() == "" {
			t.Errorf("provider attribute %s has no MarkdownDescription", name)
		}
	}
	for _, newResource := range p.Resources(ctx) {
		r := newResource()
		var meta resource.MetadataResponse
		r.Metadata(ctx, resource.MetadataRequest{ProviderTypeName: "tenantdb"}, &meta)
		var resp resource.SchemaResponse
		r.Schema(ctx, resource.SchemaRequest{}, &resp)
		if resp.Schema.MarkdownDescription == "" {
			t.Errorf("%s has no MarkdownDescription", meta.TypeName)
		}
		checkAttributes(t, meta.TypeName, resp.Schema.Attributes)
	}
}

func checkAttributes(t *testing.T, prefix string, attrs map[string]schema.Attribute) {
	for name, a := range attrs {
		if a.GetMarkdownDescription() == "" {
			t.Errorf("%s.%s has no MarkdownDescription", prefix, name)
		}
		if nested, ok := a.(schema.SingleNestedAttribute); ok {
			checkAttributes(t, prefix+"."+name, nested.Attributes)
		}
	}
}
