//! `check`, the pre-commit hook: the modules a change touches, judged whole, as the change
//! leaves them. Three ways to run, as the pre-commit framework runs hooks:
//!
//! - a commit: HEAD against the index (or the temporary index git names in
//!   `GIT_INDEX_FILE`); the framework passes the staged files, never the deleted ones, so
//!   the hook reads the change itself and a delete-only commit is still judged;
//! - `pre-commit run --all-files` (pre-commit.ci, `pre-commit/action`): the framework
//!   passes every file; each file's module is judged, from the index;
//! - `--from-ref A --to-ref B` (pre-push, pull requests; the framework exports
//!   `PRE_COMMIT_FROM_REF` / `PRE_COMMIT_TO_REF`): the modules the range touches, at `B`.
//!
//! The framework splits a long file list over several invocations. Each module is then
//! judged by exactly one of them (see [`chunk_modules`]), so a split run reads like one.

use crate::error;
use std::collections::{BTreeSet, HashSet};
use std::path::PathBuf;
use std::sync::Arc;

use super::workspace::{Shown, Workspace, under};
use super::{
    Outcome, audit_policies, cli_levels, outcome, policy_choice, print_findings, render_findings,
    today, write_note, write_out,
};
use crate::cli::{PolicyArgs, ReportFormat};
use crate::pipeline::audit::Audit;
use crate::pipeline::{Choice, judge};
use crate::policy::Finding;
use crate::report::{self, Style};
use crate::review;
use crate::source::git::Staged;
use crate::source::worktree::Scope;
use crate::source::{Git, GitSource, Scoped, Source, Tracked, WorktreeSource, join, split};
use crate::terraform::discover::{self, Engine};

/// `--from-ref A --to-ref B`: judge what the range changes, at `B`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Range {
    pub from: String,
    pub to: String,
}

impl Range {
    /// The command line's refs, else the pre-commit framework's (`PRE_COMMIT_FROM_REF`,
    /// `PRE_COMMIT_TO_REF`, exported for every hook of `pre-commit run --from-ref A
    /// --to-ref B` and of the pre-push stage).
    pub fn from_args(from: Option<&str>, to: Option<&str>) -> Result<Option<Range>, error::Error> {
        let env = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
        let from = from.map(str::to_string).or_else(|| env("PRE_COMMIT_FROM_REF"));
        let to = to.map(str::to_string).or_else(|| env("PRE_COMMIT_TO_REF"));
        match (from, to) {
            (Some(from), Some(to)) => Ok(Some(Range { from, to })),
            (None, None) => Ok(None),
            _ => Err(error::Error::HalfRange),
        }
    }
}

/// One run of the hook.
pub struct Hook<'a> {
    pub files: &'a [PathBuf],
    pub new_only: bool,
    pub format: ReportFormat,
    pub engine: Option<Engine>,
    pub args: &'a PolicyArgs,
    /// `--baseline FILE`, read from the judged state.
    pub baseline: Option<&'a std::path::Path>,
    pub range: Option<Range>,
    pub style: Style,
}

/// The two states of a change.
enum Change {
    Staged(Box<Staged>),
    Range(Box<(GitSource, GitSource)>),
}

impl Change {
    fn after(&mut self) -> &mut GitSource {
        match self {
            Change::Staged(s) => &mut s.index,
            Change::Range(r) => &mut r.1,
        }
    }

    /// The state before, complete for `dirs`.
    fn before(&mut self, dirs: &BTreeSet<String>) -> &mut GitSource {
        match self {
            Change::Staged(s) => s.head_for(dirs),
            Change::Range(r) => &mut r.0,
        }
    }
}

impl Hook<'_> {
    pub fn run(&self) -> Result<Outcome, error::Error> {
        let Some(levels) = cli_levels(self.args) else { return Ok(Outcome::Error) };
        let ws = Workspace::repository()?;
        let Some(git) = ws.git.as_ref() else { return Ok(Outcome::Error) };
        let shown = Shown::repository();
        let choice = policy_choice(&ws, self.args)?;
        let known = match self.baseline {
            Some(path) => Some(self.read_baseline(git, path)?),
            None => None,
        };
        let (mut change, changed, policies_changed) = match &self.range {
            Some(r) => {
                // The framework lists the files of `from...to`, and of `from..to` when the
                // two have no common ancestor.
                let base = git.merge_base(&r.from, &r.to).unwrap_or_else(|_| r.from.clone());
                let (before, after) = (git.rev(&base)?, git.rev(&r.to)?);
                let changed = before.changed(&after);
                let policies = crate::source::changed_policies(&before, &after)?;
                (Change::Range(Box::new((before, after))), changed, policies)
            }
            None => {
                let staged = git.staged()?;
                let (changed, policies) = (staged.changed.clone(), staged.policies_changed.clone());
                (Change::Staged(Box::new(staged)), changed, policies)
            }
        };
        let after = change.after();
        // The modules the change touches: its files', and a changed policy's.
        let mut touched: BTreeSet<String> =
            changed.iter().map(|p| split(p).0.to_string()).collect();
        if matches!(choice, Choice::Nearest) && !policies_changed.is_empty() {
            let governed: BTreeSet<String> =
                policies_changed.iter().map(|p| split(p).0.to_string()).collect();
            touched.extend(
                after.modules()?.into_keys().filter(|m| governed.iter().any(|d| under(m, d))),
            );
        }
        // What the framework passed: files, or (by hand) module directories.
        let mut passed_files = Vec::new();
        let mut passed_dirs = BTreeSet::new();
        for f in self.files {
            let Some(rel) = git.relative(f) else { continue };
            if after.has_module(&rel) {
                passed_dirs.insert(rel);
            } else {
                passed_files.push(rel);
            }
        }
        // The files the framework would pass, in its order (git's): the change's, or
        // every file under `--all-files` (a passed file the change does not touch).
        let mut universe: Vec<String> =
            changed.iter().filter(|p| after.has_file(p) && hook_file(p)).cloned().collect();
        if self.range.is_none() && passed_files.iter().any(|p| !changed.contains(p)) {
            universe = after.paths().filter(|p| hook_file(p)).cloned().collect();
        }
        let mut dirs = chunk_modules(&passed_files, &universe, &touched);
        dirs.extend(passed_dirs);
        // Modules whose files were all deleted have nothing left to check.
        dirs.retain(|d| after.has_module(d));
        print_notes(after.notes_for(|p| changed.contains(p) || dirs.contains(split(p).0)));
        git.load(after, Some(&dirs))?;
        // Each state's modules are judged by that state's policies.
        let policies_in = |src: &dyn Source| {
            let dirs = dirs.iter().map(String::as_str);
            audit_policies(src, &choice, dirs, &levels, &shown, self.style)
        };
        let scoped = Scoped { inner: &*after, dirs: &dirs };
        let modules: Vec<(String, Vec<String>)> = scoped.modules()?.into_iter().collect();
        let Some(policies) = policies_in(&scoped)? else { return Ok(Outcome::Error) };
        let audit =
            Audit { policies: &policies, engine: self.engine, today: today(), scopes: Vec::new() };
        let (mut findings, summary) = audit.run(&scoped, &modules, &())?;
        if self.new_only {
            // Introduced by the change, policy included: the state before is judged by its
            // own policies.
            let before = change.before(&dirs);
            git.load(before, Some(&dirs))?;
            let scoped = Scoped { inner: &*before, dirs: &dirs };
            let Some(old_policies) = policies_in(&scoped)? else { return Ok(Outcome::Error) };
            let old: Vec<Finding> = judge(&scoped, &old_policies, self.engine, today())?
                .into_values()
                .flat_map(|j| j.findings)
                .collect();
            findings = review::introduced(&old, findings);
        }
        let mut summary = summary;
        if let Some(known) = &known {
            let fps = crate::finding::fingerprint::all(&findings);
            (findings, summary.baselined) = known.filter(findings, &fps);
        }
        summary.quiet = self.args.quiet;
        // What the index holds of the judged modules: the staged state is the index; for a
        // range, the index is read.
        let tracked: Option<Tracked> = match &mut change {
            Change::Staged(s) => {
                let held: HashSet<String> = s
                    .index
                    .modules_in(&dirs)?
                    .into_iter()
                    .flat_map(|(d, names)| names.into_iter().map(move |n| join(&d, &n)))
                    .collect();
                Some(Arc::new(move |p: &str| held.contains(p)))
            }
            Change::Range(_) => git.tracked().ok(),
        };
        if let Some(tracked) = tracked {
            local_notes(&ws, git, &dirs, tracked);
        }
        if modules.is_empty() {
            if passed_files.is_empty()
                && !self.args.quiet
                && matches!(self.format, ReportFormat::Human | ReportFormat::Compact)
            {
                write_out(&match &self.range {
                    Some(r) => format!(
                        "no change to a Terraform or OpenTofu module in {}...{}: nothing to check\n",
                        report::clean_line(&r.from),
                        report::clean_line(&r.to)
                    ),
                    None => {
                        "no staged change to a Terraform or OpenTofu module: nothing to check\n"
                            .to_string()
                    }
                });
            }
            // A CI service reads the report as a file: an empty one would not parse.
            if matches!(
                self.format,
                ReportFormat::Gitlab | ReportFormat::Junit | ReportFormat::Checkstyle
            ) {
                let text = render_findings(&findings, &summary, self.format, self.style);
                print_findings(&text, self.format);
            }
            return Ok(Outcome::Clean);
        }
        print_findings(&render_findings(&findings, &summary, self.format, self.style), self.format);
        let verdict = outcome(&findings, self.args.deny_warnings);
        if verdict == Outcome::Findings
            && matches!(self.format, ReportFormat::Human | ReportFormat::Compact)
        {
            write_note(&hint(&findings, self.new_only, self.baseline.is_some(), &changed));
        }
        Ok(verdict)
    }

    /// The baseline as the judged state has it: the index on a commit (it must be staged,
    /// like the policy), the end of the range with `--from-ref/--to-ref`.
    fn read_baseline(
        &self,
        git: &Git,
        path: &std::path::Path,
    ) -> Result<crate::policy::baseline::Baseline, error::Error> {
        let typed = super::workspace::shown_path(path);
        let Some(rel) = git.relative(path) else {
            return Err(error::Error::OutsideRepository { path: typed });
        };
        let (rev, state) = match &self.range {
            Some(r) => (Some(r.to.as_str()), r.to.clone()),
            None => (None, "the index".to_string()),
        };
        let Some(bytes) = git.file_at(rev, &rel)? else {
            return Err(error::Error::BaselineNotStaged { path: typed, state });
        };
        let text = String::from_utf8(bytes)
            .map_err(|e| error::Error::NotUtf8 { path: typed.clone(), source: e.utf8_error() })?;
        crate::policy::baseline::Baseline::parse(&text)
            .map_err(|message| error::Error::BadBaseline { path: typed, message })
    }
}

/// One line on how to see more, at the end of a failing hook's output; when what fails is
/// in files the change does not touch, how to adopt the tool without fixing it all first.
fn hint(
    findings: &[Finding],
    new_only: bool,
    baseline: bool,
    changed: &BTreeSet<String>,
) -> String {
    let mut rules: Vec<&str> = findings
        .iter()
        .filter(|f| f.level == crate::policy::Level::Deny)
        .map(|f| f.rule.as_str())
        .collect();
    rules.dedup();
    let mut seen = BTreeSet::new();
    rules.retain(|r| seen.insert(*r));
    let explain = match rules.as_slice() {
        [one] => format!("`override-guard explain {one}` says why it matters"),
        _ => "`override-guard explain RULE` says why each rule matters".to_string(),
    };
    let failing = findings.iter().filter(|f| f.level == crate::policy::Level::Deny);
    let old = failing.filter(|f| !changed.contains(&f.primary.path)).count();
    if new_only || baseline {
        return format!("hint: {explain}\n");
    }
    let mut out = format!(
        "hint: {explain}; `override-guard check --new-only` reports only what this change introduces\n"
    );
    if old > 0 {
        out.push_str(&format!(
            "hint: {old} of the errors {} in files this change does not touch: to adopt override-guard without fixing them first, record them in a baseline (`override-guard audit --write-baseline FILE`, then `check --baseline FILE`)\n",
            if old == 1 { "is" } else { "are" }
        ));
    }
    out
}

fn print_notes(notes: Vec<(&str, &str)>) {
    let mut err = String::new();
    for (path, note) in notes {
        err.push_str(&format!("note: {}: {}\n", report::clean_line(path), report::clean(note)));
    }
    write_note(&err);
}

/// Notes on override files of the judged modules that exist only in this checkout: the
/// hook judges the commit, but `terraform plan` here runs them too.
fn local_notes(ws: &Workspace, git: &Git, dirs: &BTreeSet<String>, tracked: Tracked) {
    if git.workdir().is_none() || dirs.is_empty() {
        return;
    }
    let scopes: Vec<Scope> = dirs
        .iter()
        .filter(|d| ws.root.join(d).is_dir())
        .map(|d| Scope { dir: d.clone(), recursive: false })
        .collect();
    let src = WorktreeSource::scoped(ws.root.clone(), scopes, Some(ws.root.clone()))
        .with_tracked(tracked);
    let Ok(modules) = src.modules() else { return };
    let mut err = String::new();
    for (dir, names) in &modules {
        for name in names {
            let overrides = discover::config_ext(name, discover::Engine::OpenTofu)
                .is_some_and(|ext| discover::is_override(name, ext));
            let path = join(dir, name);
            if let (true, Some(local)) = (overrides, src.local(&path)) {
                err.push_str(&format!(
                    "note: {} is in this checkout but not in git ({}): Terraform reads it here, so what you plan locally is not what this commit runs\n",
                    report::clean_line(&path),
                    local.describe()
                ));
            }
        }
    }
    write_note(&err);
}

/// Would the pre-commit framework pass this file to the hook? (`files:` in
/// `.pre-commit-hooks.yaml`: `(^|/)[^/]+\.(tf|tofu)(\.json)?$`, not under `.terraform/`.)
fn hook_file(path: &str) -> bool {
    let name = split(path).1;
    [".tf", ".tofu", ".tf.json", ".tofu.json"]
        .iter()
        .any(|ext| name.len() > ext.len() && name.ends_with(ext))
        && !path.split('/').any(|c| c == ".terraform")
}

/// The framework never splits a command line shorter than this (its smallest limit, for
/// POSIX systems; larger elsewhere).
const NEVER_SPLIT_BELOW: usize = 4096;

/// The module directories this invocation judges.
///
/// `passed` are the files the framework passed to this invocation, `universe` the files
/// it would pass in all (sorted as git lists them), `touched` the modules the change
/// touches (deleted files included). Without a file list, every touched module. With
/// one, the modules of the passed files and the touched modules with no file in the
/// list (a delete-only change). When the list may have been split over several
/// invocations (it is long, and this one got a contiguous run of it), a module goes to
/// the invocation that holds its first file, and the modules without a file to the
/// first invocation; in every doubt a module is judged (twice rather than never).
pub fn chunk_modules(
    passed: &[String],
    universe: &[String],
    touched: &BTreeSet<String>,
) -> BTreeSet<String> {
    let dir = |p: &str| split(p).0.to_string();
    if passed.is_empty() {
        return touched.clone();
    }
    let length: usize = universe.iter().map(|p| p.len() + 1).sum();
    let start = universe.iter().position(|u| *u == passed[0]);
    let contiguous = start.is_some_and(|j| {
        universe.len() >= j + passed.len() && universe[j..j + passed.len()] == *passed
    });
    let chunked = contiguous && length >= NEVER_SPLIT_BELOW && passed.len() < universe.len();
    let first_chunk = !chunked || start == Some(0);
    let mut first_file: std::collections::BTreeMap<String, &str> = Default::default();
    for u in universe {
        first_file.entry(dir(u)).or_insert(u.as_str());
    }
    let mut out = BTreeSet::new();
    for f in passed {
        let m = dir(f);
        let earlier = first_file.get(&m).is_some_and(|u| *u < passed[0].as_str());
        if !(chunked && earlier) {
            out.insert(m);
        }
    }
    for m in touched {
        if out.contains(m) {
            continue;
        }
        let judged_elsewhere = if first_file.contains_key(m) { chunked } else { !first_chunk };
        if !judged_elsewhere {
            out.insert(m.clone());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(items: &[&str]) -> BTreeSet<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    fn list(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn without_files_every_touched_module() {
        assert_eq!(chunk_modules(&[], &[], &set(&["a", "b"])), set(&["a", "b"]));
    }

    #[test]
    fn a_commit_judges_the_passed_files_modules_and_the_deleted_ones() {
        let passed = list(&["a/main.tf", "b/override.tf"]);
        let touched = set(&["a", "b", "gone"]);
        assert_eq!(chunk_modules(&passed, &passed, &touched), set(&["a", "b", "gone"]));
    }

    #[test]
    fn a_short_list_is_never_split_so_every_module_is_judged() {
        // `pre-commit run --files b/override.tf` with b/main.tf staged as well.
        let universe = list(&["b/main.tf", "b/override.tf"]);
        let passed = list(&["b/override.tf"]);
        assert_eq!(chunk_modules(&passed, &universe, &set(&["b", "gone"])), set(&["b", "gone"]));
    }

    #[test]
    fn a_split_list_judges_each_module_once() {
        // 400 modules of three files each, about 24 KiB of paths: split in two.
        let mut universe = Vec::new();
        for m in 0..400 {
            for f in ["main.tf", "override.tf", "variables.tf"] {
                universe.push(format!("modules/team/service-{m:03}/{f}"));
            }
        }
        universe.sort();
        let cut = 601; // inside module 200 (its files 600, 601, 602)
        let (one, two) = universe.split_at(cut);
        let touched = set(&["modules/team/deleted"]);
        let a = chunk_modules(one, &universe, &touched);
        let b = chunk_modules(two, &universe, &touched);
        assert!(
            a.contains("modules/team/service-200"),
            "the module's first file is in the first chunk"
        );
        assert!(!b.contains("modules/team/service-200"));
        assert!(a.contains("modules/team/deleted") && !b.contains("modules/team/deleted"));
        assert_eq!(a.len() + b.len(), 401);
        assert_eq!(a.union(&b).count(), 401);
    }

    #[test]
    fn a_list_that_is_not_a_run_of_the_universe_is_judged_whole() {
        let universe: Vec<String> = (0..500).map(|i| format!("m{i:03}/main.tf")).collect();
        let passed = list(&["m001/main.tf", "m003/main.tf"]);
        assert_eq!(
            chunk_modules(&passed, &universe, &set(&["m001", "gone"])),
            set(&["m001", "m003", "gone"])
        );
    }

    #[test]
    fn hook_files_match_the_hook_definition() {
        assert!(hook_file("a/main.tf"));
        assert!(hook_file("x.tofu.json"));
        assert!(!hook_file("a/.tf"));
        assert!(!hook_file("a/.terraform/modules/x/main.tf"));
        assert!(!hook_file("terraform.tfvars"));
    }
}
