variable "availability_zones" {
  description = "Comma-separated availability zones"
  type        = string
  default     = "us-east-1a,us-east-1b,us-east-1c"
}

variable "instance_type" {
  default = "m4.large"
}

variable "key_name" {
  default = "ops-2017"
}
