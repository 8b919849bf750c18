//! The release each module is judged for, chosen as teams pin it, end to end on real
//! repositories: version files read from the state being judged (the index for the hook,
//! a revision, the worktree), a changed version file touching the modules below it, a
//! monorepo whose modules pin different releases, and `--engine` and a policy's `engine`
//! winning over the pins.

use crate::util::Sandbox;

const NEEDS_1_10: &str = "terraform {\n  required_version = \">= 1.10\"\n}\n";

fn mismatch_line(pin_file: &str, release: &str, module: &str) -> String {
    format!(
        "{pin_file}:1:1: warning[version-mismatch]: this pin runs Terraform {release} for module {module}, whose required_version `>= 1.10` excludes it: Terraform refuses to run the module"
    )
}

/// A repository whose root pins 1.15.5 and whose module `app/` needs 1.10 or newer.
fn pinned_repo() -> Sandbox {
    let s = Sandbox::new();
    s.commit(&[(".terraform-version", "1.15.5\n"), ("app/main.tf", NEEDS_1_10)], "base");
    s
}

#[test]
fn the_hook_reads_the_staged_pin_and_its_change_touches_the_modules_below() {
    let s = pinned_repo();
    // Staged: a pin the module excludes. Worktree: back to a good one, not staged. Only
    // the version file changed: the module below it is judged all the same.
    s.stage(&[(".terraform-version", "1.9.2\n")]);
    s.write(".terraform-version", "1.15.5\n");
    let got = s.run(&["check", "--format", "compact"]);
    assert_eq!(got.code, 0, "{}", got.shown());
    let want = mismatch_line(".terraform-version", "1.9.2", "app");
    assert!(got.out().lines().any(|l| l == want), "{}", got.shown());
    assert!(
        got.out().ends_with("0 errors, 1 warning (built-in default policy)\n"),
        "{}",
        got.shown()
    );

    // The reverse: the good pin staged, the worktree's excluded.
    s.stage(&[(".terraform-version", "1.15.5\n")]);
    s.write(".terraform-version", "1.9.2\n");
    let got = s.run(&["check", "--format", "compact"]);
    assert_eq!(got.code, 0, "{}", got.shown());
    assert!(!got.out().contains("version-mismatch"), "{}", got.shown());
    // … which the worktree's audit reports, and HEAD's does not.
    let got = s.run(&["audit", ".", "--format", "compact"]);
    assert!(got.out().lines().any(|l| l == want), "{}", got.shown());
    let got = s.run(&["audit", "--rev", "HEAD", "--format", "compact"]);
    assert!(!got.out().contains("version-mismatch"), "{}", got.shown());
}

/// pre-commit's CI mode (`--from-ref/--to-ref`): a commit that changes only the version
/// file judges the modules below it.
#[test]
fn a_range_that_changes_only_the_pin_judges_the_modules_below() {
    let s = pinned_repo();
    s.commit(&[(".terraform-version", "1.9.2\n")], "pin an older release");
    let got = s.run(&["check", "--from-ref", "HEAD~1", "--to-ref", "HEAD", "--format", "compact"]);
    assert_eq!(got.code, 0, "{}", got.shown());
    let want = mismatch_line(".terraform-version", "1.9.2", "app");
    assert!(got.out().lines().any(|l| l == want), "{}", got.shown());
}

/// `diff` of a change to the version file alone, in a range and in the worktree: the
/// module below it is reviewed under each side's release, and the pin's directory, which
/// holds no module, is none.
#[test]
fn diff_reviews_the_modules_below_a_changed_pin() {
    let s = Sandbox::new();
    let main = "variable \"region\" {\n  default = \"a\"\n}\n";
    let over = "variable \"region\" {\n  default = \"b\"\n  const   = true\n}\n";
    s.commit(
        &[(".terraform-version", "1.14.9\n"), ("app/main.tf", main), ("app/override.tf", over)],
        "base",
    );
    let reviewed = |got: &crate::util::Run| {
        assert_eq!(got.code, 0, "{}", got.shown());
        let out = got.out();
        // 1.14 has no `const`; 1.15 has.
        assert!(out.contains("-# Terraform rejects this module:"), "{}", got.shown());
        assert!(
            out.contains(
                "+# Effective configuration (Terraform 1.15.5, pinned in .terraform-version:1)"
            ),
            "{}",
            got.shown()
        );
        assert!(out.contains("Findings resolved"), "{}", got.shown());
        assert!(!out.contains("\n  . (.terraform-version)"), "{}", got.shown());
        assert!(
            out.contains("\n1 module with changed files, 1 with a changed effective configuration"),
            "{}",
            got.shown()
        );
    };
    s.write(".terraform-version", "1.15.5\n");
    reviewed(&s.run(&["diff", "--worktree"]));
    s.commit(&[(".terraform-version", "1.15.5\n")], "pin 1.15.5");
    reviewed(&s.run(&["diff", "HEAD~1", "HEAD"]));
    // The machine reports count the release that judged the module after the change.
    let sarif = s.run(&["diff", "HEAD~1", "HEAD", "--format", "sarif"]);
    let log: serde_json::Value = serde_json::from_str(&sarif.out()).expect("SARIF");
    assert_eq!(
        log["runs"][0]["properties"]["releases"],
        serde_json::json!([{"engine": "terraform", "version": "1.15.5", "modules": 1}]),
        "{}",
        sarif.shown()
    );
}

#[test]
fn each_module_of_a_monorepo_is_judged_for_its_own_pin() {
    let s = Sandbox::new();
    s.commit(
        &[
            (".terraform-version", "1.14.9\n"),
            ("old/.tool-versions", "nodejs 20.11.0\nterraform 1.9.2\n"),
            ("old/main.tf", NEEDS_1_10),
            ("new/mise.toml", "[tools]\nterraform = \"1.12\"\n"),
            ("new/main.tf", NEEDS_1_10),
            ("root/main.tf", NEEDS_1_10),
        ],
        "modules pinning different releases",
    );
    let header = |dir: &str| {
        let got = s.run(&["show", dir]);
        assert_eq!(got.code, 0, "{}", got.shown());
        got.out().lines().next().unwrap_or_default().to_string()
    };
    assert_eq!(
        header("old"),
        "# Effective configuration (Terraform 1.9.2, pinned in old/.tool-versions:2) merged from: main.tf"
    );
    // A minor: its newest modelled patch.
    assert_eq!(
        header("new"),
        "# Effective configuration (Terraform 1.12.2, pinned in new/mise.toml:2) merged from: main.tf"
    );
    // No pin of its own: the root's.
    assert_eq!(
        header("root"),
        "# Effective configuration (Terraform 1.14.9, pinned in .terraform-version:1) merged from: main.tf"
    );
    // Shown from inside the module, the pins above it are found the same.
    let got = s.run_env("old", &["show", "."], &[]);
    assert!(
        got.out().starts_with(
            "# Effective configuration (Terraform 1.9.2, pinned in old/.tool-versions:2)"
        ),
        "{}",
        got.shown()
    );

    let json = s.run(&["show", "new", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).expect("JSON");
    assert_eq!(
        v["release"],
        serde_json::json!({"engine": "terraform", "version": "1.12.2", "from": "pinned in new/mise.toml:2"})
    );

    // Only `old` pins a release its constraint excludes.
    let got = s.run(&["audit", ".", "--format", "compact"]);
    let out = got.out();
    let found: Vec<&str> = out.lines().filter(|l| l.contains("version-mismatch")).collect();
    assert_eq!(
        found,
        [mismatch_line("old/.tool-versions", "1.9.2", "old").replacen(":1:1:", ":2:1:", 1)],
        "{}",
        got.shown()
    );
    // The summary says which releases judged, grouped, the release of most modules first.
    assert_eq!(
        out.lines().last(),
        Some(
            "3 modules (Terraform 1.14.9: 1, Terraform 1.12.2: 1, Terraform 1.9.2: 1), 3 files, 0 override files: 0 errors, 1 warning (built-in default policy)"
        ),
        "{}",
        got.shown()
    );
    // The revision says the same.
    let rev = s.run(&["audit", "--rev", "HEAD", "--format", "compact"]);
    assert_eq!(rev.out(), got.out());
    // So do the JSON report's summary and the SARIF run's properties, oldest first.
    let releases = serde_json::json!([
        {"engine": "terraform", "version": "1.9.2", "modules": 1},
        {"engine": "terraform", "version": "1.12.2", "modules": 1},
        {"engine": "terraform", "version": "1.14.9", "modules": 1},
    ]);
    let json = s.run(&["audit", ".", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).expect("JSON");
    assert_eq!(v["summary"]["releases"], releases);
    let sarif = s.run(&["audit", ".", "--format", "sarif"]);
    let v: serde_json::Value = serde_json::from_slice(&sarif.stdout).expect("SARIF");
    assert_eq!(v["runs"][0]["properties"]["releases"], releases);
    // Without a pin, the files choose the engine's newest release, as always: not said.
    let plain = Sandbox::new();
    plain.commit(&[("app/main.tf", NEEDS_1_10)], "no pin");
    let got = plain.run(&["audit", ".", "--format", "compact"]);
    assert_eq!(
        got.out().lines().last(),
        Some("1 module, 1 file, 0 override files: 0 errors, 0 warnings (built-in default policy)")
    );
}

#[test]
fn the_command_line_and_the_policy_win_over_the_pins() {
    let s = Sandbox::new();
    s.commit(&[(".terraform-version", "1.9.2\n"), ("app/main.tf", NEEDS_1_10)], "base");
    let header = |args: &[&str]| {
        let got = s.run(args);
        assert_eq!(got.code, 0, "{}", got.shown());
        got.out().lines().next().unwrap_or_default().to_string()
    };
    assert_eq!(
        header(&["show", "app", "--engine", "terraform@1.12"]),
        "# Effective configuration (Terraform 1.12.2, from --engine) merged from: main.tf"
    );
    // The engine alone: its newest release, no pin read.
    assert_eq!(
        header(&["show", "app", "--engine", "terraform"]),
        "# Effective configuration (Terraform) merged from: main.tf"
    );
    let got = s.run(&["audit", "app", "--engine", "terraform@1.14", "--format", "compact"]);
    assert!(!got.out().contains("version-mismatch"), "{}", got.shown());

    // A policy's engine governs its modules, and the pin is not judged.
    s.commit(&[(".override-guard.toml", "engine = \"terraform@1.13\"\n")], "policy");
    let got = s.run(&["audit", ".", "--format", "compact"]);
    assert_eq!(got.code, 0, "{}", got.shown());
    assert!(!got.out().contains("version-mismatch"), "{}", got.shown());

    // A release not modelled is refused, with the list of those that are.
    let got = s.run(&["show", "app", "--engine", "terraform@1.5"]);
    assert_eq!(got.code, 2, "{}", got.shown());
    assert!(
        got.err().contains(
            "`terraform@1.5` is not a release override-guard models; modelled are terraform@1.6.6"
        ),
        "{}",
        got.shown()
    );
    s.commit(
        &[(".override-guard.toml", "engine = \"terraform@2.0\"\n")],
        "a policy naming no modelled release",
    );
    let got = s.run(&["audit", ".", "--format", "compact"]);
    // A mistake of the policy, on its line, as every other (`policy-error`, exit 1).
    assert_eq!(got.code, 1, "{}", got.shown());
    assert!(
        got.out().contains(".override-guard.toml:1:10: error[policy-error]: `terraform@2.0` is not a release override-guard models"),
        "{}",
        got.shown()
    );
}
