// SPDX-License-Identifier: MPL-2.0

package dbclient

import (
	"context"
	"fmt"
	"strings"
)

// passwordPolicyError explains MySQL/MariaDB error 1819: a
// password-validation plugin rejected the owner's password. The server's
// own message is withheld with every statement that carries a secret, so
// its fixed words are quoted here, with the policy's settings (read from
// the server's variables, never the password).
func (s *Server) passwordPolicyError(ctx context.Context, err error) error {
	policy := "(its settings could not be read)"
	var settings []string
	qerr := s.query(context.WithoutCancel(ctx), func(ctx context.Context, q queryer) error {
		settings = nil
		rows, err := q.QueryContext(ctx, `SELECT LOWER(VARIABLE_NAME), VARIABLE_VALUE FROM information_schema.GLOBAL_VARIABLES
WHERE VARIABLE_NAME LIKE 'SIMPLE\_PASSWORD\_CHECK%' OR VARIABLE_NAME LIKE 'CRACKLIB\_PASSWORD\_CHECK%'
   OR VARIABLE_NAME LIKE 'PASSWORD\_REUSE\_CHECK%' OR VARIABLE_NAME LIKE 'VALIDATE\_PASSWORD%'
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
			settings = append(settings, k+" = "+printableName(v))
		}
		return rows.Err()
	})
	if qerr == nil && len(settings) > 0 {
		policy = strings.Join(settings, ", ")
	}
	return fmt.Errorf("%s: the server's password policy rejected the owner's password (\"Your password does not "+
		"satisfy the current policy requirements\"); nothing was changed with it. The policy: %s. Choose a password "+
		"that meets it; tenantdb never weakens or bypasses it.\n\n%w", s.spec.describe(), policy, err)
}
