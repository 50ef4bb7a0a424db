// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

func TestAccDBServer_basic(t *testing.T) {
	for _, engine := range engines() {
		t.Run(engine, func(t *testing.T) {
			s := testAccServer(t, engine)
			addr := "tenantdb_db_server.main"
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProviders,
				Steps: []resource.TestStep{
					{
						Config: s.serverHCL(`  reserved_usernames = ["app", "replicator"]`),
						ConfigStateChecks: []statecheck.StateCheck{
							statecheck.ExpectKnownValue(addr, tfjsonpath.New("id"), knownvalue.StringExact(s.name)),
							statecheck.ExpectKnownValue(addr, tfjsonpath.New("flavor"), knownvalue.StringExact(s.Flavor)),
							statecheck.ExpectKnownValue(addr, tfjsonpath.New("version"), knownvalue.StringRegexp(regexp.MustCompile(`^\d+\.\d+\.\d+$`))),
							statecheck.ExpectKnownValue(addr, tfjsonpath.New("ref").AtMapKey("port"), knownvalue.Int64Exact(int64(s.Port))),
							statecheck.ExpectKnownValue(addr, tfjsonpath.New("ref").AtMapKey("tls"), knownvalue.StringExact("verify-full")),
							statecheck.ExpectKnownValue(addr, tfjsonpath.New("ref").AtMapKey("reserved_usernames"),
								knownvalue.SetExact([]knownvalue.Check{knownvalue.StringExact("app"), knownvalue.StringExact("replicator")})),
						},
					},
					{
						Config: s.serverHCL(`  reserved_usernames = ["app", "replicator"]`),
						ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
							plancheck.ExpectEmptyPlan(),
						}},
					},
					{
						ResourceName:      addr,
						ImportState:       true,
						ImportStateId:     fmt.Sprintf(`{"name":%q,"engine":%q,"host":%q,"port":%d,"username":%q,"tls":"verify-full","ca_cert":%q,"reserved_usernames":["app","replicator"]}`, s.name, s.Engine, s.Host, s.Port, s.Admin.Username, s.CAPEM),
						ImportStateVerify: true,
					},
					{
						// Renaming a saved server is refused, not replaced.
						Config:      strings.Replace(s.serverHCL(""), fmt.Sprintf("name     = %q", s.name), `name     = "renamed"`, 1),
						ExpectError: regexp.MustCompile(`ImmutableAttribute`),
					},
				},
			})
		})
	}
}

// TestAccDBServer_missingAdminRights: a weaker admin is refused with each
// missing right and the statements that grant it.
func TestAccDBServer_missingAdminRights(t *testing.T) {
	for _, engine := range engines() {
		t.Run(engine, func(t *testing.T) {
			s := testAccServer(t, engine)
			weakName := uniqueName("weak")
			var weak = s.CreateLogin(t, weakName, "weak-Pass-1", weakGrants(engine, weakName)...)
			t.Setenv(AdminPasswordEnv(s.name), weak.Password)
			want := `(?s)MissingAdminRights.*CREATE USER.*GRANT CREATE, DROP, CREATE USER ON \*\.\* TO`
			if engine == "postgres" {
				want = `(?s)MissingAdminRights.*CREATEROLE.*ALTER ROLE .* CREATEDB CREATEROLE`
			}
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProviders,
				Steps: []resource.TestStep{{
					Config:      strings.Replace(s.serverHCL(""), fmt.Sprintf("username = %q", s.Admin.Username), fmt.Sprintf("username = %q", weak.Username), 1),
					ExpectError: regexp.MustCompile(want),
				}},
			})
		})
	}
}

func weakGrants(engine, name string) []string {
	if engine == "postgres" {
		return []string{fmt.Sprintf(`ALTER ROLE %q CREATEDB`, name)}
	}
	return []string{fmt.Sprintf("GRANT CREATE, DROP ON *.* TO '%s'@'%%'", name)}
}

// TestAccDBServer_tls: verify-full with the test CA works (every other test
// uses it); a CA that did not sign the server certificate fails.
func TestAccDBServer_wrongCA(t *testing.T) {
	for _, engine := range engines() {
		t.Run(engine, func(t *testing.T) {
			s := testAccServer(t, engine)
			wrong := strings.Replace(s.serverHCL(""), fmt.Sprintf("ca_cert  = %q", s.CAPEM), fmt.Sprintf("ca_cert  = %q", otherCA(t)), 1)
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProviders,
				Steps: []resource.TestStep{{
					Config:      wrong,
					ExpectError: regexp.MustCompile(`(?s)certificate signed by unknown authority|x509`),
				}},
			})
		})
	}
}

func otherCA(t *testing.T) string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(7), Subject: pkix.Name{CommonName: "not the test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
}
