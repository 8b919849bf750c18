//! `scan` with the real checkov (PyPI, pinned by `.ci/run`, named by
//! `OVERRIDE_GUARD_CHECKOV`): the effective module is what checkov judges, and its
//! findings land on the user's files.

use std::path::Path;

use serde_json::Value;

use crate::util::Sandbox;

/// The checkov executable.
pub const CHECKOV: &str = "OVERRIDE_GUARD_CHECKOV";

/// An RDS instance, safe as its primary file reads.
const MAIN: &str = r#"# The orders database: private, encrypted, protected.
resource "aws_db_instance" "main" {
  identifier          = "orders"
  engine              = "postgres"
  engine_version      = "16.3"
  instance_class      = "db.t4g.medium"
  allocated_storage   = 50
  username            = "orders"
  storage_encrypted   = true
  publicly_accessible = false
  deletion_protection = true
  multi_az            = true
}
"#;

/// The override that makes it public and unprotected.
const OVERRIDE: &str = r#"# Debugging access for the data team.
resource "aws_db_instance" "main" {
  publicly_accessible = true
  deletion_protection = false
}
"#;

/// checkov's ids for "not publicly accessible" and "deletion protection enabled".
const PUBLIC: &str = "CKV_AWS_17";
const PROTECTED: &str = "CKV_AWS_293";

fn checkov() -> String {
    std::env::var(CHECKOV).expect("OVERRIDE_GUARD_CHECKOV names the checkov executable")
}

/// checkov's JSON report on a directory: (resources, failed check ids with their files).
fn checkov_json(dir: &Path) -> (u64, Vec<(String, String)>) {
    let out = std::process::Command::new(checkov())
        .args([
            "-d",
            dir.to_str().unwrap(),
            "-o",
            "json",
            "--quiet",
            "--skip-download",
            "--framework",
            "terraform",
        ])
        .output()
        .expect("checkov runs");
    let text = String::from_utf8_lossy(&out.stdout);
    let v: Value =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("checkov -o json ({e}):\n{text}"));
    let resources = v["summary"]["resource_count"].as_u64().unwrap_or(0);
    let failed = v["results"]["failed_checks"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| {
            (
                c["check_id"].as_str().unwrap().to_string(),
                c["file_path"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    (resources, failed)
}

/// `scan` with checkov on the repository's root: the remapped SARIF.
fn scan(s: &Sandbox) -> Value {
    let tmp = s.beside("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let ck = checkov();
    let args = [
        "scan",
        "--",
        &ck,
        "-d",
        "{}",
        "-o",
        "sarif",
        "--output-file-path",
        "{out}",
        "--quiet",
        "--skip-download",
        "--framework",
        "terraform",
    ];
    let r = s.run_env("", &args, &[("TMPDIR", tmp.to_str().unwrap())]);
    // checkov exits 1 when a check fails; 0 when none does.
    assert!(r.code == 0 || r.code == 1, "{}", r.shown());
    // checkov leaves files of its own there; ours is gone.
    let left: Vec<String> = std::fs::read_dir(&tmp)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("override-guard"))
        .collect();
    assert!(left.is_empty(), "the temporary tree is removed: {left:?}");
    let text = r.out();
    assert!(!text.contains(tmp.to_str().unwrap()), "the log names the temporary tree:\n{text}");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("not SARIF ({e}):\n{}", r.shown()))
}

fn results(log: &Value) -> Vec<&Value> {
    log["runs"][0]["results"].as_array().map(|a| a.iter().collect()).unwrap_or_default()
}

fn uri(loc: &Value) -> &str {
    loc["physicalLocation"]["artifactLocation"]["uri"].as_str().unwrap_or_default()
}

fn ids(log: &Value) -> Vec<&str> {
    results(log).iter().map(|r| r["ruleId"].as_str().unwrap_or_default()).collect()
}

pub fn checkov_judges_the_effective_module_on_the_users_own_lines() {
    let s = Sandbox::new();
    s.commit(&[("main.tf", MAIN), ("override.tf", OVERRIDE)], "db");
    // Before: two resources, and the public, unprotected database passes both checks in
    // main.tf.
    let (resources, failed) = checkov_json(&s.path(""));
    assert_eq!(resources, 2, "{failed:?}");
    assert!(!failed.iter().any(|(id, f)| id == PUBLIC && f.ends_with("main.tf")), "{failed:?}");
    // The flattened tree: one resource.
    let flat = s.beside("flat");
    let r = s.run(&["flatten", "--out", flat.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.shown());
    let (resources, truth) = checkov_json(&flat);
    assert_eq!(resources, 1, "{truth:?}");
    // After: the same failures, on the user's files.
    let log = scan(&s);
    let got = ids(&log);
    assert_eq!(got.len(), truth.len(), "{got:?} against {truth:?}");
    for id in [PUBLIC, PROTECTED] {
        assert!(got.contains(&id), "{id} must fail on the effective module: {got:?}");
    }
    for r in results(&log) {
        let primary = &r["locations"][0];
        assert_eq!(uri(primary), "main.tf", "{r}");
        assert_eq!(primary["physicalLocation"]["region"]["startLine"], 2, "{r}");
        assert_eq!(primary["physicalLocation"]["region"]["endLine"], 13, "{r}");
        let related = &r["relatedLocations"][0];
        assert_eq!(uri(related), "override.tf", "{r}");
        assert_eq!(related["physicalLocation"]["region"]["startLine"], 2, "{r}");
        assert_eq!(related["physicalLocation"]["region"]["endLine"], 5, "{r}");
    }
    // Kept for the schema check `.ci/run` makes on every SARIF log the tests write.
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("sarif");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("checkov-scan.sarif"), serde_json::to_string_pretty(&log).unwrap())
        .unwrap();
}

pub fn a_primary_made_safe_by_an_override_gives_no_failure() {
    let s = Sandbox::new();
    let unsafe_main = MAIN
        .replace("publicly_accessible = false", "publicly_accessible = true")
        .replace("deletion_protection = true", "deletion_protection = false");
    let fix = OVERRIDE
        .replace("publicly_accessible = true", "publicly_accessible = false")
        .replace("deletion_protection = false", "deletion_protection = true");
    s.commit(&[("main.tf", &unsafe_main), ("override.tf", &fix)], "db");
    let (_, failed) = checkov_json(&s.path(""));
    assert!(failed.iter().any(|(id, _)| id == PUBLIC), "checkov alone blames main.tf: {failed:?}");
    let log = scan(&s);
    let got = ids(&log);
    assert!(!got.contains(&PUBLIC) && !got.contains(&PROTECTED), "{got:?}");
}

pub fn a_tofu_twin_is_scanned_instead_of_its_tf() {
    let s = Sandbox::new();
    let public = MAIN.replace("publicly_accessible = false", "publicly_accessible = true");
    s.commit(&[("main.tf", &public), ("main.tofu", MAIN)], "db");
    let log = scan(&s);
    let got = ids(&log);
    assert!(!got.is_empty());
    assert!(!got.contains(&PUBLIC), "OpenTofu reads main.tofu, which is private: {got:?}");
    for r in results(&log) {
        assert_eq!(uri(&r["locations"][0]), "main.tofu", "{r}");
    }
}
