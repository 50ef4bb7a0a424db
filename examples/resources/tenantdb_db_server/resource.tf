resource "tenantdb_db_server" "main" {
  name     = "main"
  engine   = "mysql" # MySQL 8.0+ and MariaDB 10.6+; "postgres" for PostgreSQL 15+
  host     = "db.internal"
  port     = 3306
  username = "tenantdb_admin"
  tls      = "verify-full"
  # The CA that verifies the server certificate is the provider's
  # ca_certs = { main = file("${path.module}/ca.pem") }, never an argument
  # here: it stays out of every tenant resource's state.

  # Group-level principals no tenant may own or be granted to.
  reserved_usernames = ["app", "replicator"]
}
