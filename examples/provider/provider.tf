variable "main_admin_password" {
  type      = string
  sensitive = true
  ephemeral = true # never written to a saved plan
}

provider "tenantdb" {
  # Admin passwords by tenantdb_db_server name. Or set
  # TENANTDB_ADMIN_PASSWORD_MAIN in the environment.
  admin_passwords = { main = var.main_admin_password }
}
