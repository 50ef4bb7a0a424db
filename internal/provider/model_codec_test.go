// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"reflect"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// fieldValue is a value of a model field's type in one of three states.
func fieldValue(t reflect.Type, state string, seed int) attr.Value {
	s := []string{"acme_wms", "", "ALL PRIVILEGES", "{\"name\":\"main\"}"}[seed%4]
	switch t {
	case stringValueType:
		return map[string]attr.Value{"null": types.StringNull(), "unknown": types.StringUnknown(), "known": types.StringValue(s)}[state]
	case boolValueType:
		return map[string]attr.Value{"null": types.BoolNull(), "unknown": types.BoolUnknown(), "known": types.BoolValue(seed%2 == 0)}[state]
	case int64ValueType:
		return map[string]attr.Value{"null": types.Int64Null(), "unknown": types.Int64Unknown(), "known": types.Int64Value(int64(seed*7 - 3))}[state]
	case setValueType:
		known, _ := types.SetValueFrom(context.Background(), types.StringType, []string{"SELECT", s + "x"})
		return map[string]attr.Value{"null": types.SetNull(types.StringType), "unknown": types.SetUnknown(types.StringType), "known": known}[state]
	}
	panic("no value for " + t.String())
}

// TestModelCodec_matchesFramework checks decodeModel and encodeModel
// against the framework's own Get and Set for every tenant model, with
// fields null, unknown and known, alone and mixed.
func TestModelCodec_matchesFramework(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name  string
		res   resource.Resource
		model func() any
	}{
		{"tenant_database", NewTenantDatabaseResource(), func() any { return &tenantDatabaseModel{} }},
		{"tenant_owner", NewTenantOwnerResource(), func() any { return &tenantOwnerModel{} }},
		{"tenant_grant", NewTenantGrantResource(), func() any { return &tenantGrantModel{} }},
	}
	for _, c := range cases {
		var sresp resource.SchemaResponse
		c.res.Schema(ctx, resource.SchemaRequest{}, &sresp)
		schema := sresp.Schema
		objType := schema.Type().TerraformType(ctx)
		for _, mix := range []string{"null", "unknown", "known", "mixed"} {
			t.Run(c.name+"/"+mix, func(t *testing.T) {
				src := c.model()
				v := reflect.ValueOf(src).Elem()
				for i := range v.NumField() {
					state := mix
					if mix == "mixed" {
						state = []string{"null", "unknown", "known"}[i%3]
					}
					v.Field(i).Set(reflect.ValueOf(fieldValue(v.Field(i).Type(), state, i)))
				}

				// Encode: ours and the framework's give the same value.
				want := tfsdk.State{Schema: schema, Raw: tftypes.NewValue(objType, nil)}
				if d := want.Set(ctx, src); d.HasError() {
					t.Fatalf("framework Set: %v", d)
				}
				got := tftypes.NewValue(objType, nil)
				if d := encodeModel(ctx, src, &got); d.HasError() {
					t.Fatalf("encodeModel: %v", d)
				}
				if !got.Equal(want.Raw) {
					t.Fatalf("encodeModel = %s, framework Set = %s", got, want.Raw)
				}

				// Decode: ours and the framework's give the same model,
				// which is the one encoded.
				fromFramework, fromCodec := c.model(), c.model()
				if d := want.Get(ctx, fromFramework); d.HasError() {
					t.Fatalf("framework Get: %v", d)
				}
				if d := decodeModel(ctx, got, fromCodec); d.HasError() {
					t.Fatalf("decodeModel: %v", d)
				}
				if !reflect.DeepEqual(fromCodec, fromFramework) {
					t.Fatalf("decodeModel = %+v, framework Get = %+v", fromCodec, fromFramework)
				}
				if !reflect.DeepEqual(fromCodec, src) {
					t.Fatalf("round trip = %+v, encoded %+v", fromCodec, src)
				}
			})
		}
	}
}

// TestModelCodec_refusesWhatItCannotDo: a wrong target, a null object, an
// untyped response and a field type the codec does not know are errors,
// never a silently partial model.
func TestModelCodec_refusesWhatItCannotDo(t *testing.T) {
	ctx := context.Background()
	objType := tftypes.Object{AttributeTypes: map[string]tftypes.Type{"id": tftypes.String}}
	type idModel struct {
		ID types.String `tfsdk:"id"`
	}
	type untagged struct{ ID types.String }
	type wrongKind struct {
		ID types.Map `tfsdk:"id"`
	}
	type extraField struct {
		ID   types.String `tfsdk:"id"`
		Name types.String `tfsdk:"name"`
	}
	known := tftypes.NewValue(objType, map[string]tftypes.Value{"id": tftypes.NewValue(tftypes.String, "x")})

	for name, d := range map[string]func() bool{
		"not a pointer": func() bool { return decodeModel(ctx, known, idModel{}).HasError() },
		"null object":   func() bool { return decodeModel(ctx, tftypes.NewValue(objType, nil), &idModel{}).HasError() },
		"unknown object": func() bool {
			return decodeModel(ctx, tftypes.NewValue(objType, tftypes.UnknownValue), &idModel{}).HasError()
		},
		"no tag":            func() bool { return decodeModel(ctx, known, &untagged{}).HasError() },
		"unsupported type":  func() bool { return decodeModel(ctx, known, &wrongKind{}).HasError() },
		"missing attribute": func() bool { return decodeModel(ctx, known, &extraField{}).HasError() },
		"encode untyped": func() bool {
			var raw tftypes.Value
			return encodeModel(ctx, &idModel{ID: types.StringValue("x")}, &raw).HasError()
		},
		"encode extra field": func() bool {
			raw := tftypes.NewValue(objType, nil)
			return encodeModel(ctx, &extraField{}, &raw).HasError()
		},
	} {
		if !d() {
			t.Errorf("%s: no error", name)
		}
	}

	var m idModel
	if d := decodeModel(ctx, known, &m); d.HasError() || m.ID.ValueString() != "x" {
		t.Fatalf("decodeModel = %+v, %v", m, d)
	}
}
