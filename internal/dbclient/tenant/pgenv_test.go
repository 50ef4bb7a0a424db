// SPDX-License-Identifier: MPL-2.0

package tenant

import (
	"context"
	"testing"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient/session"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/testserver"
)

// TestPostgresIgnoresLibpqEnvironment: the libpq variables a CI runner may
// export into Terraform's environment do not steer the provider's
// PostgreSQL sessions. Each variable below, if pgx honoured it, would make
// the check fail: a read-only default transaction and another search_path
// (PGOPTIONS), another time zone (PGTZ), another application_name
// (PGAPPNAME), a standby-only connection (PGTARGETSESSIONATTRS: the test
// server is a primary), no TLS (PGSSLMODE), another host, port, database or
// user. Not parallel: it sets the process environment.
func TestPostgresIgnoresLibpqEnvironment(t *testing.T) {
	ts := testserver.Shared(t, "postgres")
	for k, v := range map[string]string{
		"PGOPTIONS":            "-c default_transaction_read_only=on -c search_path=evil",
		"PGTZ":                 "Pacific/Chatham",
		"PGAPPNAME":            "steered",
		"PGTARGETSESSIONATTRS": "standby",
		"PGSSLMODE":            "disable",
		"PGHOST":               "203.0.113.1",
		"PGPORT":               "1",
		"PGDATABASE":           "nowhere",
		"PGUSER":               "nobody",
		"PGCONNECT_TIMEOUT":    "1",
		"PGCHANNELBINDING":     "require",
		"PGSSLNEGOTIATION":     "direct",
		"PGMINPROTOCOLVERSION": "3.2",
	} {
		t.Setenv(k, v)
	}
	reg := newRegistry()
	t.Cleanup(reg.Close)
	ctx := t.Context()
	s, err := reg.Server(ctx, adminSpec(t, ts, ts.Admin))
	if err != nil {
		t.Fatalf("connect with libpq variables set: %v", err)
	}
	var readOnly, searchPath, tz, app, user, db string
	var ssl bool
	err = s.sess.Query(ctx, func(ctx context.Context, q session.Queryer) error {
		return q.QueryRowContext(ctx, `SELECT current_setting('default_transaction_read_only'), current_setting('search_path'),
  current_setting('TimeZone'), current_setting('application_name'), current_user, current_database(),
  (SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid())`).Scan(&readOnly, &searchPath, &tz, &app, &user, &db, &ssl)
	})
	if err != nil {
		t.Fatalf("read the session: %v", err)
	}
	if readOnly != "off" || searchPath == "evil" || tz == "Pacific/Chatham" || app != "tenantdb" ||
		user != ts.Admin.Username || db != "postgres" || !ssl {
		t.Errorf("the environment steered the session: read_only=%s search_path=%q TimeZone=%s application_name=%q user=%s database=%s ssl=%v",
			readOnly, searchPath, tz, app, user, db, ssl)
	}
}
