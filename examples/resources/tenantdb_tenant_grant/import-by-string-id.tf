import {
  to = tenantdb_tenant_grant.maester
  id = jsonencode({ server = tenantdb_db_server.main.ref, database = "acme_wms", username = "maester" })
}
