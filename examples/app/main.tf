terraform {
  required_version = ">= 1.5"

  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = "~> 5.60"
    }
  }
}

locals {
  service = "billing-api"
  common_tags = {
    Service = "billing-api"
    Team    = "payments"
  }
}

resource "aws_security_group" "web" {
  name        = "${local.service}-web"
  description = "HTTPS from the load balancer, SSH from the bastion"
  vpc_id      = var.vpc_id

  ingress {
    description = "HTTPS from the load balancer"
    from_port   = 443
    to_port     = 443
    protocol    = "tcp"
    cidr_blocks = ["10.20.0.0/16"]
  }

  ingress {
    description = "SSH from the bastion"
    from_port   = 22
    to_port     = 22
    protocol    = "tcp"
    cidr_blocks = ["10.20.250.10/32"]
  }

  tags = local.common_tags
}

# WARNING: instance_type and lifecycle.create_before_destroy are overridden in override.tf
resource "aws_instance" "web" {
  ami                    = var.ami_id
  instance_type          = "t3.micro"
  subnet_id              = var.subnet_id
  vpc_security_group_ids = [aws_security_group.web.id]
  tags                   = merge(local.common_tags, { Name = "${local.service}-web" })

  lifecycle {
    ignore_changes = [ami]
  }
}
