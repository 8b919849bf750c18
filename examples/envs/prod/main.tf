terraform {
  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = "~> 5.60"
    }
  }

  backend "s3" {
    bucket         = "acme-terraform-state"
    key            = "envs/prod/terraform.tfstate"
    region         = "eu-central-1"
    dynamodb_table = "terraform-locks"
    encrypt        = true
  }
}

provider "aws" {
  region = "eu-central-1"
}

# log_retention_days is replaced by generated_override.tf.json (sg-sync)
locals {
  environment        = "prod"
  log_retention_days = 30
}

module "network" {
  source = "../../network"

  name       = "acme-prod"
  cidr_block = "10.40.0.0/16"
  public_subnets = {
    "eu-central-1a" = "10.40.1.0/24"
    "eu-central-1b" = "10.40.2.0/24"
  }
}

# ingress and tags are replaced by generated_override.tf.json (sg-sync)
resource "aws_security_group" "api" {
  name   = "acme-prod-api"
  vpc_id = module.network.vpc_id

  ingress {
    description = "HTTPS from anywhere"
    from_port   = 443
    to_port     = 443
    protocol    = "tcp"
    cidr_blocks = ["0.0.0.0/0"]
  }

  tags = {
    Environment = local.environment
  }
}

resource "aws_cloudwatch_log_group" "api" {
  name              = "/acme/prod/api"
  retention_in_days = local.log_retention_days
}
