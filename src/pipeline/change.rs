//! Which modules a change touches, for the hook and `diff`: those of its changed files,
//! every module below a changed version file (`.terraform-version`, …), and, when each
//! module takes the nearest policy file, every module a changed policy file governs (in
//! either state).

use std::collections::BTreeSet;

use crate::error;
use crate::source::{Source, split};
use crate::terraform::pins;

/// The module directories of some paths.
pub(crate) fn dirs_of(paths: &BTreeSet<String>) -> BTreeSet<String> {
    paths.iter().map(|p| split(p).0.to_string()).collect()
}

/// The modules a change touches: the directories of `changed`, and when policies are
/// found per module (`nearest`), the modules of `states` under a changed policy file's
/// directory. A `--policy` file governs every module alike, so its copies in the tree
/// change nothing.
pub(crate) fn touched(
    changed: &BTreeSet<String>,
    policies_changed: &BTreeSet<String>,
    nearest: bool,
    states: &[&dyn Source],
) -> Result<BTreeSet<String>, error::Error> {
    // A version file pins the release of every module below it, whatever the policy; its
    // own directory is a module only when it holds one.
    let (pins, files): (BTreeSet<String>, BTreeSet<String>) =
        changed.iter().cloned().partition(|p| pins::is_pin_file(split(p).1));
    let mut out = dirs_of(&files);
    let mut governed = dirs_of(&pins);
    if nearest {
        governed.extend(dirs_of(policies_changed));
    }
    for src in states {
        out.extend(modules_under(*src, &governed)?);
    }
    Ok(out)
}

/// The module directories a source has under some directories (a changed policy's).
pub(crate) fn modules_under(
    src: &dyn Source,
    dirs: &BTreeSet<String>,
) -> Result<Vec<String>, error::Error> {
    if dirs.is_empty() {
        return Ok(Vec::new()); // listing every module of a large repository costs
    }
    Ok(src.modules()?.into_keys().filter(|m| dirs.iter().any(|d| under(m, d))).collect())
}

/// Is the module directory `m` the directory `dir` or below it?
fn under(m: &str, dir: &str) -> bool {
    dir.is_empty() || m == dir || m.strip_prefix(dir).is_some_and(|r| r.starts_with('/'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::MemorySource;

    fn set(items: &[&str]) -> BTreeSet<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_changed_policy_touches_the_modules_below_it() {
        let src = MemorySource::new()
            .with("envs/a/main.tf", "")
            .with("envs/ab/main.tf", "")
            .with("other/main.tf", "");
        let changed = set(&["other/main.tf"]);
        let policies = set(&["envs/a/.override-guard.toml"]);
        let t = touched(&changed, &policies, true, &[&src]).expect("listed");
        assert_eq!(t, set(&["envs/a", "other"]));
        let t = touched(&changed, &policies, false, &[&src]).expect("listed");
        assert_eq!(t, set(&["other"]));
    }

    #[test]
    fn a_changed_version_file_touches_the_modules_below_it_whatever_the_policy() {
        let src = MemorySource::new()
            .with("envs/a/main.tf", "")
            .with("envs/a/b/main.tf", "")
            .with("envs/ab/main.tf", "")
            .with("other/main.tf", "");
        let changed = set(&["envs/a/.terraform-version", "other/notes.txt"]);
        for nearest in [true, false] {
            let t = touched(&changed, &set(&[]), nearest, &[&src]).expect("listed");
            assert_eq!(t, set(&["envs/a", "envs/a/b", "other"]));
        }
    }
}
