// SPDX-License-Identifier: MPL-2.0

package main

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// The shape floor has every tenantdb resource, with the same attributes
// and flags, and none of tenantdb's validators or plan modifiers.
func TestShapeResources_areTenantDBsWithoutCode(t *testing.T) {
	ctx := context.Background()
	p := newProvider().(shapeProvider)
	realResources := p.real.Resources(ctx)
	shapes := p.Resources(ctx)
	if len(shapes) != len(realResources) || len(shapes) != 4 {
		t.Fatalf("%d shape resources for %d tenantdb resources, want 4 each", len(shapes), len(realResources))
	}
	for i, newShape := range shapes {
		shape := newShape().(shapeResource)
		var sr resource.SchemaResponse
		realResources[i]().Schema(ctx, resource.SchemaRequest{}, &sr)
		real := sr.Schema
		if len(shape.schema.Attributes) != len(real.Attributes) {
			t.Errorf("%s: %d attributes, tenantdb has %d", shape.typeName, len(shape.schema.Attributes), len(real.Attributes))
		}
		for name, a := range real.Attributes {
			s, ok := shape.schema.Attributes[name]
			if !ok {
				t.Errorf("%s.%s missing", shape.typeName, name)
				continue
			}
			if s.IsRequired() != a.IsRequired() || s.IsOptional() != a.IsOptional() || s.IsComputed() != a.IsComputed() ||
				s.IsSensitive() != a.IsSensitive() || s.IsWriteOnly() != a.IsWriteOnly() || !s.GetType().Equal(a.GetType()) {
				t.Errorf("%s.%s: flags or type differ from tenantdb's", shape.typeName, name)
			}
			if hasCode(s) {
				t.Errorf("%s.%s keeps validators or plan modifiers", shape.typeName, name)
			}
		}
	}
}

func hasCode(a schema.Attribute) bool {
	switch a := a.(type) {
	case schema.StringAttribute:
		return len(a.Validators)+len(a.PlanModifiers) > 0
	case schema.Int64Attribute:
		return len(a.Validators)+len(a.PlanModifiers) > 0
	case schema.BoolAttribute:
		return len(a.Validators)+len(a.PlanModifiers) > 0
	case schema.SetAttribute:
		return len(a.Validators)+len(a.PlanModifiers) > 0
	case schema.ListAttribute:
		return len(a.Validators)+len(a.PlanModifiers) > 0
	case schema.MapAttribute:
		return len(a.Validators)+len(a.PlanModifiers) > 0
	case schema.SingleNestedAttribute:
		if len(a.Validators)+len(a.PlanModifiers) > 0 {
			return true
		}
		for _, inner := range a.Attributes {
			if hasCode(inner) {
				return true
			}
		}
		return false
	}
	return true
}

func TestFilled_replacesUnknownsOnly(t *testing.T) {
	typ := tftypes.Object{AttributeTypes: map[string]tftypes.Type{
		"s": tftypes.String, "b": tftypes.Bool, "n": tftypes.Number, "set": tftypes.Set{ElementType: tftypes.String},
		"kept": tftypes.String,
	}}
	in := tftypes.NewValue(typ, map[string]tftypes.Value{
		"s":    tftypes.NewValue(tftypes.String, tftypes.UnknownValue),
		"b":    tftypes.NewValue(tftypes.Bool, tftypes.UnknownValue),
		"n":    tftypes.NewValue(tftypes.Number, tftypes.UnknownValue),
		"set":  tftypes.NewValue(tftypes.Set{ElementType: tftypes.String}, tftypes.UnknownValue),
		"kept": tftypes.NewValue(tftypes.String, "mine"),
	})
	out := filled(in)
	if !out.IsFullyKnown() {
		t.Fatalf("filled left unknowns: %v", out)
	}
	var m map[string]tftypes.Value
	if err := out.As(&m); err != nil {
		t.Fatal(err)
	}
	var kept string
	if err := m["kept"].As(&kept); err != nil || kept != "mine" {
		t.Errorf("a known value changed: %q (%v)", kept, err)
	}
}
