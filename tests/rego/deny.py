"""Evaluates `data.main.deny` of a Rego policy (argv[1]) on the JSON document on stdin,
with regopy (rego-cpp's Python bindings), and prints the messages as a sorted JSON list."""

import json
import sys

import regopy

rego = regopy.Interpreter()
with open(sys.argv[1], encoding="utf-8") as f:
    rego.add_module("policy", f.read())
rego.set_input_term(json.dumps(json.load(sys.stdin)))
out = rego.query("data.main.deny")
if not out.ok():
    sys.exit(f"rego: {out}")
result = json.loads(str(out))
messages = result["expressions"][0] if result.get("expressions") else []
print(json.dumps(sorted(messages)))
