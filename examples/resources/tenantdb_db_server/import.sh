# The import ID is a JSON object of the server's arguments; port, tls and
# reserved_usernames are optional (defaults as in the resource). The CA is
# not part of it: it comes from the provider's ca_certs.
terraform import tenantdb_db_server.main '{"name":"main","engine":"mysql","host":"db.internal","username":"tenantdb_admin","tls":"verify-full"}'
