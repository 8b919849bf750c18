# WARNING: versioning_enabled is overridden in override.tf
module "logs_bucket" {
  source = "../modules/bucket"

  bucket_name        = "acme-billing-api-logs"
  versioning_enabled = false
  force_destroy      = false
  tags               = local.common_tags
}
