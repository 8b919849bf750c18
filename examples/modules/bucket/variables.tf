variable "bucket_name" {
  description = "Globally unique name of the bucket"
  type        = string
}

variable "versioning_enabled" {
  description = "Keep every version of every object"
  type        = bool
  default     = false
}

variable "force_destroy" {
  description = "Allow terraform destroy to delete a non-empty bucket"
  type        = bool
  default     = false
}

variable "tags" {
  description = "Tags added to the bucket"
  type        = map(string)
  default     = {}
}
