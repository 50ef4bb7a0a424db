# The import ID is a JSON object of the server's arguments; port, tls,
# ca_cert and reserved_usernames are optional (defaults as in the resource).
terraform import tenantdb_db_server.main '{"name":"main","engine":"mysql","host":"db.internal","username":"tenantdb_admin"}'
