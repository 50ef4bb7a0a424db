// SPDX-License-Identifier: MPL-2.0

package session

import (
	"context"
	"fmt"
	"strings"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// passwordPolicyError explains MySQL/MariaDB error 1819: a
// password-validation plugin rejected the owner's password. The server's
// own message is withheld with every statement that carries a secret, so
// its fixed words are quoted here, with the policy's settings (read from
// the server's variables, never the password).
func (s *Session) passwordPolicyError(ctx context.Context, err error) error {
	return fmt.Errorf("%s: the server's password policy rejected the owner's password (\"Your password does not "+
		"satisfy the current policy requirements\"); nothing was changed with it. The policy: %s. Choose a password "+
		"that meets it; tenantdb never weakens or bypasses it.\n\n%w", s.spec.Describe(), s.passwordPolicy(ctx), err)
}

// AlterUserPolicyError explains MariaDB error 1396 from ALTER USER on a
// login that exists (the caller has just read it): MariaDB reports a
// password its policy rejects there as "Operation ALTER USER failed", not
// as 1819, so without this the bump of password_wo_version reads as a
// missing login.
func (s *Session) AlterUserPolicyError(ctx context.Context, user string, err error) error {
	return fmt.Errorf("%s: the server's password policy rejected the new password of login %q (MariaDB reports it "+
		"from ALTER USER as \"Operation ALTER USER failed\", error 1396; the login exists and keeps its current "+
		"password); nothing was changed. The policy: %s. Choose a password that meets it (a policy such as "+
		"password_reuse_check also refuses a password used before), then bump password_wo_version again; tenantdb "+
		"never weakens or bypasses it.\n\n%w", s.spec.Describe(), user, s.passwordPolicy(ctx), err)
}

// passwordPolicy lists the password-validation settings the server has,
// read from its variables (never a password).
func (s *Session) passwordPolicy(ctx context.Context) string {
	settings, err := s.PasswordPolicySettings(context.WithoutCancel(ctx))
	switch {
	case err != nil:
		return "(its settings could not be read)"
	case len(settings) == 0:
		return "(no password-validation variable is set)"
	}
	parts := make([]string, len(settings))
	for i, kv := range settings {
		parts[i] = kv[0] + " = " + printableName(kv[1])
	}
	return strings.Join(parts, ", ")
}

// PasswordPolicySettings reads the server's password-validation variables
// (lower-case name, value; MySQL/MariaDB), in name order.
func (s *Session) PasswordPolicySettings(ctx context.Context) ([][2]string, error) {
	var settings [][2]string
	err := s.Query(ctx, func(ctx context.Context, q Queryer) error {
		settings = nil
		// MySQL 8+ has no information_schema.GLOBAL_VARIABLES; its
		// performance_schema table answers even with performance_schema off.
		// ESCAPE '!', not "\_": under the session's NO_BACKSLASH_ESCAPES
		// MySQL reads a backslash in LIKE literally (MariaDB does not), and
		// the query found no variable at all.
		table := "information_schema.GLOBAL_VARIABLES"
		if s.info.Flavor == ddl.FlavorMySQL {
			table = "performance_schema.global_variables"
		}
		rows, err := q.QueryContext(ctx, `SELECT LOWER(VARIABLE_NAME), VARIABLE_VALUE FROM `+table+`
WHERE VARIABLE_NAME LIKE 'SIMPLE!_PASSWORD!_CHECK%' ESCAPE '!' OR VARIABLE_NAME LIKE 'CRACKLIB!_PASSWORD!_CHECK%' ESCAPE '!'
   OR VARIABLE_NAME LIKE 'PASSWORD!_REUSE!_CHECK%' ESCAPE '!' OR VARIABLE_NAME LIKE 'VALIDATE!_PASSWORD%' ESCAPE '!'
   OR VARIABLE_NAME = 'STRICT_PASSWORD_VALIDATION' ORDER BY 1`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var k, v string
			if err := rows.Scan(&k, &v); err != nil {
				return err
			}
			settings = append(settings, [2]string{k, v})
		}
		return rows.Err()
	})
	return settings, err
}
