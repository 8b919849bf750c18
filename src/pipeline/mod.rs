//! The pipeline as one piece, without the command line: load a source's modules (with
//! what the rules need besides the merge), find the policy that governs each one, and
//! judge them. Pure apart from the [`Source`] it reads through, so the fixture tests, the
//! benchmark and the commands all call the same code.

pub mod audit;
pub mod policies;

use crate::error;
use rayon::prelude::*;

use crate::merge::{self, Module};
use crate::policy::Subject;
use crate::policy::rules::engine_divergence;
use crate::source::{Source, join};
use crate::terraform::discover::Engine;

pub use policies::{Choice, Governing, Policies, PolicyFile};

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
}

impl LoadedModule {
    pub fn subject(&self) -> Subject<'_> {
        Subject { module: &self.module, other: self.other.as_ref(), tfvars: &self.tfvars }
    }
}

/// Loads every module of a source in parallel, with the other engine's view of those that
/// have override or `.tofu` files (for `engine-divergence`).
pub fn load_modules(
    src: &dyn Source,
    engine: Option<Engine>,
    progress: &dyn Progress,
) -> Result<Vec<LoadedModule>, error::Error> {
    let dirs: Vec<(String, Vec<String>)> = src.modules()?.into_iter().collect();
    progress.start(dirs.len());
    let out = dirs
        .par_iter()
        .map(|(dir, names)| load_module(src, dir, names, engine, true, progress))
        .collect();
    progress.finish();
    out
}

/// Loads one module (see [`load_modules`]) and ticks the progress. The other engine's view
/// is loaded only when `compare_engines` (the policy lets `engine-divergence` fire) and
/// the engines could disagree about the module.
pub fn load_module(
    src: &dyn Source,
    dir: &str,
    names: &[String],
    engine: Option<Engine>,
    compare_engines: bool,
    progress: &dyn Progress,
) -> Result<LoadedModule, error::Error> {
    let mut module = merge::load(dir, names, engine, |p| src.read(p))?;
    mark_local(&mut module, src);
    let tofu = names.iter().any(|n| n.ends_with(".tofu") || n.ends_with(".tofu.json"));
    let other = if compare_engines && (tofu || engine_divergence::may_diverge(&module)) {
        let e = module.engine.other();
        // Without .tofu files both engines load the same files: re-merge those.
        Some(if tofu {
            let mut o = merge::load(dir, names, Some(e), |p| src.read(p))?;
            mark_local(&mut o, src);
            o
        } else {
            merge::reassemble(&module, e)
        })
    } else {
        None
    };
    let tfvars = var_files(src, dir, names)?;
    progress.tick();
    Ok(LoadedModule { module, other, tfvars })
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
            Ok(text) => out.push(VarFile::new(path, String::from_utf8_lossy(&text))),
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

/// One module judged on its own (a side of a comparison: the review, the hook's
/// `--new-only`), with the policy that governed it.
pub struct Judged {
    pub loaded: LoadedModule,
    pub findings: Vec<crate::policy::Finding>,
    /// The policy file's path, `None` for the built-in default.
    pub policy: Option<String>,
}

/// Loads every module of `src` and judges each by the policy that governs it. An
/// exception's use is not judged here: only part of the repository is seen.
pub fn judge(
    src: &dyn Source,
    policies: &Policies,
    engine: Option<Engine>,
    today: crate::policy::Date,
) -> Result<std::collections::BTreeMap<String, Judged>, error::Error> {
    use crate::policy::{Scope, config::Origin};
    let loaded = load_modules(src, engine, &())?;
    Ok(loaded
        .into_par_iter()
        .map(|l| {
            let (_, g) = policies.of(&l.module.dir);
            let findings = if g.broken.is_empty() {
                crate::policy::evaluate(&g.policy, &[l.subject()], &g.base, today, &Scope::Part)
            } else {
                Vec::new()
            };
            let policy = match &g.policy.origin {
                Origin::BuiltIn => None,
                Origin::File { path, .. } => Some(path.clone()),
            };
            (l.module.dir.clone(), Judged { loaded: l, findings, policy })
        })
        .collect())
}
