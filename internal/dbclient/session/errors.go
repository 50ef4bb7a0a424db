// SPDX-License-Identifier: MPL-2.0

package session

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/connect"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

var (
	mysqlTransient = map[uint16]bool{
		1290: true, 1836: true, // read-only
		1213: true,             // deadlock (a lock wait timeout, 1205, is not retried: see lockwait.go)
		1040: true, 1203: true, // too many connections
		1053: true, // server shutdown
	}
	// A session killed mid-statement (MariaDB 1927 "Connection was killed",
	// PostgreSQL 57P01 from pg_terminate_backend or a fast shutdown) may or
	// may not have applied the statement: read state back, do not blindly
	// retry. Checked on the real servers by TestKilledConnection.
	mysqlOutcomeUnknown = map[uint16]bool{2006: true, 2013: true, 1927: true}
	pgOutcomeUnknown    = map[string]bool{"57P01": true}
	pgTransient         = map[string]bool{
		"25006": true,                // read_only_sql_transaction
		"57P03": true,                // cannot connect now
		"53300": true,                // too many connections
		"40001": true, "40P01": true, // serialization failure, deadlock
	}
)

// namesReadOnly reports a MySQL/MariaDB 1290 message that names the
// read-only option ("--read-only", "--super-read-only").
func namesReadOnly(msg string) bool {
	m := strings.ToLower(msg)
	return strings.Contains(m, "read-only") || strings.Contains(m, "read_only")
}

// Classify sorts an error into terminal, transient and outcome-unknown.
func Classify(err error) connect.ErrClass {
	if err == nil {
		return connect.ClassTerminal
	}
	// An error that knows what it means for a retry (a read-only session on
	// a writable primary, a database's connection limit, a session that is
	// not the admin's): its verdict wins over the server code it wraps.
	var v interface{ Verdict() connect.ErrClass }
	if errors.As(err, &v) {
		return v.Verdict()
	}
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		switch {
		case me.Number == 1290 && !namesReadOnly(me.Message):
			// ER_OPTION_PREVENTS_STATEMENT names the option: only
			// --read-only (a replica, a failover in progress) passes;
			// --strict-password-validation, --skip-grant-tables and the
			// like are the server's configuration, and retrying cannot help.
			return connect.ClassTerminal
		case mysqlTransient[me.Number]:
			return connect.ClassTransient
		case mysqlOutcomeUnknown[me.Number]:
			return connect.ClassOutcomeUnknown
		}
		return connect.ClassTerminal
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case pgTransient[pe.Code]:
			return connect.ClassTransient
		case pe.Code == "XX000" && strings.Contains(pe.Message, "tuple concurrently updated"):
			return connect.ClassTransient
		case strings.HasPrefix(pe.Code, "08"), pgOutcomeUnknown[pe.Code]:
			return connect.ClassOutcomeUnknown
		}
		return connect.ClassTerminal
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return connect.ClassTerminal
	}
	if errors.Is(err, sql.ErrConnDone) {
		return connect.ClassTransient // the connection was already closed: nothing was sent
	}
	// Before the network classes below: a DNS or TLS failure is also a
	// net.Error, and a pgx ConnectError, but retrying it cannot help.
	if connect.IsConfigError(err) {
		return connect.ClassConfiguration
	}
	if connect.IsDNSError(err) {
		return connect.ClassTransient // a resolver timeout or failure: nothing was sent
	}
	if pgconn.SafeToRetry(err) {
		return connect.ClassTransient // pgx knows nothing was sent
	}
	var ne net.Error
	if errors.Is(err, syscall.ECONNREFUSED) {
		return connect.ClassTransient // nothing was sent
	}
	if errors.Is(err, driver.ErrBadConn) || errors.Is(err, mysql.ErrInvalidConn) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.As(err, &ne) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) {
		return connect.ClassOutcomeUnknown
	}
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) {
		return connect.ClassTransient
	}
	return connect.ClassTerminal
}

// CodeOf returns "mysql:<n>" or "pg:<sqlstate>" for a server error, else "".
func CodeOf(err error) string {
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		return fmt.Sprintf("mysql:%d", me.Number)
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return "pg:" + pe.Code
	}
	return ""
}

// Error codes that mean a specific condition.
var (
	// already exists: the claim was lost.
	codesDatabaseExists = map[string]bool{"mysql:1007": true, "pg:42P04": true}
	codesUserExists     = map[string]bool{"mysql:1396": true, "pg:42710": true, "pg:23505": true}
	// gone already: revoking or dropping it again is done.
	codesMissing = map[string]bool{
		"mysql:1141": true, "mysql:1147": true, "mysql:1269": true, "mysql:1403": true,
		"mysql:1008": true, "mysql:1049": true,
		"pg:42704": true, "pg:3D000": true,
	}
	codesAccessDenied = map[string]bool{
		"mysql:1044": true, "mysql:1045": true, "mysql:1227": true, "mysql:1410": true, "mysql:1142": true,
		"pg:42501": true, "pg:28P01": true, "pg:28000": true,
	}
)

// IsLoginRejected reports a server that refused the admin's login itself
// (wrong password, or no such user): MySQL/MariaDB 1045, PostgreSQL 28P01
// and 28000. The provider then says where the password came from.
func IsLoginRejected(err error) bool {
	c := CodeOf(err)
	return c == "mysql:1045" || c == "pg:28P01" || c == "pg:28000"
}

// IsDatabaseExists reports a lost CREATE DATABASE claim.
func IsDatabaseExists(err error) bool { return codesDatabaseExists[CodeOf(err)] }

// IsUserExists reports a lost CREATE USER/ROLE claim.
func IsUserExists(err error) bool { return codesUserExists[CodeOf(err)] }

// IsDefinerNameTaken reports MySQL 8.0.22+'s answer to a CREATE USER whose
// account is named as the DEFINER of a view, routine, trigger or event:
// 4006, not 1396, whether the login exists (a definer tenantdb kept,
// locked) or not (its objects outlived a DROP USER by a superuser).
// definerNameTaken (definer_kept.go) reads which.
func IsDefinerNameTaken(err error) bool {
	var se *StatementError
	return CodeOf(err) == CodeDefinerReferenced && errors.As(err, &se) && strings.HasPrefix(se.Statement, "CREATE USER ")
}

// IsAccessDenied reports the server refusing the admin a right.
func IsAccessDenied(err error) bool { return codesAccessDenied[CodeOf(err)] }

// isMissing reports an object, grant or principal that does not exist.
func isMissing(err error) bool { return codesMissing[CodeOf(err)] }

// StatementError is a failed statement. It carries the redacted statement
// and, only for statements without secrets, the server's message (a MySQL
// syntax error quotes the statement, which could hold a password).
type StatementError struct {
	Server    string
	Statement string // redacted
	ErrClass  connect.ErrClass
	Code      string
	Message   string
	Err       error
}

func (e *StatementError) Error() string {
	msg := e.Message
	if msg == "" {
		msg = "(server message withheld: the statement carries a secret)"
	}
	out := fmt.Sprintf("%s: %s failed (%s, %s): %s", e.Server, e.Statement, e.Code, e.ErrClass, msg)
	if e.ErrClass == connect.ClassOutcomeUnknown {
		out += ". The connection was lost mid-statement, so it may or may not have taken effect: " +
			"check the server, then apply again (a database or login it created would now be refused as pre-existing; " +
			"drop it by hand if it is new and empty)."
	}
	return out
}

// Unwrap exposes the driver error for errors.As (codes), except where its
// text might quote a secret.
func (e *StatementError) Unwrap() error {
	if e.Message == "" {
		return secretSafe{code: e.Code, inner: e.Err}
	}
	return e.Err
}

// secretSafe keeps codes reachable through errors.As but never prints the
// driver's message.
type secretSafe struct {
	code  string
	inner error
}

func (s secretSafe) Error() string { return "server error " + s.code }
func (s secretSafe) Unwrap() error { return s.inner }

func NewStatementError(server string, st ddl.Statement, err error) *StatementError {
	se := &StatementError{Server: server, Statement: st.String(), ErrClass: Classify(err), Code: CodeOf(err), Err: err}
	if se.Code == "" {
		se.Code = "client"
	}
	if st.SQL() == st.String() {
		se.Message = serverMessage(err)
	} else if notes := providerNotes(err); notes != "" {
		se.Message = "(server message withheld: the statement carries a secret) " + notes
	}
	return se
}

// serverMessage is the server's message for a statement without secrets,
// with PostgreSQL's DETAIL and HINT (which say where to look: the objects
// that depend on a role, the setting to change).
func serverMessage(err error) string {
	var ro *readOnlySessionError
	if errors.As(err, &ro) {
		return ro.Error()
	}
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		return me.Message
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Message + pgDetailHint(err)
	}
	return err.Error()
}

// pgDetailHint is the DETAIL and HINT of the PostgreSQL error in err's
// chain, each on its own line, or "". Only for errors of reads and of
// statements without secrets: a DETAIL can quote values (newStatementError
// withholds the whole message of a statement that carries a secret).
func pgDetailHint(err error) string {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return ""
	}
	out := ""
	if pe.Detail != "" {
		out += "\nDETAIL: " + pe.Detail
	}
	if pe.Hint != "" {
		out += "\nHINT: " + pe.Hint
	}
	return out
}

// Unavailable wraps exhausted retries as a PrimaryUnavailable refusal.
func unavailable(spec connect.Spec, last error) error {
	return &ddl.Error{
		Reason: ddl.PrimaryUnavailable,
		Object: spec.Describe(),
		Why:    fmt.Sprintf("The server did not accept the operation after retries: %v%s", last, readDetailHint(last)),
		Fix:    connect.UnavailableFix(last),
	}
}

// readDetailHint is pgDetailHint for an error that does not print it
// already (a read's; a statement's message has it, or withholds it).
func readDetailHint(err error) string {
	var se *StatementError
	if errors.As(err, &se) {
		return ""
	}
	return pgDetailHint(err)
}

func (s *Session) ReadError(what string, err error) error {
	var refusal *ddl.Error
	if errors.As(err, &refusal) {
		return err
	}
	return fmt.Errorf("%s: %s: %w%s", s.spec.Describe(), what, err, readDetailHint(err))
}

// CodeDefinerReferenced is MySQL's ER_CANNOT_USER_REFERENCED_AS_DEFINER
// (8.0.22+): DROP USER of a login that is the DEFINER of a view, stored
// routine, trigger or event, by an account without SET_ANY_DEFINER (see
// ddl/definer_kept.go for why the admin must not have it). The drop is
// atomic: nothing changed.
const CodeDefinerReferenced = "mysql:4006"

// PGDetail is the DETAIL of a PostgreSQL error ("" for any other error).
func PGDetail(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Detail
	}
	return ""
}

// IsUnreachable reports a server that could not be reached, or answered
// only that it is unavailable (PrimaryUnavailable after the retries, or an
// error a retry could still cure), or whose host name does not resolve yet
// (a DNS record the same apply may create), as opposed to one that was
// reached and said no (a login rejected, a TLS verification, an
// unsupported version): a plan-time check skips the first, with a
// warning, and reports the second, since the apply would fail the same way.
func IsUnreachable(err error) bool {
	var ce *connect.ConfigError
	if connect.IsDNSError(err) || errors.As(err, &ce) && ce.Kind == "DNS" {
		return true
	}
	var refusal *ddl.Error
	if errors.As(err, &refusal) {
		return refusal.Reason == ddl.PrimaryUnavailable
	}
	c := Classify(err)
	return c == connect.ClassTransient || c == connect.ClassOutcomeUnknown
}
