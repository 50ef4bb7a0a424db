import {
  to = tenantdb_db_server.main
  id = jsonencode({ name = "main", engine = "mysql", host = "db.internal", username = "tenantdb_admin" })
}
