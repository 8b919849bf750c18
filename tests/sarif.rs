//! The SARIF report, validated against the official OASIS SARIF 2.1.0 JSON schema
//! (draft-07), offline.
//!
//! `tests/data/sarif-schema-2.1.0.json` is the OASIS `sarif-schema-2.1.0.json` as shipped
//! in the `serde-sarif` 0.8.0 crate (its `src/schema.json`), copied unchanged.

use std::sync::{Arc, OnceLock};

use jsonschema::Validator;
use override_guard::policy::{Finding, Level, RuleId, Site};
use override_guard::report::sarif;
use serde_json::Value;

const SCHEMA: &str = include_str!("data/sarif-schema-2.1.0.json");

/// The `pattern` of `run.language` and `toolComponent.language` in the official schema. Its
/// stray `]` is a literal under ECMA-262's lenient (Annex B) syntax, but JSON Schema checks
/// patterns as strict ECMA-262, so jsonschema's meta-schema check rejects the whole schema.
const LANGUAGE_PATTERN: &str = "^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$";
/// The same pattern with the `]` escaped: it matches exactly what the original does.
const LANGUAGE_PATTERN_ESCAPED: &str = r"^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}\]?$";

/// Replaces every `"pattern": LANGUAGE_PATTERN` in a schema (in memory only); returns how many.
fn escape_language_pattern(v: &mut Value) -> usize {
    match v {
        Value::Object(map) => {
            let mut n = 0;
            if map.get("pattern").and_then(Value::as_str) == Some(LANGUAGE_PATTERN) {
                map.insert("pattern".into(), Value::from(LANGUAGE_PATTERN_ESCAPED));
                n += 1;
            }
            n + map.values_mut().map(escape_language_pattern).sum::<usize>()
        }
        Value::Array(items) => items.iter_mut().map(escape_language_pattern).sum(),
        _ => 0,
    }
}

/// The schema compiled once, as draft-07, with format assertions on and no fetching (its
/// `$ref`s are all local).
fn validator() -> &'static Validator {
    static VALIDATOR: OnceLock<Validator> = OnceLock::new();
    VALIDATOR.get_or_init(|| {
        let mut schema: Value = serde_json::from_str(SCHEMA).expect("the vendored schema is JSON");
        // Both `language` properties; if a re-vendored schema fixed them, drop this patch.
        assert_eq!(escape_language_pattern(&mut schema), 2, "the schema's language patterns");
        jsonschema::draft7::options()
            .offline()
            .should_validate_formats(true)
            .build(&schema)
            .unwrap_or_else(|e| panic!("the vendored SARIF schema does not compile: {e}"))
    })
}

/// Validates a SARIF log against the SARIF 2.1.0 schema: every violation as
/// `instance path: message (schema path)`.
pub fn validate(text: &str) -> Result<(), Vec<String>> {
    let instance: Value = serde_json::from_str(text).map_err(|e| vec![format!("not JSON: {e}")])?;
    let errors: Vec<String> = validator()
        .iter_errors(&instance)
        .map(|e| format!("{}: {e} (schema {})", e.instance_path(), e.schema_path()))
        .collect();
    if errors.is_empty() { Ok(()) } else { Err(errors) }
}

fn site(path: &str, source: &Arc<str>, needle: &str, label: &str) -> Site {
    let start = source.find(needle).expect("needle in source");
    Site {
        path: path.to_string(),
        source: source.clone(),
        start,
        end: start + needle.len(),
        label: label.to_string(),
    }
}

fn findings() -> Vec<Finding> {
    let main: Arc<str> = Arc::from(
        "# Grüße, ünïcödé → ✓\nresource \"aws_s3_bucket\" \"logs\" {\n  bucket = \"lögs-😀\"\n  force_destroy = false\n}\n",
    );
    let over: Arc<str> = Arc::from(
        "# Überschreibung ✓\nresource \"aws_s3_bucket\" \"logs\" {\n  force_destroy = true # ça\n}\n",
    );
    let main_path = "infra/prod env/zürich/main.tf";
    let over_path = "infra/prod env/zürich/main_override.tf";

    let weakened = Finding::new(
        RuleId::WeakenedSafeguard,
        "force_destroy is turned on for “lögs” by an override",
        site(over_path, &over, "force_destroy = true", "set to true here"),
    )
    .help("remove the override, or add an exception to the policy")
    .address("resource.aws_s3_bucket.logs")
    .related(site(main_path, &main, "force_destroy = false", "the original value"))
    .related(site(main_path, &main, "bucket = \"lögs-😀\"", "the block it changes — ✓"));

    let mut file = Finding::new(
        RuleId::OverrideFile,
        "main_override.tf is an override file",
        site(over_path, &over, "resource \"aws_s3_bucket\" \"logs\"", "overrides this block"),
    );
    file.level = Level::Warn;

    let merge = Finding::new(
        RuleId::MergeError,
        "an override must not be empty: ünïcödé",
        site(main_path, &main, "# Grüße", "here"),
    );

    vec![weakened, file, merge]
}

#[test]
fn sarif_output_matches_the_official_schema() {
    let findings = findings();
    let text = sarif::render(&findings);

    // The output really carries what the schema is asked to judge.
    let log: Value = serde_json::from_str(&text).expect("SARIF is JSON");
    let results = log["runs"][0]["results"].as_array().expect("results");
    assert_eq!(results.len(), 3, "{text}");
    assert_eq!(results[1]["level"], "warning", "{text}");
    assert_eq!(results[0]["relatedLocations"].as_array().map(Vec::len), Some(2), "{text}");
    assert!(text.contains("lögs"), "non-ASCII text kept: {text}");
    assert!(text.contains("\"infra/prod%20env/z%C3%BCrich/main.tf\""), "{text}");

    if let Err(errors) = validate(&text) {
        panic!("SARIF output violates the SARIF 2.1.0 schema:\n{}\n\n{text}", errors.join("\n"));
    }
}

#[test]
fn the_schema_rejects_broken_sarif() {
    let text = sarif::render(&findings());
    assert!(validate(&text).is_ok(), "the unbroken log must pass first");

    let mut wrong_version: Value = serde_json::from_str(&text).expect("JSON");
    wrong_version["version"] = Value::from("2.0.0");
    let errors = validate(&wrong_version.to_string()).expect_err("version 2.0.0 must fail");
    assert!(errors.iter().any(|e| e.starts_with("/version")), "{errors:?}");

    let mut no_message: Value = serde_json::from_str(&text).expect("JSON");
    no_message["runs"][0]["results"][0].as_object_mut().expect("result").remove("message");
    let errors = validate(&no_message.to_string()).expect_err("a result without message must fail");
    assert!(errors.iter().any(|e| e.starts_with("/runs/0/results/0")), "{errors:?}");

    let mut bad_level: Value = serde_json::from_str(&text).expect("JSON");
    bad_level["runs"][0]["results"][1]["level"] = Value::from("warn");
    let errors = validate(&bad_level.to_string()).expect_err("level \"warn\" must fail");
    assert!(errors.iter().any(|e| e.starts_with("/runs/0/results/1/level")), "{errors:?}");

    // Formats are asserted too: a path with a raw space is no `uri-reference`.
    let mut raw_space: Value = serde_json::from_str(&text).expect("JSON");
    raw_space["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] =
        Value::from("infra/prod env/main.tf");
    let errors = validate(&raw_space.to_string()).expect_err("a raw space in a uri must fail");
    assert!(errors.iter().any(|e| e.contains("uri-reference")), "{errors:?}");

    assert!(validate("{").is_err(), "not JSON");
}

/// Code scanning matches results across commits by `partialFingerprints`: lines added
/// above a finding must not change it; another file or another message must. Each rule
/// links to its section of docs/rules.md.
#[test]
fn fingerprints_survive_line_shifts_and_rules_link_to_their_docs() {
    let fingerprints = |text: &str| -> Vec<String> {
        let log: Value = serde_json::from_str(text).expect("JSON");
        let results = log["runs"][0]["results"].as_array().expect("results").clone();
        results
            .iter()
            .map(|r| r["partialFingerprints"][sarif::FINGERPRINT].as_str().expect("fp").to_string())
            .collect()
    };
    let before = fingerprints(&sarif::render(&findings()));
    // The same findings, three lines further down.
    let shifted: Vec<Finding> = findings()
        .into_iter()
        .map(|mut f| {
            for s in std::iter::once(&mut f.primary).chain(f.related.iter_mut()) {
                s.source = Arc::from(format!("\n\n\n{}", s.source));
                s.start += 3;
                s.end += 3;
            }
            f
        })
        .collect();
    assert_eq!(fingerprints(&sarif::render(&shifted)), before);
    let mut moved = findings();
    moved[0].primary.path = "infra/staging/main_override.tf".into();
    assert_ne!(fingerprints(&sarif::render(&moved))[0], before[0]);
    let unique: std::collections::HashSet<&String> = before.iter().collect();
    assert_eq!(unique.len(), before.len(), "{before:?}");

    let log: Value = serde_json::from_str(&sarif::render(&findings())).expect("JSON");
    let docs = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/rules.md"))
        .expect("docs/rules.md");
    for rule in log["runs"][0]["tool"]["driver"]["rules"].as_array().expect("rules") {
        let (id, uri) = (rule["id"].as_str().expect("id"), rule["helpUri"].as_str().expect("uri"));
        assert!(uri.ends_with(&format!("/docs/rules.md#{id}")), "{uri}");
        assert!(docs.contains(&format!("\n## `{id}`\n")), "docs/rules.md has no section for {id}");
    }
}
