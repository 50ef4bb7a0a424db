// SPDX-License-Identifier: MPL-2.0

package ddl

import (
	"fmt"
	"strings"
)

// Tolerance says which server errors mean "already done" for a statement,
// so that revokes and drops are idempotent on retry.
type Tolerance int

const (
	// TolerateNothing: every error is an error.
	TolerateNothing Tolerance = iota
	// TolerateMissing: the object, grant or principal being removed is
	// already gone (MariaDB 1141/1147/1269, PostgreSQL 42704).
	TolerateMissing
)

// Statement is one SQL statement of a plan. Its text is only reachable
// through SQL(), which the executor calls; every other form (String, %v,
// %+v, %#v) is the redacted text, in which each secret literal is replaced.
type Statement struct {
	sql      string
	redacted string
	// Database is the PostgreSQL database the statement must run in; ""
	// means the maintenance database. Ignored on MySQL/MariaDB.
	Database string
	// Tolerate lists the error classes that count as success.
	Tolerate Tolerance
	// Claim marks a CREATE without IF NOT EXISTS: running it twice is not
	// the same as running it once, so it is never retried when the
	// connection is lost mid-statement (every other statement is
	// idempotent and is).
	Claim bool
	// Uncancellable: once sent, the operation's deadline does not stop it
	// (no cancel request, no KILL QUERY): stopping it part way leaves an
	// object half made. A DROP DATABASE cut after it began removing files
	// leaves a PostgreSQL database invalid (15.4+: datconnlimit = -2, no
	// one can connect, only DROP DATABASE finishes it) and a MariaDB
	// database with some of its tables dropped. What it waits for first
	// (other sessions, locks) stays bounded by lock_timeout; the executor
	// reports how far past the deadline it ran (dbclient/session/uncancellable.go).
	Uncancellable bool
	// outsideTransaction: PostgreSQL refuses to run it inside a
	// transaction block (CREATE/DROP DATABASE), so a plan holding it is
	// never made transactional (InOneTransaction).
	outsideTransaction bool
}

// SQL returns the exact statement text, secrets included. Only the executor
// may call it, and it must never log or return it.
func (s Statement) SQL() string { return s.sql }

// String returns the redacted text, safe for logs and diagnostics.
func (s Statement) String() string { return s.redacted }

// GoString keeps %#v from printing the secret.
func (s Statement) GoString() string { return fmt.Sprintf("ddl.Statement(%q)", s.redacted) }

// Format makes every fmt verb print the redacted text.
func (s Statement) Format(f fmt.State, verb rune) {
	if verb == 'v' && f.Flag('#') {
		fmt.Fprint(f, s.GoString())
		return
	}
	fmt.Fprint(f, s.redacted)
}

// Plan is an ordered list of statements and, for creates, the statements
// that undo what the plan made when a statement after the first fails.
type Plan struct {
	Statements []Statement
	Undo       []Statement
	// Transaction (PostgreSQL, set by InOneTransaction): the executor sends
	// BEGIN, the statements, COMMIT on one connection, and ROLLBACK when
	// any of them fails, so the plan takes effect whole or not at all and
	// its Undo never runs. Each statement stays exactly one statement.
	Transaction bool
}

// Empty reports whether the plan runs nothing.
func (p Plan) Empty() bool { return len(p.Statements) == 0 }

// String is the redacted plan, one statement per line.
func (p Plan) String() string {
	var b strings.Builder
	for _, s := range p.Statements {
		writeStatement(&b, s)
	}
	if len(p.Undo) > 0 {
		b.WriteString("-- undo\n")
		for _, s := range p.Undo {
			writeStatement(&b, s)
		}
	}
	return b.String()
}

func writeStatement(b *strings.Builder, s Statement) {
	if s.Database != "" {
		fmt.Fprintf(b, "-- in database %s\n", s.Database)
	}
	b.WriteString(s.redacted)
	b.WriteString(";\n")
}

// Tail is the plan from statement i on, with the same undo (to finish a
// plan whose first statements are known to have run).
func (p Plan) Tail(i int) Plan {
	return Plan{Statements: append([]Statement(nil), p.Statements[min(i, len(p.Statements)):]...), Undo: p.Undo,
		Transaction: p.Transaction}
}

// Append concatenates plans; the undo of a later plan runs first. The
// result is one transaction only when both were (see InOneTransaction).
func (p Plan) Append(q Plan) Plan {
	return Plan{
		Statements:  append(append([]Statement(nil), p.Statements...), q.Statements...),
		Undo:        append(append([]Statement(nil), q.Undo...), p.Undo...),
		Transaction: p.Transaction && q.Transaction,
	}
}

// stmt builds statements: text is appended in parallel to the real and the
// redacted form, secrets only to the real one.
type stmt struct {
	real, red strings.Builder
	database  string
	tolerate  Tolerance
	claim     bool
	outsideTx bool
	keepGoing bool
}

func (b *stmt) add(parts ...string) *stmt {
	for _, p := range parts {
		b.real.WriteString(p)
		b.red.WriteString(p)
	}
	return b
}

func (b *stmt) secret(literal string) *stmt {
	b.real.WriteString(literal)
	b.red.WriteString("'[redacted]'")
	return b
}

func (b *stmt) in(db string) *stmt { b.database = db; return b }

func (b *stmt) okIfMissing() *stmt { b.tolerate = TolerateMissing; return b }

func (b *stmt) claims() *stmt { b.claim = true; return b }

func (b *stmt) noTransaction() *stmt { b.outsideTx = true; return b }

// uncancellable marks a statement that must never be stopped once it runs
// (Statement.Uncancellable says why).
func (b *stmt) uncancellable() *stmt { b.keepGoing = true; return b }

func (b *stmt) done() Statement {
	return Statement{sql: b.real.String(), redacted: b.red.String(), Database: b.database, Tolerate: b.tolerate, Claim: b.claim,
		Uncancellable: b.keepGoing, outsideTransaction: b.outsideTx}
}

// sql is shorthand for a statement without secrets.
func sql(parts ...string) *stmt { return new(stmt).add(parts...) }
