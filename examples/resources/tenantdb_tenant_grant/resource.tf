# "maester" must already exist (MySQL/MariaDB: the account 'maester'@'%';
# PostgreSQL: a role): a grant never creates a principal. Until it exists the
# apply fails with GrantUserMissing and changes nothing.
resource "tenantdb_tenant_grant" "maester" {
  server     = tenantdb_db_server.main.ref
  database   = tenantdb_tenant_database.acme.name
  username   = "maester"
  privileges = ["SELECT", "DELETE"] # desired state: removing one revokes it on the next apply

  # PostgreSQL: the tenant owner's default privileges carry the grant to
  # tables it creates later; depending on the owner makes sure it exists.
  depends_on = [tenantdb_tenant_owner.acme]
}
