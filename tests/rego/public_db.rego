# A policy written against plan JSON's `configuration` object: no database may be
# publicly accessible. `override-guard show DIR --format config-json` writes that object
# for the merged module, offline.
package main

import rego.v1

deny contains msg if {
	some r in input.root_module.resources
	r.type == "aws_db_instance"
	r.expressions.publicly_accessible.constant_value == true
	msg := sprintf("%s is publicly accessible", [r.address])
}
