resource "tenantdb_tenant_database" "acme" {
  server          = tenantdb_db_server.main.ref
  name            = "acme_wms"
  character_set   = "utf8mb4"            # PostgreSQL: "UTF8"
  collation       = "utf8mb4_unicode_ci" # PostgreSQL: a locale such as "C"
  deletion_policy = "retain"             # "delete" drops it on destroy, only if this resource created it
}
