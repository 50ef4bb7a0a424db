// SPDX-License-Identifier: MPL-2.0

package ddl

import "testing"

func BenchmarkRenderGrantDiff(b *testing.B) {
	db := must(NewDatabaseName(EngineMySQL, "acme_1"))
	u := must(NewUsername(EngineMySQL, "maester"))
	some := must(ParsePrivileges(EngineMySQL, []string{"SELECT", "DELETE"}))
	d := NewDialect(mariadb)
	for b.Loop() {
		_ = d.SyncPrivileges(db, u, u, Diff(mariadb, some, Catalog(mariadb)))
	}
}

func BenchmarkValidateNames(b *testing.B) {
	for b.Loop() {
		_, _ = NewDatabaseName(EnginePostgres, "acme_wms_tenant_0001")
		_, _ = NewUsername(EnginePostgres, "acme_app")
	}
}

// BenchmarkScramVerifier is the client-side cost of a PostgreSQL password
// (PBKDF2, 4096 iterations), paid once per create or rotation.
func BenchmarkScramVerifier(b *testing.B) {
	pw := must(NewPassword("correct horse battery staple"))
	salt := []byte("0123456789abcdef")
	for b.Loop() {
		_ = ScramVerifier(pw, salt, ScramIterations)
	}
}
