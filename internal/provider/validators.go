// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// identifierValidator applies internal/ddl's engine-independent rules at
// plan time; engine-specific ones run in ValidateConfig.
type identifierValidator struct{ kind string }

func (v identifierValidator) Description(context.Context) string {
	return fmt.Sprintf("must be a valid %s (InvalidIdentifier)", v.kind)
}

func (v identifierValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (v identifierValidator) ValidateString(ctx context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if (v.kind == "character set" || v.kind == "collation") && engineKnown(ctx, req.Config) {
		return // ValidateConfig applies the engine's own rule: one refusal, not two
	}
	s := req.ConfigValue.ValueString()
	var err error
	switch v.kind {
	case "server name":
		_, err = ddl.NewServerName(s)
	case "database name":
		_, err = ddl.NewDatabaseName(ddl.EngineMySQL, s)
	case "username":
		_, err = ddl.NewUsername(ddl.EngineMySQL, s)
	case "host":
		_, err = ddl.NewAccountHost(s)
	case "character set":
		// The engine may not be known yet: accept what either engine
		// accepts; ValidateConfig and ModifyPlan apply the engine's rule.
		if _, err = ddl.NewCharsetFor(ddl.EngineMySQL, s); err != nil {
			if _, pgErr := ddl.NewCharsetFor(ddl.EnginePostgres, s); pgErr == nil {
				err = nil
			}
		}
	case "collation":
		if _, err = ddl.NewCollationFor(ddl.EngineMySQL, s); err != nil {
			if _, pgErr := ddl.NewCollationFor(ddl.EnginePostgres, s); pgErr == nil {
				err = nil
			}
		}
	}
	if err != nil {
		addAttributeError(&resp.Diagnostics, req.Path, err)
	}
}

// engineKnown reports whether a tenant resource's configured server is
// known and names a valid engine (then ValidateConfig checks settings with
// that engine's rules).
func engineKnown(ctx context.Context, config tfsdk.Config) bool {
	var server types.String
	if d := config.GetAttribute(ctx, path.Root("server"), &server); d.HasError() {
		return false
	}
	ref, known, _ := refFromString(server)
	if !known {
		return false
	}
	_, err := ddl.ParseEngine(ref.Engine)
	return err == nil
}

// pemBundleValidator refuses a ca_certs value that holds no PEM
// certificate, at validate time.
type pemBundleValidator struct{}

func (pemBundleValidator) Description(context.Context) string {
	return "must hold at least one PEM certificate (-----BEGIN CERTIFICATE-----)"
}

func (v pemBundleValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (pemBundleValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if caFingerprint(string(dbclient.TLSVerifyFull), req.ConfigValue.ValueString()).IsNull() {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid CA certificate",
			"The value holds no PEM certificate (a block starting -----BEGIN CERTIFICATE-----). Give the PEM text "+
				"itself, e.g. file(\"${path.module}/ca.pem\"), not a file name.")
	}
}

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

// durationValidator accepts a Go duration ("30s", "2m") within [min, max].
type durationValidator struct{ min, max time.Duration }

func (v durationValidator) Description(context.Context) string {
	return fmt.Sprintf("a duration such as \"30s\" or \"2m\", between %s and %s", v.min, v.max)
}

func (v durationValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (v durationValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	d, err := time.ParseDuration(req.ConfigValue.ValueString())
	if err != nil || d < v.min || d > v.max {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid duration",
			fmt.Sprintf("%q is not %s.", req.ConfigValue.ValueString(), v.Description(context.Background())))
	}
}

// privilegesValidator applies the rules every engine shares at validate
// time (a known privilege name; ALL PRIVILEGES alone); the engine's own
// allowlist applies once the engine is known (ModifyPlan).
type privilegesValidator struct{}

func (privilegesValidator) Description(context.Context) string {
	return "privileges on the engine's allowlist; ALL PRIVILEGES only alone (PrivilegeNotAllowed)"
}

func (v privilegesValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (privilegesValidator) ValidateSet(ctx context.Context, req validator.SetRequest, resp *validator.SetResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	var names []string
	for _, e := range req.ConfigValue.Elements() {
		s, ok := e.(types.String)
		if !ok || s.IsUnknown() {
			return
		}
		names = append(names, s.ValueString())
	}
	if err := ddl.CheckPrivilegesAnyEngine(names); err != nil {
		addAttributeError(&resp.Diagnostics, req.Path, err)
	}
}

// connectionLimitValidator applies ddl's one rule for connection_limit
// (1 to ddl.MaxConnectionLimit; null for none) when the configuration is
// validated, before any server is known.
type connectionLimitValidator struct{}

func (connectionLimitValidator) Description(context.Context) string {
	return "between 1 and 2147483647; null for no limit of the login's own"
}

func (v connectionLimitValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (connectionLimitValidator) ValidateInt64(_ context.Context, req validator.Int64Request, resp *validator.Int64Response) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if _, err := ddl.NewConnectionLimit(req.ConfigValue.ValueInt64()); err != nil {
		addAttributeError(&resp.Diagnostics, req.Path, err)
	}
}
