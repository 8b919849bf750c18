variable "ami_id" {
  description = "AMI of the billing API (Amazon Linux 2023)"
  type        = string
  default     = "ami-0a1b2c3d4e5f67890"
}

variable "vpc_id" {
  description = "VPC the service runs in"
  type        = string
  default     = "vpc-0f3c9a1d2b4e5f607"
}

variable "subnet_id" {
  description = "Private subnet of the instance"
  type        = string
  default     = "subnet-0c1d2e3f4a5b6c7d8"
}
