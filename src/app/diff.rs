//! `diff`: the review helper.

use std::collections::{BTreeMap, BTreeSet};

use super::outcome::{Outcome, outcome};
use super::output::{print_findings, write_note};
use super::policies::{cli_levels, judging, policy_choice, refused, today};
use super::sources::{Opened, print_notes};
use super::workspace::{Shown, State, Workspace};
use crate::cli::PolicyArgs;
use crate::error;
use crate::pipeline::Choice;
use crate::pipeline::audit::{Ask, Judged};
use crate::pipeline::change::touched;
use crate::pipeline::compare::{self, Comparison};
use crate::report::markdown;
use crate::report::{self, Style, review};
use crate::report::{Report, ReportFormat};
use crate::source::Git;
use crate::terraform::release::EngineChoice;

/// One side of a `diff`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Side {
    Rev(String),
    /// A commit found for the user (`A...B`'s merge base): its id, and how it is shown.
    Base {
        id: String,
        shown: String,
    },
    Index,
    Worktree,
}

impl Side {
    fn label(&self) -> &str {
        match self {
            Side::Rev(r) => r,
            Side::Base { shown, .. } => shown,
            Side::Index => "index",
            Side::Worktree => "worktree",
        }
    }

    /// The side for programs: a commit found for the user by its full id.
    fn name(&self) -> &str {
        match self {
            Side::Base { id, .. } => id,
            other => other.label(),
        }
    }
}

/// `git diff`'s argument forms, turned into two sides.
pub(super) fn diff_sides(
    git: &Git,
    revs: &[String],
    worktree: bool,
) -> Result<(Side, Side), error::Error> {
    let rev = |r: &str| Side::Rev(if r.is_empty() { "HEAD".to_string() } else { r.to_string() });
    Ok(match revs {
        [] if worktree => (Side::Index, Side::Worktree),
        [] => (Side::Rev("HEAD".into()), Side::Index),
        [one] => {
            if let Some((a, b)) = one.split_once("...") {
                let b = if b.is_empty() { "HEAD" } else { b };
                let a = if a.is_empty() { "HEAD" } else { a };
                let id = git.merge_base(a, b)?;
                (Side::Base { shown: git.short(&id), id }, rev(b))
            } else if let Some((a, b)) = one.split_once("..") {
                (rev(a), rev(b))
            } else {
                (rev(one), Side::Worktree)
            }
        }
        [a, b] => (rev(a), rev(b)),
        _ => {
            return Err(error::Error::TooManyRevisions { revs: revs.join(" ") });
        }
    })
}

/// The state a side names.
fn state(side: &Side) -> State<'_> {
    match side {
        Side::Rev(r) | Side::Base { id: r, .. } => State::Revision(r),
        Side::Index => State::Index,
        Side::Worktree => State::Worktree { recursive: true },
    }
}

/// The review helper: for every module whose files differ between two states, the diff
/// of its effective configuration and the findings that appear and disappear. Each side
/// is judged by its own policies; a changed policy file has every module it governs
/// judged again.
pub(super) fn diff(
    revs: &[String],
    worktree: bool,
    report: &Report,
    engine: EngineChoice,
    args: &PolicyArgs,
    style: Style,
) -> Result<Outcome, error::Error> {
    let Some(levels) = cli_levels(args) else { return Ok(Outcome::Error) };
    let ws = Workspace::repository()?;
    let Some(git) = ws.git.as_ref() else { return Ok(Outcome::Error) };
    let shown = Shown::repository();
    let choice = policy_choice(&ws, args)?;
    let nearest = matches!(choice, Choice::Nearest);
    let (old_side, new_side) = diff_sides(git, revs, worktree)?;
    if git.workdir().is_none() && [&old_side, &new_side].contains(&&Side::Worktree) {
        return Err(error::Error::BareWorktree { path: ".".into() });
    }
    let mut pair = super::workspace::open_pair(&ws, state(&old_side), state(&new_side))?;
    for o in [pair.before(), &pair.after] {
        if let Opened::Disk(_) = o {
            print_notes(o.notes(|_| true), &shown);
        }
    }
    if pair.staged() {
        // Every policy counts here: the trees to read, not yet the modules to judge.
        let reach = touched(&pair.changed, &pair.policies_changed, true, &[pair.after.source()])?;
        pair.before_for(&reach);
    }
    let changed = pair.changed.clone();
    let policies_changed = if nearest { pair.policies_changed.clone() } else { BTreeSet::new() };
    let states = [pair.before().source(), pair.after.source()];
    let dirs = touched(&changed, &policies_changed, nearest, &states)?;
    ws.load(pair.before_for(&dirs), Some(&dirs))?;
    ws.load(&mut pair.after, Some(&dirs))?;
    let (old, new) = (pair.before(), &pair.after);
    let ask = Ask { choice: &choice, levels: &levels, engine, today: today() };
    let side = |o: &Opened| -> Result<Option<BTreeMap<String, Judged>>, error::Error> {
        let src = o.source();
        let Some(audit) = judging(src, &ask, dirs.iter().map(String::as_str), &shown, style)?
        else {
            return Ok(None);
        };
        if refused(&audit.policies, &shown, style) {
            return Ok(None);
        }
        Ok(Some(compare::judge_dirs(&audit, src, &dirs)?))
    };
    let (Some(before), Some(after)) = (side(old)?, side(new)?) else {
        return Ok(Outcome::Error);
    };
    let compared = Comparison::new(&before, after, &dirs, &changed);
    for p in &policies_changed {
        write_note(&format!(
            "note: {} changed: each side is judged by its own policies, every module it governs again\n",
            report::clean_line(p)
        ));
    }
    let introduced = compared.introduced();
    let text = match report.format {
        ReportFormat::Human => {
            review::human(&compared.changes, (old_side.label(), new_side.label()), style)
        }
        ReportFormat::Json => review::json(&compared.changes, (old_side.name(), new_side.name())),
        ReportFormat::Markdown => {
            let sides = (old_side.label(), new_side.label());
            markdown::review(&compared.changes, sides, &report.comment)
        }
        _ => {
            let mut summary = compared.summary();
            summary.quiet = args.quiet;
            report.render(&introduced, &summary, style)
        }
    };
    print_findings(&text, report.format);
    Ok(outcome(&introduced, args.deny_warnings))
}
