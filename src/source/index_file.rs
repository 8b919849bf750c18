//! Reading git's index file for [`super::git`]: gix decodes it while its checksum is
//! verified beside, and a reader of our own takes over for the entries gix misreads.
//!
//! gix-index 0.58 (the version gix 0.90 uses) and 0.59 (the newest) misread an entry of an
//! index of version 2 or 3 whose path is 4,095 bytes or longer: its 12-bit length field
//! then says 0xFFF and the path ends at a NUL, after which git pads the entry with NULs to
//! a multiple of 8 bytes, as it pads every entry; gix takes the next entry to start right
//! after the first NUL. Every entry after it is misread and the index refused ("Index
//! trailer should have been 20 bytes long"), so one such path, which git reads and commits,
//! stopped every command that reads the index (the hook at every commit). Version 4
//! (prefix-compressed paths, no padding) is read right. gix 0.91 needs a newer Rust than
//! the crate's 1.88: when a gix the crate can use reads these entries, this reader goes.
//!
//! The reader is used only for an index holding such a path, and reads the entries only.
//! Of the extensions it keeps none: the tree cache (`TREE`; the hook then reads all of
//! HEAD's tree instead of the parts the cache shows changed), the untracked cache, the file
//! system monitor's, resolve-undo, the end-of-index marker and the offset table are all
//! optional, and a sparse index's directories are entries (mode `DIR`) it reads as gix
//! does. What it cannot read it refuses: a split index (`link`, whose entries are in
//! another file) and any other extension git requires a reader to understand.

use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use gix::bstr::ByteSlice;
use gix::index::entry::{Flags, Mode, Stat, stat::Time};
use gix::index::{File, State};

use crate::error::Error;

/// A failure reading the index, named as `shown`.
fn failed(shown: &str, e: impl std::error::Error + Send + Sync + 'static) -> Error {
    Error::Git { path: shown.to_string(), source: Arc::new(e) }
}

/// The index at `path`, its trailing checksum verified (unless `skip`: `index.skipHash`).
/// Errors name it `shown`.
pub(super) fn open(
    path: &Path,
    kind: gix::hash::Kind,
    skip: bool,
    shown: &str,
) -> Result<File, Error> {
    // The checksum is verified on a second thread while the entries are decoded: the
    // hook reads the whole index at every commit, and hashing it took as long as
    // decoding it. A mismatch is reported before anything the decoder found, as git
    // reports it.
    std::thread::scope(|s| {
        let verify = (!skip).then(|| s.spawn(|| checksum_matches(path, kind)));
        let file = match File::at(path, kind, true, Default::default()) {
            // Right unless it holds a long path (see the module's doc): almost always.
            Ok(f) if !f.entries().iter().any(|e| e.path(&f).len() >= LONG) => Ok(f),
            // gix read one without an error (its mistake then skips no byte, for some
            // lengths): its entries stand unless this reader reads them.
            Ok(f) => match long_paths(path, kind) {
                Ok(Some(state)) => Ok(File::from_state(state, path)),
                _ => Ok(f),
            },
            Err(e) => match long_paths(path, kind) {
                Ok(Some(state)) => Ok(File::from_state(state, path)),
                Ok(None) => Err(failed(shown, e)),
                Err(why) => Err(failed(shown, std::io::Error::other(why))),
            },
        };
        match verify.map(|v| v.join()) {
            Some(Ok(Ok(true))) | None => file,
            Some(Ok(Ok(false))) => Err(failed(shown, std::io::Error::other(ChecksumMismatch))),
            Some(Ok(Err(e))) => Err(failed(shown, e)),
            Some(Err(_)) => Err(failed(shown, std::io::Error::other("checksum thread failed"))),
        }
    })
}

/// The index's trailing checksum disagrees with its content.
#[derive(Debug, thiserror::Error)]
#[error("the index's checksum does not match its content (a damaged index)")]
struct ChecksumMismatch;

/// Does the index file's trailing checksum match its content? A file too short to hold
/// one, or a null one, is left to the decoder.
fn checksum_matches(path: &Path, kind: gix::hash::Kind) -> std::io::Result<bool> {
    use std::io::Read;
    let mut file = std::fs::File::open(path)?;
    let len = file.metadata()?.len();
    let trailer = kind.len_in_bytes() as u64;
    if len < trailer {
        return Ok(true);
    }
    let mut hasher = gix::hash::hasher(kind);
    let mut buf = vec![0u8; 1 << 16];
    let mut body = (&mut file).take(len - trailer);
    loop {
        let n = body.read(&mut buf)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    let mut expected = Vec::with_capacity(trailer as usize);
    file.read_to_end(&mut expected)?;
    if expected.len() != trailer as usize || expected.iter().all(|&b| b == 0) {
        return Ok(true);
    }
    Ok(hasher.try_finalize().is_ok_and(|id| id.as_bytes() == expected.as_slice()))
}

/// A path this long has no length in its entry (the field's 12 bits say 0xFFF).
const LONG: usize = 0xFFF;

/// The index at `path` read by [`entries`] when it holds a long path: `None` for an index
/// gix reads right (see the module's doc) and for one this reader cannot read either (a
/// damaged index: gix's error says what is wrong); an error for one that holds a long path
/// beside what this reader does not read.
fn long_paths(path: &Path, kind: gix::hash::Kind) -> Result<Option<State>, String> {
    let data = std::fs::read(path).unwrap_or_default();
    let Ok(Some(read)) = entries(&data, kind) else { return Ok(None) };
    if let Some(name) = read.unknown.filter(|_| read.long) {
        return Err(format!(
            "an index extension git requires to understand ({name}) cannot be read beside a path of 4,095 bytes or more"
        ));
    }
    match read.shared {
        // A split index: most entries are in the shared index beside it, which gix reads
        // with the same mistake.
        Some(shared) => {
            let beside = path.with_file_name(format!("sharedindex.{shared}"));
            let data = std::fs::read(beside).unwrap_or_default();
            let long = read.long || entries(&data, kind).ok().flatten().is_some_and(|r| r.long);
            if long {
                Err("a split index holding a path of 4,095 bytes or more cannot be read; `git update-index --no-split-index` writes it whole".into())
            } else {
                Ok(None)
            }
        }
        None => Ok(read.long.then_some(read.state)),
    }
}

/// What [`entries`] read of an index.
struct Read {
    state: State,
    /// A path of [`LONG`] bytes or more is among the entries.
    long: bool,
    /// The id of the shared index a split index names (its `link` extension).
    shared: Option<String>,
    /// Another extension git requires a reader to understand.
    unknown: Option<String>,
}

/// Reads the bytes of an index with git's format; `None` unless it is of version 2 or 3
/// (gix reads version 4 right).
fn entries(data: &[u8], kind: gix::hash::Kind) -> Result<Option<Read>, String> {
    let mut r = Bytes { data, at: 0 };
    if r.take(4)? != b"DIRC" {
        return Ok(None);
    }
    let version = r.u32()?;
    if !matches!(version, 2 | 3) {
        return Ok(None);
    }
    let count = r.u32()?;
    let mut state = State::new(kind);
    let mut long = false;
    for _ in 0..count {
        let start = r.at;
        let ctime = Time { secs: r.u32()?, nsecs: r.u32()? };
        let mtime = Time { secs: r.u32()?, nsecs: r.u32()? };
        let (dev, ino, mode, uid, gid, size) =
            (r.u32()?, r.u32()?, r.u32()?, r.u32()?, r.u32()?, r.u32()?);
        let id =
            gix::ObjectId::try_from(r.take(kind.len_in_bytes())?).map_err(|e| e.to_string())?;
        let at_rest = r.u16()?;
        // In memory as gix has them: the stored bits without the length, the extended ones
        // (intent-to-add, skip-worktree) shifted up.
        let mut flags = Flags::from_bits_retain(u32::from(at_rest) & !(LONG as u32));
        if at_rest & 0x4000 != 0 {
            let extended = r.u16()?;
            if extended & !0x6000 != 0 {
                return Err("an entry with extended flags git does not define".into());
            }
            flags |= Flags::from_bits_retain(u32::from(extended) << 16);
        }
        let len = usize::from(at_rest) & LONG;
        let path = if len == LONG {
            long = true;
            let rest = r.data.get(r.at..).unwrap_or_default();
            let nul = rest.iter().position(|&b| b == 0).ok_or("a path without its end")?;
            // git writes the length field 0xFFF for such paths only (its own reader would
            // take a shorter one): a shorter one is damage, left to gix to name.
            if nul < LONG {
                return Err("an entry whose path is shorter than its length field says".into());
            }
            r.take(nul)?
        } else {
            r.take(len)?
        };
        // One to eight NULs end the entry at a multiple of 8 bytes from its start.
        r.take((r.at - start + 8) / 8 * 8 - (r.at - start))?;
        let stat = Stat { mtime, ctime, dev, ino, uid, gid, size };
        let mode = Mode::from_bits_truncate(mode);
        state.dangerously_push_entry(stat, id, flags, mode, path.as_bstr());
    }
    let hash = kind.len_in_bytes();
    let mut shared = None;
    let mut unknown = None;
    while data.len().saturating_sub(r.at) > hash {
        let signature = r.take(4)?;
        let len = r.u32()? as usize;
        let body = r.take(len)?;
        match signature {
            b"link" => shared = Some(body.get(..hash).ok_or("a `link` extension too short")?),
            // A sparse index's marker: its directories are entries.
            b"sdir" => {}
            s if s[0].is_ascii_lowercase() => unknown = Some(String::from_utf8_lossy(s).into()),
            _ => {}
        }
    }
    if data.len() - r.at != hash {
        return Err(format!("the index does not end in its {hash}-byte checksum"));
    }
    state.sort_entries();
    let shared = shared.map(|id| id.iter().map(|b| format!("{b:02x}")).collect());
    Ok(Some(Read { state, long, shared, unknown }))
}

/// A cursor over the bytes of the index; running past their end is an error.
struct Bytes<'a> {
    data: &'a [u8],
    at: usize,
}

impl<'a> Bytes<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.data.len());
        let got = end
            .map(|e| &self.data[self.at..e])
            .ok_or("the index ends inside an entry or extension")?;
        self.at += n;
        Ok(got)
    }

    fn u32(&mut self) -> Result<u32, String> {
        let b = self.take(4)?;
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn u16(&mut self) -> Result<u16, String> {
        let b = self.take(2)?;
        Ok(u16::from_be_bytes([b[0], b[1]]))
    }
}

/// How errors name the index: from the working tree's root, as they name its files
/// (`.git/index`; a linked worktree's is `../main/.git/worktrees/w/index`), absolute only
/// when the two share nothing but the file system's root.
pub(super) fn shown(index: &Path, workdir: &Path) -> String {
    let (Some(index), Some(root)) = (plain(index), plain(workdir)) else {
        return index.display().to_string();
    };
    let (a, b): (Vec<Component>, Vec<Component>) =
        (index.components().collect(), root.components().collect());
    let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    if common < 2 {
        return index.display().to_string();
    }
    let up = std::iter::repeat_n("..".to_string(), b.len() - common);
    let down = a[common..].iter().map(|c| c.as_os_str().to_string_lossy().into_owned());
    up.chain(down).collect::<Vec<_>>().join("/")
}

/// `p` absolute, without `.` and `..` (read as written, as git reads `GIT_DIR`).
fn plain(p: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for c in std::path::absolute(p).ok()?.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            c => out.push(c),
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHA1: gix::hash::Kind = gix::hash::Kind::Sha1;

    /// An index of `version` holding `paths` (blob id 0x11…, stage 0), as git writes it.
    fn index(version: u32, paths: &[&[u8]], extensions: &[u8]) -> Vec<u8> {
        let mut out = b"DIRC".to_vec();
        out.extend(version.to_be_bytes());
        out.extend((paths.len() as u32).to_be_bytes());
        for p in paths {
            let start = out.len();
            out.extend([0u8; 24]); // times, dev, ino
            out.extend(0o100644u32.to_be_bytes());
            out.extend([0u8; 12]); // uid, gid, size
            out.extend([0x11u8; 20]);
            out.extend(u16::try_from(p.len().min(LONG)).unwrap().to_be_bytes());
            out.extend(*p);
            let len = out.len() - start;
            out.extend(std::iter::repeat_n(0u8, (len + 8) / 8 * 8 - len));
        }
        out.extend(extensions);
        let id = gix::hash::hasher(SHA1);
        let mut h = id;
        h.update(&out);
        out.extend(h.try_finalize().unwrap().as_bytes());
        out
    }

    fn paths(s: &State) -> Vec<Vec<u8>> {
        s.entries().iter().map(|e| e.path(s).to_vec()).collect()
    }

    /// The entries of an index holding a long path, as [`long_paths`] reads them.
    fn read(data: &[u8]) -> Result<Option<State>, String> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index");
        std::fs::write(&path, data).unwrap();
        long_paths(&path, SHA1)
    }

    #[test]
    fn entries_with_long_paths_are_read_with_their_padding() {
        // Every padding a long path can have (its length mod 8), and ordinary ones after it.
        for extra in 0..8 {
            let long = vec![b'a'; 4095 + extra];
            let data = index(2, &[b"a.tf", &long, b"b/main.tf"], b"");
            let state = read(&data).unwrap().unwrap();
            let want = [b"a.tf".to_vec(), long.clone(), b"b/main.tf".to_vec()];
            assert_eq!(paths(&state), want, "{extra}");
            assert!(
                state
                    .entries()
                    .iter()
                    .all(|e| e.mode == Mode::FILE && e.id.as_bytes() == [0x11; 20])
            );
            assert!(state.entry_by_path(b"b/main.tf".as_bstr()).is_some());
        }
    }

    #[test]
    fn other_indexes_are_left_to_gix_and_what_cannot_be_read_is_refused() {
        let long = vec![b'x'; 5000];
        assert!(read(&index(2, &[b"a.tf"], b"")).unwrap().is_none());
        assert!(entries(&index(4, &[&long], b""), SHA1).unwrap().is_none());
        assert!(entries(b"JUNK", SHA1).unwrap().is_none());
        // Optional extensions are skipped, a sparse index's marker too.
        let tree = [b"TREE".as_slice(), &3u32.to_be_bytes(), b"abc", b"sdir", &0u32.to_be_bytes()]
            .concat();
        assert!(read(&index(3, &[&long], &tree)).unwrap().is_some());
        // A split index names its shared index.
        let link = [b"link".as_slice(), &20u32.to_be_bytes(), &[0xabu8; 20]].concat();
        let split = entries(&index(2, &[b"a.tf"], &link), SHA1).unwrap().unwrap();
        assert_eq!(split.shared, Some("ab".repeat(20)));
        assert!(read(&index(2, &[b"a.tf"], &link)).unwrap().is_none());
        assert!(read(&index(2, &[&long], &link)).err().unwrap().contains("split index"));
        let odd = [b"zzzz".as_slice(), &0u32.to_be_bytes()].concat();
        assert!(read(&index(2, &[&long], &odd)).err().unwrap().contains("zzzz"));
        assert!(read(&index(2, &[b"a.tf"], &odd)).unwrap().is_none());
        // A short path whose length field says it is long is damage.
        let mut short = index(2, &[b"a.tf"], b"");
        short[12 + 60..12 + 62].copy_from_slice(&0x0fffu16.to_be_bytes());
        assert!(entries(&short, SHA1).is_err());
        // Cut anywhere: an error, never a panic or a wrong answer.
        let whole = index(2, &[b"a.tf", &long], b"");
        for cut in 0..whole.len() {
            assert!(!matches!(entries(&whole[..cut], SHA1), Ok(Some(_))), "cut at {cut}");
        }
    }

    #[test]
    fn the_index_is_named_from_the_working_tree() {
        assert_eq!(shown(Path::new("/r/./.git/index"), Path::new("/r/.")), ".git/index");
        assert_eq!(shown(Path::new("/r/app/../.git/index"), Path::new("/r/app/..")), ".git/index");
        assert_eq!(
            shown(Path::new("/m/.git/worktrees/w/index"), Path::new("/w2")),
            "/m/.git/worktrees/w/index"
        );
        assert_eq!(
            shown(Path::new("/x/m/.git/worktrees/w/index"), Path::new("/x/w")),
            "../m/.git/worktrees/w/index"
        );
    }
}
