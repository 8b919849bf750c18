terraform {
  required_version = ">= 1.5"

  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = "~> 5.60"
    }
    cloudflare = {
      source  = "cloudflare/cloudflare"
      version = "~> 4.40"
    }
  }

  backend "s3" {
    bucket         = "acme-terraform-state"
    key            = "envs/dev/terraform.tfstate"
    region         = "eu-central-1"
    dynamodb_table = "terraform-locks"
    encrypt        = true
  }
}

provider "aws" {
  region = "eu-central-1"
}

module "network" {
  source = "../../network"

  name       = "acme-dev"
  cidr_block = "10.30.0.0/16"
  public_subnets = {
    "eu-central-1a" = "10.30.1.0/24"
    "eu-central-1b" = "10.30.2.0/24"
  }
}

resource "cloudflare_record" "api" {
  zone_id = var.cloudflare_zone_id
  name    = "api.dev"
  type    = "CNAME"
  content = "acme-dev-alb-1234567890.eu-central-1.elb.amazonaws.com"
  proxied = true
}
