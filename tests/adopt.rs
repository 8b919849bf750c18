//! Adopting override-guard on a repository that already has findings: a baseline written
//! by `audit --write-baseline` and read by `audit`/`check --baseline`, `--quiet` and
//! `--soft-fail`. Real repositories, made with the `git` CLI in temporary directories.

use crate::texts::*;
use crate::util::Sandbox;

const BASELINE: &str = ".override-guard-baseline.json";

/// `db` has an override that weakens a safeguard (deny): the old debt.
fn indebted() -> Sandbox {
    let s = Sandbox::new();
    s.commit(&[("db/main.tf", DB_MAIN), ("db/override.tf", WEAKEN)], "init");
    s
}

#[test]
fn a_baseline_round_trips_through_new_findings_and_moved_lines() {
    let s = indebted();
    // Written: the report is as usual, the file records the findings, and writing it is
    // the run's success (exit 0).
    let run = s.run(&["audit", "--format", "compact", "--write-baseline", BASELINE]);
    assert_eq!(run.code, 0, "{}", run.shown());
    assert!(run.out().contains("db/override.tf:3:5: error[weakened-safeguard]"), "{}", run.shown());
    assert!(
        run.err().contains("wrote .override-guard-baseline.json: 2 findings recorded"),
        "{}",
        run.shown()
    );
    let file = std::fs::read_to_string(s.path(BASELINE)).expect("baseline written");
    assert!(file.contains("\"path\": \"db/override.tf\""), "{file}");
    assert!(file.contains("\"rule\": \"weakened-safeguard\""), "{file}");

    // Read back: nothing new, exit 0, the summary says what the baseline hides.
    let run = s.run(&["audit", "--format", "compact", "--baseline", BASELINE]);
    assert_eq!(run.code, 0, "{}", run.shown());
    assert!(
        run.out()
            .ends_with("0 errors, 0 warnings, 2 more in the baseline (built-in default policy)\n"),
        "{}",
        run.shown()
    );

    // A new finding elsewhere is reported, and only it.
    s.write("cache/main.tf", DB_MAIN.replace("db_instance", "elasticache_cluster"));
    s.write("cache/override.tf", WEAKEN.replace("db_instance", "elasticache_cluster"));
    let run = s.run(&["audit", "--format", "compact", "--baseline", BASELINE]);
    assert_eq!(run.code, 1, "{}", run.shown());
    let out = run.out();
    let errors: Vec<&str> = out.lines().filter(|l| l.contains(": error[")).collect();
    assert_eq!(errors.len(), 1, "{}", run.shown());
    assert!(errors[0].starts_with("cache/override.tf:3:5:"), "{}", run.shown());

    // Lines added above the old one: still recorded; the new one still reported.
    s.write("db/override.tf", format!("# moved down\n\n\n{WEAKEN}"));
    let run = s.run(&["audit", "--format", "compact", "--baseline", BASELINE]);
    assert_eq!(run.code, 1, "{}", run.shown());
    let out = run.out();
    let errors: Vec<&str> = out.lines().filter(|l| l.contains(": error[")).collect();
    assert_eq!(errors.len(), 1, "{}", run.shown());
    assert!(errors[0].starts_with("cache/override.tf:"), "{}", run.shown());

    // The same baseline from a subdirectory: paths are the repository's.
    let run = s.run_env(
        "db",
        &["audit", "--format", "compact", "--baseline", &format!("../{BASELINE}")],
        &[],
    );
    assert_eq!(run.code, 0, "{}", run.shown());
    // SARIF carries the same fingerprint the baseline recorded.
    let run = s.run(&["audit", "db", "--format", "sarif"]);
    let sarif: serde_json::Value = serde_json::from_str(&run.out()).expect("SARIF");
    let fp = sarif["runs"][0]["results"][0]["partialFingerprints"]["overrideGuardFinding/v1"]
        .as_str()
        .expect("fingerprint")
        .to_string();
    let file = std::fs::read_to_string(s.path(BASELINE)).expect("baseline");
    assert!(file.contains(&format!("\"fingerprint\": \"{fp}\"")), "{fp} not in {file}");
}

/// A baseline is committed: it records no finding about a file git does not track
/// (nobody else has it), no module the engine refuses and no mistake in a policy file
/// (neither is debt), and says so. What it left out is reported by `--baseline` again.
#[test]
fn a_baseline_leaves_out_local_files_merge_errors_and_policy_errors() {
    let s = indebted();
    // A local override nobody else has, git-ignored; a module Terraform refuses; a team
    // policy with a typo.
    s.write(".gitignore", "local_override.tf\n");
    s.write("db/local_override.tf", WEAKEN);
    s.commit(&[("broken/main.tf", "resource \"aws_sqs_queue\" \"a\" {}\n")], "broken");
    s.write("broken/override.tf", "resource \"aws_sqs_queue\" \"b\" {}\n");
    s.git(&["add", "broken/override.tf", ".gitignore"]);
    s.write("team/.override-guard.toml", "[rules.override-file]\nlevle = \"deny\"\n");
    s.write("team/app/main.tf", DB_MAIN);
    s.git(&["add", "team"]);
    let run = s.run(&["audit", "--format", "compact", "--write-baseline", BASELINE]);
    assert_eq!(run.code, 0, "{}", run.shown());
    let err = run.err();
    assert!(err.contains("not recorded: 1 merge-error: a module the engine refuses"), "{err}");
    assert!(err.contains("not recorded: 1 policy-error:"), "{err}");
    assert!(err.contains("about files git does not track"), "{err}");
    let file = std::fs::read_to_string(s.path(BASELINE)).expect("baseline written");
    assert!(!file.contains("local_override.tf"), "{file}");
    assert!(!file.contains("merge-error") && !file.contains("policy-error"), "{file}");
    assert!(file.contains("\"path\": \"db/override.tf\""), "{file}");
    // Read back: what was left out is still reported, and fails the run.
    let run = s.run(&["audit", "--format", "compact", "--baseline", BASELINE]);
    assert_eq!(run.code, 1, "{}", run.shown());
    let out = run.out();
    assert!(out.contains("error[merge-error]"), "{out}");
    assert!(out.contains("error[policy-error]"), "{out}");
    assert!(out.contains("db/local_override.tf"), "{out}");
}

#[test]
fn a_broken_or_missing_baseline_is_an_error_that_names_it() {
    let s = indebted();
    s.write(BASELINE, "{\n  \"version\": 1,\n  \"tool\": \"override-guard\",\n  \"findings\": [\n");
    let run = s.run(&["audit", "--baseline", BASELINE]);
    assert_eq!(run.code, 2, "{}", run.shown());
    assert!(run.err().contains(".override-guard-baseline.json"), "{}", run.shown());
    assert!(run.err().contains("line 5"), "{}", run.shown());
    let run = s.run(&["audit", "--baseline", "nowhere.json"]);
    assert_eq!(run.code, 2, "{}", run.shown());
    assert!(run.err().contains("nowhere.json: cannot read the baseline"), "{}", run.shown());
}

#[test]
fn the_hook_reads_the_baseline_from_the_index() {
    let s = indebted();
    let run = s.run(&["audit", "--format", "compact", "--write-baseline", BASELINE]);
    assert_eq!(run.code, 0, "{}", run.shown());
    // A commit that touches db: the old finding fails it, and the hint says how to adopt.
    s.stage(&[("db/main.tf", &format!("# touched\n{DB_MAIN}"))]);
    let run = s.run(&["check", "--format", "compact"]);
    assert_eq!(run.code, 1, "{}", run.shown());
    assert!(run.err().contains("--new-only"), "{}", run.shown());
    // Not staged yet: the hook judges the index, so it says so.
    let run = s.run(&["check", "--format", "compact", "--baseline", BASELINE]);
    assert_eq!(run.code, 2, "{}", run.shown());
    assert!(run.err().contains("not in the index"), "{}", run.shown());
    // Staged: the recorded finding no longer fails the commit.
    s.git(&["add", BASELINE]);
    let run = s.run(&["check", "--format", "compact", "--baseline", BASELINE]);
    assert_eq!(run.code, 0, "{}", run.shown());
    assert!(run.out().contains("2 more in the baseline"), "{}", run.shown());
    // In a range, it is read from the end of the range.
    s.git(&["commit", "-qm", "adopt"]);
    let run = s.run(&["check", "--from-ref", "HEAD~1", "--to-ref", "HEAD", "--baseline", BASELINE]);
    assert_eq!(run.code, 0, "{}", run.shown());
    let run =
        s.run(&["check", "--from-ref", "HEAD~1", "--to-ref", "HEAD~1", "--baseline", BASELINE]);
    assert_eq!(run.code, 2, "{}", run.shown());
    assert!(run.err().contains("not in HEAD~1"), "{}", run.shown());
}

#[test]
fn quiet_prints_only_findings_and_soft_fail_exits_zero() {
    let s = indebted();
    s.write("scratch/override.tf", "resource \"x\" \"y\" {}\n"); // untracked: a note
    let loud = s.run(&["audit", "--format", "compact"]);
    assert_eq!(loud.code, 1, "{}", loud.shown());
    assert!(loud.out().contains(" modules, "), "{}", loud.shown());
    let quiet = s.run(&["audit", "--format", "compact", "--quiet"]);
    assert_eq!(quiet.code, 1, "{}", quiet.shown());
    let out = quiet.out();
    let lines: Vec<&str> = out.lines().collect();
    assert!(!lines.is_empty() && lines.iter().all(|l| l.contains("]: ")), "{}", quiet.shown());
    assert_eq!(quiet.err(), "", "{}", quiet.shown());
    // The same findings, exit 0.
    let soft = s.run(&["audit", "--format", "compact", "--soft-fail"]);
    assert_eq!(soft.code, 0, "{}", soft.shown());
    assert_eq!(soft.out(), loud.out());
    // An error is still an error.
    let broken = s.run(&["audit", "--soft-fail", "--policy", "missing.toml"]);
    assert_eq!(broken.code, 2, "{}", broken.shown());
    // The hook too.
    s.stage(&[("db/main.tf", &format!("# touched\n{DB_MAIN}"))]);
    let hook = s.run(&["check", "--format", "compact", "--quiet", "--soft-fail"]);
    assert_eq!(hook.code, 0, "{}", hook.shown());
    assert!(hook.out().contains("error[weakened-safeguard]"), "{}", hook.shown());
    assert_eq!(hook.err(), "", "{}", hook.shown());
}

#[test]
fn init_offers_a_baseline_when_the_repository_has_findings() {
    let s = indebted();
    let run = s.run(&["init"]);
    assert_eq!(run.code, 0, "{}", run.shown());
    assert!(
        run.err().contains("this repository already has 1 error and 1 warning"),
        "{}",
        run.shown()
    );
    assert!(
        run.err().contains("override-guard audit . --write-baseline .override-guard-baseline.json"),
        "{}",
        run.shown()
    );
    // Nothing to adopt: no offer.
    let clean = Sandbox::new();
    clean.commit(&[("app/main.tf", DB_MAIN)], "init");
    let run = clean.run(&["init"]);
    assert_eq!(run.code, 0, "{}", run.shown());
    assert!(!run.err().contains("baseline"), "{}", run.shown());
}

#[test]
fn the_review_can_soft_fail_too() {
    let s = Sandbox::new();
    s.commit(&[("db/main.tf", DB_MAIN)], "init");
    s.stage(&[("db/override.tf", WEAKEN)]);
    let hard = s.run(&["diff", "--format", "compact"]);
    assert_eq!(hard.code, 1, "{}", hard.shown());
    let soft = s.run(&["diff", "--format", "compact", "--soft-fail", "--quiet"]);
    assert_eq!(soft.code, 0, "{}", soft.shown());
    assert!(soft.out().contains("error[weakened-safeguard]"), "{}", soft.shown());
    assert!(
        !soft.out().contains(" modules, ") && !soft.out().contains(" module, "),
        "{}",
        soft.shown()
    );
}

/// The README's order: `init`, the baseline, then `init --pre-commit`, which keeps the
/// policy (exit 0, no error) and gives the hook the baseline, named from the repository's
/// root, from wherever it runs; without a baseline, the hook gets none.
#[test]
fn init_pre_commit_after_init_keeps_the_policy_and_passes_the_baseline() {
    let s = indebted();
    let run = s.run(&["init"]);
    assert_eq!(run.code, 0, "{}", run.shown());
    let policy = std::fs::read_to_string(s.path(".override-guard.toml")).unwrap();
    let run = s.run(&["init", "--pre-commit", "--stdout"]);
    assert!(!run.out().contains("args:"), "no baseline yet:\n{}", run.shown());
    s.run(&["audit", "--write-baseline", BASELINE]);
    std::fs::create_dir_all(s.path("db/sub")).unwrap();
    let run =
        s.run_env("db/sub", &["init", "--pre-commit", "--path", "../../.override-guard.toml"], &[]);
    assert_eq!(run.code, 0, "{}", run.shown());
    assert!(!run.err().contains("error"), "{}", run.shown());
    assert!(run.err().contains("kept ../../.override-guard.toml, which exists"), "{}", run.shown());
    assert_eq!(std::fs::read_to_string(s.path(".override-guard.toml")).unwrap(), policy);
    let config = std::fs::read_to_string(s.path(".pre-commit-config.yaml")).unwrap();
    assert!(
        config.ends_with("        args: [--baseline, .override-guard-baseline.json]\n"),
        "{config}"
    );
    // Plain `init` still refuses to write over a policy.
    let run = s.run(&["init"]);
    assert_eq!(run.code, 2, "{}", run.shown());
}

/// `check --baseline` names the baseline from the repository's root, as the policy is
/// found and as the framework runs the hook: from a subdirectory it is the same file.
#[test]
fn the_hook_finds_the_baseline_from_the_root_in_a_subdirectory() {
    let s = indebted();
    s.run(&["audit", "--write-baseline", BASELINE]);
    s.git(&["add", BASELINE]);
    s.stage(&[("db/main.tf", &format!("# touched\n{DB_MAIN}"))]);
    let run = s.run_env("db", &["check", "--format", "compact", "--baseline", BASELINE], &[]);
    assert_eq!(run.code, 0, "{}", run.shown());
    assert!(run.out().contains("2 more in the baseline"), "{}", run.shown());
    let run = s.run_env("db", &["check", "--baseline", "missing.json"], &[]);
    assert_eq!(run.code, 2, "{}", run.shown());
    assert!(run.err().contains("error: missing.json: not in the index"), "{}", run.shown());
}
