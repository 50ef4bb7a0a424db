// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"strings"
	"testing"
)

// The ref's encoding is state: it must be stable, round-trip, and read
// what a hand-written jsonencode or an import ID gives.
func TestServerRef_encodeParse(t *testing.T) {
	full := serverRef{Name: "main", Engine: "postgres", Host: "::1", Port: 5433, Username: "adm", TLS: "verify-full",
		ReservedUsernames: []string{"z", "app"}}
	const fullJSON = `{"name":"main","engine":"postgres","host":"::1","port":5433,"username":"adm","tls":"verify-full",` +
		`"reserved_usernames":["app","z"]}`
	if got := full.encode(); got != fullJSON {
		t.Fatalf("encode:\n got %s\nwant %s", got, fullJSON)
	}
	back, err := parseRef([]byte(full.encode()))
	if err != nil || back.encode() != full.encode() {
		t.Fatalf("round trip: %v %+v", err, back)
	}

	cases := []struct {
		name, in, want, err string
	}{
		{"defaults", `{"name":"m","engine":"mysql","host":"db","username":"a"}`,
			`{"name":"m","engine":"mysql","host":"db","port":3306,"username":"a","tls":"require"}`, ""},
		{"postgres default port", `{"name":"m","engine":"postgres","host":"db","username":"a"}`,
			`{"name":"m","engine":"postgres","host":"db","port":5432,"username":"a","tls":"require"}`, ""},
		{"version-0 object with nulls", `{"name":"m","engine":"mysql","host":"db","port":3307,"username":"a","tls":"disable","ca_cert":null,"reserved_usernames":null}`,
			`{"name":"m","engine":"mysql","host":"db","port":3307,"username":"a","tls":"disable"}`, ""},
		{"written port 0 stays 0 (validate refuses it)", `{"name":"m","engine":"mysql","host":"db","port":0,"username":"a"}`,
			`{"name":"m","engine":"mysql","host":"db","port":0,"username":"a","tls":"require"}`, ""},
		{"ca_cert (an earlier version's ref or import ID): refused, saying where it went",
			`{"name":"m","engine":"mysql","host":"db","username":"a","tls":"verify-full","ca_cert":"-----BEGIN CERTIFICATE-----"}`,
			"", `give the CA to the provider instead: ca_certs = { m = file("${path.module}/ca.pem") }`},
		{"unknown field", `{"name":"m","engine":"mysql","host":"db","username":"a","password":"x"}`, "", `unknown field "password"`},
		{"missing name", `{"engine":"mysql","host":"db","username":"a"}`, "", `"name" is missing`},
		{"missing username", `{"name":"m","engine":"mysql","host":"db"}`, "", `"username" is missing`},
		{"not JSON", `main`, "", "tenantdb_db_server.<name>.ref"},
		{"a list", `["m"]`, "", "tenantdb_db_server.<name>.ref"},
		{"trailing data", `{"name":"m","engine":"mysql","host":"db","username":"a"} {}`, "", "trailing data"},
		{"port as string", `{"name":"m","engine":"mysql","host":"db","port":"3306","username":"a"}`, "", "port"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := parseRef([]byte(c.in))
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err = %v, want it to contain %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := r.encode(); got != c.want {
				t.Fatalf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}
