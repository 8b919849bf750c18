//! `show DIR`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use super::outcome::Outcome;
use super::output::{write_err, write_syntax};
use super::sources::{Opened, Read, read};
use super::workspace::{Shown, Workspace, under};
use crate::cli::{FromArgs, ShowFormat};
use crate::error;
use crate::merge;
use crate::render;
use crate::report::{self, Style};
use crate::source::{Source, join};
use crate::terraform::release::EngineChoice;

/// `show DIR`: the effective configuration of one module, from the worktree (every file
/// Terraform would read there, local-only ones marked), the index or a revision.
pub(super) fn show(
    dir: &Path,
    from: &FromArgs,
    format: ShowFormat,
    engine: EngineChoice,
    style: Style,
) -> Result<Outcome, error::Error> {
    let Read { ws, shown, mut opened, modules } =
        read(std::slice::from_ref(&dir.to_path_buf()), from, false)?;
    let Some(target) = ws.targets.first() else { return Ok(Outcome::Error) };
    let scope = target.scope.clone();
    let names = modules
        .into_iter()
        .find_map(|(d, names)| (d == scope).then_some(names))
        .unwrap_or_default();
    let src = opened.source();
    if names.is_empty() {
        return Err(no_configuration(&ws, src, matches!(opened, Opened::Git(_)), &scope, &shown));
    }
    let load = |target| merge::load("", &names, target, |p| src.read(&join(&scope, p)));
    let pins = |p: &str| src.pin_file(p);
    let mut m = crate::pipeline::load::choose_and_load(
        load,
        &pins,
        &Default::default(),
        &scope,
        &names,
        engine,
        None,
    )
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
    if format == ShowFormat::TfJson {
        let unwritable = render::tfjson::unwritable(&m);
        if !unwritable.is_empty() {
            write_err(&unwritable_note(&m, &unwritable));
            return Ok(Outcome::Error);
        }
    }
    let text = match format {
        ShowFormat::Hcl => render::hcl::render(&m),
        ShowFormat::TfJson => render::tfjson::render(&m),
        ShowFormat::Json => render::json::render(&m),
        ShowFormat::ConfigJson => {
            let tree = module_tree(&ws, &mut opened, m, engine, &mut vec![scope.clone()]);
            render::configjson::render(&tree)
        }
    };
    write_syntax(&text);
    Ok(Outcome::Clean)
}

/// Why `--format tf-json` prints nothing: the arguments Terraform's JSON syntax cannot hold
/// under their names, where they are.
fn unwritable_note(m: &merge::Module, args: &[render::tfjson::Unwritable]) -> String {
    let mut out = String::new();
    for a in args {
        out.push_str(&format!(
            "error: {}: the argument `{} = …` cannot be written in Terraform's JSON syntax: a property named \"{}\" there is read as nested blocks, and no escaping block `_` can hold it\n",
            m.files.short(a.span),
            a.name,
            a.name
        ));
    }
    out.push_str("nothing printed: `--format hcl` prints this module as it is\n");
    out
}

/// How deep `module_tree` follows local module calls: far beyond real configurations,
/// short of any stack limit.
const MAX_MODULE_DEPTH: usize = 32;

/// The module with the modules its calls load from local paths (`./x`, `../x`), as
/// Terraform's `init` would find them; `stack`: the directories of the calling modules,
/// the last one this module's. A call whose module cannot be read, has errors or calls
/// itself is left without one.
fn module_tree(
    ws: &Workspace,
    opened: &mut Opened,
    module: merge::Module,
    engine: EngineChoice,
    stack: &mut Vec<String>,
) -> render::configjson::ModuleTree {
    let mut calls = BTreeMap::new();
    let here = stack.last().cloned().unwrap_or_default();
    for b in module.blocks.iter().filter(|b| b.kind == "module") {
        let Some(name) = b.labels.first() else { continue };
        let Some(source) = render::configjson::module_arg(&module, b, "source") else {
            continue;
        };
        if !(source.starts_with("./") || source.starts_with("../")) {
            continue;
        }
        let Some(dir) = local_dir(&here, &source) else { continue };
        if stack.contains(&dir) || stack.len() > MAX_MODULE_DEPTH {
            continue;
        }
        let dirs = BTreeSet::from([dir.clone()]);
        if ws.load(opened, Some(&dirs)).is_err() {
            continue;
        }
        // A worktree source lists the shown directory only: the called one is listed on
        // its own, within the same root.
        let disk;
        let src: &dyn Source = if matches!(opened, Opened::Git(_)) {
            opened.source()
        } else {
            disk = ws.worktree_of([dir.clone()]);
            &disk
        };
        let Some(names) = src.modules_in(&dirs).ok().and_then(|mut all| all.remove(&dir)) else {
            continue;
        };
        let Ok(child) = merge::load("", &names, engine, |p| src.read(&join(&dir, p))) else {
            continue;
        };
        if child.has_errors() {
            continue;
        }
        stack.push(dir);
        let tree = module_tree(ws, opened, child, engine, stack);
        stack.pop();
        calls.insert(name.clone(), tree);
    }
    render::configjson::ModuleTree { module, calls }
}

/// The directory a local module source names from directory `here`, within the source's
/// root (`None` above it).
fn local_dir(here: &str, source: &str) -> Option<String> {
    let mut parts: Vec<&str> = here.split('/').filter(|p| !p.is_empty()).collect();
    for p in source.split('/') {
        match p {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p),
        }
    }
    Some(parts.join("/"))
}

/// The error for a directory without configuration files: it names the directory as the
/// user wrote it, and the modules below it when there are some.
pub(super) fn no_configuration(
    ws: &Workspace,
    src: &dyn Source,
    from_git: bool,
    scope: &str,
    shown: &Shown,
) -> error::Error {
    let below: Vec<String> = if from_git {
        src.modules().map(|m| m.into_keys().collect()).unwrap_or_default()
    } else {
        // Only to name the modules below: a note on git's index would say nothing here.
        ws.worktree_source(true).0.modules().map(|m| m.into_keys().collect()).unwrap_or_default()
    };
    let below: Vec<String> = below
        .into_iter()
        .filter(|d| d != scope && under(d, scope))
        .map(|d| shown.path(&d))
        .collect();
    let path = shown.path(scope);
    if below.is_empty() {
        error::Error::NoConfiguration { path }
    } else {
        error::Error::ModulesBelow { dir: path.clone(), path, modules: below }
    }
}
