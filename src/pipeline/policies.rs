//! Which policy governs which module: the nearest `.override-guard.toml` at or above the
//! module's directory, read from the same state as the module (the worktree, the index, a
//! revision), up to the repository's root; outside a repository, up the parent
//! directories. `--policy PATH` replaces the lookup with one file for every module. A
//! module with no policy file above it gets the built-in default.
//!
//! Policy files do not inherit from each other: the nearest one governs alone, as the
//! nearest `ruff.toml` or ESLint flat config does, so a team's file says everything that
//! applies to its directories.

use crate::error;
use std::collections::{BTreeMap, HashMap};

use crate::policy::config::Origin;
use crate::policy::{Coverage, GlobBase, Level, Policy, PolicyError, RuleId};
use crate::source::{POLICY_FILE, Source, join, split};

/// A policy file's text, where it is (a path of the run, for reports) and how the paths
/// of the run become relative to its directory.
#[derive(Clone, Debug)]
pub struct PolicyFile {
    pub path: String,
    pub text: String,
    pub base: GlobBase,
}

/// How a run finds its policies.
#[derive(Clone, Debug)]
pub enum Choice {
    /// The nearest policy file at or above each module.
    Nearest,
    /// One file for every module (`--policy PATH`).
    Fixed(PolicyFile),
}

/// One policy of a run.
#[derive(Debug)]
pub struct Governing {
    pub policy: Policy,
    pub base: GlobBase,
    /// The mistakes of a policy file found by the lookup that cannot be read: the modules
    /// it governs are not judged, and each mistake is a `policy-error` finding.
    pub broken: Vec<PolicyError>,
}

impl Governing {
    /// The release the policy's `engine` names, with the policy that names it, for the
    /// choice of a module's release.
    pub(crate) fn release(&self) -> Option<(crate::terraform::release::Release, String)> {
        self.policy.engine.map(|r| (r, self.policy.describe()))
    }

    /// How much of this policy's area a run over some directories (paths of the run,
    /// each with everything below it) sees whole: `audit envs` judges the exceptions
    /// about `envs/...` only.
    pub fn coverage(&self, dirs: &[String]) -> Coverage {
        let mut covered: Vec<String> = Vec::new();
        for d in dirs {
            let c = if self.base.holds(d) {
                self.base.of(d)
            } else if self.base.down.is_empty()
                && (d.is_empty() || self.base.dir.starts_with(&format!("{d}/")))
            {
                String::new()
            } else {
                continue;
            };
            if !covered.contains(&c) {
                covered.push(c);
            }
        }
        Coverage::Covers(covered)
    }
}

/// Why the policies of a run could not be had.
#[derive(Debug)]
pub enum Trouble {
    Source(error::Error),
    /// Mistakes in the policy file named with `--policy`.
    Policy(Vec<PolicyError>),
}

impl From<error::Error> for Trouble {
    fn from(e: error::Error) -> Self {
        Trouble::Source(e)
    }
}

/// The policies of a run and the one that governs each directory.
#[derive(Debug)]
pub struct Policies {
    pub list: Vec<Governing>,
    by_dir: BTreeMap<String, usize>,
    /// The built-in default, for a directory nobody asked about.
    fallback: Governing,
}

impl Policies {
    /// Finds the policy of every directory in `dirs` (module directories, and the
    /// directories the user named), with the command line's levels applied to each.
    pub fn resolve<'a>(
        src: &dyn Source,
        choice: &Choice,
        dirs: impl IntoIterator<Item = &'a str>,
        levels: &[(RuleId, Level)],
    ) -> Result<Policies, Trouble> {
        let mut r = Resolver {
            src,
            levels,
            list: Vec::new(),
            cache: HashMap::new(),
            errors: Vec::new(),
            above: None,
            builtin: None,
        };
        let mut by_dir = BTreeMap::new();
        let fixed = match choice {
            Choice::Fixed(file) => Some(r.add(file.clone(), false)),
            Choice::Nearest => None,
        };
        for dir in dirs {
            let i = match fixed {
                Some(i) => i,
                None => r.nearest(dir)?,
            };
            by_dir.insert(dir.to_string(), i);
        }
        if !r.errors.is_empty() {
            return Err(Trouble::Policy(r.errors));
        }
        let mut fallback = Policy::builtin();
        for (rule, level) in levels {
            fallback.set_level(*rule, *level);
        }
        Ok(Policies {
            list: r.list,
            by_dir,
            fallback: Governing { policy: fallback, base: GlobBase::default(), broken: Vec::new() },
        })
    }

    /// The mistakes of every broken policy file that governs a directory asked about,
    /// for the commands that judge nothing until they are fixed.
    pub fn mistakes(&self) -> Vec<PolicyError> {
        self.used().into_iter().flat_map(|g| g.broken.iter().cloned()).collect()
    }

    /// The policy that governs `dir` (one of those resolved), and its index in
    /// [`Policies::list`].
    pub fn of(&self, dir: &str) -> (usize, &Governing) {
        match self.by_dir.get(dir).and_then(|&i| self.list.get(i).map(|g| (i, g))) {
            Some(found) => found,
            None => (usize::MAX, &self.fallback),
        }
    }

    /// The policies that govern at least one of the directories asked about, in the order
    /// they were found.
    pub fn used(&self) -> Vec<&Governing> {
        let mut idx: Vec<usize> = self.by_dir.values().copied().collect();
        idx.sort_unstable();
        idx.dedup();
        idx.into_iter().filter_map(|i| self.list.get(i)).collect()
    }
}

struct Resolver<'a> {
    src: &'a dyn Source,
    levels: &'a [(RuleId, Level)],
    list: Vec<Governing>,
    /// Directory → the policy at or above it.
    cache: HashMap<String, usize>,
    errors: Vec<PolicyError>,
    /// The policy above the source's root (or the built-in one), once asked.
    above: Option<usize>,
    builtin: Option<usize>,
}

impl Resolver<'_> {
    fn nearest(&mut self, dir: &str) -> Result<usize, error::Error> {
        let mut walked = Vec::new();
        let mut d = dir;
        let found = loop {
            if let Some(&i) = self.cache.get(d) {
                break i;
            }
            walked.push(d.to_string());
            if let Some(text) = self.src.policy_file(d)? {
                let base = GlobBase { dir: d.to_string(), down: String::new() };
                break self.add(PolicyFile { path: join(d, POLICY_FILE), text, base }, true);
            }
            if d.is_empty() {
                break self.above()?;
            }
            d = split(d).0;
        };
        for w in walked {
            self.cache.insert(w, found);
        }
        Ok(found)
    }

    fn above(&mut self) -> Result<usize, error::Error> {
        if let Some(i) = self.above {
            return Ok(i);
        }
        let i = match self.src.parent_policy()? {
            Some(p) => self.add(
                PolicyFile {
                    path: p.path,
                    text: p.text,
                    base: GlobBase { dir: String::new(), down: p.down },
                },
                true,
            ),
            None => self.builtin(),
        };
        self.above = Some(i);
        Ok(i)
    }

    fn builtin(&mut self) -> usize {
        if let Some(i) = self.builtin {
            return i;
        }
        let i = self.push(Policy::builtin(), GlobBase::default(), Vec::new());
        self.builtin = Some(i);
        i
    }

    /// Parses a policy file. A broken one found by the lookup (`found`) governs its
    /// modules as broken: they are not judged, its mistakes are findings. One named with
    /// `--policy` stops the run; its mistakes are kept and reported at once.
    fn add(&mut self, file: PolicyFile, found: bool) -> usize {
        match Policy::parse(&file.path, &file.text) {
            Ok(p) => self.push(p, file.base, Vec::new()),
            Err(errors) if found => {
                let mut p = Policy::builtin();
                p.origin = Origin::File { path: file.path, text: file.text.into() };
                self.push(p, file.base, errors)
            }
            Err(errors) => {
                self.errors.extend(errors);
                self.builtin()
            }
        }
    }

    fn push(&mut self, mut policy: Policy, base: GlobBase, broken: Vec<PolicyError>) -> usize {
        for (rule, level) in self.levels {
            policy.set_level(*rule, *level);
        }
        self.list.push(Governing { policy, base, broken });
        self.list.len() - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::MemorySource;

    fn resolve(src: &MemorySource, dirs: &[&str]) -> Policies {
        match Policies::resolve(src, &Choice::Nearest, dirs.iter().copied(), &[]) {
            Ok(p) => p,
            Err(e) => panic!("{e:?}"),
        }
    }

    fn describe(p: &Policies, dir: &str) -> String {
        let (_, g) = p.of(dir);
        format!("{} @{}", g.policy.describe(), g.base.dir)
    }

    #[test]
    fn the_nearest_policy_file_governs() {
        let src = MemorySource::new()
            .with(".override-guard.toml", "")
            .with("teams/a/.override-guard.toml", "")
            .with("teams/a/x/main.tf", "")
            .with("teams/b/main.tf", "");
        let p = resolve(&src, &["teams/a/x", "teams/b", "teams/a", ""]);
        assert_eq!(describe(&p, "teams/a/x"), "teams/a/.override-guard.toml @teams/a");
        assert_eq!(describe(&p, "teams/a"), "teams/a/.override-guard.toml @teams/a");
        assert_eq!(describe(&p, "teams/b"), ".override-guard.toml @");
        assert_eq!(describe(&p, ""), ".override-guard.toml @");
        assert_eq!(p.used().len(), 2);
        assert_eq!(p.list[0].base.of("teams/a/x/main.tf"), "x/main.tf");
    }

    #[test]
    fn without_a_policy_file_the_builtin_one_governs() {
        let src = MemorySource::new().with("m/main.tf", "");
        let p = resolve(&src, &["m"]);
        assert_eq!(describe(&p, "m"), "built-in default policy @");
    }

    #[test]
    fn every_policy_files_mistakes_are_reported() {
        let src = MemorySource::new()
            .with("a/.override-guard.toml", "[rules]\nnope = \"deny\"\n")
            .with("b/.override-guard.toml", "[rulez]\n")
            .with("c/main.tf", "");
        let p = resolve(&src, &["a", "b", "c"]);
        let paths: Vec<String> = p.mistakes().into_iter().map(|e| e.path).collect();
        assert_eq!(paths, ["a/.override-guard.toml", "b/.override-guard.toml"]);
        // Each broken file governs its own directory, as broken; the others are unharmed.
        assert_eq!(p.of("a").1.broken.len(), 1);
        assert_eq!(describe(&p, "b"), "b/.override-guard.toml @b");
        assert!(p.of("c").1.broken.is_empty());
    }

    #[test]
    fn a_broken_policy_named_on_the_command_line_stops_the_run() {
        let src = MemorySource::new().with("m/main.tf", "");
        let file = PolicyFile {
            path: "p.toml".into(),
            text: "[rulez]\n".into(),
            base: GlobBase::default(),
        };
        match Policies::resolve(&src, &Choice::Fixed(file), ["m"], &[]) {
            Err(Trouble::Policy(errors)) => assert_eq!(errors.len(), 1),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn coverage_of_a_run_over_some_directories() {
        let at = |dir: &str, down: &str| Governing {
            policy: Policy::builtin(),
            base: GlobBase { dir: dir.into(), down: down.into() },
            broken: Vec::new(),
        };
        let dirs = |d: &[&str]| d.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(at("", "").coverage(&dirs(&["envs"])), Coverage::Covers(dirs(&["envs"])));
        assert_eq!(at("envs", "").coverage(&dirs(&["envs/dev"])), Coverage::Covers(dirs(&["dev"])));
        assert_eq!(at("teams/a", "").coverage(&dirs(&[""])), Coverage::Covers(dirs(&[""])));
        assert_eq!(at("teams/a", "").coverage(&dirs(&["teams"])), Coverage::Covers(dirs(&[""])));
        assert_eq!(at("teams/a", "").coverage(&dirs(&["other"])), Coverage::Covers(vec![]));
        assert_eq!(
            at("", "work/repo").coverage(&dirs(&["x"])),
            Coverage::Covers(dirs(&["work/repo/x"]))
        );
    }
}
