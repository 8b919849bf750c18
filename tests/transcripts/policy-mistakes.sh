# A policy file with a misspelt level and a misspelt key.
git init -q
printf '[rules.override-file]\nlevel = "denyy"\nallow-path = ["envs/dev/**"]\n' > .override-guard.toml
printf 'resource "aws_instance" "web" {\n  instance_type = "t3.micro"\n}\n' > main.tf
commit_all
