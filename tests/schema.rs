//! The policy file's JSON Schema (`schema/override-guard.schema.json`, written from the
//! reader's own tables by `src/policy/schema.rs`) judged against the reader: every policy
//! of the repository passes both or neither, each kind of mistake is refused by both, and
//! what only the reader can see (glob and regex syntax, a date written as a string) is
//! listed. Then what ships with it: the package, the SchemaStore entry, the `#:schema`
//! line of the starter and the template.

use std::path::{Path, PathBuf};

use override_guard::policy::Policy;
use override_guard::policy::schema;
use serde_json::{Value, json};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn validator() -> jsonschema::Validator {
    let schema: Value = serde_json::from_str(&read(schema::PATH)).expect("the schema is JSON");
    jsonschema::draft7::options()
        .should_validate_formats(true)
        .build(&schema)
        .expect("the schema is a draft-07 schema")
}

/// The schema's errors on a policy's text (`None`: not TOML at all).
fn schema_errors(v: &jsonschema::Validator, text: &str) -> Option<Vec<String>> {
    let table: toml::Table = toml::from_str(text).ok()?;
    let json = schema::to_json(&toml::Value::Table(table));
    Some(v.iter_errors(&json).map(|e| format!("{} at {}", e, e.instance_path())).collect())
}

/// Every policy file of the repository: the bundled ones, the examples' and the fixtures'.
fn policy_files() -> Vec<PathBuf> {
    let mut files = vec![];
    let mut stack = vec![root().join("policies"), root().join("examples"), root().join("tests")];
    while let Some(p) = stack.pop() {
        if p.is_dir() {
            stack.extend(std::fs::read_dir(&p).unwrap().map(|e| e.unwrap().path()));
            continue;
        }
        let name = p.file_name().unwrap().to_string_lossy();
        let bundled = p.parent() == Some(&root().join("policies")) && name.ends_with(".toml");
        if bundled || name == ".override-guard.toml" || name == "policy.toml" {
            files.push(p);
        }
    }
    files.sort();
    files
}

/// The schema accepts exactly the policy files the reader accepts; those the reader refuses
/// hold at least one mistake of a shape the schema sees too.
#[test]
fn every_policy_of_the_repository_gets_the_readers_verdict() {
    let v = validator();
    let (mut valid, mut refused) = (0, 0);
    for f in policy_files() {
        let rel = f.strip_prefix(root()).unwrap().display().to_string();
        let text = std::fs::read_to_string(&f).unwrap();
        let Some(errors) = schema_errors(&v, &text) else {
            // Not TOML: no editor gets as far as the schema either.
            assert!(Policy::parse(&rel, &text).is_err(), "{rel}");
            continue;
        };
        match Policy::parse(&rel, &text) {
            Ok(_) => {
                valid += 1;
                assert!(
                    errors.is_empty(),
                    "{rel}: the reader accepts it, the schema says {errors:?}"
                );
            }
            Err(_) => {
                refused += 1;
                assert!(!errors.is_empty(), "{rel}: the reader refuses it, the schema accepts it");
            }
        }
    }
    // policies/ (4), examples/, the fix fixtures' before and after, the policy fixtures.
    assert!(valid >= 20, "{valid} valid policy files");
    assert!(refused >= 3, "{refused} refused policy files");
}

/// One mistake at a time, taken from the refused fixtures
/// (`tests/fixtures/policy/35-…`, `36-…`, `37-…`): the reader refuses each, and so does the
/// schema, at the place of the mistake.
#[test]
fn each_mistake_of_shape_is_refused_by_both() {
    let v = validator();
    let cases: &[(&str, &str, &str)] = &[
        ("a misspelt rule id", "[rules]\nbackend-swop = \"deny\"\n", "/rules"),
        ("a misspelt rule table", "[rules.override-fil]\nlevel = \"deny\"\n", "/rules"),
        ("a misspelt level", "[rules]\nsilent-drop = \"denny\"\n", "/rules/silent-drop"),
        (
            "a misspelt level in a table",
            "[rules.override-file]\nlevel = \"denyy\"\n",
            "/rules/override-file/level",
        ),
        (
            "a level named as elsewhere",
            "[[rules.engine-divergence.scope]]\npaths = [\"tofu/**\"]\nlevel = \"error\"\n",
            "/rules/engine-divergence/scope/0/level",
        ),
        (
            "a level of the wrong type",
            "[rules]\nunused-suppression = true\n",
            "/rules/unused-suppression",
        ),
        (
            "an unknown key of a rule",
            "[rules.override-file]\nallow-path = [\"envs/dev/**\"]\n",
            "/rules/override-file",
        ),
        (
            "another rule's option",
            "[rules.protected-attribute]\nmax-per-module = 1\n",
            "/rules/protected-attribute",
        ),
        (
            "an unknown top-level key",
            "[[exception]]\nrule = \"override-file\"\nreason = \"generated\"\n",
            "",
        ),
        (
            "an unknown key of an exception",
            "[[exceptions]]\nrule = \"override-file\"\nadress = \"resource.*\"\nreason = \"generated\"\n",
            "/exceptions/0",
        ),
        (
            "an unknown key of a scope",
            "[[rules.override-file.scope]]\npaths = [\"a/**\"]\nlevel = \"warn\"\nexclud = []\n",
            "/rules/override-file/scope/0",
        ),
        (
            "an option of the wrong type",
            "[rules.override-file]\nonly-json = \"yes\"\n",
            "/rules/override-file/only-json",
        ),
        (
            "a count below 1",
            "[rules.override-file]\nmax-per-module = 0\n",
            "/rules/override-file/max-per-module",
        ),
        (
            "globs of the wrong type",
            "[rules.protected-attribute]\nattributes = 3\n",
            "/rules/protected-attribute/attributes",
        ),
        (
            "a glob of the wrong type",
            "[rules.override-file]\npaths = [\"a/**\", 3]\n",
            "/rules/override-file/paths/1",
        ),
        (
            "an exception without a reason",
            "[[exceptions]]\nrule = \"override-file\"\npaths = [\"app/**\"]\n",
            "/exceptions/0",
        ),
        (
            "an exception without a rule",
            "[[exceptions]]\npaths = [\"legacy/**\"]\nreason = \"legacy stack\"\n",
            "/exceptions/0",
        ),
        (
            "a blank reason",
            "[[exceptions]]\nrule = \"backend-swap\"\nreason = \"  \"\n",
            "/exceptions/0/reason",
        ),
        (
            "an exception for a misspelt rule",
            "[[exceptions]]\nrule = \"weakend-safeguard\"\nreason = \"recreated nightly\"\n",
            "/exceptions/0/rule",
        ),
        (
            "an expiry with a time",
            "[[exceptions]]\nrule = \"backend-swap\"\nreason = \"r\"\nexpires = 2027-01-31T10:00:00\n",
            "/exceptions/0/expires",
        ),
        (
            "a scope without a level",
            "[[rules.override-file.scope]]\npaths = [\"envs/dev/**\"]\n",
            "/rules/override-file/scope/0",
        ),
    ];
    for (what, text, at) in cases {
        assert!(Policy::parse("p.toml", text).is_err(), "the reader accepts {what}:\n{text}");
        let errors = schema_errors(&v, text).expect("TOML");
        assert!(
            errors.iter().any(|e| e.ends_with(&format!(" at {at}"))),
            "the schema does not refuse {what} at `{at}`:\n{text}{errors:?}"
        );
    }
}

/// What JSON Schema cannot see: the reader alone refuses these (docs/policy.md says so; tombi
/// tells a date from a string, `tests/machine/toml_editors.rs`).
#[test]
fn what_only_the_reader_refuses() {
    let v = validator();
    for text in [
        "[rules.override-file]\nallow-paths = [\"envs/[dev/**\"]\n",
        "[rules.missing-override-comment]\npattern = \"NOTE: (overridden by {override}\"\n",
        "[[exceptions]]\nrule = \"override-file\"\nreason = \"r\"\nexpires = \"2027-01-31\"\n",
    ] {
        assert!(Policy::parse("p.toml", text).is_err(), "{text}");
        assert_eq!(schema_errors(&v, text), Some(vec![]), "{text}");
    }
}

/// The schema is part of the crate's package, and its published address is its `$id`.
#[test]
fn the_schema_ships_and_names_its_address() {
    let manifest = read("Cargo.toml");
    assert!(manifest.contains(&format!("\"/{}\",", schema::PATH)), "Cargo.toml's include");
    let s: Value = serde_json::from_str(&read(schema::PATH)).unwrap();
    assert_eq!(s["$id"], json!(schema::url("main")));
    assert_eq!(s["$schema"], json!("http://json-schema.org/draft-07/schema#"));
}

/// The entry prepared for SchemaStore's catalog points at the published schema, for the
/// policy file's name.
#[test]
fn the_schemastore_entry_points_at_the_schema() {
    let entry: Value =
        serde_json::from_str(&read("schema/schemastore-catalog-entry.json")).expect("JSON");
    assert_eq!(entry["name"], json!("override-guard"));
    assert_eq!(entry["fileMatch"], json!([".override-guard.toml"]));
    assert_eq!(entry["url"], json!(schema::url("main")));
    assert!(entry["description"].as_str().is_some_and(|d| d.len() > 20));
    let keys: Vec<&String> = entry.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["name", "description", "fileMatch", "url"]);
}

/// The starter policy (`init`) and the template open with the `#:schema` line of this
/// version's schema, so an editor completes and checks them as they are: at the version's
/// tag once it is released, on the default branch before (the tag does not exist yet,
/// and the URL would not answer). A release moves the changelog's unreleased entries
/// under the version's heading, as `init --pre-commit` reads it.
#[test]
fn the_starter_and_the_template_name_this_versions_schema() {
    let changelog = read("CHANGELOG.md");
    let unreleased = changelog
        .split("\n## ")
        .find(|s| s.to_ascii_lowercase().starts_with("unreleased"))
        .is_some_and(|s| s.lines().any(|l| l.starts_with("- ")));
    let rev =
        if unreleased { "main".to_string() } else { format!("v{}", env!("CARGO_PKG_VERSION")) };
    let line = format!("#:schema {}\n", schema::url(&rev));
    for (name, text) in [
        ("policies/starter.toml", override_guard::policy::config::STARTER),
        ("policies/template.toml", override_guard::policy::config::TEMPLATE),
    ] {
        assert!(text.starts_with(&line), "{name} does not start with {line}");
    }
    let policy = read("docs/policy.md");
    assert!(policy.contains(&line), "docs/policy.md does not show {line}");
    assert!(read("policies/README.md").contains(&line), "policies/README.md does not show {line}");
}
