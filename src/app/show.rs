//! `show DIR`.

use super::*;

/// `show DIR`: the effective configuration of one module, from the worktree (every file
/// Terraform would read there, local-only ones marked), the index or a revision.
pub(super) fn show(
    dir: &Path,
    from: &FromArgs,
    format: ShowFormat,
    engine: Option<Engine>,
    style: Style,
) -> Result<Outcome, source::Error> {
    let ws = workspace(std::slice::from_ref(&dir.to_path_buf()), from)?;
    let shown = ws.shown();
    let Some(target) = ws.targets.first() else { return Ok(Outcome::Error) };
    let scope = target.scope.clone();
    let mut opened = open(&ws, from, false)?;
    let names = modules_of(&ws, &mut opened, false, &shown)?
        .into_iter()
        .find_map(|(d, names)| (d == scope).then_some(names))
        .unwrap_or_default();
    let src = opened.source();
    if names.is_empty() {
        return Err(no_configuration(&ws, src, matches!(opened, Opened::Git(_)), &scope, &shown));
    }
    let mut m = merge::load("", &names, engine, |p| src.read(&join(&scope, p)))
        .map_err(|e| shown.error(e))?;
    for f in &mut m.files.files {
        f.local = src.local(&join(&scope, &f.path));
    }
    if m.has_errors() {
        let mut err = String::new();
        for d in &m.diagnostics {
            err.push_str(&report::human(&m.files, d, "merge-error", style));
        }
        err.push_str(&format!(
            "{} would reject this module: {} error(s)\n",
            m.engine.name(),
            m.diagnostics.iter().filter(|d| d.is_error()).count()
        ));
        write_err(&err);
        return Ok(Outcome::Error);
    }
    let mut warn = String::new();
    for d in &m.diagnostics {
        warn.push_str(&report::human(&m.files, d, "merge-error", style));
    }
    write_err(&warn);
    let text = match format {
        ShowFormat::Hcl => render::hcl::render(&m),
        ShowFormat::TfJson => render::tfjson::render(&m),
        ShowFormat::Json => render::json::render(&m),
    };
    write_syntax(&text);
    Ok(Outcome::Clean)
}

/// The error for a directory without configuration files: it names the directory as the
/// user wrote it, and the modules below it when there are some.
pub(super) fn no_configuration(
    ws: &Workspace,
    src: &dyn Source,
    from_git: bool,
    scope: &str,
    shown: &Shown,
) -> source::Error {
    let below: Vec<String> = if from_git {
        src.modules().map(|m| m.into_keys().collect()).unwrap_or_default()
    } else {
        ws.worktree_source(true)
            .and_then(|w| w.modules())
            .map(|m| m.into_keys().collect())
            .unwrap_or_default()
    };
    let below: Vec<String> = below
        .into_iter()
        .filter(|d| d != scope && under(d, scope))
        .map(|d| shown.path(&d))
        .collect();
    let path = shown.path(scope);
    if below.is_empty() {
        source::Error::NoConfiguration { path }
    } else {
        source::Error::ModulesBelow { dir: path.clone(), path, modules: below }
    }
}
