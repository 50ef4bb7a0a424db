# "maester" must already exist (MySQL/MariaDB: the account 'maester'@'%';
# PostgreSQL: a role): a grant never creates a principal. Until it exists the
# apply fails with GrantUserMissing and changes nothing.
resource "tenantdb_tenant_grant" "maester" {
  server     = tenantdb_db_server.main.ref
  database   = tenantdb_tenant_database.acme.name
  username   = "maester"
  privileges = ["SELECT", "DELETE"] # desired state: removing one revokes it on the next apply

  # No depends_on is needed: on PostgreSQL the grant's default privileges
  # follow the database's current owner, whichever is created first.
}
