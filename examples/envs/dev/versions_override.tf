# Pin a newer Cloudflare provider for the new DNS record options.
terraform {
  required_providers {
    cloudflare = {
      version = "~> 4.45"
    }
  }
}
