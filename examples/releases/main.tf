# region is made a constant in override.tf.json
variable "region" {
  type    = string
  default = "eu-west-1"
}

terraform {
  required_version = ">= 1.10"
}
