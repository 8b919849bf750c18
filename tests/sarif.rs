//! The SARIF report: its shape, fingerprints and links.
//!
//! Validation against the official OASIS SARIF 2.1.0 schema runs in CI
//! (`.ci/check_sarif.py`, with `tests/data/sarif-schema-2.1.0.json`, the OASIS
//! `sarif-schema-2.1.0.json` as shipped in the `serde-sarif` 0.8.0 crate, unchanged) on the
//! log this file writes to `CARGO_TARGET_TMPDIR/sarif/` and on the CLI's report of
//! `examples/`: a JSON Schema validator in Rust was the largest part of the test build.

use std::sync::Arc;

use override_guard::policy::{Finding, Level, RuleId, Site};
use override_guard::report::sarif;
use serde_json::Value;

/// Checks that `text` is a SARIF 2.1.0 log and keeps it (as `name.sarif`) for the schema
/// check CI runs after the tests (.ci/check_sarif.py).
pub fn keep_for_schema_check(name: &str, text: &str) {
    let log: Value = serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON: {e}\n{text}"));
    assert_eq!(log["version"], "2.1.0", "{text}");
    assert!(log["runs"][0]["tool"]["driver"]["name"].is_string(), "{text}");
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("sarif");
    std::fs::create_dir_all(&dir).expect("sample directory");
    std::fs::write(dir.join(format!("{name}.sarif")), text).expect("sample written");
}

fn site(path: &str, source: &Arc<str>, needle: &str, label: &str) -> Site {
    let start = source.find(needle).expect("needle in source");
    Site::new(path, source.clone(), start, start + needle.len(), label)
}

pub fn findings() -> Vec<Finding> {
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
    let text = sarif::render(&findings, &Default::default());

    // The output really carries what the schema is asked to judge.
    let log: Value = serde_json::from_str(&text).expect("SARIF is JSON");
    let results = log["runs"][0]["results"].as_array().expect("results");
    assert_eq!(results.len(), 3, "{text}");
    assert_eq!(results[1]["level"], "warning", "{text}");
    assert_eq!(results[0]["relatedLocations"].as_array().map(Vec::len), Some(2), "{text}");
    assert!(text.contains("lögs"), "non-ASCII text kept: {text}");
    assert!(text.contains("\"infra/prod%20env/z%C3%BCrich/main.tf\""), "{text}");
    // The tool's home page, from Cargo.toml (the schema checks it is a URI).
    let home = &log["runs"][0]["tool"]["driver"]["informationUri"];
    assert_eq!(home, env!("CARGO_PKG_HOMEPAGE"), "{text}");
    assert!(home.as_str().is_some_and(|h| h.starts_with("https://")), "{text}");

    keep_for_schema_check("findings", &text);
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
    let before = fingerprints(&sarif::render(&findings(), &Default::default()));
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
    assert_eq!(fingerprints(&sarif::render(&shifted, &Default::default())), before);
    let mut moved = findings();
    moved[0].primary.path = "infra/staging/main_override.tf".into();
    assert_ne!(fingerprints(&sarif::render(&moved, &Default::default()))[0], before[0]);
    let unique: std::collections::HashSet<&String> = before.iter().collect();
    assert_eq!(unique.len(), before.len(), "{before:?}");

    let log: Value =
        serde_json::from_str(&sarif::render(&findings(), &Default::default())).expect("JSON");
    let docs = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/rules.md"))
        .expect("docs/rules.md");
    for rule in log["runs"][0]["tool"]["driver"]["rules"].as_array().expect("rules") {
        let (id, uri) = (rule["id"].as_str().expect("id"), rule["helpUri"].as_str().expect("uri"));
        assert!(uri.ends_with(&format!("/docs/rules.md#{id}")), "{uri}");
        assert!(docs.contains(&format!("\n## `{id}`\n")), "docs/rules.md has no section for {id}");
    }
}
