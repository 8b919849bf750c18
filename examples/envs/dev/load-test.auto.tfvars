# Written by the load-test script; *.auto.tfvars is loaded after terraform.tfvars.
replica_count       = 6
cloudflare_zone     = "7d1e0c9b8a6f5e4d3c2b1a0f9e8d7c6b"
