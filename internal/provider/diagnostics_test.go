// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// TestDiagnostics_fixedSummaries pins the fixed summaries: users and the
// acceptance tests match on them, and Terraform folds warnings only when
// their summaries are identical.
func TestDiagnostics_fixedSummaries(t *testing.T) {
	t.Parallel()
	for got, want := range map[string]string{
		summaryRefresh:              "Could not refresh: kept as last read",
		summaryImportNotFound:       "Cannot import: not found on the server",
		summaryLoginNotDropped:      "Login was not dropped: it is not the recorded one",
		summaryGrantNotRevoked:      "Grant not revoked: its database or principal is not the recorded one",
		summaryIdentityRecorded:     "Identity recorded: database_created is now false",
		summaryOldLoginPending:      "Old owner login not dropped yet",
		summaryOldLoginsLeft:        "Could not drop every old login",
		summaryInvalidImportID:      "Invalid import ID",
		summarySettingsUnknown:      "Server settings are not known",
		summaryConfigureType:        "Unexpected Resource Configure Type",
		summaryDefinerKept:          "Owner login kept: MySQL refuses to drop a definer",
		summaryConnectionLimitReset: "Connection limit reset: it kept the admin out of the database",
		summaryImportedKept:         "Imported owner login kept: its privileges on the database were revoked",
		summaryImportedStillOwns:    "Imported owner login kept: it still owns the database",
		summaryRanPastTimeout:       "Ran past operation_timeout: a DROP DATABASE is never stopped part way",
		summaryHostNeverMatches:     "Host name never matches: the server skips name resolution",
	} {
		if got != want {
			t.Errorf("summary %q, pinned %q", got, want)
		}
	}
	for reason, want := range map[ddl.Reason]string{
		ddl.DatabaseRetained:    "DatabaseRetained: the database stays on the server",
		ddl.DatabaseDropSkipped: "DatabaseDropSkipped: the database was not dropped",
		ddl.DriftDetected:       "DriftDetected: the server no longer matches state",
	} {
		var diags diag.Diagnostics
		addWarning(&diags, reason, `database "a"`, "detail")
		if got := diags[0].Summary(); got != want {
			t.Errorf("%s warning summary %q, pinned %q", reason, got, want)
		}
	}
}

// TestDiagnostics_foldAcrossObjects: the same warning about 500 different
// objects has one summary (one block in Terraform's output) and each
// object in its detail.
func TestDiagnostics_foldAcrossObjects(t *testing.T) {
	t.Parallel()
	var diags diag.Diagnostics
	err := errors.New("dial tcp: connection refused")
	for i := range 500 {
		object := `database "acme_` + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + `"`
		addRefreshWarning(&diags, object, "kept", err)
		addWarning(&diags, ddl.DriftDetected, object, "gone")
		addGrantNotRevokedWarning(&diags, object, "replaced.")
		addLoginNotDroppedWarning(&diags, ddl.Username{}, "replaced.")
		addIdentityRecordedWarning(&diags, object)
	}
	summaries := map[string]int{}
	for _, d := range diags {
		summaries[d.Summary()]++
	}
	if len(summaries) != 5 {
		t.Errorf("500 objects x 5 kinds gave %d distinct summaries, want 5 (one block per kind): %v", len(summaries), summaries)
	}
}

// TestDiagnostics_onePath: outside diagnostics.go no warning is added
// directly (every warning goes through a helper there, with a fixed
// summary), and no error's summary is built at run time (fmt.Sprintf,
// concatenation): a summary that names the object defeats folding and the
// pinned texts. The scan proves it read the resource files first.
func TestDiagnostics_onePath(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	calls := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") || name == "diagnostics.go" {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				if id, ok := call.Fun.(*ast.Ident); ok && strings.HasPrefix(id.Name, "add") {
					calls++ // a helper from diagnostics.go
				}
				return true
			}
			var summaryArg int
			switch sel.Sel.Name {
			case "AddWarning", "AddAttributeWarning":
				t.Errorf("%s: %s called directly: use a helper in diagnostics.go (fixed summary, object in the detail)",
					fset.Position(call.Pos()), sel.Sel.Name)
				return true
			case "AddError":
				summaryArg = 0
			case "AddAttributeError":
				summaryArg = 1
			default:
				return true
			}
			if len(call.Args) <= summaryArg {
				return true
			}
			switch a := call.Args[summaryArg].(type) {
			case *ast.BasicLit:
			case *ast.Ident: // a constant
			default:
				t.Errorf("%s: %s with a summary built at run time (%T): use a fixed summary and put the object in the detail",
					fset.Position(call.Pos()), sel.Sel.Name, a)
			}
			return true
		})
	}
	if calls < 20 {
		t.Fatalf("found %d calls of diagnostics helpers: the scan did not read the resource files", calls)
	}
}

// TestConfigure_wrongProviderData: each resource reports provider data of
// the wrong type (as the scaffolding provider does) and accepts none.
func TestConfigure_wrongProviderData(t *testing.T) {
	t.Parallel()
	for _, r := range []resource.ResourceWithConfigure{
		&dbServerResource{}, &tenantDatabaseResource{}, &tenantGrantResource{}, &tenantOwnerResource{},
	} {
		var resp resource.ConfigureResponse
		r.Configure(context.Background(), resource.ConfigureRequest{ProviderData: "not provider data"}, &resp)
		if !resp.Diagnostics.HasError() || resp.Diagnostics[0].Summary() != summaryConfigureType {
			t.Errorf("%T: wrong provider data gave %v, want the error %q", r, resp.Diagnostics, summaryConfigureType)
		}
		resp = resource.ConfigureResponse{}
		r.Configure(context.Background(), resource.ConfigureRequest{}, &resp)
		if resp.Diagnostics.HasError() {
			t.Errorf("%T: no provider data (validation) gave %v", r, resp.Diagnostics)
		}
	}
}
