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

/// Applies the changes: every new content is written to a temporary file first, and only
/// when all of them are written are they renamed into place (then deletions happen).
pub(super) fn commit(changes: &[Change]) -> Result<(), error::Error> {
    preflight(changes)?;
    let mut temps: Vec<(PathBuf, &Change)> = Vec::new();
    let cleanup = |temps: &[(PathBuf, &Change)]| {
        for (t, _) in temps {
            let _ = fs::remove_file(t);
        }
    };
    for c in changes {
        let Some(after) = &c.after else { continue };
        match temp_write(&c.path, after) {
            Ok(t) => temps.push((t, c)),
            Err(e) => {
                cleanup(&temps);
                let (path, source) = (c.shown.clone(), Arc::new(e));
                return Err(error::Error::TempFile { path, source });
            }
        }
    }
    for (k, (t, c)) in temps.iter().enumerate() {
        if let Err(e) = fs::rename(t, &c.path) {
            cleanup(&temps[k..]);
            return Err(error::Error::Replace { path: c.shown.clone(), source: Arc::new(e) });
        }
    }
    for c in changes.iter().filter(|c| c.after.is_none()) {
        fs::remove_file(&c.path)
            .map_err(|e| error::Error::Delete { path: c.shown.clone(), source: Arc::new(e) })?;
    }
    Ok(())
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
    let temp = temp_file(path, bytes, perms)?;
    fs::rename(&temp, path).inspect_err(|_| {
        let _ = fs::remove_file(&temp);
    })
}

/// Writes `bytes` to a new file beside `path`, with `path`'s permissions, flushed to disk.
fn temp_write(path: &Path, bytes: &[u8]) -> std::io::Result<PathBuf> {
    let perms = fs::metadata(path)?.permissions();
    temp_file(path, bytes, Some(perms))
}

/// A new file beside `path` holding `bytes`, flushed to disk, with `perms` if given.
fn temp_file(
    path: &Path,
    bytes: &[u8],
    perms: Option<fs::Permissions>,
) -> std::io::Result<PathBuf> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    for n in 0..100u32 {
        let temp = dir.join(format!(".{name}.override-guard-{}-{n}.tmp", std::process::id()));
        let mut f = match fs::OpenOptions::new().write(true).create_new(true).open(&temp) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        };
        let written = f.write_all(bytes).and_then(|_| f.sync_all()).and_then(|_| match &perms {
            Some(p) => fs::set_permissions(&temp, p.clone()),
            None => Ok(()),
        });
        if let Err(e) = written {
            let _ = fs::remove_file(&temp);
            return Err(e);
        }
        return Ok(temp);
    }
    Err(std::io::Error::new(std::io::ErrorKind::AlreadyExists, "no free temporary file name"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_keep_permissions_and_refuse_changed_files() {
        let dir = std::env::temp_dir().join(format!("og-write-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        let p = dir.join("main.tf");
        fs::write(&p, "a\n").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(&p, fs::Permissions::from_mode(0o640)).unwrap();
        }
        let change = |before: &str| Change {
            path: p.clone(),
            shown: "main.tf".into(),
            before: before.into(),
            after: Some(b"b\n".to_vec()),
        };
        assert!(commit(&[change("other\n")]).is_err());
        assert_eq!(fs::read_to_string(&p).unwrap(), "a\n");
        commit(&[change("a\n")]).unwrap();
        assert_eq!(fs::read_to_string(&p).unwrap(), "b\n");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(fs::metadata(&p).unwrap().permissions().mode() & 0o777, 0o640);
        }
        assert_eq!(fs::read_dir(&dir).unwrap().count(), 1, "no temporary file is left behind");
        fs::remove_dir_all(&dir).unwrap();
    }
}
