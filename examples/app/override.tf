# Production sizing, owned by the platform team. Every block changed here has
# a "# WARNING: ... overridden in override.tf" comment above its primary block.

resource "aws_instance" "web" {
  instance_type = "m6i.large"

  lifecycle {
    create_before_destroy = true
  }
}

module "logs_bucket" {
  versioning_enabled = true
}
