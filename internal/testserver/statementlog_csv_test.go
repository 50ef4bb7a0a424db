// SPDX-License-Identifier: MPL-2.0

package testserver

import (
	"fmt"
	"strings"
	"testing"
)

// Records as PostgreSQL 14's csvlog writes them (26 fields): a server
// message, a statement spanning lines with quotes in it, and an error report
// naming its statement.
var csvLogSample = []string{
	`2026-11-30 18:34:16.075 UTC,,,23981,,6b0dc1a8.5dad,3,,2026-11-30 18:34:16 UTC,,0,LOG,00000,"database system is ready to accept connections",,,,,,,,,"","postmaster",,0` + "\n",
	`2026-11-30 18:34:18.090 UTC,"tenantdb_admin","postgres",24038,"127.0.0.1:50000",6b0dc1aa.5de6,1,"idle",2026-11-30 18:34:18 UTC,3/2,0,LOG,00000,"statement: SELECT 'a` + "\n" + `b, ""c""'",,,,,,,,,"","client backend",,0` + "\n",
	`2026-11-30 18:34:18.091 UTC,"tenantdb_admin","postgres",24038,"127.0.0.1:50000",6b0dc1aa.5de6,2,"idle",2026-11-30 18:34:18 UTC,3/3,0,ERROR,42601,"syntax error at or near ""SELEC""",,,,,,"SELEC 1",1,,"","client backend",,0` + "\n",
}

func TestScanCSVLog(t *testing.T) {
	data := []byte(strings.Join(csvLogSample, ""))
	type got struct {
		e   pgJSONEntry
		end int64
	}
	scan := func(data []byte, base int64) []got {
		t.Helper()
		var out []got
		found, err := scanCSVLog(data, base, func(e *pgJSONEntry, end int64) bool {
			out = append(out, got{*e, end})
			return false
		})
		if err != nil || found {
			t.Fatalf("scanCSVLog: found %v, err %v", found, err)
		}
		return out
	}
	all := scan(data, 100)
	want := []got{
		{pgJSONEntry{Pid: 23981, Severity: "LOG", Message: "database system is ready to accept connections"}, 100 + int64(len(csvLogSample[0]))},
		{pgJSONEntry{User: "tenantdb_admin", DBName: "postgres", Pid: 24038, Severity: "LOG", Message: "statement: SELECT 'a\nb, \"c\"'", Vxid: "3/2"},
			100 + int64(len(csvLogSample[0])+len(csvLogSample[1]))},
		{pgJSONEntry{User: "tenantdb_admin", DBName: "postgres", Pid: 24038, Severity: "ERROR", Message: `syntax error at or near "SELEC"`, Statement: "SELEC 1", Vxid: "3/3"},
			100 + int64(len(data))},
	}
	if fmt.Sprint(all) != fmt.Sprint(want) {
		t.Fatalf("got\n%+v\nwant\n%+v", all, want)
	}
	if st, ok := pgStatement(&all[1].e); !ok || st != (Statement{Kind: "statement", Text: "SELECT 'a\nb, \"c\"'"}) {
		t.Errorf("pgStatement(multi-line) = %v, %v", st, ok)
	}
	if st, ok := pgStatement(&all[2].e); !ok || st != (Statement{Kind: "error", Text: "SELEC 1"}) {
		t.Errorf("pgStatement(error report) = %v, %v", st, ok)
	}

	// A read that ends anywhere inside a record (inside quotes, after a
	// newline inside quotes, before its final newline) yields only the
	// records before it: the rest is read again next time.
	first := len(csvLogSample[0])
	for cut := first; cut < first+len(csvLogSample[1]); cut++ {
		if n := len(scan(data[:cut], 0)); n != 1 {
			t.Fatalf("cut at byte %d (%q...): %d records, want 1", cut, data[first:cut], n)
		}
	}

	// Reading from a mark (a record's end) yields the records after it.
	if rest := scan(data[all[0].end-100:], all[0].end); fmt.Sprint(rest) != fmt.Sprint(want[1:]) {
		t.Errorf("from the first record's end: got %+v", rest)
	}

	// A complete record that is not what a csvlog holds is an error, not
	// silently nothing.
	if _, err := scanCSVLog([]byte("a,b,c\n"), 0, func(*pgJSONEntry, int64) bool { return false }); err == nil {
		t.Error("a 3-field record: no error")
	}
}
