// SPDX-License-Identifier: MPL-2.0

package proof

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/session"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// maxDefinedListed bounds the objects a diagnostic lists.
const maxDefinedListed = 20

// DefinerKept is the outcome of an owner drop MySQL refused because the
// login defines objects: the login was kept and the account locked; on an
// offboarding (Revoked) its privileges on the database were revoked too,
// while a rotated-out login keeps them so its objects keep working. It
// carries names only.
type DefinerKept struct {
	Server  string
	DB      ddl.DatabaseName
	User    ddl.Username
	Revoked bool     // its privileges on DB were revoked (destroy), not only locked (rotation)
	Objects []string // e.g. "VIEW `acme`.`v`", at most maxDefinedListed
	More    int      // how many more objects it defines
}

// ObjectList is the objects, one per line, indented.
func (e *DefinerKept) ObjectList() string {
	s := "  - " + strings.Join(e.Objects, "\n  - ")
	if e.More > 0 {
		s += fmt.Sprintf("\n  - and %d more", e.More)
	}
	return s
}

func (e *DefinerKept) Error() string {
	kept := "It was locked (ACCOUNT LOCK) and keeps its privileges on database %q, so the objects above keep working; its password no longer logs in."
	if e.Revoked {
		kept = "Its privileges on database %q were revoked and it was locked (ACCOUNT LOCK): it can neither log in nor reach the tenant's data."
	}
	return fmt.Sprintf("server %q: MySQL refuses to drop login %q (error 4006): it is the DEFINER of:\n%s\n"+
		kept+" Dropping it needs SET_ANY_DEFINER, which tenantdb's admin must not hold.",
		e.Server, e.User, e.ObjectList(), e.DB)
}

// KeepDefiner follows a DROP USER that failed with dropErr: when MySQL
// refused it because the login defines objects, it locks the login,
// revokes what tenantdb granted it on db when revoke is set (offboarding;
// granted stands in for the ledger's record, ledger_grants.go; a rotation
// leaves them so the tenant's definer-rights objects keep working) and
// returns a *DefinerKept naming those objects; any other error is
// returned as it is.
func (s *Server) KeepDefiner(ctx context.Context, db ddl.DatabaseName, user ddl.Username, revoke bool, granted []ddl.Privilege, dropErr error) error {
	if s.info.Flavor != ddl.FlavorMySQL || session.CodeOf(dropErr) != session.CodeDefinerReferenced {
		return dropErr
	}
	// Locked first: whatever fails after, the login no longer logs in.
	if err := s.sess.Exec(ctx, ddl.LockLogin(user)); err != nil {
		return err
	}
	if revoke {
		if _, err := s.RevokeRecordedLocked(ctx, db, user, granted); err != nil {
			return err
		}
	}
	kept := &DefinerKept{Server: s.spec.Name, DB: db, User: user, Revoked: revoke}
	if err := s.listDefined(ctx, kept); err != nil {
		return err
	}
	return kept
}

// listDefined fills k.Objects and k.More with what k.User is the DEFINER of.
func (s *Server) listDefined(ctx context.Context, k *DefinerKept) error {
	objects, err := s.definedObjects(ctx, k.User)
	if err != nil {
		return err
	}
	if len(objects) > maxDefinedListed {
		k.More = len(objects) - maxDefinedListed
		objects = objects[:maxDefinedListed]
	}
	k.Objects = objects
	return nil
}

// accountLockedQuery reads whether an account is locked (MySQL 8.0+:
// mysql.user's account_locked, 'Y' or 'N').
const accountLockedQuery = `SELECT account_locked FROM mysql.user WHERE User = ? AND Host = ?`

// loginLocked reads whether user exists and whether it is locked.
func (s *Server) loginLocked(ctx context.Context, user ddl.Username) (found, locked bool, err error) {
	var v string
	err = s.sess.Query(ctx, func(ctx context.Context, q session.Queryer) error {
		return q.QueryRowContext(ctx, accountLockedQuery, user.String(), user.Host()).Scan(&v)
	})
	if errors.Is(err, sql.ErrNoRows) {
		return false, false, nil
	}
	if err != nil {
		return false, false, s.sess.ReadError("read whether login "+user.String()+" is locked", err)
	}
	return true, strings.EqualFold(v, "Y"), nil
}

// DefinerNameRefusal explains a CREATE USER of user that MySQL refused
// with 4006 (isDefinerNameTaken): a login that exists, locked (what a
// destroy or rotation keeps of an owner that defines objects), is
// ErrKeptDefinerExists; no login at all, ErrOrphanDefinerName. An
// existing unlocked login returns nil: it is any existing login, for the
// caller's usual checks (finishHalfMade).
func (s *Server) DefinerNameRefusal(ctx context.Context, db ddl.DatabaseName, user ddl.Username) error {
	if s.info.Flavor != ddl.FlavorMySQL {
		return nil // MariaDB drops definers: it keeps none (and has no account_locked)
	}
	found, locked, err := s.loginLocked(ctx, user)
	if err != nil || (found && !locked) {
		return err
	}
	k := &DefinerKept{Server: s.spec.Name, DB: db, User: user}
	if err := s.listDefined(ctx, k); err != nil {
		return err
	}
	if !found {
		return ddl.ErrOrphanDefinerName(s.spec.Name, user, k.ObjectList())
	}
	return ddl.ErrKeptDefinerExists(s.spec.Name, db, user, k.ObjectList())
}

// UnlockIfLocked unlocks user when it is locked (MySQL): setting an
// owner's password from the configuration declares a login the tenant logs
// in with, and a login imported after a destroy kept it as a definer is
// locked (error 3118 on every login). Nothing runs when it is not. MariaDB
// drops definers, so tenantdb locks nothing there (and its mysql.user has
// no account_locked column).
func (s *Server) UnlockIfLocked(ctx context.Context, user ddl.Username) error {
	if s.info.Flavor != ddl.FlavorMySQL {
		return nil
	}
	_, locked, err := s.loginLocked(ctx, user)
	if err != nil || !locked {
		return err
	}
	return s.sess.Exec(ctx, ddl.UnlockLogin(user))
}

// definedObjects lists what user is the DEFINER of, in every schema the
// admin can see (its global SELECT, SHOW VIEW, EXECUTE, TRIGGER and EVENT
// show them all). One query per kind: information_schema's columns differ
// in collation, which a UNION would have to reconcile.
func (s *Server) definedObjects(ctx context.Context, user ddl.Username) ([]string, error) {
	queries := []string{
		`SELECT 'VIEW', TABLE_SCHEMA, TABLE_NAME FROM information_schema.VIEWS WHERE DEFINER = ? ORDER BY 2, 3`,
		`SELECT ROUTINE_TYPE, ROUTINE_SCHEMA, ROUTINE_NAME FROM information_schema.ROUTINES WHERE DEFINER = ? ORDER BY 2, 3`,
		`SELECT 'TRIGGER', TRIGGER_SCHEMA, TRIGGER_NAME FROM information_schema.TRIGGERS WHERE DEFINER = ? ORDER BY 2, 3`,
		`SELECT 'EVENT', EVENT_SCHEMA, EVENT_NAME FROM information_schema.EVENTS WHERE DEFINER = ? ORDER BY 2, 3`,
	}
	var out []string
	err := s.sess.Query(ctx, func(ctx context.Context, q session.Queryer) error {
		out = nil
		for _, query := range queries {
			rows, err := q.QueryContext(ctx, query, ddl.MySQLDefiner(user))
			if err != nil {
				return err
			}
			for rows.Next() {
				var kind, schema, name string
				if err := rows.Scan(&kind, &schema, &name); err != nil {
					rows.Close()
					return err
				}
				out = append(out, fmt.Sprintf("%s %s.%s", kind, backquote(schema), backquote(name)))
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, s.sess.ReadError("list the objects login "+user.String()+" is the DEFINER of", err)
	}
	return out, nil
}

// backquote writes a name as MySQL quotes an identifier, for reading only:
// diagnostics name objects, they never run this text.
func backquote(name string) string { return "`" + strings.ReplaceAll(name, "`", "``") + "`" }
