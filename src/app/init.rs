//! `init`, and its offer of a baseline.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;

use super::audit::audited;
use super::outcome::Outcome;
use super::output::{QUIET, write_err, write_out};
use crate::cli::{FromArgs, PolicyArgs};
use crate::error;
use crate::policy::{self, Tally};
use crate::report::Style;

pub(super) fn init(path: &Path, stdout: bool, pre_commit: bool) -> Result<Outcome, error::Error> {
    if stdout {
        let baseline = repo_root().join(BASELINE).is_file().then_some(BASELINE);
        write_out(&if pre_commit {
            hook_config(baseline)
        } else {
            policy::config::STARTER.to_string()
        });
        return Ok(Outcome::Clean);
    }
    // `init --pre-commit` after `init` (the README's order) keeps the policy written then.
    let kept = pre_commit && std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file());
    let policy =
        !kept && write_new(path, policy::config::STARTER, "--stdout to print the starter policy")?;
    if policy {
        write_err(&format!(
            "wrote {}; `override-guard explain` describes every rule\n",
            super::workspace::shown_path(path)
        ));
    } else if kept {
        write_err(&format!("kept {}, which exists\n", super::workspace::shown_path(path)));
    }
    let mut hook = true;
    if pre_commit {
        // The framework reads its configuration at the top of the working tree, and runs
        // the hook there: a baseline is named from there too.
        let root = repo_root();
        let config = root.join(".pre-commit-config.yaml");
        let baseline = root.join(BASELINE).is_file().then_some(BASELINE);
        hook = write_new(
            &config,
            &hook_config(baseline),
            "--pre-commit --stdout to print the hook configuration",
        )?;
        if hook {
            write_err(&format!(
                "wrote {}; {}`pre-commit install` (or `prek install`) runs the hook on every commit\n",
                super::workspace::shown_path(&config),
                if released(CHANGELOG) {
                    ""
                } else {
                    "`pre-commit autoupdate` (or `prek update --bleeding-edge --freeze`) pins the commit it builds, then "
                }
            ));
        }
    }
    if policy {
        offer_baseline(path);
    }
    Ok(if (policy || kept) && hook { Outcome::Clean } else { Outcome::Error })
}

/// The top of the working directory's repository (the working directory outside git).
fn repo_root() -> PathBuf {
    crate::source::Git::discover(Path::new("."))
        .ok()
        .and_then(|g| g.workdir().map(Path::to_path_buf))
        .unwrap_or_else(|| PathBuf::from("."))
}

/// The baseline's name `init` offers, at the top of the repository; `init --pre-commit`
/// passes it to the hook when it exists.
const BASELINE: &str = ".override-guard-baseline.json";

/// Writes `text` to a new file at `path`; `false`, with an error on stderr, when a file is
/// there already (it is never overwritten).
fn write_new(path: &Path, text: &str, instead: &str) -> Result<bool, error::Error> {
    let shown = super::workspace::shown_path(path);
    super::workspace::named_inside(path, &shown)?;
    let mut file = match std::fs::OpenOptions::new().write(true).create_new(true).open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            write_err(&format!(
                "error: {shown} already exists; not overwriting it (use {instead})\n"
            ));
            return Ok(false);
        }
        Err(e) => return Err(error::Error::io(shown, e)),
    };
    file.write_all(text.as_bytes()).map_err(|e| error::Error::io(shown.clone(), e))?;
    Ok(true)
}

/// This build's changelog: whether its version is released is read from it.
const CHANGELOG: &str = include_str!("../../CHANGELOG.md");

/// Whether this build is a release of its version, the one place that decides which hook
/// `init --pre-commit` writes. A release moves the changelog's `## Unreleased` entries
/// under the version's own heading; a build whose changelog still lists unreleased
/// changes (or has no section for its version) carries what no release has, and its
/// version's tag and wheel may not exist at all: its hook is built from source.
fn released(changelog: &str) -> bool {
    let version = env!("CARGO_PKG_VERSION");
    let mut section = "";
    let mut has_version = false;
    let mut unreleased_entries = false;
    for line in changelog.lines() {
        if let Some(heading) = line.strip_prefix("## ") {
            section = heading.trim();
            has_version |= section == version
                || section.strip_prefix(version).is_some_and(|r| r.starts_with(' '));
        } else if section.eq_ignore_ascii_case("unreleased") && line.starts_with("- ") {
            unreleased_entries = true;
        }
    }
    has_version && !unreleased_entries
}

/// The `.pre-commit-config.yaml` that `init --pre-commit` writes: the prebuilt wheel's hook
/// pinned to this version's tag for a release, else (see [`released`]) the hook built from
/// source at the default branch, with what to switch to once the version is released.
fn hook_config(baseline: Option<&str>) -> String {
    hook_config_for(released(CHANGELOG), baseline)
}

/// With a `baseline` (its path from the repository's root), the hook is given it: without,
/// the first commit after the debt was recorded would be blocked by it.
fn hook_config_for(released: bool, baseline: Option<&str>) -> String {
    let (repo, version) = (env!("CARGO_PKG_REPOSITORY"), env!("CARGO_PKG_VERSION"));
    let args = baseline.map_or_else(String::new, |b| {
        format!("        # Only findings the baseline does not record fail a commit.\n        args: [--baseline, {b}]\n")
    });
    let head = "# Hooks for pre-commit (https://pre-commit.com) and prek, written by\n# `override-guard init --pre-commit`. The hook judges the Terraform/OpenTofu modules each\n# commit touches against the nearest .override-guard.toml.\nrepos:\n";
    if released {
        format!(
            "{head}  - repo: {repo}\n    rev: v{version}\n    hooks:\n      - id: override-guard        # the prebuilt wheel; override-guard-src builds it from source\n{args}"
        )
    } else {
        format!(
            "{head}  - repo: {repo}\n    # override-guard {version} is not released yet: this hook builds it from source with\n    # cargo (a Rust toolchain and a C compiler; minutes, the first time), and\n    # `pre-commit autoupdate` (prek: `prek update --bleeding-edge --freeze`) pins the\n    # branch's commit in `rev`. Once v{version} is released, `pre-commit autoupdate` (or\n    # `prek update`) moves `rev` to its tag: then switch to `id: override-guard`, which\n    # installs the prebuilt wheel in seconds.\n    rev: main\n    hooks:\n      - id: override-guard-src\n{args}"
        )
    }
}

/// After `init`: when the repository already has findings under the new policy, says how
/// to adopt it without fixing them all first. Silent when the audit cannot run.
pub(super) fn offer_baseline(policy: &Path) {
    let Some(dir) =
        policy.parent().map(|d| if d.as_os_str().is_empty() { Path::new(".") } else { d })
    else {
        return;
    };
    let was = QUIET.swap(true, Ordering::Relaxed);
    let found = audited(
        &[dir.to_path_buf()],
        crate::terraform::release::EngineChoice::Files,
        &FromArgs::default(),
        &PolicyArgs::default(),
        Style::plain(),
    );
    QUIET.store(was, Ordering::Relaxed);
    let Ok(Some(super::audit::Audited { findings, .. })) = found else { return };
    if findings.is_empty() {
        return;
    }
    let t = Tally::of(&findings);
    let base = super::workspace::shown_path(&dir.join(".override-guard-baseline.json"));
    let refused = findings.iter().filter(|f| f.rule == crate::finding::RuleId::MergeError).count();
    let refused = match refused {
        0 => String::new(),
        1 => "1 of the errors is in a module the engine refuses to load (merge-error), which no baseline records: fix it, or excuse it with an `[[exceptions]]` entry naming the module, with an `expires` date\n".to_string(),
        n => format!(
            "{n} of the errors are in modules the engine refuses to load (merge-error), which no baseline records: fix them, or excuse each with an `[[exceptions]]` entry naming the module, with an `expires` date\n"
        ),
    };
    write_err(&format!(
        "this repository already has {} error{} and {} warning{} under this policy; to adopt it without fixing them first, record them in a baseline:\n  override-guard audit {} --write-baseline {base}\nthen `--baseline {base}` (audit, and the hook's `check`) reports only new ones; `check --new-only` needs no file\n{refused}",
        t.deny,
        if t.deny == 1 { "" } else { "s" },
        t.warn,
        if t.warn == 1 { "" } else { "s" },
        super::workspace::shown_path(dir),
    ));
}

#[cfg(test)]
mod tests {
    use super::*;

    const V: &str = env!("CARGO_PKG_VERSION");

    #[test]
    fn a_version_is_released_once_its_changelog_lists_nothing_unreleased() {
        let log = |unreleased: &str| {
            format!("# Changelog\n\n## Unreleased\n{unreleased}\n## {V}\n\n- The first version.\n")
        };
        assert!(!released(&log("\n### Added\n- A thing.\n")));
        assert!(released(&log("")));
        assert!(released(&log("\n### Added\n")));
        assert!(released(&format!("## {V} - 2027-01-04\n- x\n")));
        // No section for this version: not released, whatever else the changelog says.
        assert!(!released("## Unreleased\n\n## 0.0.1\n- x\n"));
        assert!(!released(&format!("## {V}.1\n- x\n")));
    }

    #[test]
    fn the_hook_config_names_the_tag_and_wheel_only_for_a_release() {
        let released = hook_config_for(true, None);
        assert!(released.contains(&format!("rev: v{V}\n")), "{released}");
        assert!(released.contains("- id: override-guard "), "{released}");
        let unreleased = hook_config_for(false, None);
        assert!(unreleased.contains("rev: main\n"), "{unreleased}");
        assert!(unreleased.contains("- id: override-guard-src\n"), "{unreleased}");
        assert!(unreleased.contains(&format!("Once v{V} is released")), "{unreleased}");
        for text in [&released, &unreleased] {
            assert!(text.contains(&format!("- repo: {}\n", env!("CARGO_PKG_REPOSITORY"))));
            assert!(!text.contains("args:"), "{text}");
        }
        for r in [true, false] {
            let with = hook_config_for(r, Some(BASELINE));
            assert!(
                with.ends_with("        args: [--baseline, .override-guard-baseline.json]\n"),
                "{with}"
            );
        }
    }

    /// Today's changelog lists unreleased changes: the README says to build from source
    /// until the first release, and `init` writes that hook.
    #[test]
    fn this_build_is_not_a_release_yet() {
        assert!(!released(CHANGELOG));
    }
}
