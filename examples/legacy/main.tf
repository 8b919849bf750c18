# override-guard:ignore[backend-swap] this module never had a backend
provider "aws" {
  region = "us-east-1"
}

resource "aws_instance" "worker" {
  count             = length(split(",", var.availability_zones))
  ami               = "ami-0c55b159cbfafe1f0"
  instance_type     = var.instance_type
  key_name          = var.key_name
  availability_zone = element(split(",", var.availability_zones), count.index)

  tags = {
    Name = "legacy-worker-${count.index}"
    Role = "queue-worker"
  }

  lifecycle {
    prevent_destroy = true
  }
}

# override-guard:ignore[missing-override-comment]
output "worker_ips" {
  value = aws_instance.worker[*].private_ip
}
