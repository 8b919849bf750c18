//! What a `fix` or `fold` that was killed (SIGKILL, an OOM kill, a CI job's hard timeout)
//! left: the temporary copies it wrote beside the files it was about to replace (see
//! `super::write`). They are also the list of the files it did not reach: each is named,
//! and removed by the next run that writes.

use std::fs;
use std::path::Path;

/// A temporary copy an earlier run left beside a file.
pub(super) struct Leftover {
    /// The file it was to replace (a path of the listing).
    target: String,
    pid: u32,
    name: String,
    /// Removed now (`Some(true)`), not removable (`Some(false)`), or only named.
    removed: Option<bool>,
}

impl Leftover {
    /// The `note:` line about it, its file named as `shown` says.
    pub(super) fn note(&self, shown: impl Fn(&str) -> String) -> String {
        let what = match self.removed {
            Some(true) => "its unfinished copy is removed",
            Some(false) => "its unfinished copy could not be removed",
            None => "`override-guard fix` removes its unfinished copy",
        };
        format!(
            "note: {}: an earlier run of override-guard (process {}) was stopped before it replaced this file, which it did not change; {what} ({})\n",
            crate::report::clean_line(&shown(&self.target)),
            self.pid,
            crate::report::clean_line(&self.name)
        )
    }
}

/// The temporary copies an earlier run left beside the files of `root` (`paths` relative
/// to it, as the listing found them): a `fix` or `fold` killed (SIGKILL, an OOM kill)
/// between writing them and replacing the files. Each one whose writer is gone is named
/// with the file it did not reach; with `remove`, it is deleted. A copy whose writer still
/// runs is another run's, and left alone.
pub(super) fn leftovers(root: &Path, paths: &[String], remove: bool) -> Vec<Leftover> {
    let mut out = Vec::new();
    for rel in paths {
        let (dir, name) = crate::path::split(rel);
        let Some((file, pid)) = crate::path::temp_of(name) else { continue };
        if pid == std::process::id() || alive(pid) {
            continue;
        }
        let removed = remove.then(|| fs::remove_file(root.join(rel)).is_ok());
        let (target, name) = (crate::path::join(dir, file), name.to_string());
        out.push(Leftover { target, pid, name, removed });
    }
    out
}

/// [`leftovers`], each said in a `note:` line, its file named as `shown` says.
pub(super) fn note(root: &Path, paths: &[String], remove: bool, shown: impl Fn(&str) -> String) {
    for left in leftovers(root, paths, remove) {
        super::output::write_err(&left.note(&shown));
    }
}

/// Does process `pid` still run? Only where the system can say: elsewhere, yes.
fn alive(pid: u32) -> bool {
    #[cfg(unix)]
    {
        let Ok(pid) = libc::pid_t::try_from(pid) else { return true };
        // SAFETY: signal 0 only asks whether the process exists.
        if unsafe { libc::kill(pid, 0) } == 0 {
            return true;
        }
        std::io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
    }
    #[cfg(not(unix))]
    {
        let _ = pid;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a killed run left: the copies of dead writers are named with their files and
    /// removed when asked; a live writer's (this process's parent stands in) is not.
    #[cfg(unix)]
    #[test]
    fn copies_a_killed_run_left_are_named_and_removed() {
        let tmp = tempfile::tempdir().unwrap();
        let dead = {
            let mut c = std::process::Command::new("true").spawn().unwrap();
            let id = c.id();
            c.wait().unwrap();
            id
        };
        let live = std::os::unix::process::parent_id();
        let (a, b) =
            (crate::path::temp_name("main.tf", dead, 0), crate::path::temp_name("x.tf", live, 1));
        fs::create_dir(tmp.path().join("m")).unwrap();
        for n in [&a, &b] {
            fs::write(tmp.path().join("m").join(n), "half").unwrap();
        }
        let paths = [format!("m/{a}"), format!("m/{b}")];
        let named = leftovers(tmp.path(), &paths, false);
        assert_eq!(named.len(), 1);
        let note = named[0].note(|p| format!("./{p}"));
        assert!(
            note.starts_with(&format!(
                "note: ./m/main.tf: an earlier run of override-guard (process {dead})"
            )),
            "{note}"
        );
        assert!(tmp.path().join("m").join(&a).exists(), "only named without `remove`");
        let removed = leftovers(tmp.path(), &paths, true);
        assert!(removed[0].note(|p| p.to_string()).contains("its unfinished copy is removed"));
        assert!(!tmp.path().join("m").join(&a).exists());
        assert!(tmp.path().join("m").join(&b).exists(), "a live writer's copy is left");
    }
}
