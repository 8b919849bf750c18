//! The judging of a source's modules, for every command and the language server: each
//! module loaded (see `load.rs`), judged by the policy that governs it, with
//! suppressions and exceptions. Pure: modules come in through a source, findings go out.

use std::collections::BTreeMap;

use crate::error;
use crate::terraform::release::{EngineChoice, Release};
use rayon::prelude::*;

use super::load::{Kept, LoadedModule, Progress, choose_and_load, chosen_module, load_module};
use super::policies::{Choice, Governing, Policies, Trouble};
use crate::policy::{self, Coverage, Date, Finding, Level, Partial, RuleId};
use crate::report::findings::Summary;
use crate::source::Source;

/// What a run asks of the judging besides its source: how each module's policy is
/// found, the command line's levels, the engine, and the day exceptions expire against.
pub struct Ask<'a> {
    pub choice: &'a Choice,
    pub levels: &'a [(RuleId, Level)],
    pub engine: EngineChoice,
    pub today: Date,
}

/// The judging of a run: the policies that govern its modules, found once (see
/// [`Audit::find`]), and how much of each one's area the run sees.
pub struct Audit {
    pub policies: Policies,
    pub engine: EngineChoice,
    pub today: Date,
    /// How much of each policy's area the run sees (by index in `policies.list`; a policy
    /// without an entry is judged as [`Coverage::Part`]).
    pub scopes: Vec<Coverage>,
    /// The version files of the state's directories, each asked once for all its modules
    /// (an `Audit` judges one state).
    pub pins: crate::terraform::pins::Memo,
    /// Parses kept from earlier runs (a long-lived process's, handed in by its owner).
    pub parses: Option<std::sync::Arc<crate::merge::Parses>>,
}

/// What an audit found: the findings and their summary, and the paths the findings name
/// of files that exist only in this checkout.
pub struct Found {
    pub findings: Vec<Finding>,
    pub summary: Summary,
    pub local: std::collections::HashSet<String>,
}

/// One module judged on its own (a side of a comparison: `diff`, the hook's
/// `--new-only`; a module in an editor), with the policy that governed it.
pub struct Judged {
    pub loaded: LoadedModule,
    pub findings: Vec<Finding>,
    /// The policy file's path, `None` for the built-in default.
    pub policy: Option<String>,
}

impl Audit {
    /// Finds the policy that governs each of `dirs` in `src` (module directories, and the
    /// directories the user named): the judging's first step, the same for every command
    /// and the language server.
    pub fn find<'d>(
        src: &dyn Source,
        ask: &Ask<'_>,
        dirs: impl IntoIterator<Item = &'d str>,
    ) -> Result<Audit, Trouble> {
        let policies = Policies::resolve(src, ask.choice, dirs, ask.levels)?;
        Ok(Audit {
            policies,
            engine: ask.engine,
            today: ask.today,
            scopes: Vec::new(),
            pins: Default::default(),
            parses: None,
        })
    }

    /// The audit of a source's `modules`: the policies that govern them and the
    /// directories the user named (`scopes`, each seen whole, so the exceptions about them
    /// are judged too), then each module loaded, judged and dropped (see [`Audit::run`]).
    pub fn audit(
        src: &dyn Source,
        ask: &Ask<'_>,
        modules: &[(String, Vec<String>)],
        scopes: &[String],
        progress: &dyn Progress,
    ) -> Result<Found, Trouble> {
        let dirs = modules.iter().map(|(d, _)| d.as_str()).chain(scopes.iter().map(String::as_str));
        let audit = Audit::find(src, ask, dirs)?.covering(scopes);
        let (findings, summary) = audit.run(src, modules, progress)?;
        let sites = findings.iter().flat_map(|f| std::iter::once(&f.primary).chain(&f.related));
        let local =
            sites.filter(|s| src.local(&s.path).is_some()).map(|s| s.path.clone()).collect();
        Ok(Found { findings, summary, local })
    }

    /// The module of `dir` in `src` judged on its own, with the judging that found its
    /// policy: what the editor asks at each change. `None` when `dir` holds no module
    /// (only variables files, say).
    pub fn judge_dir(
        src: &dyn Source,
        ask: &Ask<'_>,
        dir: &str,
        parses: Option<std::sync::Arc<crate::merge::Parses>>,
    ) -> Result<Option<(Audit, Judged)>, Trouble> {
        use crate::terraform::discover::{Engine, config_ext};
        let listing = src.modules_in(&[dir.to_string()].into())?;
        let Some(names) = listing.get(dir) else { return Ok(None) };
        if !names.iter().any(|n| config_ext(n, Engine::OpenTofu).is_some()) {
            return Ok(None);
        }
        let audit = Audit { parses, ..Audit::find(src, ask, [dir])? };
        let judged = audit.judge(src, &[(dir.to_string(), names.clone())])?;
        Ok(judged.into_values().next().map(|j| (audit, j)))
    }

    /// The run sees `dirs` (the directories the user named, each with everything below
    /// it) whole: the exceptions about them are judged too.
    pub fn covering(mut self, dirs: &[String]) -> Audit {
        self.scopes = self.policies.list.iter().map(|g| g.coverage(dirs)).collect();
        self
    }

    /// Loads, judges and drops each module of `modules` (a few at a time, in parallel):
    /// the memory an audit needs is what its findings keep, not the whole repository's
    /// parsed configuration.
    pub fn run(
        &self,
        src: &dyn Source,
        modules: &[(String, Vec<String>)],
        progress: &dyn Progress,
    ) -> Result<(Vec<Finding>, Summary), error::Error> {
        progress.start(modules.len());
        let per_module: Result<Vec<(usize, Partial, Counts)>, error::Error> = modules
            .par_iter()
            .map(|(dir, names)| {
                let l = self.load(src, dir, names, progress)?;
                Ok(self.partial(&l))
            })
            .collect();
        progress.finish();
        let per_module = per_module?;
        let mut summary = self.summary(modules, per_module.iter().map(|(.., c)| c));
        summary.judged = modules.iter().map(|(d, _)| d.clone()).collect();
        let findings = self.conclude(per_module.into_iter().map(|(i, p, _)| (i, p)));
        Ok((findings, summary))
    }

    /// Loads and judges each module of `modules` on its own: an exception's use is not
    /// judged here, as only part of the repository is seen.
    pub fn judge(
        &self,
        src: &dyn Source,
        modules: &[(String, Vec<String>)],
    ) -> Result<BTreeMap<String, Judged>, error::Error> {
        use crate::policy::config::Origin;
        modules
            .par_iter()
            .map(|(dir, names)| {
                let loaded = self.load(src, dir, names, &())?;
                let (_, g) = self.policies.of(dir);
                let findings = if g.broken.is_empty() {
                    policy::evaluate(
                        &g.policy,
                        &[loaded.subject()],
                        &g.base,
                        self.today,
                        &Coverage::Part,
                    )
                } else {
                    Vec::new()
                };
                let policy = match &g.policy.origin {
                    Origin::BuiltIn => None,
                    Origin::File { path, .. } => Some(path.clone()),
                };
                Ok((loaded.module.dir.clone(), Judged { loaded, findings, policy }))
            })
            .collect()
    }

    /// Loads one module under the policy that governs it.
    fn load(
        &self,
        src: &dyn Source,
        dir: &str,
        names: &[String],
        progress: &dyn Progress,
    ) -> Result<LoadedModule, error::Error> {
        let g = self.policies.of(dir).1;
        let kept = Kept { pins: &self.pins, parses: self.parses.as_deref() };
        load_module(src, dir, names, self.engine, g, kept, progress)
    }

    /// One module merged as this judging merges it (its release chosen alike), without
    /// what only the rules read: what `fix` and `fold` plan their edits on.
    pub fn module(
        &self,
        src: &dyn Source,
        dir: &str,
        names: &[String],
    ) -> Result<crate::merge::Module, error::Error> {
        let g = self.policies.of(dir).1;
        let kept = Kept { pins: &self.pins, parses: self.parses.as_deref() };
        chosen_module(src, dir, names, self.engine, g, kept)
    }

    /// [`Audit::module`] merged by `load` (which reads the module's files its own way:
    /// `vars` reads them from the module's directory, naming them as Terraform run there
    /// does), the release chosen from `src`'s version files and the governing policy.
    pub fn module_loaded_by<E>(
        &self,
        src: &dyn Source,
        dir: &str,
        names: &[String],
        load: impl Fn(EngineChoice) -> Result<crate::merge::Module, E>,
    ) -> Result<crate::merge::Module, E> {
        let policy = self.policies.of(dir).1.release();
        choose_and_load(load, &|p| src.pin_file(p), &self.pins, dir, names, self.engine, policy)
    }

    fn partial(&self, l: &LoadedModule) -> (usize, Partial, Counts) {
        let (i, g) = self.policies.of(&l.module.dir);
        let partial = if g.broken.is_empty() {
            let mut p = policy::evaluate_module(&g.policy, &l.subject(), &g.base, self.today);
            // Kept until the report, which only draws them: the module's texts go with it.
            p.trim();
            p
        } else {
            Partial::unjudged(&g.policy)
        };
        (i, partial, Counts::of(&l.module))
    }

    /// The findings of every module, then of each policy: exceptions' use, and the
    /// mistakes of a broken policy file that governs a module of the run.
    fn conclude(&self, partials: impl Iterator<Item = (usize, Partial)>) -> Vec<Finding> {
        let policies: Vec<(&policy::Policy, Coverage)> = self
            .policies
            .list
            .iter()
            .enumerate()
            .map(|(i, g)| (&g.policy, self.scopes.get(i).cloned().unwrap_or(Coverage::Part)))
            .collect();
        let mut out = policy::conclude_all(&policies, partials, self.today);
        for g in self.policies.used() {
            let level = g.policy.level_for(policy::RuleId::PolicyError, "");
            if level != policy::Level::Allow {
                out.extend(policy::broken_policy(&g.broken, level));
            }
        }
        out
    }

    fn summary<'c>(
        &self,
        modules: &[(String, Vec<String>)],
        counts: impl Iterator<Item = &'c Counts>,
    ) -> Summary {
        let dirs = modules.iter().map(|(d, _)| d.as_str());
        let policies = policies_of(&self.policies, dirs);
        let mut s = Summary { modules: modules.len(), policies, ..Summary::default() };
        for c in counts {
            c.add_to(&mut s);
        }
        s
    }
}

/// What a module adds to a summary.
pub(crate) struct Counts {
    pub files: usize,
    pub overrides: usize,
    /// Its files that exist only in this checkout.
    pub local: Vec<String>,
    /// The release that judged it, and whether something chose it.
    pub release: Release,
    pub release_said: bool,
}

impl Counts {
    pub(crate) fn of(m: &crate::merge::Module) -> Counts {
        Counts {
            files: m.files.files.len(),
            overrides: m.override_files().count(),
            local: m
                .files
                .files
                .iter()
                .filter(|f| f.local.is_some())
                .map(|f| f.path.clone())
                .collect(),
            release: m.release,
            release_said: m.release_said(),
        }
    }

    /// Adds the module to a summary.
    pub(crate) fn add_to(&self, s: &mut Summary) {
        s.files += self.files;
        s.override_files += self.overrides;
        s.local_only.extend(self.local.iter().cloned());
        s.judged_for(self.release, self.release_said);
    }
}

/// The policies in force, for a summary: their paths, `None` for the built-in one. A
/// policy file in force for a directory the user named counts even when every module
/// below has a file of its own (its exceptions are judged there); the built-in default
/// counts only when it governs one of `modules`, as it has nothing else to judge: an
/// audit at the root of a monorepo whose teams each keep a file does not list it.
pub(crate) fn policies_of<'d>(
    p: &Policies,
    modules: impl IntoIterator<Item = &'d str>,
) -> Vec<Option<String>> {
    let governing: Vec<&Governing> = modules.into_iter().map(|d| p.of(d).1).collect();
    p.used()
        .into_iter()
        .filter_map(|g| match &g.policy.origin {
            policy::config::Origin::BuiltIn => {
                governing.iter().any(|m| std::ptr::eq(*m, g)).then_some(None)
            }
            policy::config::Origin::File { path, .. } => Some(Some(path.clone())),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;
    use crate::source::MemorySource;

    /// A source that counts the file reads made through it.
    struct Counting(MemorySource, AtomicUsize);

    impl Source for Counting {
        fn modules(&self) -> Result<std::collections::BTreeMap<String, Vec<String>>, error::Error> {
            self.0.modules()
        }
        fn read(&self, path: &str) -> Result<Vec<u8>, error::Error> {
            // The module's files; the version files looked for (none here) do not count.
            if path.ends_with(".tf") || path.ends_with(".tofu") {
                self.1.fetch_add(1, Ordering::Relaxed);
            }
            self.0.read(path)
        }
        fn policy_file(&self, dir: &str) -> Result<Option<String>, error::Error> {
            self.0.policy_file(dir)
        }
        fn policy_paths(&self) -> Result<std::collections::BTreeSet<String>, error::Error> {
            self.0.policy_paths()
        }
    }

    /// Parses handed to the judging (a long-lived process's) are filled by a first judging
    /// and reused by the next: the result is a fresh judging's.
    #[test]
    fn parses_handed_in_are_kept_and_reused() {
        let src = MemorySource::new()
            .with("m/main.tf", "resource \"a\" \"b\" {\n  x = 1\n}\n")
            .with("m/override.tf", "resource \"a\" \"b\" {\n  x = 2\n}\n");
        let modules: Vec<(String, Vec<String>)> =
            src.modules().expect("listed").into_iter().collect();
        let ask = Ask {
            choice: &Choice::Nearest,
            levels: &[],
            engine: EngineChoice::Files,
            today: Date::from_days(0),
        };
        let judge = |parses: Option<std::sync::Arc<crate::merge::Parses>>| {
            let audit = Audit { parses, ..Audit::find(&src, &ask, ["m"]).expect("policy") };
            let judged = audit.judge(&src, &modules).expect("judged");
            judged.values().map(|j| format!("{:?}", j.findings)).collect::<Vec<_>>()
        };
        let kept = std::sync::Arc::new(crate::merge::Parses::default());
        let first = judge(Some(kept.clone()));
        assert_eq!(kept.len(), 2, "both files' parses are kept");
        assert_eq!(judge(Some(kept.clone())), first);
        assert_eq!(judge(None), first);
    }

    /// The other engine's view is loaded (a module with `.tofu` files is read twice) only
    /// where the policy lets `engine-divergence` fire; the findings are the same.
    #[test]
    fn the_other_engine_is_loaded_only_for_the_rule_that_uses_it() {
        let reads = |policy: &str| {
            let files = MemorySource::new()
                .with("m/main.tf", "resource \"a\" \"b\" {\n  x = 1\n}\n")
                .with("m/override.tofu", "resource \"a\" \"b\" {\n  x = 2\n}\n")
                .with(".override-guard.toml", policy);
            let src = Counting(files, AtomicUsize::new(0));
            let modules: Vec<(String, Vec<String>)> =
                src.modules().expect("listed").into_iter().collect();
            let dirs = modules.iter().map(|(d, _)| d.as_str());
            let ask = Ask {
                choice: &Choice::Nearest,
                levels: &[],
                engine: EngineChoice::Files,
                today: Date::from_days(0),
            };
            let audit = Audit::find(&src, &ask, dirs).expect("policy");
            let (findings, _) = audit.run(&src, &modules, &()).expect("audited");
            let rules: Vec<&str> = findings.iter().map(|f| f.rule.as_str()).collect();
            (src.1.load(Ordering::Relaxed), rules)
        };
        let (on, found_on) = reads("[rules]\nengine-divergence = \"warn\"\n");
        let (off, found_off) = reads("[rules]\nengine-divergence = \"allow\"\n");
        assert!(found_on.contains(&"engine-divergence"), "{found_on:?}");
        assert!(!found_off.contains(&"engine-divergence"), "{found_off:?}");
        assert_eq!(on, 3, "OpenTofu reads both files, then Terraform main.tf");
        assert_eq!(off, 2, "OpenTofu reads both files, and that is all");
    }
}
