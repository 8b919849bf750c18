//! The GitLab Code Quality, JUnit and Checkstyle reports: their shape (snapshots), the
//! fingerprints they share with SARIF, their escaping, and the CLI's paths.
//!
//! Validation against the published schemas (GitLab's `codeclimate.json`, the Jenkins xUnit
//! plugin's `junit-10.xsd`, Checkstyle's `checkstyle-report-1.0.0.xsd`, vendored in
//! `tests/data/`, origins in its README) runs in CI (`.ci/check_formats.py`) on the reports
//! this file keeps under `CARGO_TARGET_TMPDIR/ci-formats/`: no JSON Schema or XSD
//! validator is worth its weight in the test build.

use std::sync::Arc;

use override_guard::policy::{Finding, RuleId, Site};
use override_guard::report::ci;
use override_guard::report::findings::Summary;
use override_guard::report::sarif;
use serde_json::Value;

use crate::util::Sandbox;

/// Keeps a report (as `name.gitlab.json`, `name.junit.xml` or `name.checkstyle.xml`) for the
/// schema check CI runs after the tests.
pub fn keep(name: &str, kind: &str, text: &str) {
    let ext = if kind == "gitlab" { "gitlab.json" } else { &format!("{kind}.xml") };
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("ci-formats");
    std::fs::create_dir_all(&dir).expect("sample directory");
    std::fs::write(dir.join(format!("{name}.{ext}")), text).expect("sample written");
}

fn summary(judged: &[&str]) -> Summary {
    Summary {
        modules: judged.len(),
        judged: judged.iter().map(|d| d.to_string()).collect(),
        ..Summary::default()
    }
}

fn keep_all(name: &str, findings: &[Finding], s: &Summary) -> [String; 3] {
    let reports = [ci::gitlab(findings), ci::junit(findings, s), ci::checkstyle(findings)];
    for (kind, text) in ["gitlab", "junit", "checkstyle"].iter().zip(&reports) {
        keep(name, kind, text);
    }
    reports
}

#[test]
fn reports_of_findings() {
    let findings = crate::sarif::findings();
    // The module of the findings, and one without any: a passing JUnit test.
    let s = summary(&["infra/prod env/zürich", "infra/clean"]);
    let [gitlab, junit, checkstyle] = keep_all("findings", &findings, &s);
    insta::assert_snapshot!("gitlab_findings", gitlab);
    insta::assert_snapshot!("junit_findings", junit);
    insta::assert_snapshot!("checkstyle_findings", checkstyle);

    // GitLab's fingerprints are SARIF's (and so the baseline's).
    let issues: Value = serde_json::from_str(&gitlab).expect("JSON");
    let log: Value =
        serde_json::from_str(&sarif::render(&findings, &Default::default())).expect("SARIF");
    let results = log["runs"][0]["results"].as_array().expect("results");
    assert_eq!(issues.as_array().map(Vec::len), Some(results.len()));
    for (issue, result) in issues.as_array().expect("array").iter().zip(results) {
        assert_eq!(issue["fingerprint"], result["partialFingerprints"][sarif::FINGERPRINT]);
        assert_eq!(issue["check_name"], result["ruleId"]);
    }
    // Merge errors are findings like the others.
    assert_eq!(issues[2]["check_name"], "merge-error");
    assert_eq!(issues[2]["severity"], "critical");
    assert!(junit.contains("classname=\"override-guard.merge-error\""), "{junit}");
    assert!(checkstyle.contains("source=\"override-guard.merge-error\""), "{checkstyle}");
    assert!(junit.contains("tests=\"4\" failures=\"3\""), "{junit}");
}

#[test]
fn reports_of_a_clean_run() {
    let [gitlab, junit, checkstyle] = keep_all("clean", &[], &summary(&["", "envs/dev"]));
    assert_eq!(gitlab, "[]\n");
    insta::assert_snapshot!("junit_clean", junit);
    insta::assert_snapshot!("checkstyle_clean", checkstyle);
    // No module at all: still a document, with one passing test, as Jenkins' junit step
    // fails on reports without any ("None of the test reports contained any result").
    let [_, junit, _] = keep_all("nothing", &[], &summary(&[]));
    assert!(junit.contains("tests=\"1\" failures=\"0\""), "{junit}");
    assert!(junit.contains("classname=\"override-guard.run\""), "{junit}");
}

/// What a repository's files can put in a message or a path reaches XML escaped: markup,
/// a CDATA end, control characters XML cannot carry even as references, bidi overrides.
#[test]
fn hostile_text_stays_well_formed() {
    let source: Arc<str> = Arc::from("resource \"x\" \"y\" {}\n");
    let hostile = "a<b>&c \"d\" 'e' ]]> \u{1b}[2J\u{7}\u{202e}\u{ffff}\r\nline";
    let site = Site::new("odd & <dir>/\u{1}main\n.tf", source, 0, 8, "");
    let f = Finding::new(RuleId::OverrideFile, hostile, site).help(hostile);
    let [gitlab, junit, checkstyle] = keep_all("hostile", &[f], &summary(&["odd & <dir>"]));
    for text in [&junit, &checkstyle] {
        assert!(
            !text
                .chars()
                .any(|c| c.is_control() && c != '\n' || matches!(c, '\u{202e}' | '\u{ffff}')),
            "{text}"
        );
        assert!(!text.contains("<b>") && !text.contains("]]>") && !text.contains("& "), "{text}");
        assert!(text.contains("a&lt;b&gt;&amp;c &quot;d&quot; &apos;e&apos;"), "{text}");
    }
    // In attributes, a line break is kept as a reference (a raw one reads as a space); in
    // text, as it is.
    assert!(
        checkstyle.contains("<file name=\"odd &amp; &lt;dir&gt;/\\u{1}main&#10;.tf\">"),
        "{checkstyle}"
    );
    assert!(junit.contains("\\u{d}\nline</failure>"), "{junit}");
    let v: Value = serde_json::from_str(&gitlab).expect("JSON");
    assert_eq!(v[0]["location"]["path"], "odd & <dir>/\u{1}main\n.tf");
}

fn repo() -> Sandbox {
    let s = Sandbox::new();
    let main = "resource \"aws_instance\" \"web\" {\n  instance_type = \"t3.micro\"\n}\n";
    let over = "resource \"aws_instance\" \"web\" {\n  instance_type = \"m6i.large\"\n}\n";
    s.commit(
        &[
            (".override-guard.toml", "[rules]\noverride-file = \"deny\"\n"),
            ("envs/dev/main.tf", main),
            ("envs/dev/override.tf", over),
            ("app/main.tf", main),
        ],
        "init",
    );
    s
}

/// Paths from the repository's root from any directory, as SARIF's; exit codes as for the
/// other formats; the hook and the review print a document even with nothing to report.
#[test]
fn the_cli_writes_every_ci_format_from_the_repository_root() {
    let s = repo();
    for kind in ["gitlab", "junit", "checkstyle"] {
        let run = s.run_env("envs", &["audit", ".", "--format", kind], &[]);
        assert_eq!(run.code, 1, "{}", run.shown());
        let out = run.out();
        assert!(!out.contains("\"dev/override.tf"), "{kind}: {out}");
        match kind {
            "gitlab" => {
                let v: Value = serde_json::from_str(&out).expect("JSON");
                assert_eq!(v[0]["location"]["path"], "envs/dev/override.tf", "{out}");
                assert_eq!(v[0]["location"]["lines"]["begin"], 1, "{out}");
                assert_eq!(v[0]["severity"], "major", "{out}");
            }
            "junit" => assert!(out.contains("name=\"envs/dev/override.tf:1:1\""), "{out}"),
            _ => assert!(out.contains("<file name=\"envs/dev/override.tf\">"), "{out}"),
        }
        keep("cli-audit", kind, &out);

        // The whole repository: `app` is clean, a passing test in JUnit.
        let run = s.run(&["audit", "--format", kind]);
        assert_eq!(run.code, 1, "{}", run.shown());
        if kind == "junit" {
            assert!(
                run.out().contains("<testcase name=\"app\" classname=\"override-guard.module\""),
                "{}",
                run.shown()
            );
        }
        keep("cli-audit-all", kind, &run.out());

        // Nothing staged: the hook still prints a report.
        let run = s.run(&["check", "--format", kind]);
        assert_eq!(run.code, 0, "{}", run.shown());
        assert!(!run.out().is_empty(), "{kind}: {}", run.shown());
        if kind == "junit" {
            // One passing test: Jenkins' junit step fails on a report without any.
            assert!(run.out().contains("tests=\"1\" failures=\"0\""), "{}", run.shown());
        }
        keep("cli-check-nothing", kind, &run.out());
    }
    // A staged change: the hook and the review report what it introduces.
    s.stage(&[("app/override.tf", "resource \"aws_instance\" \"web\" {\n  ami = \"x\"\n}\n")]);
    for kind in ["gitlab", "junit", "checkstyle"] {
        for cmd in ["check", "diff"] {
            let run = s.run_env("app", &[cmd, "--format", kind], &[]);
            assert_eq!(run.code, 1, "{cmd} {kind}: {}", run.shown());
            assert!(run.out().contains("app/override.tf"), "{cmd} {kind}: {}", run.shown());
            keep(&format!("cli-{cmd}"), kind, &run.out());
        }
    }
}

/// The hook with nothing to check still prints a JSON report and a SARIF log that parse
/// (an empty file is no JSON: a code-scanning upload of it fails), and the SARIF log is
/// kept for the schema check.
#[test]
fn the_hook_with_nothing_to_check_prints_json_and_sarif_that_parse() {
    let s = repo();
    for kind in ["json", "sarif"] {
        let run = s.run(&["check", "--format", kind]);
        assert_eq!(run.code, 0, "{}", run.shown());
        let v: Value = serde_json::from_slice(&run.stdout)
            .unwrap_or_else(|e| panic!("{kind}: not JSON ({e})\n{}", run.shown()));
        if kind == "sarif" {
            assert_eq!(v["runs"][0]["results"], serde_json::json!([]), "{}", run.shown());
            crate::sarif::keep_for_schema_check("cli-check-nothing", &run.out());
        } else {
            assert_eq!(v["findings"], serde_json::json!([]), "{}", run.shown());
        }
    }
}

/// The bundled examples, every rule but two among them (tests/cli.rs).
#[test]
fn the_examples_in_every_ci_format() {
    for kind in ["gitlab", "junit", "checkstyle"] {
        let out = crate::util::bin()
            .args(["audit", "examples", "--format", kind])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(1), "{kind}");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("merge-error"), "{kind}: {text}");
        keep("examples", kind, &text);
    }
}
