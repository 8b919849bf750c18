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
//! judged by exactly one of them (see [`owned`]: the framework's file lists are the
//! pipeline's), so a split run reads like one.

use crate::error;
use crate::terraform::release::EngineChoice;
use std::collections::{BTreeSet, HashSet};
use std::path::PathBuf;
use std::sync::Arc;

use super::outcome::{Outcome, outcome};
use super::output::{print_findings, write_note, write_out};
use super::policies::{cli_levels, judging, policy_choice, today};
use super::workspace::{Opened, Shown, State, Workspace};
use crate::cli::CommentArgs;
use crate::cli::PolicyArgs;
use crate::pipeline::Choice;
use crate::pipeline::audit::Ask;
use crate::pipeline::change::touched;
use crate::pipeline::compare;
use crate::pipeline::hook::{Owned, owned};
use crate::policy::Finding;
use crate::report::markdown::Scope;
use crate::report::{self, Style};
use crate::report::{Report, ReportFormat};
use crate::source::{Git, GitSource, Scoped, Source, Tracked, join, split};
use crate::terraform::discover;

/// `--from-ref A --to-ref B`: judge what the range changes, at `B`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Range {
    pub from: String,
    pub to: String,
}

impl Range {
    /// The command line's refs, else the pre-commit framework's (`PRE_COMMIT_FROM_REF`,
    /// `PRE_COMMIT_TO_REF`, exported for every hook of `pre-commit run --from-ref A
    /// --to-ref B` and of the pre-push stage).
    pub(super) fn from_args(
        from: Option<&str>,
        to: Option<&str>,
    ) -> Result<Option<Range>, error::Error> {
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

/// Whether the pre-commit framework (or prek, which sets the same variable) runs the hook.
/// Its check hooks are `verbose`, so that a warning reaches the committer on a commit they
/// let through; a clean run then prints nothing in `human` and `compact`, instead of a
/// summary on every commit.
fn under_framework() -> bool {
    std::env::var_os("PRE_COMMIT").is_some_and(|v| !v.is_empty())
}

/// One run of the hook.
pub(super) struct Hook<'a> {
    pub files: &'a [PathBuf],
    pub new_only: bool,
    pub format: ReportFormat,
    /// How a Markdown comment is written; its scope is the hook's range.
    pub comment: &'a CommentArgs,
    pub engine: EngineChoice,
    pub args: &'a PolicyArgs,
    /// `--baseline FILE`, read from the judged state.
    pub baseline: Option<&'a std::path::Path>,
    pub range: Option<Range>,
    pub style: Style,
}

impl Hook<'_> {
    /// The report asked for, its comment speaking of the range judged.
    fn report(&self) -> Result<Report, error::Error> {
        let (from, to) = match &self.range {
            Some(r) => (r.from.clone(), r.to.clone()),
            None => ("HEAD".to_string(), "the index".to_string()),
        };
        let scope = Scope::Change { from, to, new_only: self.new_only };
        self.comment.report(self.format, scope, None)
    }

    pub(super) fn run(&self) -> Result<Outcome, error::Error> {
        let report = self.report()?;
        let Some(levels) = cli_levels(self.args) else { return Ok(Outcome::Error) };
        let ws = Workspace::repository()?;
        let Some(git) = ws.git.as_ref() else { return Ok(Outcome::Error) };
        let shown = Shown::repository();
        let choice = policy_choice(&ws, self.args)?;
        let known = match self.baseline {
            Some(path) => Some(self.read_baseline(git, path)?),
            None => None,
        };
        // The framework lists the files of `from...to`, and of `from..to` when the two have
        // no common ancestor.
        let base = match &self.range {
            Some(r) => git.merge_base(&r.from, &r.to).unwrap_or_else(|_| r.from.clone()),
            None => "HEAD".to_string(),
        };
        let to = self.range.as_ref().map_or(State::Index, |r| State::Revision(&r.to));
        let mut pair = ws.open_pair(State::Revision(&base), to)?.0;
        let (changed, policies_changed) = (pair.changed.clone(), pair.policies_changed.clone());
        let Opened::Git(after) = &pair.after else { return Ok(Outcome::Error) };
        let nearest = matches!(choice, Choice::Nearest);
        let touched = touched(&changed, &policies_changed, nearest, &[after])?;
        let passed = self.passed(git, &changed, after)?;
        let Owned { files: passed_files, dirs } =
            owned(&passed, &changed, &touched, after, self.range.is_none());
        let keep = |p: &str| changed.contains(p) || dirs.contains(split(p).0);
        super::sources::print_notes(pair.after.notes(keep), &shown);
        ws.load(&mut pair.after, Some(&dirs))?;
        // Each state's modules are judged by that state's policies.
        let ask = Ask { choice: &choice, levels: &levels, engine: self.engine, today: today() };
        let judging_of = |src: &dyn Source| {
            judging(src, &ask, dirs.iter().map(String::as_str), &shown, self.style)
        };
        let scoped = Scoped { inner: pair.after.source(), dirs: &dirs };
        let modules: Vec<(String, Vec<String>)> = scoped.modules()?.into_iter().collect();
        let Some(audit) = judging_of(&scoped)? else { return Ok(Outcome::Error) };
        let (mut findings, summary) = audit.run(&scoped, &modules, &())?;
        if self.new_only {
            // Introduced by the change, policy included: the state before is judged by its
            // own policies.
            let before = pair.before_for(&dirs);
            ws.load(before, Some(&dirs))?;
            let before = before.source();
            let Some(audit) = judging_of(before)? else { return Ok(Outcome::Error) };
            findings = compare::new_only(&compare::judge_dirs(&audit, before, &dirs)?, findings);
        }
        let mut summary = summary;
        if let Some(known) = &known {
            let fps = crate::finding::fingerprint::all(&findings);
            (findings, summary.baselined) = known.filter(findings, &fps);
        }
        summary.quiet = self.args.quiet;
        // What the index holds of the judged modules: the staged state is the index; for a
        // range, the index is read.
        let tracked: Option<Tracked> = if pair.staged() {
            let held: HashSet<String> = pair
                .after
                .source()
                .modules_in(&dirs)?
                .into_iter()
                .flat_map(|(d, names)| names.into_iter().map(move |n| join(&d, &n)))
                .collect();
            Some(Arc::new(move |p: &str| held.contains(p)))
        } else {
            git.tracked().ok()
        };
        if let Some(tracked) = tracked {
            local_notes(&ws, git, &dirs, tracked);
        }
        let text_report = self.format.is_text();
        if modules.is_empty() {
            if passed_files.is_empty() && !self.args.quiet && !under_framework() && text_report {
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
            if self.format.is_document() {
                let text = report.render(&findings, &summary, self.style);
                print_findings(&text, self.format);
            }
            return Ok(Outcome::Clean);
        }
        if !(findings.is_empty() && text_report && under_framework()) {
            let text = report.render(&findings, &summary, self.style);
            print_findings(&text, self.format);
        }
        let verdict = outcome(&findings, self.args.deny_warnings);
        if verdict == Outcome::Findings && text_report {
            write_note(&hint(&findings, self.new_only, self.baseline.is_some(), &changed));
        }
        Ok(verdict)
    }

    /// The files named, repository-relative. One that exists nowhere (not on disk, not in
    /// the state judged, not deleted by the change) is an error: the framework passes only
    /// files that exist, so such a name is a typo by hand, which judging nothing and
    /// exiting 0 would hide.
    fn passed(
        &self,
        git: &Git,
        changed: &BTreeSet<String>,
        after: &GitSource,
    ) -> Result<Vec<String>, error::Error> {
        let mut out = Vec::new();
        for f in self.files {
            let on_disk = std::fs::symlink_metadata(f).is_ok();
            let rel = git.relative(f);
            let known = on_disk
                || rel.as_ref().is_some_and(|r| {
                    changed.contains(r) || after.has_file(r) || after.has_module(r)
                });
            if !known {
                let typed = super::workspace::shown_path(f);
                let state = match &self.range {
                    Some(r) => report::clean_line(&r.to),
                    None => "the index".to_string(),
                };
                return Err(error::Error::NoFileToCheck { path: typed, state });
            }
            // A link that leads out of the repository names nothing the hook judges.
            out.extend(rel);
        }
        Ok(out)
    }

    /// The baseline as the judged state has it: the index on a commit (it must be staged,
    /// like the policy), the end of the range with `--from-ref/--to-ref`.
    fn read_baseline(
        &self,
        git: &Git,
        path: &std::path::Path,
    ) -> Result<crate::policy::baseline::Baseline, error::Error> {
        // From the repository's root, as the policy is found, whatever the directory the
        // hook runs in: from a subdirectory, a path relative to it would be a trap. Named
        // as the repository names it, as every path the hook prints.
        let Some(rel) = git.from_root(path) else {
            let typed = super::workspace::shown_path(path);
            return Err(error::Error::OutsideRepository { path: typed });
        };
        let typed = rel.clone();
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
    use crate::finding::RuleId;
    let failing = || findings.iter().filter(|f| f.level == crate::policy::Level::Deny);
    // A mistake in a policy file is fixed, and a module the engine refuses excused by an
    // expiring exception: neither is debt a baseline records.
    let policies: BTreeSet<&str> = failing()
        .filter(|f| f.rule == RuleId::PolicyError)
        .map(|f| f.primary.path.as_str())
        .collect();
    let untouched = || failing().filter(|f| !changed.contains(&f.primary.path));
    let refused = untouched().filter(|f| f.rule == RuleId::MergeError).count();
    let old =
        untouched().filter(|f| !matches!(f.rule, RuleId::MergeError | RuleId::PolicyError)).count();
    let mut out = if new_only || baseline {
        format!("hint: {explain}\n")
    } else {
        format!(
            "hint: {explain}; `override-guard check --new-only` reports only what this change introduces\n"
        )
    };
    if !policies.is_empty() {
        let names: Vec<&str> = policies.into_iter().collect();
        out.push_str(&format!(
            "hint: {} {} mistakes: fix {}; a policy error is no debt a baseline records, and the modules a broken policy file governs are not judged until it is fixed\n",
            names.join(", "),
            if names.len() == 1 { "has" } else { "have" },
            if names.len() == 1 { "it" } else { "them" },
        ));
    }
    if refused > 0 && !new_only {
        let (is, them, each) =
            if refused == 1 { ("is", "it", "it") } else { ("are", "them", "each") };
        out.push_str(&format!(
            "hint: {refused} of the errors {is} in files this change does not touch, of modules the engine refuses to load (merge-error): no baseline records {them}; fix {them}, or excuse {each} in the policy with an `[[exceptions]]` entry naming the module, with an `expires` date\n"
        ));
    }
    if old > 0 && !new_only && !baseline {
        out.push_str(&format!(
            "hint: {old} of the errors {} in files this change does not touch: to adopt override-guard without fixing them first, record them in a baseline (`override-guard audit --write-baseline FILE`, then `check --baseline FILE`)\n",
            if old == 1 { "is" } else { "are" }
        ));
    }
    out
}

/// Notes on override files of the judged modules that exist only in this checkout: the
/// hook judges the commit, but `terraform plan` here runs them too.
fn local_notes(ws: &Workspace, git: &Git, dirs: &BTreeSet<String>, tracked: Tracked) {
    if git.workdir().is_none() || dirs.is_empty() {
        return;
    }
    let src = ws
        .worktree_of(dirs.iter().filter(|d| ws.root.join(d).is_dir()).cloned())
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
