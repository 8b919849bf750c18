# A copy of examples/ whose app/override.tf sizes aws_instance.web up and sets its
# key_name, staged.
examples_root
awk '/^  instance_type = "m6i.large"$/ { print "  instance_type = \"m6i.xlarge\""; print "  key_name      = \"ops-break-glass\""; next } { print }' \
  app/override.tf > app/override.tf.new && mv app/override.tf.new app/override.tf
git add app/override.tf
