//! The policies of a run: `--policy`, or the nearest file per module, with the command
//! line's `--deny/--warn/--allow`.

use super::output::write_err;
use super::workspace::{Shown, Workspace, fixed_policy};
use crate::cli::PolicyArgs;
use crate::error;
use crate::pipeline::audit::{Ask, Audit};
use crate::pipeline::policies::Trouble;
use crate::pipeline::{Choice, Policies};
use crate::policy::{Date, Level, RuleId, rules};
use crate::report::{self, Style};
use crate::source::Source;

/// `--deny/--warn/--allow`, checked: an unknown rule id is a usage error (printed; `None`).
pub(super) fn cli_levels(args: &PolicyArgs) -> Option<Vec<(RuleId, Level)>> {
    let mut out = Vec::new();
    let levels =
        [(&args.deny, Level::Deny), (&args.warn, Level::Warn), (&args.allow, Level::Allow)];
    for (ids, level) in levels {
        for id in ids {
            match rules::find(id) {
                Some(r) => out.push((r.id, level)),
                None => {
                    let hint = rules::suggestion(id);
                    write_err(&format!(
                        "error: unknown rule `{}`{hint}; `override-guard explain` lists the rules\n",
                        report::clean(id)
                    ));
                    return None;
                }
            }
        }
    }
    Some(out)
}

/// How the run finds its policies: `--policy PATH`, else the nearest file per module.
pub(super) fn policy_choice(ws: &Workspace, args: &PolicyArgs) -> Result<Choice, error::Error> {
    Ok(match &args.policy {
        Some(p) => Choice::Fixed(fixed_policy(ws, p)?),
        None => Choice::Nearest,
    })
}

/// The judging of `dirs` in `src` (see [`Audit::find`]), or `None` when a `--policy`
/// file has mistakes (printed). A broken policy file found by the lookup governs its
/// modules as broken: `audit` and the hook judge every other module, and its mistakes
/// are `policy-error` findings; `diff` refuses it (see [`refused`]).
pub(super) fn judging<'a>(
    src: &dyn Source,
    ask: &Ask<'_>,
    dirs: impl IntoIterator<Item = &'a str>,
    shown: &Shown,
    style: Style,
) -> Result<Option<Audit>, error::Error> {
    found(Audit::find(src, ask, dirs), shown, style)
}

/// Does a broken policy file govern one of the directories asked about? Its mistakes
/// are printed, for the commands that judge nothing until they are fixed.
pub(super) fn refused(p: &Policies, shown: &Shown, style: Style) -> bool {
    let mistakes = p.mistakes();
    let broken = !mistakes.is_empty();
    if broken {
        print_policy_errors(mistakes, shown, style);
    }
    broken
}

/// What the lookup found, or `None` when a `--policy` file has mistakes (printed).
pub(super) fn found<T>(
    r: Result<T, Trouble>,
    shown: &Shown,
    style: Style,
) -> Result<Option<T>, error::Error> {
    match r {
        Ok(p) => Ok(Some(p)),
        Err(Trouble::Source(e)) => Err(shown.error(e)),
        Err(Trouble::Policy(errors)) => {
            print_policy_errors(errors, shown, style);
            Ok(None)
        }
    }
}

fn print_policy_errors(errors: Vec<crate::policy::PolicyError>, shown: &Shown, style: Style) {
    let mut err = String::new();
    for mut e in errors {
        e.path = shown.path(&e.path);
        err.push_str(&report::policy_error(e, style));
    }
    write_err(&err);
}

/// Today's date (UTC), for exception expiry.
pub(super) fn today() -> Date {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    Date::from_days((secs / 86_400) as i64)
}
