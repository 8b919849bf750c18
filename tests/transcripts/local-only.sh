# A module whose override.tf is git-ignored, as GitHub's Terraform .gitignore does.
git init -q
printf 'override.tf\n' > .gitignore
mkdir app
cat > app/main.tf <<'TF'
terraform {
  backend "s3" {}
}

resource "aws_instance" "web" {
  instance_type = "t3.micro"
}
TF
commit_all
cat > app/override.tf <<'TF'
terraform {
  backend "local" {}
}

resource "aws_instance" "web" {
  instance_type = "m6i.large"
}
TF
