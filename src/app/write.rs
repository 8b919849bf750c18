//! The only code that changes a user's files. It writes whole files atomically (a
//! temporary file beside the original, its permissions copied, then renamed over it), so
//! a crash or a full disk leaves either the old content or the new, never half of each;
//! and it re-reads each file first, so a file changed since it was planned is left alone.

use crate::error;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// One planned change to a file on disk.
pub(super) struct Change {
    pub path: PathBuf,
    /// The path as the user sees it, for messages.
    pub shown: String,
    /// What the plan was made from; the file must still hold exactly this.
    pub before: Vec<u8>,
    /// The new content, or `None` to delete the file.
    pub after: Option<Vec<u8>>,
}

/// Refuses files that are not UTF-8, before anything else is asked of them: their text
/// is not their bytes, so neither git's copy nor the disk would match it.
pub(super) fn refuse_not_utf8(changes: &[Change]) -> Result<(), error::Error> {
    for c in changes {
        if let Ok(now) = fs::read(&c.path)
            && std::str::from_utf8(&now).is_err()
        {
            return Err(error::Error::WriteNotUtf8 { path: c.shown.clone() });
        }
    }
    Ok(())
}

/// Checks that every file can be changed: a regular file (not a link: renaming over a
/// link would replace the link, not what it points at), unchanged since it was read.
pub(super) fn preflight(changes: &[Change]) -> Result<(), error::Error> {
    for c in changes {
        let path = || c.shown.clone();
        let meta = fs::symlink_metadata(&c.path).map_err(|e| error::Error::io(path(), e))?;
        if meta.file_type().is_symlink() {
            return Err(error::Error::WriteThroughLink { path: path() });
        }
        if !meta.is_file() {
            return Err(error::Error::WriteNotAFile { path: path() });
        }
        let now = fs::read(&c.path).map_err(|e| error::Error::io(path(), e))?;
        if now != c.before {
            return Err(error::Error::ChangedMeanwhile { path: path() });
        }
    }
    Ok(())
}

/// How the changes of one command stand together.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Together {
    /// Each file is a change of its own (`fix`): one changed meanwhile is left alone, the
    /// others are written.
    Each,
    /// The files are one change (`fold` rewrites an original and deletes its override):
    /// all are written, or none.
    All,
}

/// What [`commit`] did: the changes written, and the others with why they were not.
#[derive(Debug, Default)]
pub(super) struct Written {
    pub done: Vec<usize>,
    pub left: Vec<(usize, error::Error)>,
}

impl Written {
    /// Says which files were left alone, and why; whether there were any.
    pub(super) fn say_left(&self) -> bool {
        for (_, e) in &self.left {
            let e = e.clone().map_path(crate::report::clean_line);
            super::output::write_err(&format!("error: {e}\n"));
        }
        !self.left.is_empty()
    }
}

/// Applies the changes: every new content is written to a temporary file first, then each
/// file is checked again right before it is replaced (an editor's save, or another run,
/// since the plan was made is never lost: the file is left alone and named), then the
/// renames and deletions, which a stop (Ctrl-C) waits for.
pub(super) fn commit(changes: &[Change], together: Together) -> Result<Written, error::Error> {
    commit_with(changes, together, || {})
}

/// [`commit`], with `meanwhile` run once the temporary files are written (what another
/// program may do then, for the tests).
fn commit_with(
    changes: &[Change],
    together: Together,
    meanwhile: impl FnOnce(),
) -> Result<Written, error::Error> {
    preflight(changes)?;
    super::stop::watch();
    let mut temps: Vec<(usize, PathBuf, super::stop::Registered)> = Vec::new();
    for (k, c) in changes.iter().enumerate() {
        let Some(after) = &c.after else { continue };
        match temp_write(&c.path, after) {
            Ok((t, registered)) => temps.push((k, t, registered)),
            Err(e) => {
                for (_, t, _) in &temps {
                    let _ = fs::remove_file(t);
                }
                let (path, source) = (c.shown.clone(), Arc::new(e));
                return Err(error::Error::TempFile { path, source });
            }
        }
    }
    meanwhile();
    let unchanged = |c: &Change| fs::read(&c.path).is_ok_and(|now| now == c.before);
    let mut out = Written::default();
    {
        let _held = super::stop::hold();
        if together == Together::All
            && let Some(c) = changes.iter().find(|c| !unchanged(c))
        {
            for (_, t, _) in &temps {
                let _ = fs::remove_file(t);
            }
            return Err(error::Error::ChangedMeanwhile { path: c.shown.clone() });
        }
        let mut stopped = false;
        for (k, t, _) in &temps {
            let c = &changes[*k];
            if stopped {
                let _ = fs::remove_file(t);
                out.left.push((*k, error::Error::NotReached { path: c.shown.clone() }));
            } else if !unchanged(c) {
                let _ = fs::remove_file(t);
                out.left.push((*k, error::Error::ChangedMeanwhile { path: c.shown.clone() }));
                stopped = together == Together::All;
            } else if let Err(e) = fs::rename(t, &c.path) {
                let _ = fs::remove_file(t);
                let e = error::Error::Replace { path: c.shown.clone(), source: Arc::new(e) };
                out.left.push((*k, e));
                stopped = together == Together::All;
            } else {
                out.done.push(*k);
            }
        }
        for (k, c) in changes.iter().enumerate().filter(|(_, c)| c.after.is_none()) {
            if stopped {
                out.left.push((k, error::Error::NotReached { path: c.shown.clone() }));
            } else if !unchanged(c) {
                out.left.push((k, error::Error::ChangedMeanwhile { path: c.shown.clone() }));
            } else if let Err(e) = fs::remove_file(&c.path) {
                out.left
                    .push((k, error::Error::Delete { path: c.shown.clone(), source: Arc::new(e) }));
            } else {
                out.done.push(k);
            }
        }
    }
    // Unregistered only now: a stop waits on the same lock.
    drop(temps);
    out.done.sort_unstable();
    out.left.sort_by_key(|(k, _)| *k);
    Ok(out)
}

/// Writes a file the user asked for by name (a baseline), atomically: a new file, or the
/// whole of an existing regular file replaced. A link is not written through.
pub(super) fn atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let perms = match fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => {
            return Err(std::io::Error::other("a symbolic link: nothing is written through links"));
        }
        Ok(m) if !m.is_file() => return Err(std::io::Error::other("not a regular file")),
        Ok(m) => Some(m.permissions()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(e),
    };
    let (temp, _registered) = temp_file(path, bytes, perms)?;
    fs::rename(&temp, path).inspect_err(|_| {
        let _ = fs::remove_file(&temp);
    })
}

/// Writes `bytes` to a new file beside `path`, with `path`'s permissions, flushed to disk;
/// registered for removal should the run be stopped before it is renamed.
fn temp_write(path: &Path, bytes: &[u8]) -> std::io::Result<(PathBuf, super::stop::Registered)> {
    let perms = fs::metadata(path)?.permissions();
    temp_file(path, bytes, Some(perms))
}

/// A new file beside `path` holding `bytes`, flushed to disk, with `perms` if given.
fn temp_file(
    path: &Path,
    bytes: &[u8],
    perms: Option<fs::Permissions>,
) -> std::io::Result<(PathBuf, super::stop::Registered)> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    for n in 0..100u32 {
        let temp = dir.join(crate::path::temp_name(&name, std::process::id(), n));
        let mut f = match fs::OpenOptions::new().write(true).create_new(true).open(&temp) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        };
        // Registered once it is ours (never one another run made): a stop in between
        // leaves it for the next run to remove.
        let registered = super::stop::register(temp.clone());
        let written = f.write_all(bytes).and_then(|_| f.sync_all()).and_then(|_| match &perms {
            Some(p) => fs::set_permissions(&temp, p.clone()),
            None => Ok(()),
        });
        if let Err(e) = written {
            let _ = fs::remove_file(&temp);
            return Err(e);
        }
        return Ok((temp, registered));
    }
    Err(std::io::Error::new(std::io::ErrorKind::AlreadyExists, "no free temporary file name"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change(p: &Path, before: &str, after: Option<&str>) -> Change {
        Change {
            path: p.to_path_buf(),
            shown: p.file_name().unwrap().to_string_lossy().into_owned(),
            before: before.into(),
            after: after.map(|a| a.as_bytes().to_vec()),
        }
    }

    #[test]
    fn writes_keep_permissions_and_refuse_changed_files() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let p = dir.join("main.tf");
        fs::write(&p, "a\n").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(&p, fs::Permissions::from_mode(0o640)).unwrap();
        }
        assert!(commit(&[change(&p, "other\n", Some("b\n"))], Together::Each).is_err());
        assert_eq!(fs::read_to_string(&p).unwrap(), "a\n");
        let w = commit(&[change(&p, "a\n", Some("b\n"))], Together::Each).unwrap();
        assert_eq!((w.done, w.left.len()), (vec![0], 0));
        assert_eq!(fs::read_to_string(&p).unwrap(), "b\n");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(fs::metadata(&p).unwrap().permissions().mode() & 0o777, 0o640);
        }
        assert_eq!(fs::read_dir(dir).unwrap().count(), 1, "no temporary file is left behind");
    }

    /// An editor's save after the plan was checked, while the temporary files were being
    /// written: the saved file is left alone and named; with `Each`, the others are
    /// written, with `All`, none is.
    #[test]
    fn a_file_saved_while_the_temporary_copies_are_written_is_left_alone() {
        for together in [Together::Each, Together::All] {
            let tmp = tempfile::tempdir().unwrap();
            let (a, b, gone) =
                (tmp.path().join("a.tf"), tmp.path().join("b.tf"), tmp.path().join("o.tf"));
            fs::write(&a, "a\n").unwrap();
            fs::write(&b, "b\n").unwrap();
            fs::write(&gone, "o\n").unwrap();
            let changes = [
                change(&a, "a\n", Some("A\n")),
                change(&b, "b\n", Some("B\n")),
                change(&gone, "o\n", None),
            ];
            let saved = || fs::write(&b, "saved by an editor\n").unwrap();
            let w = commit_with(&changes, together, saved);
            assert_eq!(fs::read_to_string(&b).unwrap(), "saved by an editor\n");
            match together {
                Together::Each => {
                    let w = w.unwrap();
                    assert_eq!(w.done, [0, 2]);
                    assert_eq!(w.left.len(), 1);
                    assert!(
                        matches!(&w.left[0], (1, error::Error::ChangedMeanwhile { path }) if path == "b.tf")
                    );
                    assert_eq!(fs::read_to_string(&a).unwrap(), "A\n");
                    assert!(!gone.exists());
                }
                Together::All => {
                    let e = w.unwrap_err();
                    assert!(
                        matches!(&e, error::Error::ChangedMeanwhile { path } if path == "b.tf"),
                        "{e}"
                    );
                    assert_eq!(fs::read_to_string(&a).unwrap(), "a\n");
                    assert!(gone.exists());
                }
            }
            let names: Vec<String> = fs::read_dir(tmp.path())
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with('.'))
                .collect();
            assert!(names.is_empty(), "temporary files left: {names:?}");
        }
    }
}
