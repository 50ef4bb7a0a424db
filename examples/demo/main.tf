# What `make demo` applies (cmd/tenantdb-demo fills in the variables): one
# server, two tenants with an owner login each, and read access for a
# reporting login that existed before Terraform ran. Apply it yourself
# against any server whose admin holds the rights README lists: install the
# provider first (`make install` from the repository root puts a build where
# `terraform init` finds it; README, Install), then, in this directory:
#
#   terraform init
#   export TF_VAR_admin_password=... TF_VAR_acme_owner_password=... TF_VAR_globex_owner_password=...
#   terraform apply -var engine=postgres -var host=db.internal -var ca_cert="$(cat ca.pem)"
#
# The passwords are ephemeral variables: they reach the provider and the
# server, never the state or a saved plan.

terraform {
  required_version = ">= 1.11" # write-only arguments
  required_providers {
    tenantdb = { source = "tenantdb/tenantdb" }
  }
}

variable "engine" {
  description = "\"postgres\" or \"mysql\" (MySQL 8.0+, MariaDB 10.6+)."
  type        = string
  default     = "postgres"
}

variable "host" {
  type    = string
  default = "127.0.0.1"
}

variable "port" {
  description = "null: 5432 for postgres, 3306 for mysql."
  type        = number
  default     = null
}

variable "admin_username" {
  type    = string
  default = "tenantdb_admin"
}

variable "tls" {
  type    = string
  default = "verify-full"
}

variable "ca_cert" {
  description = "PEM of the CA that signed the server's certificate (null: the system roots)."
  type        = string
  default     = null
}

variable "reporting_username" {
  description = "A login that already exists: the grant never creates it."
  type        = string
  default     = "reporting"
}

variable "admin_password" {
  type      = string
  sensitive = true
  ephemeral = true
}

variable "acme_owner_password" {
  type      = string
  sensitive = true
  ephemeral = true
}

variable "globex_owner_password" {
  type      = string
  sensitive = true
  ephemeral = true
}

variable "acme_owner_password_version" {
  description = "Bump to set acme_owner_password as the new password."
  type        = number
  default     = 1
}

provider "tenantdb" {
  admin_passwords = { demo = var.admin_password }
  # The CA is the provider's, by server name: never in state.
  ca_certs = var.ca_cert == null ? {} : { demo = var.ca_cert }
}

resource "tenantdb_db_server" "demo" {
  name     = "demo"
  engine   = var.engine
  host     = var.host
  port     = var.port
  username = var.admin_username
  tls      = var.tls
}

resource "tenantdb_tenant_database" "acme" {
  server = tenantdb_db_server.demo.ref
  name   = "acme_wms"
  # deletion_policy = "retain" (the default): destroy leaves it and its data
}

resource "tenantdb_tenant_database" "globex" {
  server = tenantdb_db_server.demo.ref
  name   = "globex_crm"
}

resource "tenantdb_tenant_owner" "acme" {
  server              = tenantdb_db_server.demo.ref
  database            = tenantdb_tenant_database.acme.name
  username            = "acme_app"
  password_wo         = var.acme_owner_password
  password_wo_version = var.acme_owner_password_version
}

resource "tenantdb_tenant_owner" "globex" {
  server              = tenantdb_db_server.demo.ref
  database            = tenantdb_tenant_database.globex.name
  username            = "globex_app"
  password_wo         = var.globex_owner_password
  password_wo_version = 1
}

resource "tenantdb_tenant_grant" "reporting" {
  server     = tenantdb_db_server.demo.ref
  database   = tenantdb_tenant_database.acme.name
  username   = var.reporting_username
  privileges = ["SELECT"]
}
