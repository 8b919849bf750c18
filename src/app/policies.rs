//! The policies of a run: `--policy`, or the nearest file per module, with the command
//! line's `--deny/--warn/--allow`.

use super::output::write_err;
use super::workspace::{Shown, Workspace};
use crate::cli::PolicyArgs;
use crate::error;
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
        Some(p) => Choice::Fixed(ws.fixed_policy(p)?),
        None => Choice::Nearest,
    })
}

/// The policies of `dirs` in `src`. The mistakes of a `--policy` file are printed
/// (`None` then); so are those of any broken policy file found by the lookup, for the
/// commands that cannot judge around it (`diff`, `fix`, `fold`): see [`audit_policies`].
pub(super) fn resolve_policies<'a>(
    src: &dyn Source,
    choice: &Choice,
    dirs: impl IntoIterator<Item = &'a str>,
    levels: &[(RuleId, Level)],
    shown: &Shown,
    style: Style,
) -> Result<Option<Policies>, error::Error> {
    let Some(p) = audit_policies(src, choice, dirs, levels, shown, style)? else {
        return Ok(None);
    };
    let mistakes = p.mistakes();
    if mistakes.is_empty() {
        return Ok(Some(p));
    }
    print_policy_errors(mistakes, shown, style);
    Ok(None)
}

/// [`resolve_policies`] for `audit` and the hook: a broken policy file found by the
/// lookup governs its modules as broken (they are not judged, its mistakes are
/// `policy-error` findings) and every other module is judged.
pub(super) fn audit_policies<'a>(
    src: &dyn Source,
    choice: &Choice,
    dirs: impl IntoIterator<Item = &'a str>,
    levels: &[(RuleId, Level)],
    shown: &Shown,
    style: Style,
) -> Result<Option<Policies>, error::Error> {
    match Policies::resolve(src, choice, dirs, levels) {
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
