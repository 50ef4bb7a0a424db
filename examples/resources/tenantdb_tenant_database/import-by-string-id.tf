import {
  to = tenantdb_tenant_database.acme
  id = jsonencode({ server = tenantdb_db_server.main.ref, name = "acme_wms" })
}
