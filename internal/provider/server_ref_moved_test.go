// SPDX-License-Identifier: MPL-2.0

package provider

import "testing"

// TestMoved: a refusal after a change of the server's reach names what
// changed (issue 43: only the admin login changed, and the message said
// "the server moved from 127.0.0.1:P to 127.0.0.1:P").
func TestMoved(t *testing.T) {
	base := serverRef{Name: "main", Engine: "mysql", Host: "127.0.0.1", Port: 3306, Username: "tenantdb_admin", TLS: "verify-full"}
	with := func(f func(*serverRef)) serverRef { r := base; f(&r); return r }
	for _, c := range []struct {
		to   serverRef
		want string
	}{
		{with(func(r *serverRef) { r.Username = "tenantdb_admin2" }), `The admin login changed from "tenantdb_admin" to "tenantdb_admin2".`},
		{with(func(r *serverRef) { r.Port = 3307 }), "The address moved from 127.0.0.1:3306 to 127.0.0.1:3307."},
		{with(func(r *serverRef) { r.Host, r.TLS = "db2", "required" }),
			`The address moved from 127.0.0.1:3306 to db2:3306, and tls changed from "verify-full" to "required".`},
		{base, "The server's connection changed."},
	} {
		if got := moved(base, c.to); got != c.want {
			t.Errorf("moved(%+v) = %q, want %q", c.to, got, c.want)
		}
	}
}
