output "instance_id" {
  description = "ID of the web instance"
  value       = aws_instance.web.id
}

output "instance_type" {
  description = "Effective instance type (set by override.tf)"
  value       = aws_instance.web.instance_type
}

output "security_group_id" {
  description = "ID of the web security group"
  value       = aws_security_group.web.id
}

output "logs_bucket_arn" {
  description = "ARN of the access-log bucket"
  value       = module.logs_bucket.bucket_arn
}
