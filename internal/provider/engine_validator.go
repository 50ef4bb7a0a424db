// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// engineValidator accepts "mysql" and "postgres", and answers the common
// slips with what to write instead ("mariadb", "postgresql", "pg", ...).
type engineValidator struct{}

func (engineValidator) Description(context.Context) string {
	return `"mysql" (MySQL 8.0+, MariaDB 10.6+) or "postgres" (PostgreSQL 15+)`
}

func (v engineValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

// engineSlips maps what people write to the engine they mean.
var engineSlips = map[string]string{
	"mariadb": "MariaDB uses engine = \"mysql\" (the flavor, mariadb, is detected and shown in the computed `flavor`).",
	"mysql8":  "MySQL uses engine = \"mysql\".", "aurora-mysql": "Aurora MySQL uses engine = \"mysql\".",
	"postgresql": "PostgreSQL uses engine = \"postgres\".", "pg": "PostgreSQL uses engine = \"postgres\".",
	"pgsql": "PostgreSQL uses engine = \"postgres\".", "aurora-postgresql": "Aurora PostgreSQL uses engine = \"postgres\".",
}

func (v engineValidator) ValidateString(ctx context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	got := req.ConfigValue.ValueString()
	if got == string(ddl.EngineMySQL) || got == string(ddl.EnginePostgres) {
		return
	}
	hint, ok := engineSlips[strings.ToLower(strings.TrimSpace(got))]
	if !ok {
		hint = "Use " + v.Description(ctx) + "."
	}
	resp.Diagnostics.AddAttributeError(req.Path, "Unknown engine", fmt.Sprintf("engine %q is not an engine tenantdb knows. %s", got, hint))
}
