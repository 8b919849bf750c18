# The team's version file pins Terraform 1.12.2, but this module was moved to 1.13:
# `terraform init` refuses it (version-mismatch).
terraform {
  required_version = ">= 1.13"
}

resource "aws_sqs_queue" "events" {
  name = "events"
}
