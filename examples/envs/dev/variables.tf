variable "cloudflare_zone_id" {
  description = "Cloudflare zone of acme.example"
  type        = string
  default     = "0f4c2b7e9a1d4c3b8e6f5a2d1c0b9e8f"
}

# WARNING: the type is overridden in variables_override.tf
variable "replica_count" {
  description = "API replicas in dev"
  type        = number
  default     = 1
}
