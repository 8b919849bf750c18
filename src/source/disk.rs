//! The one way a file is read from disk, whatever it is (a module's file, a variables
//! file, a policy, a baseline, a scanner's report): only a regular file, and at most a
//! bound of bytes. A repository can hold a link to `/dev/zero`, a FIFO, a socket or a
//! device, and a name on the command line can point at one: reading those would never
//! end or never start, and a huge file would take all the memory a CI runner has. The
//! bound is checked before anything is read (and again while reading, for a file that
//! grows), so no read allocates more than it.

use std::io::Read;
use std::path::Path;

/// What a file is read as, and so how much of it is read at most. The bounds are far
/// above any real file of the kind: the largest configuration files seen in public
/// repositories are a few megabytes (generated provider schemas), policies and baselines
/// kilobytes to a few megabytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A module's file or a variables file: what Terraform reads.
    Config,
    /// A policy file: TOML a person writes.
    Policy,
    /// A baseline, a flatten map or a scanner's SARIF log: JSON a tool writes.
    Report,
}

impl Kind {
    /// The most bytes read from one file of this kind.
    pub(crate) const fn limit(self) -> u64 {
        match self {
            Kind::Config => 128 << 20,
            Kind::Policy => 8 << 20,
            Kind::Report => 256 << 20,
        }
    }
}

/// How a link at the path itself is treated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Links {
    /// Followed: the caller has judged where it leads (or the user named it).
    Follow,
    /// Not followed: a link is [`Unread::Link`], for the caller to judge.
    Refuse,
}

/// Why a file was not read.
#[derive(Debug)]
pub(crate) enum Unread {
    /// The system's own failure (missing, permissions, a looping link).
    Io(std::io::Error),
    Directory,
    /// A FIFO, a socket or a device.
    Special,
    /// More bytes than [`Kind::limit`]: `size` is what the file holds (at least).
    TooLarge {
        size: u64,
        limit: u64,
    },
    /// A symbolic link, with [`Links::Refuse`].
    Link,
}

impl Unread {
    /// The run's error about the file, named `path` as the user knows it. A refused link
    /// is one leading out of the repository: that is why a caller refuses one.
    pub(crate) fn error(self, path: String) -> crate::error::Error {
        use crate::error::Error;
        match self {
            Unread::Io(e) => Error::io(path, e),
            Unread::Directory => Error::IsADirectory { path },
            Unread::Special => Error::NotAFile { path },
            Unread::TooLarge { size, limit } => Error::TooLarge { path, size, limit },
            Unread::Link => Error::LinkOutside { path },
        }
    }
}

/// Reads the file at `path` when it is a regular file of at most `kind`'s bound.
pub(crate) fn read(path: &Path, kind: Kind, links: Links) -> Result<Vec<u8>, Unread> {
    let limit = kind.limit();
    let mut f = open(path, links)?;
    let meta = f.metadata().map_err(Unread::Io)?;
    if meta.is_dir() {
        return Err(Unread::Directory);
    }
    if !meta.is_file() {
        return Err(Unread::Special);
    }
    if meta.len() > limit {
        return Err(Unread::TooLarge { size: meta.len(), limit });
    }
    let expected = usize::try_from(meta.len()).unwrap_or(0);
    let mut buf = Vec::with_capacity(expected.saturating_add(1));
    // Through `Take`: a file that grows while it is read stops at the bound (and `File`'s
    // own `read_to_end` would ask the size again).
    f.by_ref().take(limit + 1).read_to_end(&mut buf).map_err(Unread::Io)?;
    if buf.len() as u64 > limit {
        return Err(Unread::TooLarge { size: buf.len() as u64, limit });
    }
    Ok(buf)
}

/// Standard input, at most `kind`'s bound (`remap -`).
pub(crate) fn read_stdin(kind: Kind) -> Result<Vec<u8>, Unread> {
    let limit = kind.limit();
    let mut buf = Vec::new();
    std::io::stdin().lock().take(limit + 1).read_to_end(&mut buf).map_err(Unread::Io)?;
    if buf.len() as u64 > limit {
        return Err(Unread::TooLarge { size: buf.len() as u64, limit });
    }
    Ok(buf)
}

/// Opens without blocking (a FIFO with no writer would block `open` itself) and, with
/// [`Links::Refuse`], without following a link: one lookup of the path, no window between
/// a check and the open.
#[cfg(unix)]
fn open(path: &Path, links: Links) -> Result<std::fs::File, Unread> {
    use std::os::unix::fs::OpenOptionsExt;
    let mut flags = libc::O_NONBLOCK;
    if links == Links::Refuse {
        flags |= libc::O_NOFOLLOW;
    }
    match std::fs::OpenOptions::new().read(true).custom_flags(flags).open(path) {
        Ok(f) => Ok(f),
        Err(e) if links == Links::Refuse && e.raw_os_error() == Some(libc::ELOOP) => {
            // ELOOP with O_NOFOLLOW: the path itself is a link (or a loop of them).
            match std::fs::symlink_metadata(path) {
                Ok(m) if m.file_type().is_symlink() => Err(Unread::Link),
                _ => Err(Unread::Io(e)),
            }
        }
        // A socket cannot be opened at all (ENXIO): it is no file either.
        Err(e) if e.raw_os_error() == Some(libc::ENXIO) => Err(Unread::Special),
        Err(e) => Err(Unread::Io(e)),
    }
}

#[cfg(not(unix))]
fn open(path: &Path, links: Links) -> Result<std::fs::File, Unread> {
    if links == Links::Refuse
        && std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
    {
        return Err(Unread::Link);
    }
    match std::fs::metadata(path) {
        Ok(m) if m.is_dir() => return Err(Unread::Directory),
        Ok(m) if !m.is_file() => return Err(Unread::Special),
        _ => {}
    }
    std::fs::File::open(path).map_err(Unread::Io)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn only_regular_files_within_the_bound_are_read() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        std::fs::write(dir.join("a.tf"), "x = 1\n").unwrap();
        assert_eq!(read(&dir.join("a.tf"), Kind::Config, Links::Refuse).unwrap(), b"x = 1\n");
        // A FIFO: neither the open nor the read may block.
        let fifo = dir.join("fifo.tf");
        let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid, NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
        assert!(matches!(read(&fifo, Kind::Config, Links::Follow), Err(Unread::Special)));
        // A link to a device: refused as a link, or as no regular file once followed.
        std::os::unix::fs::symlink("/dev/zero", dir.join("zero.tf")).unwrap();
        assert!(matches!(
            read(&dir.join("zero.tf"), Kind::Config, Links::Refuse),
            Err(Unread::Link)
        ));
        assert!(matches!(
            read(&dir.join("zero.tf"), Kind::Config, Links::Follow),
            Err(Unread::Special)
        ));
        assert!(matches!(read(dir, Kind::Config, Links::Follow), Err(Unread::Directory)));
        // A socket cannot even be opened.
        let sock = std::os::unix::net::UnixListener::bind(dir.join("s.tf")).unwrap();
        assert!(matches!(
            read(&dir.join("s.tf"), Kind::Config, Links::Follow),
            Err(Unread::Special)
        ));
        drop(sock);
        // Past the bound: refused from its size, before a byte is read (a sparse file).
        let big = std::fs::File::create(dir.join("big.toml")).unwrap();
        big.set_len(Kind::Policy.limit() + 1).unwrap();
        match read(&dir.join("big.toml"), Kind::Policy, Links::Follow) {
            Err(Unread::TooLarge { size, limit }) => {
                assert_eq!((size, limit), (Kind::Policy.limit() + 1, 8 << 20));
            }
            other => panic!("{other:?}"),
        }
        assert!(read(&dir.join("missing"), Kind::Config, Links::Follow).is_err());
    }
}
