# A fleet of tenants from one map: each key gets its database, an owner
# login whose password comes from an ephemeral variable (or an ephemeral
# resource reading a secret store), and SELECT for the shared "reporting"
# login, which exists already. Adding a key adds a tenant; removing one
# offboards it (deletion_policy "retain": the data stays). No depends_on is
# needed between owner and grant, in any order.

variable "tenants" {
  description = "Tenant key => database name, owner login and password version (bump to rotate)."
  type = map(object({
    database         = string
    owner            = string
    password_version = number
  }))
  default = {
    acme   = { database = "acme_wms", owner = "acme_app", password_version = 1 }
    globex = { database = "globex_crm", owner = "globex_app", password_version = 1 }
  }
}

variable "tenant_owner_passwords" {
  description = "Tenant key => owner password. Ephemeral: never in state or plans."
  type        = map(string)
  sensitive   = true
  ephemeral   = true
}

resource "tenantdb_tenant_database" "tenant" {
  for_each = var.tenants
  server   = tenantdb_db_server.main.ref
  name     = each.value.database
}

resource "tenantdb_tenant_owner" "tenant" {
  for_each            = var.tenants
  server              = tenantdb_db_server.main.ref
  database            = tenantdb_tenant_database.tenant[each.key].name
  username            = each.value.owner
  password_wo         = var.tenant_owner_passwords[each.key]
  password_wo_version = each.value.password_version
}

resource "tenantdb_tenant_grant" "tenant_reporting" {
  for_each   = var.tenants
  server     = tenantdb_db_server.main.ref
  database   = tenantdb_tenant_database.tenant[each.key].name
  username   = "reporting"
  privileges = ["SELECT"]
}
