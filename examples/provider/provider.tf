variable "main_admin_password" {
  type      = string
  sensitive = true
  ephemeral = true # never written to a saved plan
}

provider "tenantdb" {
  # Admin passwords by tenantdb_db_server name. Or set
  # TENANTDB_ADMIN_PASSWORD_MAIN in the environment.
  admin_passwords = { main = var.main_admin_password }

  # CA certificates (PEM: one certificate or a bundle) by tenantdb_db_server
  # name, for tls = "verify-ca" / "verify-full"; without an entry the system
  # roots are used. Never written to state, so a bundle of a hundred
  # certificates costs tenant state nothing.
  ca_certs = { main = file("${path.module}/ca.pem") }
}
