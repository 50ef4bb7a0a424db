# The import ID is a JSON object: the server's ref and the database name.
# An imported database has database_created = false: no destroy ever drops it.
terraform import tenantdb_tenant_database.acme \
  '{"server":{"name":"main","engine":"mysql","host":"db.internal","port":3306,"username":"tenantdb_admin","tls":"require"},"name":"acme_wms"}'
