// SPDX-License-Identifier: MPL-2.0

package ddl

import "testing"

// TestHostNeverMatches: only a host name pattern needs name resolution, so
// only it never matches on a server with skip_name_resolve on; with
// resolution on, nothing is flagged.
func TestHostNeverMatches(t *testing.T) {
	skip := ServerInfo{Flavor: FlavorMariaDB, SkipNameResolve: true}
	resolve := ServerInfo{Flavor: FlavorMariaDB}
	for _, tc := range []struct {
		host     string
		hostName bool
	}{
		{"%", false},
		{"localhost", false},
		{"LocalHost", false},
		{"127.0.0.1", false},
		{"::1", false},
		{"10.20.%", false},
		{"10.20.0.0/255.255.0.0", false},
		{"10.20.0.0/16", false},
		{"db1", true},
		{"app%.internal", true},
		{"%.example.com", true},
		{"App.Example.com", true},
	} {
		h, err := NewAccountHost(tc.host)
		if err != nil {
			t.Fatalf("NewAccountHost(%q): %v", tc.host, err)
		}
		if got := h.IsHostName(); got != tc.hostName {
			t.Errorf("%q IsHostName = %v, want %v", tc.host, got, tc.hostName)
		}
		if got := HostNeverMatches(skip, h); got != tc.hostName {
			t.Errorf("%q with skip_name_resolve: never matches = %v, want %v", tc.host, got, tc.hostName)
		}
		if HostNeverMatches(resolve, h) {
			t.Errorf("%q with name resolution on: flagged", tc.host)
		}
	}
	if (AccountHost{}).IsHostName() {
		t.Error("the zero host (\"%\") is a host name")
	}
}
