variable "name" {
  description = "Prefix for every network resource name"
  type        = string
  default     = "acme"
}

variable "cidr_block" {
  description = "CIDR block of the VPC"
  type        = string
  default     = "10.20.0.0/16"
}

variable "public_subnets" {
  description = "Public subnet CIDR per availability zone"
  type        = map(string)
  default = {
    "eu-central-1a" = "10.20.1.0/24"
    "eu-central-1b" = "10.20.2.0/24"
  }
}
