variable "availability_zones" {
  type = list(string)
}

resource "aws_instance" "worker" {
  instance_type = "m5.xlarge"
  key_name      = "ops-2021"
  depends_on    = []

  lifecycle {
    prevent_destroy = false
  }
}

output "worker_ips" {
  sensitive = true
}
