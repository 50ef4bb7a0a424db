// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/dbclient"
	"github.com/tenantdb/terraform-provider-tenantdb/internal/ddl"
)

// fakeGrantServer is a grantServer without a server: ReadGrant returns
// state or err; every change fails the test.
type fakeGrantServer struct {
	t     *testing.T
	state dbclient.GrantState
	err   error
}

func (f *fakeGrantServer) Info() ddl.ServerInfo {
	return ddl.ServerInfo{Flavor: ddl.FlavorMariaDB}
}

func (f *fakeGrantServer) CheckIdentity(context.Context, ddl.DatabaseName, dbclient.Identity) (dbclient.Check, error) {
	return dbclient.Check{}, nil
}

func (f *fakeGrantServer) CreateGrant(context.Context, ddl.DatabaseName, ddl.Username, ddl.PrivilegeSet) (dbclient.GrantIdentity, error) {
	f.t.Error("Read called CreateGrant")
	return dbclient.GrantIdentity{}, nil
}

func (f *fakeGrantServer) ReadGrant(context.Context, ddl.DatabaseName, ddl.Username) (dbclient.GrantState, error) {
	return f.state, f.err
}

func (f *fakeGrantServer) UpdateGrant(context.Context, ddl.DatabaseName, ddl.Username, ddl.PrivilegeSet, dbclient.GrantIdentity) error {
	f.t.Error("Read called UpdateGrant")
	return nil
}

func (f *fakeGrantServer) RevokeGrant(context.Context, ddl.DatabaseName, ddl.Username, dbclient.GrantIdentity) (dbclient.GrantRevoke, error) {
	f.t.Error("Read called RevokeGrant")
	return dbclient.GrantRevoke{}, nil
}

func (f *fakeGrantServer) OthersOnRecreated(context.Context, ddl.DatabaseName, dbclient.Identity, ddl.Username) ([]string, error) {
	return nil, nil
}

func (f *fakeGrantServer) UnescapedGrant(context.Context, ddl.DatabaseName, ddl.Username) (string, error) {
	return "", nil
}

func (f *fakeGrantServer) DatabaseOwnerToJoin(context.Context, ddl.DatabaseName) (string, error) {
	return "", nil
}

func (f *fakeGrantServer) JoinDatabaseOwner(context.Context, ddl.DatabaseName, ddl.Username) error {
	f.t.Error("Read called JoinDatabaseOwner")
	return nil
}

// readGrantWith runs the grant resource's Read on a state for database db
// against fake, with no server and no terraform.
func readGrantWith(t *testing.T, fake *fakeGrantServer, db string) *resource.ReadResponse {
	t.Helper()
	ctx := context.Background()
	r := &tenantGrantResource{data: &providerData{
		grantServerFor: func(context.Context, serverRef) (grantServer, error) { return fake, nil },
	}}
	var sresp resource.SchemaResponse
	r.Schema(ctx, resource.SchemaRequest{}, &sresp)
	privs, _ := types.SetValueFrom(ctx, types.StringType, []string{"SELECT"})
	m := tenantGrantModel{
		ID:         types.StringValue("x"),
		Server:     types.StringValue(`{"name":"main","engine":"mysql","host":"db.internal","port":3306,"username":"admin","tls":"require"}`),
		Database:   types.StringValue(db),
		Username:   types.StringValue("maester"),
		Privileges: privs,
	}
	state := tfsdk.State{Schema: sresp.Schema, Raw: tftypes.NewValue(sresp.Schema.Type().TerraformType(ctx), nil)}
	if d := state.Set(ctx, &m); d.HasError() {
		t.Fatalf("state: %v", d)
	}
	resp := &resource.ReadResponse{State: state}
	r.Read(ctx, resource.ReadRequest{State: state}, resp)
	return resp
}

// TestTenantGrantRead_fake drives Read's drift handling through the
// grantServer interface: a principal dropped outside Terraform removes the
// grant with a DriftDetected warning; an unreachable server keeps it with
// a warning whose summary does not name the object, so many fold into one.
func TestTenantGrantRead_fake(t *testing.T) {
	t.Parallel()
	t.Run("principal gone", func(t *testing.T) {
		fake := &fakeGrantServer{t: t, state: dbclient.GrantState{DatabaseFound: true}}
		resp := readGrantWith(t, fake, "acme_wms")
		if resp.Diagnostics.HasError() {
			t.Fatalf("unexpected error: %v", resp.Diagnostics)
		}
		if !resp.State.Raw.IsNull() {
			t.Errorf("state kept: want the grant removed from state")
		}
		requireOneWarning(t, resp.Diagnostics, "DriftDetected: ", "acme_wms")
	})
	t.Run("unreachable folds", func(t *testing.T) {
		summaries := map[string]bool{}
		for _, db := range []string{"acme_1", "acme_2", "acme_3"} {
			fake := &fakeGrantServer{t: t, err: errors.New("dial tcp 10.0.0.1:3306: connection refused")}
			resp := readGrantWith(t, fake, db)
			if resp.Diagnostics.HasError() {
				t.Fatalf("unexpected error: %v", resp.Diagnostics)
			}
			if resp.State.Raw.IsNull() {
				t.Errorf("%s: removed from state; an unreachable server must keep it", db)
			}
			w := requireOneWarning(t, resp.Diagnostics, "", db)
			summaries[w.Summary()] = true
		}
		if len(summaries) != 1 {
			t.Errorf("three unreachable grants gave %d warning summaries, want 1 (Terraform folds only identical summaries): %v", len(summaries), summaries)
		}
	})
}

// requireOneWarning asserts diags hold exactly one warning, its summary
// starting with prefix and not naming object, its detail naming it.
func requireOneWarning(t *testing.T, diags diag.Diagnostics, prefix, object string) diag.Diagnostic {
	t.Helper()
	ws := diags.Warnings()
	if len(ws) != 1 {
		t.Fatalf("want one warning, got %d: %v", len(ws), diags)
	}
	w := ws[0]
	if !strings.HasPrefix(w.Summary(), prefix) {
		t.Errorf("summary %q does not start with %q", w.Summary(), prefix)
	}
	if strings.Contains(w.Summary(), object) {
		t.Errorf("summary %q names the object %q: it belongs in the detail", w.Summary(), object)
	}
	if !strings.Contains(w.Detail(), object) {
		t.Errorf("detail %q does not name the object %q", w.Detail(), object)
	}
	return w
}
