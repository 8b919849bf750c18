//! The README's adoption steps ("Adopting it on an existing repository"), run in their order
//! on a repository holding a copy of `examples/` and its history, through the real
//! pre-commit framework: a policy (`init`), a baseline of today's findings, the hook
//! (`init --pre-commit`), then the first commit, which the recorded debt must not block,
//! and a new finding, which the hook must block. Each command is looked up in the README
//! first, so the steps the test runs are the steps the README gives.

use std::path::Path;

use super::precommit::{
    Sandbox, UserRepo, expect_success, pin_an_older_dependency, pin_and_install, pre_commit, run,
    snapshot_of_this_project, text,
};

/// The steps, as the README writes them (the shell's `$ ` before a transcript's commands).
const INIT: &str = "override-guard init";
const WRITE_BASELINE: &str =
    "override-guard audit --write-baseline .override-guard-baseline.json --format compact";
const ADD: &str = "git add .override-guard.toml .override-guard-baseline.json";
const INIT_HOOK: &str = "override-guard init --pre-commit";

/// Copies the files of `from` (recursively) into `to`, but the policy file at its top.
fn copy_examples(from: &Path, to: &Path) {
    for e in std::fs::read_dir(from).expect("examples/") {
        let e = e.expect("entry");
        let (src, dst) = (e.path(), to.join(e.file_name()));
        if e.file_type().expect("type").is_dir() {
            std::fs::create_dir_all(&dst).expect("mkdir");
            copy_examples(&src, &dst);
        } else if !(from.ends_with("examples") && e.file_name() == ".override-guard.toml") {
            std::fs::copy(&src, &dst).expect("copy");
        }
    }
}

/// The `[[exceptions]]` entry the README gives for `legacy/`, its `expires` date moved a
/// year past today: the README's date passes, and a test that fails on a date would not be
/// deterministic.
fn readme_exception(readme: &str) -> String {
    let start = readme.find("```toml\n   [[exceptions]]\n").expect("the README's exception");
    let body = &readme[start + "```toml\n".len()..];
    let body = &body[..body.find("   ```").expect("its end")];
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let year = 1970 + secs / (365 * 86_400) + 1;
    body.lines()
        .map(|l| l.trim_start())
        .map(|l| {
            if l.starts_with("expires = ") {
                format!("expires = {year}-12-31\n")
            } else {
                format!("{l}\n")
            }
        })
        .collect()
}

/// Runs one README step (`line`, split on spaces) in the user's repository.
fn step(sandbox: &Sandbox, repo: &Path, line: &str) -> std::process::Output {
    let mut words = line.split(' ');
    let program = match words.next() {
        Some("override-guard") => env!("CARGO_BIN_EXE_override-guard"),
        Some(other) => other,
        None => unreachable!("a step has a command"),
    };
    let mut cmd = sandbox.command(program, repo);
    cmd.args(words);
    run(&mut cmd, line)
}

pub fn the_readme_adoption_steps_let_the_first_commit_through() {
    let readme = include_str!("../../README.md");
    for line in [INIT, WRITE_BASELINE, ADD] {
        assert!(readme.contains(&format!("$ {line}")), "the README no longer says `{line}`");
    }
    assert!(readme.contains(&format!("`{INIT_HOOK}`")), "the README no longer says {INIT_HOOK}");
    let pre_commit = pre_commit();
    let sandbox = Sandbox::new();
    let (hook_repo, _) = snapshot_of_this_project(&sandbox);
    let rev = pin_an_older_dependency(&sandbox, &hook_repo);

    // A repository with history and findings: a copy of examples/, without its policy.
    let repo = UserRepo { sandbox: &sandbox, dir: sandbox.path().join("infra") };
    std::fs::create_dir(&repo.dir).expect("create the user repository");
    repo.git(&["init", "--quiet"]);
    copy_examples(&Path::new(env!("CARGO_MANIFEST_DIR")).join("examples"), &repo.dir);
    repo.git(&["add", "--all"]);
    repo.git(&["commit", "--quiet", "--no-verify", "-m", "the infrastructure"]);

    // 1. A policy: it says what the repository already has, and how to adopt it.
    let out = step(&sandbox, &repo.dir, INIT);
    expect_success(&out, INIT);
    assert!(
        text(&out).contains("--write-baseline .override-guard-baseline.json"),
        "{}",
        text(&out)
    );
    // 2. The baseline of today's findings, staged with the policy; the module Terraform
    // refuses (legacy/), which no baseline records, excused by the README's exception.
    let out = step(&sandbox, &repo.dir, WRITE_BASELINE);
    assert!(text(&out).contains("wrote .override-guard-baseline.json: "), "{}", text(&out));
    let policy = repo.read(".override-guard.toml");
    repo.write(".override-guard.toml", &format!("{policy}\n{}", readme_exception(readme)));
    let out = step(&sandbox, &repo.dir, ADD);
    expect_success(&out, ADD);
    // 3. The hook: after `init`, it keeps the policy and is given the baseline.
    let out = step(&sandbox, &repo.dir, INIT_HOOK);
    expect_success(&out, INIT_HOOK);
    assert!(!text(&out).contains("error"), "{}", text(&out));
    let config = repo.read(".pre-commit-config.yaml");
    assert!(config.contains("args: [--baseline, .override-guard-baseline.json]"), "{config}");
    // The snapshot of this project stands in for its home on GitHub.
    let home = concat!("- repo: ", env!("CARGO_PKG_REPOSITORY"), "\n");
    let hook_repo_yaml =
        serde_json::to_string(hook_repo.to_str().expect("temporary paths are UTF-8"))
            .expect("a JSON string");
    repo.write(
        ".pre-commit-config.yaml",
        &config.replace(home, &format!("- repo: {hook_repo_yaml}\n")),
    );
    pin_and_install(
        &sandbox,
        &repo,
        &pre_commit,
        &["autoupdate"],
        &["install", "--install-hooks"],
        &sandbox.path().join("pre-commit-home"),
        (&hook_repo, &rev),
    );
    repo.git(&["add", ".pre-commit-config.yaml"]);

    // The first commit: the policy governs every module anew, and the debt it finds is in
    // the baseline.
    let output = repo.commit_passes("adopt override-guard");
    assert!(!output.contains("error["), "{output}");
    // A change to a module with recorded debt, adding none, goes through too.
    let main = repo.read("app/main.tf");
    repo.write("app/main.tf", &format!("{main}\n# a comment\n"));
    repo.git(&["add", "app/main.tf"]);
    repo.commit_passes("touch a module with debt");
    // A new finding is blocked: a safeguard turned off.
    std::fs::create_dir(repo.dir.join("db")).expect("mkdir db");
    repo.write(
        "db/main.tf",
        "resource \"aws_db_instance\" \"main\" {\n  lifecycle {\n    prevent_destroy = true\n  }\n}\n",
    );
    repo.git(&["add", "db/main.tf"]);
    repo.commit_passes("a database");
    repo.write(
        "db/override.tf",
        "resource \"aws_db_instance\" \"main\" {\n  lifecycle {\n    prevent_destroy = false\n  }\n}\n",
    );
    repo.git(&["add", "db/override.tf"]);
    repo.commit_blocked("turn the safeguard off", "weakened-safeguard");
}
