//! `flatten`, `scan` and `remap` on real repositories made in temporary directories. The
//! scanner here is a small Python program that reports what checkov reports (a finding on
//! a resource's whole line range) and a finding on one line, so the mapping back is
//! checked without checkov; `tests/machine/scanners.rs` runs the real one.

use crate::util::{Sandbox, files_of, snapshot_tree, tree_changes};

const MAIN: &str = "# The orders database.\nresource \"aws_db_instance\" \"main\" {\n  identifier          = \"orders\"\n  publicly_accessible = false\n  deletion_protection = true\n}\n";
const OVERRIDE: &str = "# Debugging access.\nresource \"aws_db_instance\" \"main\" {\n  publicly_accessible = true\n  deletion_protection = false\n}\n";
const NET: &str = "resource \"aws_vpc\" \"main\" {\n  cidr_block = \"10.0.0.0/16\"\n}\n";

/// A scanner in the manner of checkov: for every `.tf` file of the tree it is given, one
/// finding on each resource's whole line range and one on each line that makes a database
/// public. It writes SARIF to the path after `--out`, or prints it, then exits with the
/// status after `--exit`. Uris are relative to the directory above the tree, as checkov
/// writes them when it scans a directory by its absolute path.
const SCANNER: &str = r#"
import json, os, sys
args = sys.argv[1:]
tree = args[0]
out = args[args.index("--out") + 1] if "--out" in args else None
code = int(args[args.index("--exit") + 1]) if "--exit" in args else 0
above = os.path.dirname(os.path.abspath(tree))
results = []
for d, _, files in os.walk(tree):
    for f in sorted(files):
        if not f.endswith(".tf"):
            continue
        p = os.path.join(d, f)
        uri = os.path.relpath(p, above)
        lines = open(p).read().split("\n")
        start = None
        for i, line in enumerate(lines, 1):
            if line.startswith("resource "):
                start = i
            if line == "}" and start:
                results.append({"ruleId": "WHOLE", "level": "error", "message": {"text": "a resource"},
                                "locations": [{"physicalLocation": {"artifactLocation": {"uri": uri},
                                               "region": {"startLine": start, "endLine": i}}}]})
                start = None
            if "publicly_accessible = true" in line:
                results.append({"ruleId": "PUBLIC", "level": "warning", "message": {"text": "public in " + p},
                                "locations": [{"physicalLocation": {"artifactLocation": {"uri": "file://" + os.path.abspath(p)},
                                               "region": {"startLine": i, "startColumn": 3}}}]})
log = {"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "fake"}}, "results": results}]}
if out:
    json.dump(log, open(out, "w"))
    print("fake scanner: report written")
else:
    print(json.dumps(log))
sys.exit(code)
"#;

fn repo() -> Sandbox {
    let s = Sandbox::new();
    s.commit(
        &[
            ("infra/db/main.tf", MAIN),
            ("infra/db/override.tf", OVERRIDE),
            ("infra/db/README.md", "# db\n"),
            ("infra/net/main.tf", NET),
            (".gitignore", "*.log\n"),
        ],
        "init",
    );
    s.write("infra/db/debug.log", "noise\n");
    std::fs::write(s.beside("scanner.py"), SCANNER).unwrap();
    s
}

/// Python runs the stand-in scanner: like git, the test suite needs it (CI has both).
fn python() -> &'static str {
    ["python3", "python"]
        .into_iter()
        .find(|p| {
            std::process::Command::new(p)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
        .expect("python3 runs the stand-in scanner of scan's tests: install Python 3")
}

fn sarif(out: &str) -> serde_json::Value {
    serde_json::from_str(out).unwrap_or_else(|e| panic!("not JSON ({e}):\n{out}"))
}

/// (uri, startLine, endLine) of the primary location of each result with `rule`.
fn located(log: &serde_json::Value, rule: &str) -> Vec<(String, u64, u64)> {
    log["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["ruleId"] == rule)
        .map(|r| {
            let p = &r["locations"][0]["physicalLocation"];
            (
                p["artifactLocation"]["uri"].as_str().unwrap().to_string(),
                p["region"]["startLine"].as_u64().unwrap(),
                p["region"]["endLine"].as_u64().or(p["region"]["startLine"].as_u64()).unwrap(),
            )
        })
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect()
}

#[test]
fn flatten_writes_each_module_as_terraform_runs_it_and_nothing_else_changes() {
    let s = repo();
    let before = snapshot_tree(&s.path(""));
    let out = s.beside("flat");
    let r = s.run(&["flatten", "infra", "--out", out.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.shown());
    assert!(r.out().is_empty(), "{}", r.shown());
    assert!(
        r.err().contains("flattened 1 of 2 modules") && r.err().contains("1 override file folded"),
        "{}",
        r.shown()
    );
    let files = files_of(&out);
    let names: Vec<&str> = files.keys().map(String::as_str).collect();
    assert_eq!(names, [".override-guard-map.json", "db/README.md", "db/main.tf", "net/main.tf"]);
    let main = String::from_utf8_lossy(&files["db/main.tf"]).into_owned();
    assert_eq!(
        main,
        MAIN.replace("publicly_accessible = false", "publicly_accessible = true")
            .replace("deletion_protection = true", "deletion_protection = false")
    );
    assert_eq!(files["net/main.tf"], NET.as_bytes());
    let map = sarif(&String::from_utf8_lossy(&files[".override-guard-map.json"]));
    assert_eq!(map["version"], 1);
    assert_eq!(map["root"], "infra");
    assert_eq!(map["files"][0]["path"], "db/main.tf");
    assert_eq!(map["files"][0]["source"], "infra/db/main.tf");
    assert_eq!(map["dropped"][0]["source"], "infra/db/override.tf");
    assert!(tree_changes(&before, &snapshot_tree(&s.path(""))).is_empty());
    assert_eq!(s.git(&["status", "--porcelain", "--ignored"]), "!! infra/db/debug.log\n");
}

#[test]
fn flatten_refuses_an_output_directory_that_holds_something_unless_forced() {
    let s = repo();
    let out = s.beside("flat");
    let flat = out.to_str().unwrap();
    let r = s.run(&["flatten", "infra", "--out", flat]);
    assert_eq!(r.code, 0, "{}", r.shown());
    std::fs::create_dir_all(out.join("old")).unwrap();
    std::fs::write(out.join("old/override.tf"), OVERRIDE).unwrap();
    let r = s.run(&["flatten", "infra", "--out", flat]);
    assert_eq!(r.code, 2, "{}", r.shown());
    assert!(
        r.err().contains("exists and is not empty (--force empties a tree flatten wrote before)"),
        "{}",
        r.shown()
    );
    assert!(out.join("old/override.tf").exists());
    // A tree flatten wrote (it holds the map) is emptied by --force.
    let r = s.run(&["flatten", "infra", "--out", flat, "--force"]);
    assert_eq!(r.code, 0, "{}", r.shown());
    assert!(!out.join("old").exists(), "a stale file would be scanned as the truth");
    assert!(out.join("db/main.tf").exists());
    // The tree itself, or a directory holding it, is never an output.
    for bad in [s.path("infra"), s.path("")] {
        let r = s.run(&["flatten", "infra", "--out", bad.to_str().unwrap(), "--force"]);
        assert_eq!(r.code, 2, "{}", r.shown());
        assert!(r.err().contains("name a directory outside it"), "{}", r.shown());
    }
    assert_eq!(std::fs::read_to_string(s.path("infra/db/override.tf")).unwrap(), OVERRIDE);
}

/// `--force` empties only a tree `flatten` wrote, and no output lies inside what is
/// flattened, inside `.git`, or through a link out of the repository: each refused before
/// anything is written or removed, wherever the directory is and whether or not it exists.
#[test]
fn flatten_never_empties_or_writes_into_what_is_not_its_own() {
    let s = repo();
    s.write("infra/db/notes.local", "untracked, and only here\n");
    let other = s.beside("mine");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(other.join("thesis.md"), "years of work\n").unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(&other, s.path("out-link")).unwrap();
    let before = snapshot_tree(&s.path(""));
    let cases: Vec<(String, &str)> = vec![
        (s.path("infra/db").display().to_string(), "it is inside infra"),
        ("infra/db".into(), "it is inside infra"),
        ("infra/new/flat".into(), "it is inside infra"),
        (".git".into(), "inside a .git directory"),
        (".git/flat".into(), "inside a .git directory"),
        (".".into(), "it holds infra"),
        (other.display().to_string(), "holds files flatten did not write"),
        #[cfg(unix)]
        ("out-link".into(), "a symbolic link leading out of the repository"),
        #[cfg(unix)]
        ("out-link/sub".into(), "a symbolic link leading out of the repository"),
    ];
    for (out, why) in &cases {
        let r = s.run(&["flatten", "infra", "--out", out, "--force"]);
        assert_eq!(r.code, 2, "--out {out}: {}", r.shown());
        assert!(r.err().contains(why), "--out {out}: {}", r.shown());
        assert!(r.err().starts_with(&format!("error: --out {out}: ")), "{}", r.shown());
    }
    assert!(tree_changes(&before, &snapshot_tree(&s.path(""))).is_empty());
    assert_eq!(std::fs::read_to_string(other.join("thesis.md")).unwrap(), "years of work\n");
    // A new directory in the repository, outside what is flattened, is fine.
    let r = s.run(&["flatten", "infra", "--out", "build/flat"]);
    assert_eq!(r.code, 0, "{}", r.shown());
    assert!(s.path("build/flat/db/main.tf").exists());
}

#[test]
fn flatten_copies_a_module_terraform_rejects_as_it_is_and_says_so() {
    let s = repo();
    s.write("infra/bad/main.tf", MAIN);
    s.write("infra/bad/override.tf", "resource \"aws_db_instance\" \"other\" {\n}\n");
    let out = s.beside("flat");
    let r = s.run(&["flatten", "infra", "--out", out.to_str().unwrap()]);
    assert_eq!(r.code, 1, "{}", r.shown());
    assert!(
        r.err().contains(
            "note: infra/bad: copied as it is, not flattened: Terraform rejects this module"
        ),
        "{}",
        r.shown()
    );
    assert!(out.join("bad/override.tf").exists());
    assert!(!out.join("db/override.tf").exists());
}

#[test]
fn scan_puts_the_scanner_findings_back_on_the_users_files() {
    let py = python();
    let s = repo();
    let tmp = s.beside("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let scanner = s.beside("scanner.py");
    let run = |dir: &str, extra: &[&str]| {
        let mut args: Vec<&str> = vec!["scan", "--", py, scanner.to_str().unwrap(), "{}"];
        args.extend(extra);
        s.run_env(dir, &args, &[("TMPDIR", tmp.to_str().unwrap())])
    };
    let r = run("infra", &["--out", "{out}", "--exit", "3"]);
    assert_eq!(r.code, 3, "the scanner's status is passed on:\n{}", r.shown());
    assert!(r.err().contains("fake scanner: report written"), "{}", r.shown());
    let log = sarif(&r.out());
    crate::sarif::keep_for_schema_check("scan-remapped", &r.out());
    assert_eq!(
        located(&log, "WHOLE"),
        [("infra/db/main.tf".to_string(), 2, 6), ("infra/net/main.tf".to_string(), 1, 3)]
    );
    assert_eq!(located(&log, "PUBLIC"), [("infra/db/override.tf".to_string(), 3, 3)]);
    let whole = log["runs"][0]["results"].as_array().unwrap().iter().find(|r| {
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "infra/db/main.tf"
    });
    let whole = whole.unwrap();
    let rel = &whole["relatedLocations"][0]["physicalLocation"];
    assert_eq!(rel["artifactLocation"]["uri"], "infra/db/override.tf");
    assert_eq!(
        (rel["region"]["startLine"].as_u64(), rel["region"]["endLine"].as_u64()),
        (Some(2), Some(5))
    );
    let net = log["runs"][0]["results"].as_array().unwrap().iter().find(|r| {
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "infra/net/main.tf"
    });
    assert_eq!(net.unwrap().get("relatedLocations"), None, "net/ has no overrides");
    let text = r.out();
    assert!(
        !text.contains("override-guard-scan") && !text.contains(tmp.to_str().unwrap()),
        "{text}"
    );
    assert_eq!(std::fs::read_dir(&tmp).unwrap().count(), 0, "the temporary tree is removed");
    // The scanner's stdout as the log; compact and GitHub output.
    let r = run("", &[]);
    assert_eq!(r.code, 0, "{}", r.shown());
    assert_eq!(located(&sarif(&r.out()), "PUBLIC"), [("infra/db/override.tf".to_string(), 3, 3)]);
    let mut args =
        vec!["scan", "infra", "--format", "compact", "--", py, scanner.to_str().unwrap(), "{}"];
    let r = s.run_env("", &args, &[("TMPDIR", tmp.to_str().unwrap())]);
    assert!(
        r.out().contains("infra/db/override.tf:3:1: warning[PUBLIC]: public in "),
        "{}",
        r.shown()
    );
    args[3] = "github";
    let r = s.run_env("", &args, &[("TMPDIR", tmp.to_str().unwrap())]);
    assert!(
        r.out().contains("::error file=infra/db/main.tf,line=2,endLine=6,title=WHOLE::a resource Override files change this block: [infra/db/override.tf:2](1)"),
        "{}",
        r.shown()
    );
    assert_eq!(std::fs::read_dir(&tmp).unwrap().count(), 0);
}

#[test]
fn scan_fails_as_itself_when_the_scanner_cannot_run_or_gives_no_sarif() {
    let s = repo();
    let tmp = s.beside("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let env = [("TMPDIR", tmp.to_str().unwrap())];
    let r = s.run_env("", &["scan", "--", "no-such-scanner-here", "{}"], &env);
    assert_eq!(r.code, 2, "{}", r.shown());
    assert!(r.err().contains("cannot run no-such-scanner-here"), "{}", r.shown());
    let r = s.run_env("", &["scan", "--", "echo", "checked"], &env);
    assert_eq!(r.code, 2, "{}", r.shown());
    assert!(r.err().contains("write {} where its directory goes"), "{}", r.shown());
    let r = s.run_env("", &["scan", "--", "echo", "{}"], &env);
    assert_eq!(r.code, 2, "{}", r.shown());
    assert!(r.err().contains("did not give a SARIF log"), "{}", r.shown());
    assert_eq!(std::fs::read_dir(&tmp).unwrap().count(), 0);
    assert_eq!(std::fs::read_to_string(s.path("infra/db/override.tf")).unwrap(), OVERRIDE);
}

#[test]
fn remap_maps_a_log_made_elsewhere_on_a_flattened_tree() {
    let s = repo();
    let r = s.run(&["flatten", "infra", "--out", "../flat"]);
    assert_eq!(r.code, 0, "{}", r.shown());
    // As a CI job's scanner would write it: relative to the directory above the tree.
    let log = serde_json::json!({ "version": "2.1.0", "runs": [{ "tool": { "driver": { "name": "ci" } }, "results": [
        { "ruleId": "PUBLIC", "message": { "text": "public" }, "locations": [{ "physicalLocation": {
            "artifactLocation": { "uri": "flat/db/main.tf" }, "region": { "startLine": 4 } } }] },
        { "ruleId": "README", "message": { "text": "doc" }, "locations": [{ "physicalLocation": {
            "artifactLocation": { "uri": "db/README.md" }, "region": { "startLine": 1 } } }] }
    ] }] });
    std::fs::write(s.beside("scan.sarif"), log.to_string()).unwrap();
    let r = s.run(&["remap", "../scan.sarif", "--tree", "../flat"]);
    assert_eq!(r.code, 0, "{}", r.shown());
    let out = sarif(&r.out());
    assert_eq!(located(&out, "PUBLIC"), [("infra/db/override.tf".to_string(), 3, 3)]);
    assert_eq!(located(&out, "README"), [("infra/db/README.md".to_string(), 1, 1)]);
    let r = s.run(&["remap", "../scan.sarif", "--tree", "infra"]);
    assert_eq!(r.code, 2, "a tree without its map:\n{}", r.shown());
    assert!(r.err().contains(".override-guard-map.json"), "{}", r.shown());
}

/// A scanner's message or path may hold DEL, a C1 control or a bidirectional control: the
/// remapped log is still JSON (escaped as JSON escapes them, so the text reads back the
/// same), and a terminal's escape sequence never reaches the output raw.
#[test]
fn remap_and_scan_print_sarif_that_stays_json_whatever_the_scanner_wrote() {
    let s = repo();
    let flat = s.beside("flat");
    let r = s.run(&["flatten", "infra", "--out", flat.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.shown());
    let hostile = "a\u{7f}b\u{85}c\u{9b}2Jd\u{202e}e\u{61c}f\u{1b}[31mg\u{2066}";
    let log = serde_json::json!({ "version": "2.1.0", "runs": [{ "tool": { "driver": { "name": hostile } }, "results": [
        { "ruleId": hostile, "message": { "text": hostile }, "locations": [{ "physicalLocation": {
            "artifactLocation": { "uri": "flat/db/main.tf" }, "region": { "startLine": 4 } } }] },
        { "ruleId": "X", "message": { "text": "x" }, "locations": [{ "physicalLocation": {
            "artifactLocation": { "uri": format!("flat/db/{hostile}.tf") }, "region": { "startLine": 1 } } }] }
    ] }] });
    let file = s.beside("hostile.sarif");
    std::fs::write(&file, log.to_string()).unwrap();
    let r = s.run(&["remap", file.to_str().unwrap(), "--tree", flat.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.shown());
    let out: serde_json::Value = serde_json::from_slice(&r.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}):\n{}", r.shown()));
    assert_eq!(out["runs"][0]["results"][0]["message"]["text"], hostile);
    assert_eq!(out["runs"][0]["tool"]["driver"]["name"], hostile);
    for raw in ['\u{7f}', '\u{85}', '\u{9b}', '\u{202e}', '\u{61c}', '\u{1b}', '\u{2066}'] {
        assert!(!r.out().contains(raw), "{raw:?} printed raw:\n{}", r.shown());
    }
    // The same log, as a scanner prints it on stdout under scan.
    let scanner = s.beside("print.sh");
    std::fs::write(&scanner, format!("#!/bin/sh\ncat '{}'\n", file.display())).unwrap();
    #[cfg(unix)]
    std::fs::set_permissions(&scanner, std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .unwrap();
    let r = s.run(&["scan", "infra", "--", scanner.to_str().unwrap(), "{}"]);
    assert_eq!(r.code, 0, "{}", r.shown());
    let out: serde_json::Value = serde_json::from_slice(&r.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}):\n{}", r.shown()));
    assert_eq!(out["runs"][0]["tool"]["driver"]["name"], hostile);
}

/// docs/scanners.md's transcript of `flatten examples --out /tmp/flat` is what it prints.
#[test]
fn the_readme_transcript_of_flatten_is_what_it_prints() {
    let readme = include_str!("../docs/scanners.md");
    let command = "$ override-guard flatten examples --out /tmp/flat\n";
    let start = readme.find(command).expect("docs/scanners.md shows flatten") + command.len();
    let said = &readme[start..start + readme[start..].find("```").unwrap()];
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("flat");
    let mut cmd = crate::util::bin();
    crate::util::hermetic(&mut cmd, tmp.path());
    let run = cmd
        .args(["flatten", "examples", "--out", out.to_str().unwrap()])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(1), "legacy/ is copied as it is");
    let printed = String::from_utf8_lossy(&run.stderr).replace(out.to_str().unwrap(), "/tmp/flat");
    assert_eq!(printed, said);
    assert!(run.stdout.is_empty());
}

/// A git-ignored override file is read by Terraform, so it is folded like any other; a
/// git-ignored file outside a module's configuration is not copied.
#[test]
fn a_git_ignored_override_file_is_folded_too() {
    let s = repo();
    s.write(".gitignore", "*.log\n*_override.tf\n");
    s.write(
        "infra/net/local_override.tf",
        "resource \"aws_vpc\" \"main\" {\n  cidr_block = \"10.9.0.0/16\"\n}\n",
    );
    let out = s.beside("flat");
    // From a subdirectory, with the output named relative to it.
    let r = s.run_env("infra/net", &["flatten", "..", "--out", "../../../flat"], &[]);
    assert_eq!(r.code, 0, "{}", r.shown());
    // Folded, and said: a finding on it names a file CI does not have.
    assert!(
        r.err().contains("note: ../net/local_override.tf: a git-ignored override file, folded all the same: Terraform runs it in this checkout, but CI and teammates run without it"),
        "{}",
        r.shown()
    );
    assert_eq!(r.err().matches("note: ").count(), 1, "the committed one needs none: {}", r.shown());
    let files = files_of(&out);
    assert!(!files.contains_key("net/local_override.tf") && !files.contains_key("db/debug.log"));
    assert_eq!(files["net/main.tf"], NET.replace("10.0.0.0/16", "10.9.0.0/16").as_bytes());
    let map = sarif(&String::from_utf8_lossy(&files[".override-guard-map.json"]));
    let dropped: Vec<&str> =
        map["dropped"].as_array().unwrap().iter().map(|d| d["source"].as_str().unwrap()).collect();
    assert_eq!(dropped, ["infra/db/override.tf", "infra/net/local_override.tf"]);
    let net = map["files"].as_array().unwrap().iter().find(|f| f["path"] == "net/main.tf").unwrap();
    assert_eq!(net["segments"][1]["path"], "infra/net/local_override.tf");
}

/// One broken file never stops the others: a module with a dangling link is copied as it
/// is (Terraform fails it on that file), the link is named, every other module is
/// flattened.
#[test]
fn a_dangling_link_fails_its_module_only() {
    let s = repo();
    s.write("infra/broken/main.tf", NET);
    s.write(
        "infra/broken/override.tf",
        "resource \"aws_vpc\" \"main\" {\n  cidr_block = \"10.1.0.0/16\"\n}\n",
    );
    std::os::unix::fs::symlink("nowhere.tf", s.path("infra/broken/vars.tf")).unwrap();
    let out = s.beside("flat");
    let r = s.run(&["flatten", "infra", "--out", out.to_str().unwrap()]);
    assert_eq!(r.code, 1, "{}", r.shown());
    assert!(
        r.err().contains("note: infra/broken: copied as it is, not flattened"),
        "{}",
        r.shown()
    );
    assert_eq!(r.err().matches("infra/broken/vars.tf: not copied").count(), 1, "{}", r.shown());
    assert!(out.join("broken/override.tf").exists() && !out.join("db/override.tf").exists());
    assert!(r.err().contains("flattened 1 of 3 modules"), "{}", r.shown());
}

/// An untracked override file is folded with a note too, as `scan` does it.
#[test]
fn an_untracked_override_file_is_folded_with_a_note() {
    let s = repo();
    s.write(
        "infra/net/override.tf",
        "resource \"aws_vpc\" \"main\" {\n  cidr_block = \"10.2.0.0/16\"\n}\n",
    );
    let scanner = s.beside("scanner.py");
    let r = s.run(&["scan", "infra", "--", python(), scanner.to_str().unwrap(), "{}"]);
    assert_eq!(r.code, 0, "{}", r.shown());
    assert!(
        r.err().contains(
            "note: infra/net/override.tf: an untracked override file, folded all the same"
        ),
        "{}",
        r.shown()
    );
}

/// A module Terraform rejects is copied as it is with a note, and flatten exits 1, also
/// when it has no override file (the docs' promise); the others are flattened or copied.
#[test]
fn a_rejected_module_without_override_files_is_noted() {
    let s = repo();
    s.commit(
        &[("infra/bad/main.tf", "resource \"aws_vpc\" \"main\" {\n  cidr_block = \n}\n")],
        "bad",
    );
    let out = s.beside("flat");
    let r = s.run(&["flatten", "infra", "--out", out.to_str().unwrap()]);
    assert_eq!(r.code, 1, "{}", r.shown());
    assert!(
        r.err().contains(
            "note: infra/bad: copied as it is, not flattened: Terraform rejects this module"
        ),
        "{}",
        r.shown()
    );
    assert!(
        r.err().contains("flattened 1 of 3 modules into ")
            && r.err()
                .contains(", 1 needed no change, 1 was copied as it is: 1 override file folded"),
        "{}",
        r.shown()
    );
    assert!(out.join("bad/main.tf").is_file());
    let map = sarif(&std::fs::read_to_string(out.join(".override-guard-map.json")).unwrap());
    assert_eq!(map["unflattened"][0]["path"], "infra/bad", "{map}");
}

/// A clean run with nothing to flatten says that nothing needed it, not "flattened 0".
#[test]
fn a_run_with_nothing_to_flatten_says_so() {
    let s = repo();
    let out = s.beside("flat");
    let r = s.run(&["flatten", "infra/net", "--out", out.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.shown());
    let out_s = out.to_str().unwrap();
    assert_eq!(
        r.err(),
        format!(
            "nothing to flatten in {out_s}: the module needed no change (no override file to fold, no shadowed .tf file to leave out); 1 other file copied as it is; line map in .override-guard-map.json\n"
        ),
        "{}",
        r.shown()
    );
}
