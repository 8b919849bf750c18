# Local experiments: keep state on my laptop instead of S3. Do not commit!
terraform {
  backend "local" {
    path = "dev.tfstate"
  }
}
