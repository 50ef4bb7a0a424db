// SPDX-License-Identifier: MPL-2.0

package ddl

import (
	"strings"
	"testing"
)

func TestPostgresClaim(t *testing.T) {
	mark := NewClaimMark()
	db := must(NewDatabaseName(EnginePostgres, "Acme_WMS"))
	c := NewPostgresClaim(db, DefaultCharset(EnginePostgres), DefaultCollation(EnginePostgres), mark)
	nonce := NoncePrefixFor(db) + strings.TrimPrefix(mark.String(), "tenantdb:")[:24]
	if c.Nonce.String() != nonce || len(nonce) > 63 {
		t.Fatalf("nonce %q, want %q (at most 63 bytes)", c.Nonce, nonce)
	}
	if _, err := NewDatabaseName(EnginePostgres, nonce); err != nil {
		t.Fatalf("the nonce is not a valid database name: %v", err)
	}
	want := `CREATE DATABASE "` + nonce + `" TEMPLATE template0 ENCODING 'UTF8' LOCALE 'C';
REVOKE ALL ON DATABASE "` + nonce + `" FROM PUBLIC;
-- undo
DROP DATABASE IF EXISTS "` + nonce + `";
`
	if got := c.Create.String(); got != want {
		t.Fatalf("create:\n%s\nwant:\n%s", got, want)
	}
	if got := c.Rename.String(); got != `ALTER DATABASE "`+nonce+`" RENAME TO "Acme_WMS";`+"\n" || !c.Rename.Statements[0].Claim {
		t.Fatalf("rename (the claim): %s", got)
	}
	if got := c.DropNonce.String(); got != `DROP DATABASE IF EXISTS "`+nonce+`";`+"\n" {
		t.Fatalf("drop nonce: %s", got)
	}
	if other := NewPostgresClaim(db, Charset{}, Collation{}, NewClaimMark()); other.Nonce == c.Nonce {
		t.Fatal("two claims share a nonce")
	}
}

// TestDropLeftoverNonce: only a nonce database of a claim of the same name
// is a leftover to drop; another name's, or anything else, never is.
func TestDropLeftoverNonce(t *testing.T) {
	db := must(NewDatabaseName(EnginePostgres, "acme"))
	other := must(NewDatabaseName(EnginePostgres, "acme2"))
	mine := NewPostgresClaim(db, Charset{}, Collation{}, NewClaimMark()).Nonce.String()
	theirs := NewPostgresClaim(other, Charset{}, Collation{}, NewClaimMark()).Nonce.String()
	if p, ok := DropLeftoverNonce(db, mine); !ok || p.String() != `DROP DATABASE IF EXISTS "`+mine+`";`+"\n" {
		t.Fatalf("own nonce %s: %v %s", mine, ok, p.String())
	}
	for _, name := range []string{theirs, "acme", NonceDatabasePrefix + "0123456789abcdef0123456789abcdef", mine + "0", mine[:len(mine)-1] + "X", strings.ToUpper(mine)} {
		if _, ok := DropLeftoverNonce(db, name); ok {
			t.Errorf("%q taken for a leftover nonce of %s", name, db)
		}
	}
}
