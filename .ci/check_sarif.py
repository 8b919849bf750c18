"""Validates SARIF logs against the official OASIS SARIF 2.1.0 schema (draft-07), offline.

    python check_sarif.py SCHEMA LOG...

Run by .ci/run on the logs the test suite writes (tests/sarif.rs) and on what the CLI
prints for examples/. It lives here rather than in `cargo test` because a JSON Schema
validator in Rust (jsonschema and its 40 crates) was the largest part of the test build;
the CI's Python already has one (the `jsonschema` package check-jsonschema brings) and
checks formats with rfc3986-validator / rfc3339-validator.

Before judging anything it proves that it can fail: each log is broken four ways (a wrong
version, a result without its message, a level SARIF does not know, a raw space in a URI)
and every one of them must be rejected at the path it was broken.
"""

import copy
import json
import sys

import jsonschema

# The `pattern` of `run.language` and `toolComponent.language` in the official schema. Its
# stray `]` is a literal under ECMA-262's lenient (Annex B) syntax, but JSON Schema checks
# patterns strictly, so the meta-schema check rejects the whole schema. The escaped form
# matches exactly what the original does.
LANGUAGE_PATTERN = "^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$"
LANGUAGE_PATTERN_ESCAPED = r"^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}\]?$"


def escape_language_pattern(value):
    """Replaces every `"pattern": LANGUAGE_PATTERN` in a schema; returns how many."""
    count = 0
    if isinstance(value, dict):
        if value.get("pattern") == LANGUAGE_PATTERN:
            value["pattern"] = LANGUAGE_PATTERN_ESCAPED
            count += 1
        for child in value.values():
            count += escape_language_pattern(child)
    elif isinstance(value, list):
        for child in value:
            count += escape_language_pattern(child)
    return count


def validator(schema_path):
    with open(schema_path, encoding="utf-8") as f:
        schema = json.load(f)
    # Both `language` properties; if a re-vendored schema fixed them, drop this patch.
    patched = escape_language_pattern(schema)
    if patched != 2:
        sys.exit(f"{schema_path}: expected 2 language patterns to escape, found {patched}")
    cls = jsonschema.Draft7Validator
    cls.check_schema(schema)
    checker = cls.FORMAT_CHECKER
    if "uri-reference" not in checker.checkers:
        sys.exit("the uri-reference format is not checked: install rfc3986-validator")
    return cls(schema, format_checker=checker)


def errors(v, log):
    return [
        "/" + "/".join(str(p) for p in e.absolute_path) + f": {e.message}"
        for e in v.iter_errors(log)
    ]


def breakages(log):
    """(what, how the log is broken, the path an error must name)."""

    def version(l):
        l["version"] = "2.0.0"

    def no_message(l):
        del l["runs"][0]["results"][0]["message"]

    def bad_level(l):
        l["runs"][0]["results"][0]["level"] = "warn"

    def raw_space(l):
        loc = l["runs"][0]["results"][0]["locations"][0]
        loc["physicalLocation"]["artifactLocation"]["uri"] = "infra/prod env/main.tf"

    return [
        ("version 2.0.0", version, "/version"),
        ("a result without message", no_message, "/runs/0/results/0"),
        ('level "warn"', bad_level, "/runs/0/results/0/level"),
        ("a raw space in a uri", raw_space, "/runs/0/results/0/locations/0"),
    ]


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    v = validator(sys.argv[1])
    failed = False
    for path in sys.argv[2:]:
        with open(path, encoding="utf-8") as f:
            log = json.load(f)
        found = errors(v, log)
        if found:
            failed = True
            print(f"{path}: violates the SARIF 2.1.0 schema:", *found, sep="\n  ")
            continue
        results = log["runs"][0].get("results", [])
        if not results or not results[0].get("locations"):
            print(f"{path}: valid ({len(results)} results; too few to break on purpose)")
            continue
        for what, breaking, where in breakages(log):
            broken = copy.deepcopy(log)
            breaking(broken)
            if not any(e.startswith(where) for e in errors(v, broken)):
                failed = True
                print(f"{path}: {what} was not rejected at {where}")
        print(f"{path}: valid ({len(results)} results), and rejected when broken")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
