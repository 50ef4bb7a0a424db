resource "tenantdb_db_server" "main" {
  name     = "main"
  engine   = "mysql" # MySQL 8.0+ and MariaDB 10.6+; "postgres" for PostgreSQL 15+
  host     = "db.internal"
  port     = 3306
  username = "tenantdb_admin"
  tls      = "verify-full"
  ca_cert  = file("${path.module}/ca.pem")

  # Group-level principals no tenant may own or be granted to.
  reserved_usernames = ["app", "replicator"]
}
