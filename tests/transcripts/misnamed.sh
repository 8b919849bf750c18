# A module with two files named like override files that are not.
git init -q
mkdir app
cat > app/main.tf <<'TF'
resource "aws_instance" "web" {
  instance_type = "t3.micro"
}
TF
cp app/main.tf app/main.override.tf
cp app/main.tf app/instance_override.tf.txt
commit_all
