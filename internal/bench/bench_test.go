// SPDX-License-Identifier: MPL-2.0

package bench

import (
	"math"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tenantdb/terraform-provider-tenantdb/internal/testserver"
)

var resourceBlock = regexp.MustCompile(`(?m)^resource "([a-z_]+)" "`)

func resourceTypes(hcl string) map[string]int {
	out := map[string]int{}
	for _, m := range resourceBlock.FindAllStringSubmatch(hcl, -1) {
		out[m[1]]++
	}
	return out
}

// Every workload has the same shape: three resources per tenant (plus the
// server, except for the peers, which have no resource for it), and the
// same dependency edges.
func TestConfigShapes(t *testing.T) {
	t.Parallel()
	tgt := Target{Engine: "mysql", Host: "127.0.0.1", Port: 3306, Admin: "tenantdb_admin", TLS: "verify-full", HasCA: true}
	const n = 7
	cases := []struct {
		name  string
		hcl   string
		types map[string]int
		// edges: the graph's dependency references per tenant
		deps int
	}{
		{"tenantdb", TenantDBConfig(tgt, n, 1), map[string]int{
			"tenantdb_db_server": 1, "tenantdb_tenant_database": n, "tenantdb_tenant_owner": n, "tenantdb_tenant_grant": n}, 1},
		{"floor", FloorConfig(n, 1), map[string]int{
			"tenantdbfloor_server": 1, "tenantdbfloor_database": n, "tenantdbfloor_owner": n, "tenantdbfloor_grant": n}, 1},
		{"shape", ShapeConfig(tgt, n, 1), map[string]int{
			"tenantdbshape_db_server": 1, "tenantdbshape_tenant_database": n, "tenantdbshape_tenant_owner": n, "tenantdbshape_tenant_grant": n}, 1},
		{"terraform_data", TerraformDataConfig(n, 1), map[string]int{"terraform_data": 3*n + 1}, 1},
		{"mysql peer", MySQLPeerConfig(tgt, n, 1), map[string]int{"mysql_database": n, "mysql_user": n, "mysql_grant": n}, 1},
		{"postgres peer", PostgresPeerConfig(Target{Engine: "postgres", Host: "127.0.0.1", Port: 5432, HasCA: true}, n, 1),
			map[string]int{"postgresql_role": n, "postgresql_database": n, "postgresql_grant": n}, 0},
	}
	for _, c := range cases {
		got := resourceTypes(c.hcl)
		if len(got) != len(c.types) {
			t.Errorf("%s: resource types %v, want %v", c.name, got, c.types)
		}
		for typ, want := range c.types {
			if got[typ] != want {
				t.Errorf("%s: %d %s, want %d", c.name, got[typ], typ, want)
			}
		}
		if d := strings.Count(c.hcl, "depends_on"); d != c.deps*n {
			t.Errorf("%s: %d depends_on, want %d", c.name, d, c.deps*n)
		}
		if strings.Count(c.hcl, "{") != strings.Count(c.hcl, "}") {
			t.Errorf("%s: unbalanced braces", c.name)
		}
	}
}

// The tenantdb configuration passes the server only as its ref (its
// Terraform type is the provider's choice), destroys for real, and keeps
// the owner password write-only.
func TestTenantDBConfig(t *testing.T) {
	t.Parallel()
	hcl := TenantDBConfig(Target{Engine: "postgres", Host: "127.0.0.1", Port: 5432, Admin: "tenantdb_admin", TLS: "verify-full", HasCA: true}, 3, 2)
	for _, want := range []string{
		`server              = tenantdb_db_server.main.ref`,
		`deletion_policy = "delete"`,
		`password_wo         = var.owner_password`,
		`password_wo_version = 1`,
		`ephemeral = true`,
		`name            = "tdb2_2"`,
		`username            = "tdb2_2_o"`,
		`username   = "bench_reader"`,
		`ca_certs = { main = file("${path.module}/ca.pem") }`,
	} {
		if !strings.Contains(hcl, want) {
			t.Errorf("config lacks %q", want)
		}
	}
	if got := strings.Count(hcl, "server = tenantdb_db_server.main.ref") + strings.Count(hcl, "server          = tenantdb_db_server.main.ref") +
		strings.Count(hcl, "server              = tenantdb_db_server.main.ref") + strings.Count(hcl, "server     = tenantdb_db_server.main.ref"); got != 9 {
		t.Errorf("%d tenant resources take server = tenantdb_db_server.main.ref, want 9", got)
	}
}

func TestClassify(t *testing.T) {
	t.Parallel()
	got := classify(testserver.EngineMySQL, []testserver.Statement{
		{Kind: "Query", Text: "SELECT VERSION()"},
		{Kind: "Query", Text: "SET sql_mode = ''"},
		{Kind: "Query", Text: "CREATE DATABASE `a`"},
		{Kind: "Prepare", Text: "SELECT ? FROM x"},
		{Kind: "Execute", Text: "SELECT 1 FROM x"},
		{Kind: "Query", Text: "/* c */ SHOW GRANTS FOR 'a'@'%'"},
		{Kind: "Query", Text: "GRANT SELECT ON `a`.* TO 'b'@'%'"},
		{Kind: "Init DB", Text: "a"},
		{Kind: "Query", Text: "DO RELEASE_LOCK('x')"},
	})
	want := StatementCounts{DDL: 2, Reads: 3, Other: 3, Prepares: 1}
	if got != want {
		t.Errorf("mysql: got %+v, want %+v", got, want)
	}
	got = classify(testserver.EnginePostgres, []testserver.Statement{
		{Kind: "execute", Text: " WITH g AS (SELECT 1) SELECT * FROM g"},
		{Kind: "statement", Text: "BEGIN"},
		{Kind: "statement", Text: "REASSIGN OWNED BY a TO b"},
		{Kind: "execute", Text: "-- x\n(SELECT 1)"},
		{Kind: "statement", Text: "DO $$BEGIN END$$"},
	})
	want = StatementCounts{DDL: 2, Reads: 2, Other: 1}
	if got != want {
		t.Errorf("postgres: got %+v, want %+v", got, want)
	}
}

func TestMedianAndStats(t *testing.T) {
	t.Parallel()
	if m := median([]float64{3, 1, 2}); m != 2 {
		t.Errorf("median odd = %v", m)
	}
	if m := median([]float64{4, 1, 2, 3}); m != 2.5 {
		t.Errorf("median even = %v", m)
	}
	res := &Result{Config: Config{Tenants: 10, Rounds: 3}, Workloads: []string{WorkTenantDB, WorkFloor, WorkTFData},
		Labels: map[string]string{WorkTenantDB: "tenantdb", WorkFloor: "floor", WorkTFData: "terraform_data"}}
	add := func(w string, round int, wall float64, failed string) {
		res.Samples = append(res.Samples, Sample{Workload: w, Round: round, Phase: "plan",
			Wall: time.Duration(wall * float64(time.Second)), CPU: time.Duration(wall * float64(time.Second) / 2), Failed: failed})
	}
	// Same-round ratios: 1.1, 1.2, and a failed round left out.
	add(WorkTenantDB, 1, 11, "")
	add(WorkFloor, 1, 10, "")
	add(WorkTFData, 1, 5, "")
	add(WorkTenantDB, 2, 24, "")
	add(WorkFloor, 2, 20, "")
	add(WorkTFData, 2, 8, "")
	add(WorkTenantDB, 3, 99, "boom")
	add(WorkFloor, 3, 10, "")
	add(WorkTFData, 3, 5, "")
	st := res.Stats(WorkTenantDB, "plan")
	if st.Runs != 2 || math.Abs(st.WallVsFloor-1.15) > 1e-9 || math.Abs(st.WallVsData-(2.2+3)/2) > 1e-9 || st.Wall != 17.5 {
		t.Errorf("stats %+v", st)
	}
	rep := Report(res)
	for _, want := range []string{"### no-op plan", "| tenantdb (2/3 ok) | 17.5 | 1.15x | 2.60x |", "| floor | 10.0 | 1.00x |"} {
		if !strings.Contains(rep, want) {
			t.Errorf("report lacks %q:\n%s", want, rep)
		}
	}

	// The shape floor in place of terraform_data: its columns, not
	// terraform_data's (NO_TFDATA=1 SHAPE=1).
	res.Workloads = []string{WorkTenantDB, WorkFloor, WorkShape}
	res.Labels[WorkShape] = "shape"
	for i := range res.Samples {
		if res.Samples[i].Workload == WorkTFData {
			res.Samples[i].Workload = WorkShape
		}
	}
	rep = Report(res)
	if strings.Contains(rep, "| ×terraform_data") || !strings.Contains(rep, "| tenantdb (2/3 ok) | 17.5 | 1.15x | 8.75 | 1.15x | 2.60x | 2.60x |") {
		t.Errorf("report with the shape floor and no terraform_data:\n%s", rep)
	}
}

func TestGroupTraces(t *testing.T) {
	t.Parallel()
	text := `File: x
Type: cpu
-----------+-------------------------------------------------------
      20ms   runtime.mallocgc
             github.com/hashicorp/terraform-plugin-framework/internal/fwserver.(*Server).PlanResourceChange
             github.com/tenantdb/terraform-provider-tenantdb/internal/provider.(*r).ModifyPlan
-----------+-------------------------------------------------------
      1.5s   github.com/tenantdb/terraform-provider-tenantdb/internal/ddl.Parse
             main.main
-----------+-------------------------------------------------------
      30ms   runtime.mallocgc
             github.com/hashicorp/terraform-plugin-framework/internal/fwserver.(*Server).ReadResource
             github.com/tenantdb/terraform-provider-tenantdb/internal/pluginserver.unary[go.shape.*uint8,go.shape.*uint8]
             github.com/tenantdb/terraform-provider-tenantdb/internal/pluginserver.(*releasingServer).ReadResource
-----------+-------------------------------------------------------
      10ms   github.com/tenantdb/terraform-provider-tenantdb/internal/pluginserver.(*requestContext).Value
             github.com/hashicorp/terraform-plugin-framework/internal/fwserver.(*Server).ReadResource
-----------+-------------------------------------------------------
`
	flat, cum, total := groupTraces(text, "s")
	group := func(prefix string) string {
		for _, g := range profileGroups {
			if strings.HasPrefix(g.name, prefix) {
				return g.name
			}
		}
		t.Fatalf("no profile group %q", prefix)
		return ""
	}
	ours, wrapper, fw, rt := group("our code"), group("request wrapper"), group("terraform-plugin-framework"), group("Go runtime")
	// The wrapper's frames are not our code: the third and fourth traces
	// count for the wrapper (cumulative) and, the fourth, its own leaf.
	want := map[string]float64{"total": 1.56, "flat rt": 0.05, "flat ours": 1.5, "cum ours": 1.52,
		"cum fw": 0.06, "cum other": 1.5, "flat wrapper": 0.01, "cum wrapper": 0.04}
	got := map[string]float64{"total": total, "flat rt": flat[rt], "flat ours": flat[ours], "cum ours": cum[ours],
		"cum fw": cum[fw], "cum other": cum[otherGroup], "flat wrapper": flat[wrapper], "cum wrapper": cum[wrapper]}
	for k, w := range want {
		if math.Abs(got[k]-w) > 1e-9 {
			t.Errorf("%s = %v, want %v (flat %v, cum %v)", k, got[k], w, flat, cum)
		}
	}
	for in, want := range map[string]float64{"10ms": 0.01, "1.20s": 1.2, "500us": 0.0005, "2min": 120} {
		if got, ok := parseQuantity(in, "s"); !ok || math.Abs(got-want) > 1e-12 {
			t.Errorf("parseQuantity(%q) = %v, %v", in, got, ok)
		}
	}
	for in, want := range map[string]float64{"512kB": 0.5, "1.50MB": 1.5, "2GB": 2048, "1048576B": 1} {
		if got, ok := parseQuantity(in, "MB"); !ok || math.Abs(got-want) > 1e-12 {
			t.Errorf("parseQuantity(%q) = %v, %v", in, got, ok)
		}
	}
}

// BASTION=1: the bastion workload's configuration goes through the
// bench's sshd (ssh_bastion on the server, the key and known_hosts line
// from files in the provider's ssh_bastions) under its own tenant names;
// the direct one has no trace of it.
func TestTenantDBBastionConfig(t *testing.T) {
	t.Parallel()
	target := Target{Engine: "mysql", Host: "127.0.0.1", Port: 3306, Admin: "tenantdb_admin", TLS: "verify-full", HasCA: true}
	direct := TenantDBConfig(target, 2, 1)
	target.Bastion = &Bastion{Port: 2222, User: "jump"}
	hcl := TenantDBBastionConfig(target, 2, 1)
	for _, want := range []string{
		"  ssh_bastion = {\n    host = \"127.0.0.1\"\n    port = 2222\n    user = \"jump\"\n  }\n}",
		`private_key = file("${path.module}/bastion-key")`,
		`known_hosts = file("${path.module}/bastion-known-hosts")`,
		`ca_certs = { main = file("${path.module}/ca.pem") }`,
		`name            = "tdbb1_1"`,
	} {
		if !strings.Contains(hcl, want) {
			t.Errorf("bastion config lacks %q:\n%s", want, hcl)
		}
	}
	if strings.Contains(direct, "ssh") || strings.Contains(direct, "tdbb") {
		t.Errorf("the direct config mentions the bastion:\n%s", direct)
	}
	if strings.Count(hcl, "{") != strings.Count(hcl, "}") {
		t.Error("unbalanced braces")
	}
}
