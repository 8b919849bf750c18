//! Where a policy applies: how much of the area it governs a run saw ([`Coverage`]) and how
//! the run's paths become the paths its globs are written against ([`GlobBase`]). Plain
//! path arithmetic, below everything in the policy that uses it (the context, the
//! suppressions, the evaluation).

/// How much of the area a policy governs an evaluation saw. An exception that matched
/// nothing is only known to be unused when every module it could match was evaluated:
/// the pre-commit hook sees the modules a change touches (`Part`), `audit DIR` the
/// directories named (`Covers`, relative to the policy file's directory; `""` is all).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Coverage {
    Covers(Vec<String>),
    Part,
}

impl Coverage {
    /// Everything the policy governs.
    pub fn whole() -> Coverage {
        Coverage::Covers(vec![String::new()])
    }

    /// Does the run cover every path an exception with these path globs could match?
    /// Judged by the globs' literal leading directories (`envs/dev/**` → `envs/dev`);
    /// an exception without paths applies everywhere.
    pub fn covers(&self, globs: Option<&[String]>) -> bool {
        let Coverage::Covers(dirs) = self else { return false };
        let within = |lit: &str| {
            dirs.iter().any(|d| {
                d.is_empty()
                    || lit == d
                    || lit.strip_prefix(d.as_str()).is_some_and(|r| r.starts_with('/'))
            })
        };
        match globs {
            None => within(""),
            Some(globs) => globs.iter().all(|g| within(&literal_prefix(g))),
        }
    }
}

/// The leading components of a glob that hold no pattern characters.
fn literal_prefix(glob: &str) -> String {
    let mut out: Vec<&str> = Vec::new();
    for part in glob.trim_start_matches("./").split('/') {
        if part.contains(['*', '?', '[', ']', '{', '}', '\\']) {
            break;
        }
        out.push(part);
    }
    out.join("/")
}

/// How the paths of a run (relative to its root) become paths relative to the directory
/// of the policy file that governs them, which is what a policy's globs are written
/// against: strip the policy's directory (`dir`), or, for a policy above the root, put the
/// way down to the root (`down`) in front.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GlobBase {
    pub dir: String,
    pub down: String,
}

impl GlobBase {
    /// A path of the run, relative to the policy's directory. A path outside that
    /// directory (a policy named with `--policy` elsewhere) is left as it is.
    pub fn of(&self, path: &str) -> String {
        let rest = if self.dir.is_empty() {
            path
        } else if path == self.dir {
            ""
        } else {
            match path.strip_prefix(self.dir.as_str()).and_then(|r| r.strip_prefix('/')) {
                Some(r) => r,
                None => return path.to_string(),
            }
        };
        crate::path::join(&self.down, rest)
    }

    /// Does this policy's directory hold `path` (a directory of the run)?
    pub fn holds(&self, path: &str) -> bool {
        self.dir.is_empty()
            || path == self.dir
            || path.strip_prefix(self.dir.as_str()).is_some_and(|r| r.starts_with('/'))
    }
}
