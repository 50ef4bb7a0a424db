// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
)

// privateMap is private state as the framework keeps it: key -> JSON.
type privateMap map[string][]byte

func (m privateMap) GetKey(_ context.Context, key string) ([]byte, diag.Diagnostics) {
	return m[key], nil
}

func (m privateMap) SetKey(_ context.Context, key string, value []byte) diag.Diagnostics {
	if len(value) == 0 {
		delete(m, key)
	} else {
		m[key] = value
	}
	return nil
}

// TestPrivateIdentity_shortKeysAndLegacy: identities are written under the
// short keys, state an earlier version wrote (long keys) is still read, and
// recording an identity clears the long key, so no identity is ever lost
// nor kept twice.
func TestPrivateIdentity_shortKeysAndLegacy(t *testing.T) {
	ctx := t.Context()
	cases := []struct {
		name string
		in   privateMap
		key  string
		want string
	}{
		{"short key", privateMap{"i": []byte(`"mariadb:x"`)}, identityKey, "mariadb:x"},
		{"legacy key", privateMap{"identity": []byte(`"mariadb:old"`)}, identityKey, "mariadb:old"},
		{"the short key wins", privateMap{"i": []byte(`"new"`), "identity": []byte(`"old"`)}, identityKey, "new"},
		{"legacy principal", privateMap{"principal_identity": []byte(`"pg:1:x"`)}, principalIdentityKey, "pg:1:x"},
		{"none", privateMap{}, identityKey, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, diags := privateIdentity(ctx, c.in, c.key)
			if diags.HasError() || string(got) != c.want {
				t.Fatalf("got %q %v, want %q", got, diags, c.want)
			}
			if diags := recordPrivate(ctx, c.in, c.key, "recorded"); diags.HasError() {
				t.Fatal(diags)
			}
			if _, ok := c.in[legacyPrivateKeys[c.key]]; ok {
				t.Fatalf("the legacy key is still there after recording: %v", c.in)
			}
			if string(c.in[c.key]) != `"recorded"` {
				t.Fatalf("recorded %q under %q", c.in[c.key], c.key)
			}
		})
	}
	if _, diags := privateIdentity(ctx, privateMap{"i": []byte(`nope`)}, identityKey); !diags.HasError() {
		t.Fatal("an unreadable identity was accepted")
	}
}
