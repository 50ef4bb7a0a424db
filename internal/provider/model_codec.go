// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"fmt"
	"reflect"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// The framework's Get and Set (tfsdk.Plan, State, Config) reflect over the
// model's struct tags on every call, compiling a regular expression per
// field and copying the schema's attribute map per path step. At 1,500
// resources that was a quarter of the provider's CPU in a no-op plan (see
// BENCHMARKS.md, "Profile"). decodeModel and encodeModel do the same job
// for the flat models of this provider with the struct walked once per
// type: every field is a types.String, Bool, Int64, or a Set or List of
// strings, tagged with its attribute name.

// modelField is one tagged field of a model struct.
type modelField struct {
	index int
	name  string
	kind  fieldKind
}

type fieldKind int

const (
	kindString fieldKind = iota
	kindBool
	kindInt64
	kindSet
	kindList
)

var modelFieldsCache sync.Map // reflect.Type -> []modelField

var (
	stringValueType = reflect.TypeFor[types.String]()
	boolValueType   = reflect.TypeFor[types.Bool]()
	int64ValueType  = reflect.TypeFor[types.Int64]()
	setValueType    = reflect.TypeFor[types.Set]()
	listValueType   = reflect.TypeFor[types.List]()
)

// modelFields lists a model struct's tagged fields; a field of another type
// is a programming error, reported the first time the type is used.
func modelFields(t reflect.Type) ([]modelField, error) {
	if cached, ok := modelFieldsCache.Load(t); ok {
		return cached.([]modelField), nil //nolint:forcetypeassert // the cache holds nothing else
	}
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("model %s is not a struct", t)
	}
	fields := make([]modelField, 0, t.NumField())
	for i := range t.NumField() {
		f := t.Field(i)
		name := f.Tag.Get("tfsdk")
		if name == "" || name == "-" {
			return nil, fmt.Errorf("model %s: field %s has no tfsdk tag", t, f.Name)
		}
		var kind fieldKind
		switch f.Type {
		case stringValueType:
			kind = kindString
		case boolValueType:
			kind = kindBool
		case int64ValueType:
			kind = kindInt64
		case setValueType:
			kind = kindSet
		case listValueType:
			kind = kindList
		default:
			return nil, fmt.Errorf("model %s: field %s has type %s, which decodeModel does not handle", t, f.Name, f.Type)
		}
		fields = append(fields, modelField{index: i, name: name, kind: kind})
	}
	modelFieldsCache.Store(t, fields)
	return fields, nil
}

// modelOf checks that model is a pointer to a model struct and lists its
// fields.
func modelOf(caller string, model any) (reflect.Value, []modelField, diag.Diagnostics) {
	var diags diag.Diagnostics
	v := reflect.ValueOf(model)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		diags.AddError("Internal error", fmt.Sprintf("%s needs a pointer to a model, got %T", caller, model))
		return v, nil, diags
	}
	fields, err := modelFields(v.Elem().Type())
	if err != nil {
		diags.AddError("Internal error", err.Error())
	}
	return v, fields, diags
}

// decodeModel fills *dst (a pointer to a model struct) from an object value
// of the request, as tfsdk's Get would.
func decodeModel(ctx context.Context, raw tftypes.Value, dst any) diag.Diagnostics {
	v, fields, diags := modelOf("decodeModel", dst)
	if diags.HasError() {
		return diags
	}
	if raw.IsNull() || !raw.IsKnown() {
		diags.AddError("Internal error", fmt.Sprintf("decodeModel: the %s object is null or unknown", v.Elem().Type()))
		return diags
	}
	var attrs map[string]tftypes.Value
	if err := raw.As(&attrs); err != nil {
		diags.AddError("Internal error", fmt.Sprintf("decodeModel %s: %v", v.Elem().Type(), err))
		return diags
	}
	out := v.Elem()
	for _, f := range fields {
		av, ok := attrs[f.name]
		if !ok {
			diags.AddError("Internal error", fmt.Sprintf("decodeModel %s: the object has no attribute %q", out.Type(), f.name))
			return diags
		}
		value, err := fromTerraform(ctx, f.kind, av)
		if err != nil {
			diags.AddError("Internal error", fmt.Sprintf("decodeModel %s.%s: %v", out.Type(), f.name, err))
			return diags
		}
		out.Field(f.index).Set(reflect.ValueOf(value))
	}
	return diags
}

func fromTerraform(ctx context.Context, kind fieldKind, v tftypes.Value) (attr.Value, error) {
	switch kind {
	case kindString:
		return types.StringType.ValueFromTerraform(ctx, v)
	case kindBool:
		return types.BoolType.ValueFromTerraform(ctx, v)
	case kindInt64:
		return types.Int64Type.ValueFromTerraform(ctx, v)
	case kindSet:
		elem, err := stringElements(v.Type())
		if err != nil {
			return nil, err
		}
		return types.SetType{ElemType: elem}.ValueFromTerraform(ctx, v)
	default:
		elem, err := stringElements(v.Type())
		if err != nil {
			return nil, err
		}
		return types.ListType{ElemType: elem}.ValueFromTerraform(ctx, v)
	}
}

// stringElements checks that a collection holds strings, the only element
// type the models use.
func stringElements(t tftypes.Type) (attr.Type, error) {
	var elem tftypes.Type
	switch c := t.(type) {
	case tftypes.Set:
		elem = c.ElementType
	case tftypes.List:
		elem = c.ElementType
	default:
		return nil, fmt.Errorf("expected a set or list, got %s", t)
	}
	if !elem.Is(tftypes.String) {
		return nil, fmt.Errorf("expected a collection of strings, got %s", t)
	}
	return types.StringType, nil
}

// encodeModel replaces *raw (the response's plan or state) with the model
// *src, keeping raw's object type, as tfsdk's Set would.
func encodeModel(ctx context.Context, src any, raw *tftypes.Value) diag.Diagnostics {
	v, fields, diags := modelOf("encodeModel", src)
	if diags.HasError() {
		return diags
	}
	objType, ok := raw.Type().(tftypes.Object)
	if !ok {
		diags.AddError("Internal error", fmt.Sprintf("encodeModel %s: the response has no object type", v.Elem().Type()))
		return diags
	}
	if len(objType.AttributeTypes) != len(fields) {
		diags.AddError("Internal error", fmt.Sprintf("encodeModel %s: %d fields for %d attributes",
			v.Elem().Type(), len(fields), len(objType.AttributeTypes)))
		return diags
	}
	attrs := make(map[string]tftypes.Value, len(fields))
	for _, f := range fields {
		want, ok := objType.AttributeTypes[f.name]
		if !ok {
			diags.AddError("Internal error", fmt.Sprintf("encodeModel %s: the schema has no attribute %q", v.Elem().Type(), f.name))
			return diags
		}
		tv, err := v.Elem().Field(f.index).Interface().(attr.Value).ToTerraformValue(ctx) //nolint:forcetypeassert // modelFields admits only attr.Value fields
		if err != nil {
			diags.AddError("Internal error", fmt.Sprintf("encodeModel %s.%s: %v", v.Elem().Type(), f.name, err))
			return diags
		}
		if !tv.Type().Equal(want) {
			diags.AddError("Internal error", fmt.Sprintf("encodeModel %s.%s: type %s, schema says %s",
				v.Elem().Type(), f.name, tv.Type(), want))
			return diags
		}
		attrs[f.name] = tv
	}
	*raw = tftypes.NewValue(objType, attrs)
	return diags
}
