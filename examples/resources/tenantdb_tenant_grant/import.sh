# The import ID is a JSON object: the server's ref, the database and the
# principal. Import reads what the principal holds on that database now.
terraform import tenantdb_tenant_grant.maester \
  '{"server":{"name":"main","engine":"mysql","host":"db.internal","port":3306,"username":"tenantdb_admin","tls":"require"},"database":"acme_wms","username":"maester"}'
