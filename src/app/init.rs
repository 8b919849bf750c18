//! `init`, and its offer of a baseline.

use std::io::Write;
use std::path::Path;
use std::sync::atomic::Ordering;

use super::audit::audited;
use super::outcome::Outcome;
use super::output::{QUIET, write_err, write_out};
use crate::cli::{FromArgs, PolicyArgs};
use crate::error;
use crate::policy::{self, Tally};
use crate::report::Style;

pub(super) fn init(path: &Path, stdout: bool) -> Result<Outcome, error::Error> {
    if stdout {
        write_out(policy::config::STARTER);
        return Ok(Outcome::Clean);
    }
    let shown = super::workspace::shown_path(path);
    let mut file = match std::fs::OpenOptions::new().write(true).create_new(true).open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            write_err(&format!(
                "error: {shown} already exists; not overwriting it (use --stdout to print the starter policy)\n"
            ));
            return Ok(Outcome::Error);
        }
        Err(e) => return Err(error::Error::io(shown, e)),
    };
    file.write_all(policy::config::STARTER.as_bytes())
        .map_err(|e| error::Error::io(shown.clone(), e))?;
    write_err(&format!("wrote {shown}; `override-guard explain` describes every rule\n"));
    offer_baseline(path);
    Ok(Outcome::Clean)
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
        None,
        &FromArgs::default(),
        &PolicyArgs::default(),
        Style::plain(),
    );
    QUIET.store(was, Ordering::Relaxed);
    let Ok(Some((findings, _, _))) = found else { return };
    if findings.is_empty() {
        return;
    }
    let t = Tally::of(&findings);
    let base = super::workspace::shown_path(&dir.join(".override-guard-baseline.json"));
    write_err(&format!(
        "this repository already has {} error{} and {} warning{} under this policy; to adopt it without fixing them first, record them in a baseline:\n  override-guard audit {} --write-baseline {base}\nthen `--baseline {base}` (audit, and the hook's `check`) reports only new ones; `check --new-only` needs no file\n",
        t.deny,
        if t.deny == 1 { "" } else { "s" },
        t.warn,
        if t.warn == 1 { "" } else { "s" },
        super::workspace::shown_path(dir),
    ));
}
