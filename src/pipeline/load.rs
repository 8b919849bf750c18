//! Loading one module of a source with what the rules need besides the merge: the other
//! engine's view (where the policy lets `engine-divergence` fire), the variables files
//! Terraform reads by itself, and which files exist only in this checkout.

use crate::error;
use crate::terraform::release::EngineChoice;
use std::sync::Arc;

use crate::merge::{self, Module, ReleaseChoice};
use crate::policy::Subject;
use crate::policy::rules::engine_divergence;
use crate::source::{Source, join};
use crate::terraform::choose::{self, Origin};
use crate::terraform::discover::Engine;
use crate::terraform::pins;
use crate::terraform::release::Release;

use super::policies::Governing;

/// Reports progress while modules are loaded (a progress bar in the CLI; nothing in tests).
pub trait Progress: Sync {
    fn start(&self, _total: usize) {}
    fn tick(&self) {}
    fn finish(&self) {}
}

impl Progress for () {}

/// A module with, when the engines could disagree about it, its load under the other one.
pub struct LoadedModule {
    pub module: Module,
    pub other: Option<Module>,
    /// The variables files Terraform would load by itself, in its order.
    pub tfvars: Vec<crate::vars::VarFile>,
    /// The variables the module's query and test files declare or refer to.
    pub var_uses: Vec<crate::vars::uses::Use>,
}

impl LoadedModule {
    pub fn subject(&self) -> Subject<'_> {
        Subject {
            module: &self.module,
            other: self.other.as_ref(),
            tfvars: &self.tfvars,
            var_uses: &self.var_uses,
        }
    }
}

/// Does a module governed by `g` need the other engine's view? Only `engine-divergence`
/// reads it, and a second merge is not free: the one place that decides it, for every
/// command and the language server alike.
pub(crate) fn compares_engines(g: &Governing) -> bool {
    g.policy.may_fire(engine_divergence::RULE.id)
}

/// Loads one module under the policy `g` that governs it and ticks the progress. The
/// other engine's view is loaded where [`compares_engines`] says so and the engines could
/// disagree about the module.
/// What a run keeps between the loads of its modules: the version files of its
/// directories, and the parses of a long-lived process.
#[derive(Clone, Copy)]
pub(crate) struct Kept<'a> {
    pub pins: &'a pins::Memo,
    pub parses: Option<&'a merge::Parses>,
}

pub(crate) fn load_module(
    src: &dyn Source,
    dir: &str,
    names: &[String],
    engine: EngineChoice,
    g: &Governing,
    kept: Kept<'_>,
    progress: &dyn Progress,
) -> Result<LoadedModule, error::Error> {
    let parses = kept.parses;
    let module = chosen_module(src, dir, names, engine, g, kept)?;
    let tofu = names.iter().any(|n| n.ends_with(".tofu") || n.ends_with(".tofu.json"));
    let other = if compares_engines(g) && (tofu || engine_divergence::may_diverge(&module)) {
        let e = module.engine.other();
        // Without .tofu files both engines load the same files: re-merge those.
        Some(if tofu {
            let mut o = merge::load_reusing(dir, names, Some(e), |p| src.read(p), parses)?;
            mark_local(&mut o, src);
            o
        } else {
            merge::reassemble(&module, e)
        })
    } else {
        None
    };
    let tfvars = var_files(src, dir, names)?;
    // Only a module with variables files can set a value these files use.
    let var_uses =
        if tfvars.is_empty() { Vec::new() } else { var_uses(src, dir, names, module.engine)? };
    progress.tick();
    Ok(LoadedModule { module, other, tfvars, var_uses })
}

/// One module merged as the judging merges it, its release chosen by the governing policy
/// and the module's pins (what `fix` and `fold` plan their edits on).
pub(crate) fn chosen_module(
    src: &dyn Source,
    dir: &str,
    names: &[String],
    engine: EngineChoice,
    g: &Governing,
    kept: Kept<'_>,
) -> Result<Module, error::Error> {
    let mut module = load_chosen(src, dir, names, engine, g.release(), kept.pins, kept.parses)?;
    mark_local(&mut module, src);
    Ok(module)
}

/// Loads a module for the release it runs on: the command line's when it names one, else
/// its policy's `engine` (`policy`: the release and the policy's path), else the one the
/// team's pin files and the module's effective `required_version` choose (see
/// [`choose::detect_with`]), else the engine's newest. The first load tells the engine and the
/// constraints; a second one is made only where the release chosen is another.
pub(crate) fn load_chosen(
    src: &dyn Source,
    dir: &str,
    names: &[String],
    asked: EngineChoice,
    policy: Option<(Release, String)>,
    memo: &pins::Memo,
    parses: Option<&merge::Parses>,
) -> Result<Module, error::Error> {
    let load =
        |target: EngineChoice| merge::load_reusing(dir, names, target, |p| src.read(p), parses);
    choose_and_load(load, &|p| src.pin_file(p), memo, dir, names, asked, policy)
}

/// [`load_chosen`] for any reader: `load` merges the module for a release, `pins` reads a
/// file of the source by its path from the source's root (`None` where there is none),
/// `dir` is the module's directory from that root.
pub(crate) fn choose_and_load<E>(
    load: impl Fn(EngineChoice) -> Result<Module, E>,
    pins: &dyn Fn(&str) -> Option<Vec<u8>>,
    memo: &pins::Memo,
    dir: &str,
    names: &[String],
    asked: EngineChoice,
    policy: Option<(Release, String)>,
) -> Result<Module, E> {
    let (target, from) = match (asked, policy) {
        (EngineChoice::Release(r), _) => (EngineChoice::Release(r), Some(Origin::CommandLine)),
        // `--engine opentofu` over a policy's `terraform@1.9`: the flag's engine, newest.
        (EngineChoice::Engine(e), Some((r, _))) if e != r.engine => {
            (asked, Some(Origin::CommandLine))
        }
        (_, Some((r, file))) => (EngineChoice::Release(r), Some(Origin::Policy { file })),
        // The engine alone: its newest release, nothing detected.
        (EngineChoice::Engine(_), None) => (asked, Some(Origin::CommandLine)),
        (EngineChoice::Files, None) => (asked, None),
    };
    if let Some(from) = from {
        let mut m = load(target)?;
        m.choice.from = from;
        return Ok(m);
    }
    let mut m = load(target)?;
    let tofu = names.iter().any(|n| n.ends_with(".tofu") || n.ends_with(".tofu.json"));
    let hint = match asked {
        EngineChoice::Engine(e) => Some(e),
        _ => tofu.then_some(Engine::OpenTofu),
    };
    let texts: Vec<String> =
        m.settings.required_version.iter().filter_map(|a| a.expr.as_str()).collect();
    let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
    let chosen = choose::detect_with(memo, pins, dir, &texts, hint);
    if chosen.release != m.release {
        m = load(EngineChoice::Release(chosen.release))?;
    }
    let pin_file = match &chosen.from {
        Origin::Pin { file, .. } => Some(file.clone()),
        _ => chosen.findings.iter().find_map(|f| f.pin()).map(|p| p.file.clone()),
    };
    m.choice = ReleaseChoice {
        from: chosen.from,
        notes: chosen.findings,
        pin_text: pin_file
            .and_then(|f| pins(&f))
            .map(|b| Arc::from(String::from_utf8_lossy(&b).as_ref())),
    };
    Ok(m)
}

/// What the query and test files of the module in `dir` declare or refer to (see
/// [`crate::vars::uses`]): those among its `names` and those of its test directory. One
/// that cannot be read counts for nothing (the command that reads it says why); only a
/// failure that is not the file's own (see [`merge::ReadError`]) stops the run.
pub(crate) fn var_uses(
    src: &dyn Source,
    dir: &str,
    names: &[String],
    engine: Engine,
) -> Result<Vec<crate::vars::uses::Use>, error::Error> {
    use crate::merge::ReadError;
    use crate::vars::uses;
    let mut files: Vec<String> = names
        .iter()
        .filter(|n| uses::command_of(n, engine).is_some())
        .map(|n| join(dir, n))
        .collect();
    files.extend(src.test_dir_files(dir)?.iter().map(|n| join(dir, n)));
    let mut out = Vec::new();
    for path in files {
        match src.read(&path) {
            Ok(bytes) => out.extend(uses::uses(&path, &bytes, engine)),
            Err(e) if e.unreadable().is_some() => {}
            Err(e) => return Err(e),
        }
    }
    Ok(out)
}

/// The variables files Terraform reads by itself in a module, in its order. One that
/// cannot be read is kept as the failure Terraform reports, or left out where Terraform
/// skips it (see [`crate::vars::optional_file`]); only a failure that is not the file's
/// own (see [`merge::ReadError`]) stops the run.
pub(crate) fn var_files(
    src: &dyn Source,
    dir: &str,
    names: &[String],
) -> Result<Vec<crate::vars::VarFile>, error::Error> {
    use crate::merge::ReadError;
    use crate::vars::VarFile;
    let mut out = Vec::new();
    for name in crate::vars::auto_files(names.iter().map(String::as_str)) {
        let path = join(dir, &name);
        match src.read(&path) {
            Ok(text) => out.push(VarFile::from_bytes(path, &text)),
            Err(e) => match e.unreadable() {
                Some(_) if e.missing() && crate::vars::optional_file(&name) => {}
                Some(why) => {
                    let why = e.go_text(&name).unwrap_or(why);
                    out.push(VarFile::unreadable(path, &name, e.missing(), &why));
                }
                None => return Err(e),
            },
        }
    }
    Ok(out)
}

/// Marks the files that exist only in this checkout (git does not track them).
pub(crate) fn mark_local(m: &mut Module, src: &dyn Source) {
    for f in &mut m.files.files {
        f.local = src.local(&f.path);
    }
}
