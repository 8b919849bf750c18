# Terraform reads this file; OpenTofu reads main.tofu instead (same name, .tofu wins).
resource "aws_sqs_queue" "jobs" {
  name                       = "jobs"
  visibility_timeout_seconds = 30
}
