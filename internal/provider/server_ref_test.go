// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"strings"
	"testing"
)

// The ref's encoding is state: it must be stable, round-trip, and read
// what a hand-written jsonencode, an import ID or earlier state gives.
func TestServerRef_encodeParse(t *testing.T) {
	full := serverRef{Name: "main", Engine: "postgres", Host: "::1", Port: 5433, Username: "adm", TLS: "verify-full",
		ReservedUsernames: []string{"z", "app"}}
	const fullURL = `postgres://adm@[::1]:5433/main?tls=verify-full&reserved_usernames=app,z`
	if got := full.encode(); got != fullURL {
		t.Fatalf("encode:\n got %s\nwant %s", got, fullURL)
	}
	back, err := parseRef([]byte(full.encode()))
	if err != nil || back.encode() != full.encode() {
		t.Fatalf("round trip: %v %+v", err, back)
	}

	cases := []struct {
		name, in, want, err string
	}{
		{"defaults", `{"name":"m","engine":"mysql","host":"db","username":"a"}`,
			`mysql://a@db:3306/m?tls=require`, ""},
		{"postgres default port", `{"name":"m","engine":"postgres","host":"db","username":"a"}`,
			`postgres://a@db:5432/m?tls=require`, ""},
		{"version-0 object with nulls", `{"name":"m","engine":"mysql","host":"db","port":3307,"username":"a","tls":"disable","ca_cert":null,"reserved_usernames":null}`,
			`mysql://a@db:3307/m?tls=disable`, ""},
		{"JSON with everything", `{"name":"main","engine":"postgres","host":"::1","port":5433,"username":"adm","tls":"verify-full","reserved_usernames":["z","app"]}`,
			`postgres://adm@[::1]:5433/main?tls=verify-full&reserved_usernames=app,z`, ""},
		{"written port 0 stays 0 (validate refuses it)", `{"name":"m","engine":"mysql","host":"db","port":0,"username":"a"}`,
			`mysql://a@db:0/m?tls=require`, ""},
		{"ca_cert (an earlier version's ref or import ID): refused, saying where it went",
			`{"name":"m","engine":"mysql","host":"db","username":"a","tls":"verify-full","ca_cert":"-----BEGIN CERTIFICATE-----"}`,
			"", `give the CA to the provider instead: ca_certs = { m = file("${path.module}/ca.pem") }`},
		{"unknown field", `{"name":"m","engine":"mysql","host":"db","username":"a","password":"x"}`, "", `unknown field "password"`},
		{"missing name", `{"engine":"mysql","host":"db","username":"a"}`, "", `"name" is missing`},
		{"missing username", `{"name":"m","engine":"mysql","host":"db"}`, "", `"username" is missing`},
		{"not a ref", `main`, "", "tenantdb_db_server.<name>.ref"},
		{"a list", `["m"]`, "", "tenantdb_db_server.<name>.ref"},
		{"trailing data", `{"name":"m","engine":"mysql","host":"db","username":"a"} {}`, "", "trailing data"},
		{"port as string", `{"name":"m","engine":"mysql","host":"db","port":"3306","username":"a"}`, "", "port"},

		// The short form, as encode writes it and as a user may shorten it.
		{"short: as written", `mysql://a@db.internal:3307/m?tls=verify-ca`, `mysql://a@db.internal:3307/m?tls=verify-ca`, ""},
		{"short: defaults", `postgres://a@db/m`, `postgres://a@db:5432/m?tls=require`, ""},
		{"short: fields in any order, names unescaped", `mysql://a$b.c-d@10.0.0.5:3306/m?reserved_usernames=z%2Cq,app&tls=disable`,
			"", ""},
		{"short: reserved names sorted", `mysql://a@db:3306/m?tls=require&reserved_usernames=z,app`,
			`mysql://a@db:3306/m?tls=require&reserved_usernames=app,z`, ""},
		{"short: a password is refused", `mysql://a:secret@db:3306/m`, "", "must not carry a password"},
		{"short: no username", `mysql://db:3306/m`, "", "admin username is missing"},
		{"short: no name", `mysql://a@db:3306?tls=require`, "", "the server's name is missing"},
		{"short: a longer path", `mysql://a@db:3306/m/acme`, "", "the server's name alone"},
		{"short: a fragment", `mysql://a@db:3306/m#x`, "", "unexpected fragment"},
		{"short: unknown field", `mysql://a@db:3306/m?ca_cert=x`, "", `unknown field "ca_cert"`},
		{"short: the name as a field", `mysql://a@db:3306/m?name=n`, "", `unknown field "name"`},
		{"short: a field twice", `mysql://a@db:3306/m?tls=require&tls=disable`, "", `"tls" is given 2 times`},
		{"short: port not a number", `mysql://a@db:x/m`, "", "port"},
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
			if c.want == "" { // parsed: it must encode to a string that parses back to it
				again, err := parseRef([]byte(r.encode()))
				if err != nil || again.encode() != r.encode() {
					t.Fatalf("%+v does not round-trip: %v", r, err)
				}
				return
			}
			if got := r.encode(); got != c.want {
				t.Fatalf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}
