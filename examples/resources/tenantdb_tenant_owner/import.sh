# The import ID is a JSON object: the server's ref, the database and the login.
# An imported owner has user_created = false: no destroy ever drops it.
terraform import tenantdb_tenant_owner.acme \
  '{"server":{"name":"main","engine":"mysql","host":"db.internal","port":3306,"username":"tenantdb_admin","tls":"require"},"database":"acme_wms","username":"acme_app"}'
