//! `vars DIR`.

use std::path::Path;

use super::outcome::Outcome;
use super::output::{write_err, write_out, write_syntax};
use super::policies::{judging, today};
use super::workspace::{Shown, Workspace};
use crate::cli::{VarArg, VarsFormat};
use crate::error;
use crate::merge;
use crate::pipeline::Choice;
use crate::pipeline::audit::Ask;
use crate::report::{self, Style};
use crate::source::{Source, WorktreeSource, join};
use crate::terraform::release::EngineChoice;

/// `vars`: the module's variables with every value the files, flags and environment give
/// them. Reads the module, its auto-loaded variables files, the `--var-file`s and
/// `TF_VAR_*`; everything after that is pure.
pub(super) fn vars_cmd(
    dir: &Path,
    order: &[VarArg],
    format: VarsFormat,
    reveal: bool,
    engine: EngineChoice,
    style: Style,
) -> Result<Outcome, error::Error> {
    use crate::vars::{CliArg, Inputs, VarFile};
    let src = WorktreeSource::module(dir);
    let mut dirs = src.modules()?;
    let root = super::workspace::display_root(dir);
    let note = |path: &str, why: &str| {
        write_err(&format!(
            "note: {}: {}\n",
            report::clean_line(&join(&root, path)),
            report::clean(why)
        ))
    };
    for (path, why) in src.notes() {
        note(&path, &why);
    }
    let names = dirs.remove("").unwrap_or_default();
    // The release is chosen as the audit chooses it: the governing policy's engine, the
    // version files from the module's directory up to the workspace's root.
    let ws = Workspace::worktree(&[dir.to_path_buf()])?;
    let shown = Shown::of(&ws);
    let (at_root, _) = ws.worktree_source(false);
    let scope = ws.targets.first().map(|t| t.scope.clone()).unwrap_or_default();
    let ask = Ask { choice: &Choice::Nearest, levels: &[], engine, today: today() };
    let Some(audit) = judging(&at_root, &ask, [scope.as_str()], &shown, style)? else {
        return Ok(Outcome::Error);
    };
    let load = |target| merge::load("", &names, target, |p| src.read(p));
    let m = audit.module_loaded_by(&at_root, &scope, &names, load)?;
    if m.files.files.is_empty() {
        let shown = super::workspace::shown_path(dir);
        let path = if shown.is_empty() { ".".into() } else { shown };
        return Err(error::Error::NoConfiguration { path });
    }
    if m.has_errors() {
        let mut err = String::new();
        for d in m.diagnostics.iter().filter(|d| d.is_error()) {
            err.push_str(&report::human(&m.files, d, "merge-error", style));
        }
        err.push_str(&format!("{} would reject this module\n", m.engine.name()));
        write_err(&err);
        return Ok(Outcome::Error);
    }
    let auto = crate::pipeline::var_files(&src, "", &names)?;
    let mut cli = Vec::new();
    for arg in order {
        cli.push(match arg {
            VarArg::Var(v) => CliArg::Var(v.clone()),
            VarArg::File(p) => {
                let shown = p.to_string_lossy().replace(std::path::MAIN_SEPARATOR, "/");
                let named = super::workspace::shown_path(p);
                match super::workspace::read_named(p, crate::source::disk::Kind::Config, named) {
                    Ok(t) => CliArg::File(Ok(VarFile::from_bytes(shown, &t))),
                    Err(error::Error::Io { source, .. })
                        if source.kind() == std::io::ErrorKind::NotFound =>
                    {
                        CliArg::File(Err(shown))
                    }
                    Err(e) => return Err(e),
                }
            }
        });
    }
    // vars_os: an unrelated variable that is not UTF-8 must not stop the run; a TF_VAR_
    // one that is not is read as Terraform would not: lossily (Go strings are bytes).
    let env = std::env::vars_os()
        .filter_map(|(k, v)| {
            let k = k.into_string().ok()?;
            k.starts_with("TF_VAR_").then(|| (k, v.to_string_lossy().into_owned()))
        })
        .collect();
    let r = crate::vars::collect(&m, &Inputs { auto, cli, env });
    let module = root;
    match format {
        VarsFormat::Human => write_out(&report::vars::human(&r, &module, reveal, style)),
        VarsFormat::Json => write_syntax(&report::vars::json(&r, &module, reveal)),
    }
    Ok(if r.has_errors() { Outcome::Error } else { Outcome::Clean })
}
