# The password comes from an ephemeral source and is write-only: it is never
# stored in state or plans. Bump password_wo_version to rotate it.
variable "acme_owner_password" {
  type      = string
  sensitive = true
  ephemeral = true
}

resource "tenantdb_tenant_owner" "acme" {
  server              = tenantdb_db_server.main.ref
  database            = tenantdb_tenant_database.acme.name
  username            = "acme_app" # changing it rotates the login in place, create-before-drop
  password_wo         = var.acme_owner_password
  password_wo_version = 1
  privileges          = ["ALL PRIVILEGES"] # PostgreSQL: must be ALL (the owner owns the database)
}
