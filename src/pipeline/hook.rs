//! The pre-commit framework's file lists: which files it passes to the hook, and which
//! modules one invocation judges when it splits a long list over several (so that a
//! split run reads like one). Pure: paths in, module directories out.

use std::collections::BTreeSet;

use crate::source::{GitSource, split};

/// What one invocation of the hook judges.
pub(crate) struct Owned {
    /// The files passed that are not module directories (repository-relative).
    pub files: Vec<String>,
    /// The module directories it judges, each with files in the state judged.
    pub dirs: BTreeSet<String>,
}

/// The modules one invocation of the hook owns, from what the framework passed it
/// (`passed`, repository-relative: files, or by hand module directories), the change's
/// files and the modules it touches, in the state `after` that is judged. `all_files`:
/// a passed file the change does not touch means `--all-files` (a commit's run, not a
/// range's), and the framework then passes every file of the state.
pub(crate) fn owned(
    passed: &[String],
    changed: &BTreeSet<String>,
    touched: &BTreeSet<String>,
    after: &GitSource,
    all_files: bool,
) -> Owned {
    let (dirs, files): (Vec<String>, Vec<String>) =
        passed.iter().cloned().partition(|p| after.has_module(p));
    // The files the framework would pass, in its order (git's): the change's, or every
    // file under `--all-files`.
    let mut universe: Vec<String> =
        changed.iter().filter(|p| after.has_file(p) && hook_file(p)).cloned().collect();
    if all_files && files.iter().any(|p| !changed.contains(p)) {
        universe = after.paths().filter(|p| hook_file(p)).map(str::to_string).collect();
    }
    let mut owned = chunk_modules(&files, &universe, touched);
    owned.extend(dirs);
    // Modules whose files were all deleted have nothing left to check.
    owned.retain(|d| after.has_module(d));
    Owned { files, dirs: owned }
}

/// Would the pre-commit framework pass this file to the hook? (`files:` in
/// `.pre-commit-hooks.yaml`: `(^|/)[^/]+\.(tf|tofu)(\.json)?$`, not under `.terraform/`.)
fn hook_file(path: &str) -> bool {
    let name = split(path).1;
    [".tf", ".tofu", ".tf.json", ".tofu.json"]
        .iter()
        .any(|ext| name.len() > ext.len() && name.ends_with(ext))
        && !path.split('/').any(|c| c == ".terraform")
}

/// The framework never splits a command line shorter than this (its smallest limit, for
/// POSIX systems; larger elsewhere).
const NEVER_SPLIT_BELOW: usize = 4096;

/// The module directories this invocation judges.
///
/// `passed` are the files the framework passed to this invocation, `universe` the files
/// it would pass in all (sorted as git lists them), `touched` the modules the change
/// touches (deleted files included). Without a file list, every touched module. With
/// one, the modules of the passed files and the touched modules with no file in the
/// list (a delete-only change). When the list may have been split over several
/// invocations (it is long, and this one got a contiguous run of it), a module goes to
/// the invocation that holds its first file, and the modules without a file to the
/// first invocation; in every doubt a module is judged (twice rather than never).
pub(crate) fn chunk_modules(
    passed: &[String],
    universe: &[String],
    touched: &BTreeSet<String>,
) -> BTreeSet<String> {
    let dir = |p: &str| split(p).0.to_string();
    if passed.is_empty() {
        return touched.clone();
    }
    let length: usize = universe.iter().map(|p| p.len() + 1).sum();
    let start = universe.iter().position(|u| *u == passed[0]);
    let contiguous = start.is_some_and(|j| {
        universe.len() >= j + passed.len() && universe[j..j + passed.len()] == *passed
    });
    let chunked = contiguous && length >= NEVER_SPLIT_BELOW && passed.len() < universe.len();
    let first_chunk = !chunked || start == Some(0);
    let mut first_file: std::collections::BTreeMap<String, &str> = Default::default();
    for u in universe {
        first_file.entry(dir(u)).or_insert(u.as_str());
    }
    let mut out = BTreeSet::new();
    for f in passed {
        let m = dir(f);
        let earlier = first_file.get(&m).is_some_and(|u| *u < passed[0].as_str());
        if !(chunked && earlier) {
            out.insert(m);
        }
    }
    for m in touched {
        if out.contains(m) {
            continue;
        }
        let judged_elsewhere = if first_file.contains_key(m) { chunked } else { !first_chunk };
        if !judged_elsewhere {
            out.insert(m.clone());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(items: &[&str]) -> BTreeSet<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    fn list(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn without_files_every_touched_module() {
        assert_eq!(chunk_modules(&[], &[], &set(&["a", "b"])), set(&["a", "b"]));
    }

    #[test]
    fn a_commit_judges_the_passed_files_modules_and_the_deleted_ones() {
        let passed = list(&["a/main.tf", "b/override.tf"]);
        let touched = set(&["a", "b", "gone"]);
        assert_eq!(chunk_modules(&passed, &passed, &touched), set(&["a", "b", "gone"]));
    }

    #[test]
    fn a_short_list_is_never_split_so_every_module_is_judged() {
        // `pre-commit run --files b/override.tf` with b/main.tf staged as well.
        let universe = list(&["b/main.tf", "b/override.tf"]);
        let passed = list(&["b/override.tf"]);
        assert_eq!(chunk_modules(&passed, &universe, &set(&["b", "gone"])), set(&["b", "gone"]));
    }

    #[test]
    fn a_split_list_judges_each_module_once() {
        // 400 modules of three files each, about 24 KiB of paths: split in two.
        let mut universe = Vec::new();
        for m in 0..400 {
            for f in ["main.tf", "override.tf", "variables.tf"] {
                universe.push(format!("modules/team/service-{m:03}/{f}"));
            }
        }
        universe.sort();
        let cut = 601; // inside module 200 (its files 600, 601, 602)
        let (one, two) = universe.split_at(cut);
        let touched = set(&["modules/team/deleted"]);
        let a = chunk_modules(one, &universe, &touched);
        let b = chunk_modules(two, &universe, &touched);
        assert!(
            a.contains("modules/team/service-200"),
            "the module's first file is in the first chunk"
        );
        assert!(!b.contains("modules/team/service-200"));
        assert!(a.contains("modules/team/deleted") && !b.contains("modules/team/deleted"));
        assert_eq!(a.len() + b.len(), 401);
        assert_eq!(a.union(&b).count(), 401);
    }

    #[test]
    fn a_list_that_is_not_a_run_of_the_universe_is_judged_whole() {
        let universe: Vec<String> = (0..500).map(|i| format!("m{i:03}/main.tf")).collect();
        let passed = list(&["m001/main.tf", "m003/main.tf"]);
        assert_eq!(
            chunk_modules(&passed, &universe, &set(&["m001", "gone"])),
            set(&["m001", "m003", "gone"])
        );
    }

    #[test]
    fn hook_files_match_the_hook_definition() {
        assert!(hook_file("a/main.tf"));
        assert!(hook_file("x.tofu.json"));
        assert!(!hook_file("a/.tf"));
        assert!(!hook_file("a/.terraform/modules/x/main.tf"));
        assert!(!hook_file("terraform.tfvars"));
    }
}
