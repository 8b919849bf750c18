# A copy of examples/ whose app/override.tf also sets key_name on aws_instance.web, not
# staged yet.
examples_root
awk '{ print } /^  instance_type = "m6i.large"$/ { print "  key_name      = \"ops-break-glass\"" }' \
  app/override.tf > app/override.tf.new && mv app/override.tf.new app/override.tf
