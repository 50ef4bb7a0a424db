import {
  to = tenantdb_tenant_owner.acme
  id = jsonencode({ server = tenantdb_db_server.main.ref, database = "acme_wms", username = "acme_app" })
}
