//! Which files and which policy belong to a run, wherever it is started: subdirectories,
//! revisions, several paths, monorepos with a policy per team, and the hook's ways of
//! being run (a commit, `--all-files`, a range of commits). Real repositories, made with
//! the `git` CLI in temporary directories.

use crate::texts::*;
use crate::util::{Run, Sandbox};

const WEB_MAIN: &str = "resource \"aws_instance\" \"web\" {\n  instance_type = \"t3.micro\"\n}\n";
const WEB_OVERRIDE: &str =
    "resource \"aws_instance\" \"web\" {\n  instance_type = \"m6i.large\"\n}\n";

fn compact(run: &Run) -> Vec<String> {
    run.out().lines().map(str::to_string).collect()
}

/// `envs/dev` and `envs/prod` with overrides, `app` without; the root policy denies
/// override files and excuses one in `app` (which has none: unused).
fn envs_repo() -> Sandbox {
    let s = Sandbox::new();
    s.commit(
        &[
            (
                ".override-guard.toml",
                "[rules]\noverride-file = \"deny\"\n\n[[exceptions]]\nrule = \"override-file\"\npaths = [\"app/override.tf\"]\nreason = \"sizing\"\n\n[[exceptions]]\nrule = \"override-file\"\npaths = [\"envs/qa/**\"]\nreason = \"qa tweaks\"\nexpires = 2020-01-01\n",
            ),
            ("envs/dev/main.tf", WEB_MAIN),
            ("envs/dev/override.tf", WEB_OVERRIDE),
            ("envs/prod/main.tf", WEB_MAIN),
            ("envs/prod/override.tf", WEB_OVERRIDE),
            ("app/main.tf", WEB_MAIN),
        ],
        "init",
    );
    s
}

#[test]
fn a_subdirectory_is_judged_by_the_same_policy_from_every_source() {
    let s = envs_repo();
    for extra in [&[][..], &["--staged"], &["--rev", "HEAD"]] {
        let mut args = vec!["audit", "envs", "--format", "compact"];
        args.extend_from_slice(extra);
        let run = s.run(&args);
        assert_eq!(run.code, 1, "{args:?}: {}", run.shown());
        let out = run.out();
        assert!(out.contains("envs/dev/override.tf:1:1: error[override-file]: override file override.tf changes resource.aws_instance.web\n"), "{args:?}: {out}");
        assert!(out.ends_with("(.override-guard.toml)\n"), "{args:?}: {out}");
    }
    // From the subdirectory itself, the same policy (found above it).
    let run = s.run_env("envs", &["audit", "--rev", "HEAD", "--format", "compact"], &[]);
    assert_eq!(run.code, 1, "{}", run.shown());
    assert!(run.out().contains("dev/override.tf:1:1: error[override-file]"), "{}", run.shown());
    assert!(run.out().ends_with("(../.override-guard.toml)\n"), "{}", run.shown());
}

#[test]
fn exceptions_are_judged_only_within_the_scope_of_the_run() {
    let s = envs_repo();
    // `audit envs`: the exception for app/ is neither used nor unused here.
    let run = s.run(&["audit", "envs", "--format", "compact"]);
    assert!(!run.out().contains("unused-exception"), "{}", run.shown());
    // The expired exception for envs/qa/** lies inside the run: reported.
    assert!(run.out().contains(".override-guard.toml:9:1: warning[expired-exception]: exception for override-file expired on 2020-01-01\n"), "{}", run.shown());
    let run = s.run(&["audit", "envs/dev", "--format", "compact"]);
    assert!(!run.out().contains("exception"), "{}", run.shown());
    // The whole repository: both.
    let run = s.run(&["audit", "--format", "compact"]);
    assert!(run.out().contains(".override-guard.toml:4:1: warning[unused-exception]: exception for override-file matches no finding\n"), "{}", run.shown());
    assert!(run.out().contains("warning[expired-exception]"), "{}", run.shown());
    let run = s.run(&["audit", "app", "--format", "compact"]);
    assert!(run.out().contains("warning[unused-exception]"), "{}", run.shown());
    assert!(!run.out().contains("expired-exception"), "{}", run.shown());
}

#[test]
fn github_and_sarif_name_files_from_the_repository_root_from_any_directory() {
    let s = envs_repo();
    let run = s.run_env("envs", &["audit", ".", "--format", "github"], &[]);
    assert_eq!(run.code, 1, "{}", run.shown());
    assert!(
        run.out().contains("::error file=envs/dev/override.tf,line=1,col=1,"),
        "{}",
        run.shown()
    );
    assert!(!run.out().contains("file=dev/"), "{}", run.shown());
    let run = s.run_env("envs/dev", &["audit", "../prod", "--format", "sarif"], &[]);
    let v: serde_json::Value = serde_json::from_str(&run.out()).expect("sarif");
    let location =
        &v["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"];
    assert_eq!(location["uri"], "envs/prod/override.tf", "{}", run.out());
    assert_eq!(location["uriBaseId"], "%SRCROOT%");
    assert!(v["runs"][0]["originalUriBaseIds"]["%SRCROOT%"].is_object(), "{}", run.out());
    crate::sarif::keep_for_schema_check("scope", &run.out());
    // compact stays relative to the working directory, under the name given.
    let run = s.run_env("envs/dev", &["audit", "../prod", "--format", "compact"], &[]);
    assert!(
        run.out().starts_with("../prod/override.tf:1:1: error[override-file]"),
        "{}",
        run.shown()
    );
    assert!(run.out().ends_with("(../../.override-guard.toml)\n"), "{}", run.shown());
}

#[test]
fn audit_takes_several_paths() {
    let s = envs_repo();
    let run = s.run(&["audit", "envs/dev", "envs/prod", "--format", "compact"]);
    assert_eq!(run.code, 1, "{}", run.shown());
    let lines = compact(&run);
    assert!(lines[0].starts_with("envs/dev/override.tf:1:1: error[override-file]"), "{lines:?}");
    assert!(lines[2].starts_with("envs/prod/override.tf:1:1: error[override-file]"), "{lines:?}");
    assert!(
        lines
            .last()
            .is_some_and(|l| l.starts_with("2 modules, 4 files, 2 override files: 2 errors")),
        "{lines:?}"
    );
    // A path inside another is judged once.
    let run = s.run(&["audit", "envs", "envs/dev", "--format", "compact"]);
    assert!(
        compact(&run).last().is_some_and(|l| l.starts_with("2 modules, 4 files")),
        "{}",
        run.shown()
    );
}

#[test]
fn errors_name_the_path_as_it_was_written_once() {
    let s = envs_repo();
    let run = s.run(&["audit", "nosuchdir"]);
    assert_eq!(run.code, 2, "{}", run.shown());
    assert_eq!(run.err(), "error: nosuchdir: No such file or directory (os error 2)\n");
    let missing = s.beside("gone");
    let run = s.run(&["audit", missing.to_str().expect("utf-8")]);
    assert_eq!(
        run.err(),
        format!("error: {}: No such file or directory (os error 2)\n", missing.display())
    );
    let run = s.run(&["audit", "app/main.tf"]);
    assert_eq!(run.code, 2, "{}", run.shown());
    assert_eq!(run.err(), "error: app/main.tf: not a directory\n");
    let run = s.run(&["show", "envs"]);
    assert_eq!(run.code, 2, "{}", run.shown());
    assert_eq!(
        run.err(),
        "error: envs: no Terraform or OpenTofu configuration files here; its modules are in subdirectories: envs/dev, envs/prod (show one of them, or audit them all with `override-guard audit envs`)\n"
    );
    // A tree with no configuration file: said, not silently clean.
    s.write("docs/README.md", "nothing here\n");
    let run = s.run(&["audit", "docs", "--format", "compact"]);
    assert_eq!(run.code, 0, "{}", run.shown());
    assert_eq!(run.err(), "warning: no Terraform or OpenTofu configuration files under docs\n");
}

/// A monorepo: the root policy allows override files; team A's own policy denies them and
/// turns the comment rule off; team B has no policy file of its own.
fn monorepo() -> Sandbox {
    let s = Sandbox::new();
    s.commit(
        &[
            (".override-guard.toml", "[rules]\noverride-file = \"allow\"\n"),
            (
                "teams/a/.override-guard.toml",
                "[rules]\noverride-file = \"deny\"\nmissing-override-comment = \"allow\"\n",
            ),
            ("teams/a/web/main.tf", WEB_MAIN),
            ("teams/b/web/main.tf", WEB_MAIN),
        ],
        "init",
    );
    s
}

#[test]
fn the_nearest_policy_governs_each_module_in_audit_check_diff_and_fix() {
    let s = monorepo();
    s.write("teams/a/web/override.tf", WEB_OVERRIDE);
    s.write("teams/b/web/override.tf", WEB_OVERRIDE);
    s.git(&["add", "-A"]);
    let a = "teams/a/web/override.tf:1:1: error[override-file]: override file override.tf changes resource.aws_instance.web";
    let b = "teams/b/web/main.tf:1:1: warning[missing-override-comment]";
    for args in [
        &["audit", "--format", "compact"][..],
        &["audit", "--staged", "--format", "compact"],
        &["check", "--format", "compact"],
        &["diff", "--format", "compact"],
    ] {
        let run = s.run(args);
        assert_eq!(run.code, 1, "{args:?}: {}", run.shown());
        let out = run.out();
        assert!(out.contains(a), "{args:?}: {out}");
        assert!(out.contains(b), "{args:?}: {out}");
        assert!(!out.contains("teams/a/web/main.tf"), "{args:?}: {out}");
        assert!(!out.contains("teams/b/web/override.tf"), "{args:?}: {out}");
        assert!(
            out.trim_end()
                .ends_with("(2 policies: teams/a/.override-guard.toml, .override-guard.toml)"),
            "{args:?}: {out}"
        );
    }
    // From team A's directory: its policy, found above the working directory.
    let run = s.run_env("teams/a", &["audit", "--format", "compact"], &[]);
    assert!(run.out().ends_with("(.override-guard.toml)\n"), "{}", run.shown());
    assert!(run.out().contains("web/override.tf:1:1: error[override-file]"), "{}", run.shown());
    // fix asks each module's policy: no comment for team A.
    let run = s.run(&["fix", "--dry-run"]);
    assert!(run.out().contains("+++ b/teams/b/web/main.tf"), "{}", run.shown());
    assert!(!run.out().contains("teams/a/"), "{}", run.shown());
    // --policy PATH governs every module.
    let run = s.run(&["audit", "--policy", "teams/a/.override-guard.toml", "--format", "compact"]);
    assert!(
        run.out().contains("teams/b/web/override.tf:1:1: error[override-file]"),
        "{}",
        run.shown()
    );
    assert!(run.out().ends_with("(teams/a/.override-guard.toml)\n"), "{}", run.shown());
}

/// A monorepo whose every module has its own policy file: the built-in default governs
/// none of them, so no report lists it (the root directory the audit names is no module).
#[test]
fn the_built_in_default_is_listed_only_when_it_governs_a_module() {
    let s = Sandbox::new();
    s.commit(
        &[
            ("a/.override-guard.toml", "[rules]\noverride-file = \"warn\"\n"),
            ("a/main.tf", WEB_MAIN),
            ("b/.override-guard.toml", "[rules]\noverride-file = \"warn\"\n"),
            ("b/main.tf", WEB_MAIN),
        ],
        "init",
    );
    let both = "(2 policies: a/.override-guard.toml, b/.override-guard.toml)";
    for format in ["compact", "human", "github"] {
        let run = s.run(&["audit", "--format", format]);
        assert_eq!(run.code, 0, "{format}: {}", run.shown());
        assert!(run.out().trim_end().ends_with(both), "{format}: {}", run.shown());
        assert!(!run.out().contains("built-in"), "{format}: {}", run.shown());
    }
    for args in [&["audit", "--format", "json"][..], &["audit", "--staged", "--format", "json"]] {
        let run = s.run(args);
        let doc: serde_json::Value = serde_json::from_str(&run.out()).expect("json");
        assert_eq!(
            doc["policies"],
            serde_json::json!(["a/.override-guard.toml", "b/.override-guard.toml"]),
            "{args:?}"
        );
        assert_eq!(doc["policy"], "a/.override-guard.toml", "{args:?}");
    }
    // A module without a file of its own brings the built-in default in.
    s.write("c/main.tf", WEB_MAIN);
    let run = s.run(&["audit", "--format", "compact"]);
    assert!(
        run.out().trim_end().ends_with(
            "(3 policies: a/.override-guard.toml, b/.override-guard.toml, built-in default policy)"
        ),
        "{}",
        run.shown()
    );
    // No module at all: no policy is in force.
    s.write("docs/README.md", "nothing here\n");
    let run = s.run(&["audit", "docs", "--format", "json"]);
    let doc: serde_json::Value = serde_json::from_str(&run.out()).expect("json");
    assert_eq!(doc["policies"], serde_json::json!([]), "{}", run.shown());
}

#[test]
fn a_changed_team_policy_has_its_modules_judged_again() {
    let s = monorepo();
    s.commit(
        &[
            ("teams/a/web/override.tf", WEB_OVERRIDE),
            ("teams/a/.override-guard.toml", "[rules]\noverride-file = \"allow\"\n"),
        ],
        "relax",
    );
    s.write("teams/a/.override-guard.toml", "[rules]\noverride-file = \"deny\"\n");
    s.git(&["add", "-A"]);
    let run = s.run(&["check", "--format", "compact"]);
    assert_eq!(run.code, 1, "{}", run.shown());
    assert!(
        run.out().contains("teams/a/web/override.tf:1:1: error[override-file]"),
        "{}",
        run.shown()
    );
    let run = s.run(&["diff", "--format", "compact"]);
    assert_eq!(run.code, 1, "{}", run.shown());
    assert!(run.err().contains("note: teams/a/.override-guard.toml changed"), "{}", run.shown());
}

/// One team's broken policy file is a finding in that file; the modules it governs are
/// not judged, and every other team's are, in the audit and in the hook. `diff` and `fix`,
/// which cannot judge around it, stop and say why.
#[test]
fn a_policy_mistake_in_any_team_file_is_reported_with_its_path() {
    let s = monorepo();
    s.write("teams/a/web/override.tf", WEB_OVERRIDE);
    s.write("teams/b/web/override.tf", WEB_OVERRIDE);
    s.write("teams/b/.override-guard.toml", "[rules]\noverride-fil = \"deny\"\n");
    s.git(&["add", "-A"]);
    let run = s.run(&["audit", "--format", "human", "--color", "never"]);
    assert_eq!(run.code, 1, "{}", run.shown());
    assert!(run.out().contains("teams/b/.override-guard.toml:2:1"), "{}", run.shown());
    assert!(run.out().contains("did you mean `override-file`?"), "{}", run.shown());
    assert!(run.out().contains("not judged until it is fixed"), "{}", run.shown());
    for args in [&["audit", "--format", "compact"][..], &["check", "--format", "compact"]] {
        let run = s.run(args);
        assert_eq!(run.code, 1, "{args:?}: {}", run.shown());
        let lines: Vec<String> = run.out().lines().map(str::to_string).collect();
        assert_eq!(
            lines[..2],
            [
                "teams/a/web/override.tf:1:1: error[override-file]: override file override.tf changes resource.aws_instance.web",
                "teams/b/.override-guard.toml:2:1: error[policy-error]: unknown rule `override-fil` (did you mean `override-file`?)",
            ],
            "{args:?}: {}",
            run.shown()
        );
        // teams/b/web is not judged: no missing-override-comment there.
        assert!(!run.out().contains("teams/b/web"), "{args:?}: {}", run.shown());
        if args[0] == "check" {
            // The staged typo is to fix, not debt to record in a baseline.
            let err = run.err();
            assert!(
                err.contains("hint: teams/b/.override-guard.toml has mistakes: fix it; a policy error is no debt a baseline records"),
                "{}",
                run.shown()
            );
            assert!(!err.contains("record them in a baseline"), "{}", run.shown());
        }
    }
    for args in [&["diff"][..], &["fix", "--dry-run"]] {
        let run = s.run(args);
        assert_eq!(run.code, 2, "{args:?}: {}", run.shown());
        assert!(
            run.err().contains("teams/b/.override-guard.toml:2:1"),
            "{args:?}: {}",
            run.shown()
        );
    }
}

#[test]
fn fix_follows_the_exceptions_audit_follows() {
    let s = Sandbox::new();
    s.commit(
        &[
            (
                ".override-guard.toml",
                "[[exceptions]]\nrule = \"missing-override-comment\"\npaths = [\"legacy/**\"]\nreason = \"frozen\"\n",
            ),
            ("legacy/main.tf", WEB_MAIN),
            ("legacy/override.tf", WEB_OVERRIDE),
            ("app/main.tf", WEB_MAIN),
            ("app/override.tf", WEB_OVERRIDE),
        ],
        "init",
    );
    let run = s.run(&["audit", "--format", "compact"]);
    assert!(!run.out().contains("legacy/main.tf"), "{}", run.shown());
    let run = s.run(&["fix", "--dry-run"]);
    assert!(run.out().contains("+++ b/app/main.tf"), "{}", run.shown());
    assert!(!run.out().contains("legacy"), "{}", run.shown());
}

/// A repository with a committed deny finding in `db/` and a clean `app/`.
fn committed_finding() -> Sandbox {
    let s = Sandbox::new();
    s.commit(
        &[("db/main.tf", DB_MAIN), ("db/override.tf", WEAKEN), ("app/main.tf", WEB_MAIN)],
        "init",
    );
    s
}

#[test]
fn the_hook_judges_the_files_it_is_given_from_the_index() {
    let s = committed_finding();
    // Nothing staged: a commit has nothing to judge.
    let run = s.run(&["check", "--format", "compact"]);
    assert_eq!(run.code, 0, "{}", run.shown());
    // `pre-commit run --all-files` passes every file: every module is judged.
    let run =
        s.run(&["check", "--format", "compact", "app/main.tf", "db/main.tf", "db/override.tf"]);
    assert_eq!(run.code, 1, "{}", run.shown());
    assert!(run.out().contains("db/override.tf:3:5: error[weakened-safeguard]"), "{}", run.shown());
    assert!(
        run.out().ends_with(
            "2 modules, 3 files, 1 override file: 1 error, 1 warning (built-in default policy)\n"
        ),
        "{}",
        run.shown()
    );
    // A failing hook ends with how to see more; the error is in a file nothing staged
    // touches (--all-files), so the hint offers the ways to adopt the tool on old debt.
    assert_eq!(
        run.err(),
        "hint: `override-guard explain weakened-safeguard` says why it matters; `override-guard check --new-only` reports only what this change introduces\n\
         hint: 1 of the errors is in files this change does not touch: to adopt override-guard without fixing them first, record them in a baseline (`override-guard audit --write-baseline FILE`, then `check --baseline FILE`)\n"
    );
    // From the index, not the worktree.
    s.write(
        "db/override.tf",
        DB_MAIN.replace("prevent_destroy = true", "prevent_destroy = true # fixed"),
    );
    let run = s.run(&["check", "--format", "compact", "db/override.tf"]);
    assert_eq!(run.code, 1, "{}", run.shown());
}

#[test]
fn the_hook_judges_a_range_of_commits_at_its_end() {
    let s = committed_finding();
    let base = s.git(&["rev-parse", "HEAD"]).trim().to_string();
    s.commit(&[("app/override.tf", WEB_OVERRIDE)], "a bigger instance");
    let head = s.git(&["rev-parse", "HEAD"]).trim().to_string();
    // A bad staged change is not the range's business.
    s.write(
        "app/main.tf",
        "resource \"aws_instance\" \"web\" {\n  lifecycle {\n    prevent_destroy = true\n  }\n}\n",
    );
    s.write("app/override.tf", WEAKEN.replace("aws_db_instance\" \"main", "aws_instance\" \"web"));
    s.git(&["add", "-A"]);
    let env = [("PRE_COMMIT_FROM_REF", base.as_str()), ("PRE_COMMIT_TO_REF", head.as_str())];
    let run = s.run_env(".", &["check", "--format", "compact", "app/override.tf"], &env);
    assert_eq!(run.code, 0, "{}", run.shown());
    assert!(
        run.out().contains("app/main.tf:1:1: warning[missing-override-comment]"),
        "{}",
        run.shown()
    );
    assert!(!run.out().contains("db/"), "{}", run.shown());
    assert!(!run.out().contains("prevent_destroy"), "{}", run.shown());
    // The same with flags; --new-only compares with the start of the range.
    let run = s.run(&[
        "check",
        "--format",
        "compact",
        "--from-ref",
        &base,
        "--to-ref",
        &head,
        "--new-only",
    ]);
    assert_eq!(run.code, 0, "{}", run.shown());
    assert!(run.out().contains("missing-override-comment"), "{}", run.shown());
    // A range that deletes the original of an override: judged though no file remains
    // to be passed.
    s.git(&["reset", "-q", "--hard"]);
    s.git(&["rm", "-q", "db/main.tf"]);
    s.git(&["commit", "-q", "--no-verify", "-m", "delete"]);
    let run = s.run(&["check", "--format", "compact", "--from-ref", &head, "--to-ref", "HEAD"]);
    assert_eq!(run.code, 1, "{}", run.shown());
    assert!(run.out().contains("db/override.tf:1:1: error[merge-error]: Missing resource to override: There is no aws_db_instance resource named \"main\"."), "{}", run.shown());
    // One end alone is a usage error.
    let run = s.run(&["check", "--from-ref", "HEAD"]);
    assert_eq!(run.code, 2, "{}", run.shown());
}

#[test]
fn outside_git_a_policy_in_a_parent_directory_governs() {
    let s = Sandbox::empty();
    s.write(".override-guard.toml", "[rules]\noverride-file = \"deny\"\n");
    s.write("stack/main.tf", WEB_MAIN);
    s.write("stack/override.tf", WEB_OVERRIDE);
    let run = s.run(&["audit", "stack", "--format", "compact"]);
    assert_eq!(run.code, 1, "{}", run.shown());
    assert!(
        run.out().starts_with("stack/override.tf:1:1: error[override-file]"),
        "{}",
        run.shown()
    );
    assert!(run.out().ends_with("(.override-guard.toml)\n"), "{}", run.shown());
    let run = s.run_env("stack", &["audit", "--format", "compact"], &[]);
    assert_eq!(run.code, 1, "{}", run.shown());
    assert!(run.out().ends_with("(../.override-guard.toml)\n"), "{}", run.shown());
    // Not in files: nothing is told apart, nothing is local-only.
    assert!(!run.out().contains("local"), "{}", run.shown());
}
