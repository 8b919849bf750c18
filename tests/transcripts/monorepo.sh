# Two teams, one of which keeps its own policy: team a denies override files.
git init -q
printf '[rules]\nmissing-override-comment = "warn"\n' > .override-guard.toml
mkdir -p teams/a/web teams/b/web
printf '[rules]\noverride-file = "deny"\nmissing-override-comment = "allow"\n' > teams/a/.override-guard.toml
for team in a b; do
  printf 'resource "aws_instance" "web" {\n  instance_type = "t3.micro"\n}\n' > teams/$team/web/main.tf
  printf 'resource "aws_instance" "web" {\n  instance_type = "m6i.large"\n}\n' > teams/$team/web/override.tf
done
commit_all
