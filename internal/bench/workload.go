// SPDX-License-Identifier: MPL-2.0

package bench

import (
	"fmt"
	"strings"
)

// Workload names, in the order a round runs them (A B C D).
const (
	WorkTenantDB = "tenantdb"
	WorkBastion  = "tenantdb_bastion" // BASTION=1: tenantdb through an SSH bastion
	WorkFloor    = "floor"
	WorkShape    = "shape"
	WorkTFData   = "terraform_data"
	WorkPeer     = "peer"
)

// Provider addresses the generated CLI config overrides (dev_overrides).
const (
	addrTenantDB = "registry.terraform.io/tenantdb/tenantdb"
	addrFloor    = "registry.terraform.io/tenantdb/tenantdbfloor"
	addrShape    = "registry.terraform.io/tenantdb/tenantdbshape"
	addrMySQL    = "registry.terraform.io/petoju/mysql"
	addrPostgres = "registry.terraform.io/cyrilgdn/postgresql"
)

// Names the configurations use.
const (
	serverName  = "main"         // tenantdb_db_server name: TENANTDB_ADMIN_PASSWORD_MAIN
	readerLogin = "bench_reader" // the pre-existing grantee, created by the bench
	peerLogin   = "bench_peer"   // the peers' admin login, created by the bench
	caFile      = "ca.pem"       // the server's CA (or a bundle holding it), written into each working dir
	// The bastion's user key and its known_hosts line (BASTION=1), in the
	// bastion workload's working dir.
	bastionKeyFile = "bastion-key"
	knownHostsFile = "bastion-known-hosts"
)

// Target is the server a configuration points at.
type Target struct {
	Engine string // "mysql" or "postgres" (the provider's engine names)
	Host   string
	Port   int
	Admin  string // tenantdb's admin login
	TLS    string // tenantdb tls mode ("verify-full" with a CA)
	HasCA  bool   // caFile is in the working dir (the provider's ca_certs)
	// GrantRefresh is tenantdb's postgres_grant_refresh ("" = the default,
	// "tables"; "database" = the shallow refresh). The shape floor has no
	// such argument and never gets it.
	GrantRefresh string
	// Bastion: tenantdb reaches the server through this SSH jump host
	// (nil: directly).
	Bastion *Bastion
}

// Bastion is an SSH jump host on 127.0.0.1 (the bench's sshd); its user
// key and known_hosts line are files in the working dir.
type Bastion struct {
	Port int
	User string
}

// Resources is how many resources a configuration of n tenants has: one
// server plus three per tenant, in every workload.
func Resources(n int) int { return 3*n + 1 }

// tenantName is tenant i's database name in a round: distinct per round
// and workload, so that a destroy that left something behind makes the
// next round's create fail loudly instead of adopting it.
func tenantName(prefix string, round, i int) string {
	return fmt.Sprintf("%s%d_%d", prefix, round, i)
}

// TenantDBConfig is tenantdb's configuration: one tenantdb_db_server, then
// per tenant a tenantdb_tenant_database (deletion_policy = "delete", so
// destroy does real work), a tenantdb_tenant_owner with a write-only
// password, and a tenantdb_tenant_grant of SELECT to a login that already
// exists. Tenant resources take `server = tenantdb_db_server.main.ref`.
func TenantDBConfig(t Target, n, round int) string {
	return tenantDBShapedConfig("tenantdb", "tdb", t, n, round)
}

// TenantDBBastionConfig is TenantDBConfig through t.Bastion: the
// db_server's ssh_bastion, the key and known_hosts line from files in the
// provider's ssh_bastions; tenants named tdbb<round>_<i>.
func TenantDBBastionConfig(t Target, n, round int) string {
	return tenantDBShapedConfig("tenantdb", "tdbb", t, n, round)
}

// ShapeConfig is TenantDBConfig for the shape floor (cmd/benchshape):
// the same configuration, character for character, with the provider
// tenantdbshape, whose resources have tenantdb's schemas and do nothing.
func ShapeConfig(t Target, n, round int) string {
	return tenantDBShapedConfig("tenantdbshape", "shp", t, n, round)
}

// tenantDBShapedConfig writes tenantdb's bench configuration for provider
// p (tenantdb, or the shape floor), tenants named prefix<round>_<i>.
func tenantDBShapedConfig(p, prefix string, t Target, n, round int) string {
	var b strings.Builder
	fmt.Fprintf(&b, `terraform {
  required_providers {
    %[1]s = { source = "tenantdb/%[1]s" }
  }
}

variable "owner_password" {
  type      = string
  sensitive = true
  ephemeral = true
}

`, p)
	// The admin password comes from TENANTDB_ADMIN_PASSWORD_MAIN; the CA
	// (one certificate, or CA_CERTS of them) from the provider's ca_certs.
	refresh := ""
	if t.GrantRefresh != "" && p == "tenantdb" {
		refresh = fmt.Sprintf("  postgres_grant_refresh = %q\n", t.GrantRefresh)
	}
	provider := refresh
	if t.HasCA {
		provider += fmt.Sprintf("  ca_certs = { %s = file(\"${path.module}/%s\") }\n", serverName, caFile)
	}
	jump := ""
	if t.Bastion != nil && p == "tenantdb" {
		provider += fmt.Sprintf("  ssh_bastions = {\n    %s = {\n      private_key = file(\"${path.module}/%s\")\n"+
			"      known_hosts = file(\"${path.module}/%s\")\n    }\n  }\n", serverName, bastionKeyFile, knownHostsFile)
		jump = fmt.Sprintf("  ssh_bastion = {\n    host = \"127.0.0.1\"\n    port = %d\n    user = %q\n  }\n", t.Bastion.Port, t.Bastion.User)
	}
	fmt.Fprintf(&b, "provider %q {\n%s}\n\n", p, provider)
	fmt.Fprintf(&b, `resource "%s_db_server" "main" {
  name     = %q
  engine   = %q
  host     = %q
  port     = %d
  username = %q
  tls      = %q
%s}
`, p, serverName, t.Engine, t.Host, t.Port, t.Admin, t.TLS, jump)
	for i := 0; i < n; i++ {
		db := tenantName(prefix, round, i)
		fmt.Fprintf(&b, `
resource "%[4]s_tenant_database" "t%[1]d" {
  server          = %[4]s_db_server.main.ref
  name            = %[2]q
  deletion_policy = "delete"
}

resource "%[4]s_tenant_owner" "t%[1]d" {
  server              = %[4]s_db_server.main.ref
  database            = %[4]s_tenant_database.t%[1]d.name
  username            = "%[2]s_o"
  password_wo         = var.owner_password
  password_wo_version = 1
}

resource "%[4]s_tenant_grant" "t%[1]d" {
  server     = %[4]s_db_server.main.ref
  database   = %[4]s_tenant_database.t%[1]d.name
  username   = %[3]q
  privileges = ["SELECT"]
  depends_on = [%[4]s_tenant_owner.t%[1]d]
}
`, i, db, readerLogin, p)
	}
	return b.String()
}

// FloorConfig is the same graph in the do-nothing provider
// (cmd/benchfloor): a server whose ref every tenant resource takes,
// the owner and grant on the database's name, the grant after the owner.
func FloorConfig(n, round int) string {
	var b strings.Builder
	b.WriteString(`terraform {
  required_providers {
    tenantdbfloor = { source = "tenantdb/tenantdbfloor" }
  }
}

resource "tenantdbfloor_server" "main" {
  name = "main"
}
`)
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `
resource "tenantdbfloor_database" "t%[1]d" {
  server = tenantdbfloor_server.main.ref
  name   = %[2]q
}

resource "tenantdbfloor_owner" "t%[1]d" {
  server = tenantdbfloor_server.main.ref
  name   = tenantdbfloor_database.t%[1]d.name
}

resource "tenantdbfloor_grant" "t%[1]d" {
  server     = tenantdbfloor_server.main.ref
  name       = tenantdbfloor_database.t%[1]d.name
  depends_on = [tenantdbfloor_owner.t%[1]d]
}
`, i, tenantName("flr", round, i))
	}
	return b.String()
}

// TerraformDataConfig is the same graph in terraform_data, which needs no
// plugin at all: what Terraform core alone costs.
func TerraformDataConfig(n, round int) string {
	var b strings.Builder
	b.WriteString(`resource "terraform_data" "server" {
  input = "main"
}
`)
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `
resource "terraform_data" "db%[1]d" {
  input = "${terraform_data.server.output}/%[2]s"
}

resource "terraform_data" "owner%[1]d" {
  input = "${terraform_data.db%[1]d.output}/owner"
}

resource "terraform_data" "grant%[1]d" {
  input      = "${terraform_data.db%[1]d.output}/grant"
  depends_on = [terraform_data.owner%[1]d]
}
`, i, tenantName("tfd", round, i))
	}
	return b.String()
}

// MySQLPeerConfig is the equivalent workload in petoju/terraform-provider-mysql
// 3.0.x: per tenant a mysql_database, a mysql_user with a write-only
// password, and a mysql_grant of SELECT on the database to the same
// pre-existing login, after the user. The peer logs in as its own login
// (peerLogin, with tenantdb's admin rights) over TLS verified against the
// server's CA; its password comes from MYSQL_PASSWORD.
func MySQLPeerConfig(t Target, n, round int) string {
	var b strings.Builder
	tls := `tls = "true"`
	if t.HasCA {
		tls = fmt.Sprintf("custom_tls {\n    config_key = \"bench\"\n    ca_cert    = \"${path.module}/%s\"\n  }", caFile)
	}
	fmt.Fprintf(&b, `terraform {
  required_providers {
    mysql = { source = "petoju/mysql" }
  }
}

variable "owner_password" {
  type      = string
  sensitive = true
  ephemeral = true
}

provider "mysql" {
  endpoint = "%s:%d"
  username = %q
  %s
}
`, t.Host, t.Port, peerLogin, tls)
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `
resource "mysql_database" "t%[1]d" {
  name = %[2]q
}

resource "mysql_user" "t%[1]d" {
  user                = "%[2]s_o"
  host                = "%%"
  password_wo         = var.owner_password
  password_wo_version = 1
}

resource "mysql_grant" "t%[1]d" {
  user       = %[3]q
  host       = "%%"
  database   = mysql_database.t%[1]d.name
  privileges = ["SELECT"]
  depends_on = [mysql_user.t%[1]d]
}
`, i, tenantName("peer", round, i), readerLogin)
	}
	return b.String()
}

// PostgresPeerConfig is the equivalent workload in
// cyrilgdn/terraform-provider-postgresql 1.26: per tenant a postgresql_role
// (the owner, write-only password), a postgresql_database owned by it, and
// a postgresql_grant of SELECT on the tables of schema public to the same
// pre-existing login. The peer logs in as peerLogin (CREATEDB CREATEROLE,
// as tenantdb's admin; superuser = false) with sslmode verify-full; its
// password comes from PGPASSWORD.
func PostgresPeerConfig(t Target, n, round int) string {
	var b strings.Builder
	ssl := `sslmode = "require"`
	if t.HasCA {
		ssl = fmt.Sprintf("sslmode     = \"verify-full\"\n  sslrootcert = \"${path.module}/%s\"", caFile)
	}
	fmt.Fprintf(&b, `terraform {
  required_providers {
    postgresql = { source = "cyrilgdn/postgresql" }
  }
}

variable "owner_password" {
  type      = string
  sensitive = true
  ephemeral = true
}

provider "postgresql" {
  host      = %q
  port      = %d
  database  = "postgres"
  username  = %q
  superuser = false
  %s
}
`, t.Host, t.Port, peerLogin, ssl)
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `
resource "postgresql_role" "t%[1]d" {
  name                = "%[2]s_o"
  login               = true
  password_wo         = var.owner_password
  password_wo_version = "1"
}

resource "postgresql_database" "t%[1]d" {
  name  = %[2]q
  owner = postgresql_role.t%[1]d.name
}

resource "postgresql_grant" "t%[1]d" {
  database    = postgresql_database.t%[1]d.name
  role        = %[3]q
  schema      = "public"
  object_type = "table"
  privileges  = ["SELECT"]
}
`, i, tenantName("peer", round, i), readerLogin)
	}
	return b.String()
}
