//! Loading one module of a source with what the rules need besides the merge: the other
//! engine's view (where the policy lets `engine-divergence` fire), the variables files
//! Terraform reads by itself, and which files exist only in this checkout.

use crate::error;
use crate::merge::{self, Module};
use crate::policy::Subject;
use crate::policy::rules::engine_divergence;
use crate::source::{Source, join};
use crate::terraform::discover::Engine;

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
pub(crate) fn load_module(
    src: &dyn Source,
    dir: &str,
    names: &[String],
    engine: Option<Engine>,
    g: &Governing,
    progress: &dyn Progress,
) -> Result<LoadedModule, error::Error> {
    let mut module = merge::load_reusing(dir, names, engine, |p| src.read(p), src.parses())?;
    mark_local(&mut module, src);
    let tofu = names.iter().any(|n| n.ends_with(".tofu") || n.ends_with(".tofu.json"));
    let other = if compares_engines(g) && (tofu || engine_divergence::may_diverge(&module)) {
        let e = module.engine.other();
        // Without .tofu files both engines load the same files: re-merge those.
        Some(if tofu {
            let mut o = merge::load_reusing(dir, names, Some(e), |p| src.read(p), src.parses())?;
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
pub fn var_files(
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
pub fn mark_local(m: &mut Module, src: &dyn Source) {
    for f in &mut m.files.files {
        f.local = src.local(&f.path);
    }
}
