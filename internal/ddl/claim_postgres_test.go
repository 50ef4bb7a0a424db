// SPDX-License-Identifier: MPL-2.0

package ddl

import (
	"strconv"
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
	// Scratch names are the provider's: no tenant may take one.
	if _, err := NewDatabaseName(EnginePostgres, nonce); ReasonOf(err) != InvalidIdentifier {
		t.Fatalf("the nonce %q is accepted as a tenant database name (err %v)", nonce, err)
	}
	oid := NonceOID(nonce)
	want := `CREATE DATABASE "` + nonce + `" TEMPLATE template0 ENCODING 'UTF8' LOCALE 'C' OID ` + strconv.FormatUint(uint64(oid), 10) + `;
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

// TestNonceOID: the mark is a normal OID (CREATE DATABASE ... OID refuses
// lower ones), stable for a name, and differs between names.
func TestNonceOID(t *testing.T) {
	db := must(NewDatabaseName(EnginePostgres, "acme"))
	seen := map[uint32]bool{}
	for range 1000 {
		n := NewPostgresClaim(db, Charset{}, Collation{}, NewClaimMark()).Nonce.String()
		oid := NonceOID(n)
		if oid < firstNormalOID || oid != NonceOID(n) {
			t.Fatalf("NonceOID(%q) = %d: below %d or unstable", n, oid, firstNormalOID)
		}
		seen[oid] = true
	}
	if len(seen) < 999 {
		t.Fatalf("1000 nonces share marks: %d distinct", len(seen))
	}
}

// TestDropLeftoverNonce: only a nonce database of a claim of the same
// name, carrying its mark and owned by the admin, is a leftover to drop
// (once the caller has seen it holds nothing); anything else named like
// one never is.
func TestDropLeftoverNonce(t *testing.T) {
	db := must(NewDatabaseName(EnginePostgres, "acme"))
	other := must(NewDatabaseName(EnginePostgres, "acme2"))
	mine := NewPostgresClaim(db, Charset{}, Collation{}, NewClaimMark()).Nonce.String()
	theirs := NewPostgresClaim(other, Charset{}, Collation{}, NewClaimMark()).Nonce.String()
	marked := func(name string) NonceCandidate {
		return NonceCandidate{Name: name, OID: NonceOID(name), OwnedByAdmin: true}
	}
	if p, ok := DropLeftoverNonce(db, marked(mine)); !ok || p.String() != `DROP DATABASE IF EXISTS "`+mine+`";`+"\n" {
		t.Fatalf("own nonce %s: %v %s", mine, ok, p.String())
	}
	cases := map[string]NonceCandidate{
		"another name's nonce":    marked(theirs),
		"the tenant's name":       marked("acme"),
		"prefix without the hash": marked(NonceDatabasePrefix + "0123456789abcdef0123456789abcdef"),
		"a longer random part":    marked(mine + "0"),
		"a random part not hex":   marked(mine[:len(mine)-1] + "X"),
		"upper case":              marked(strings.ToUpper(mine)),
		"no mark (server's OID)":  {Name: mine, OID: 16385, OwnedByAdmin: true},
		"another nonce's mark":    {Name: mine, OID: NonceOID(theirs), OwnedByAdmin: true},
		"owned by another role":   {Name: mine, OID: NonceOID(mine), OwnedByAdmin: false},
	}
	for what, c := range cases {
		if _, ok := DropLeftoverNonce(db, c); ok {
			t.Errorf("%s (%+v) taken for a leftover nonce of %s", what, c, db)
		}
	}
}
