//! The entries of a git state, as gix reads them: the index's and a sparse index's
//! entries, the one pass that finds a state's policy files, submodules and links (followed
//! inside the tree only), and the configuration files a state lists. With `git.rs` and
//! `index_file.rs`, the only files that know gix's types.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use gix::bstr::ByteSlice;
use gix::index::entry::{Mode, Stage};

use super::disk::Kind;
use super::file_list::FileList;
use super::{Error, POLICY_FILE, split};
use crate::terraform::{discover, pins};

/// A failure of gix about `path` (a path, a revision), kept as the error's cause.
pub(super) fn failed(
    path: impl Into<String>,
    e: impl std::error::Error + Send + Sync + 'static,
) -> Error {
    Error::Git { path: path.into(), source: Arc::new(e) }
}

/// A blob's bytes, when it holds at most `kind`'s bound: its size is asked first, so that
/// a small object that inflates to gigabytes (a committed file of zeros compresses a
/// thousandfold) is never inflated.
pub(super) fn read_blob(
    repo: &gix::Repository,
    id: gix::ObjectId,
    kind: Kind,
    path: &str,
) -> Result<Vec<u8>, Error> {
    let size = repo.find_header(id).map_err(|e| failed(path, e))?.size();
    if size > kind.limit() {
        return Err(Error::TooLarge { path: path.to_string(), size, limit: kind.limit() });
    }
    let blob = repo.find_blob(id).map_err(|e| failed(path, e))?;
    Ok(blob.detach().data)
}

/// One entry of a state: its path, mode and blob id.
#[derive(Clone, Copy)]
pub(super) struct Entry<'a> {
    pub(super) path: &'a [u8],
    pub(super) mode: Mode,
    pub(super) id: gix::ObjectId,
}

/// A policy file of a state: the blob id that tells it changed (its target's, for a link
/// followed), and its bytes, or why a link that stands for it is not followed. A policy
/// file that is there but cannot be read is an error, never a policy silently absent:
/// a change that replaces a strict policy by a link out of the repository must not pass
/// under the built-in default.
pub(super) type PolicyBlob = (gix::ObjectId, Result<Vec<u8>, Unfollowed>);

/// A state's entry by path: its mode and blob id (to follow a link).
pub(super) type Lookup<'a> = dyn Fn(&[u8]) -> Option<(Mode, gix::ObjectId)> + 'a;

/// A sparse index's directories, read from their trees: (path, mode, blob id).
pub(super) type Sparse = Vec<(Vec<u8>, Mode, gix::ObjectId)>;

/// What one pass over every entry of a state finds besides its configuration files.
pub(super) struct Special {
    pub(super) policies: BTreeMap<String, PolicyBlob>,
    pub(super) notes: Vec<(String, String)>,
    pub(super) broken: HashMap<String, &'static str>,
    /// Configuration files that are links, with the blob each stands for: its target's,
    /// or its own where it leads nowhere (see `broken`). A link out of the repository
    /// has a note instead.
    pub(super) links: HashMap<String, gix::ObjectId>,
    /// The version managers' pin files (`.terraform-version`, …; few: read up front), by
    /// path, with their blob: the release a module is judged for is read from its state.
    pub(super) pins: BTreeMap<String, (gix::ObjectId, Vec<u8>)>,
}

/// The entries of the index that are part of the next commit, then a sparse index's
/// directories read from their trees.
pub(super) fn index_entries<'a>(
    index: &'a gix::index::File,
    sparse: &'a Sparse,
) -> impl Iterator<Item = Entry<'a>> + 'a {
    index
        .entries()
        .iter()
        .filter(|e| {
            e.stage() == Stage::Unconflicted
                && e.mode != Mode::DIR
                // `git add -N`: announced, but not part of the next commit.
                && !e.flags.contains(gix::index::entry::Flags::INTENT_TO_ADD)
        })
        .map(|e| Entry { path: e.path(index).as_bytes(), mode: e.mode, id: e.id })
        .chain(sparse.iter().map(|(p, mode, id)| Entry { path: p, mode: *mode, id: *id }))
}

/// One entry of [`index_entries`] by path (a binary search, then the sparse ones).
pub(super) fn in_index(
    index: &gix::index::File,
    sparse: &Sparse,
    path: &[u8],
) -> Option<(Mode, gix::ObjectId)> {
    index
        .entry_by_path(path.as_bstr())
        .filter(|e| {
            e.stage() == Stage::Unconflicted
                && e.mode != Mode::DIR
                && !e.flags.contains(gix::index::entry::Flags::INTENT_TO_ADD)
        })
        .map(|e| (e.mode, e.id))
        .or_else(|| sparse.iter().find(|(p, ..)| p == path).map(|(_, mode, id)| (*mode, *id)))
}

/// Could this entry matter besides being a plain configuration file (a submodule, a link,
/// a policy file, a path that may not be UTF-8)? Asked of every entry of a large
/// monorepo's index, so it looks at bytes only.
fn special_entry(e: &Entry<'_>) -> bool {
    let policy = POLICY_FILE.as_bytes();
    let name = e.path.rsplit(|&b| b == b'/').next().unwrap_or_default();
    (e.mode != Mode::FILE && e.mode != Mode::FILE_EXECUTABLE)
        || !e.path.is_ascii()
        || (e.path.ends_with(policy)
            && (e.path.len() == policy.len() || e.path[e.path.len() - policy.len() - 1] == b'/'))
        || name.to_str().is_ok_and(pins::is_pin_file)
}

/// One pass over every entry of a state: its policy files (read), submodules, links to
/// configuration files (followed) and module files whose path is not UTF-8 (an error).
pub(super) fn special<'a>(
    repo: &gix::Repository,
    entries: impl Iterator<Item = Entry<'a>>,
    find: impl Fn(&[u8]) -> Option<(Mode, gix::ObjectId)>,
) -> Result<Special, Error> {
    let mut out = Special {
        policies: BTreeMap::new(),
        notes: Vec::new(),
        broken: HashMap::new(),
        links: HashMap::new(),
        pins: BTreeMap::new(),
    };
    for e in entries.filter(special_entry) {
        let Ok(path) = e.path.to_str() else {
            // Terraform reads such a file; skipping it would judge a module without it.
            let lossy = e.path.to_str_lossy();
            if discover::is_module_file(split(&lossy).1) {
                return Err(Error::PathNotUtf8 { path: lossy.into_owned() });
            }
            continue;
        };
        if e.mode == Mode::COMMIT {
            out.notes.push((
                path.to_string(),
                "submodule skipped (audit it in its own repository)".into(),
            ));
            continue;
        }
        let name = split(path).1;
        let regular = e.mode == Mode::FILE || e.mode == Mode::FILE_EXECUTABLE;
        if pins::is_pin_file(name) {
            // A link is not followed: a pin is a small file a person writes.
            if regular {
                let bytes = read_blob(repo, e.id, Kind::Policy, path)?;
                out.pins.insert(path.to_string(), (e.id, bytes));
            }
            continue;
        }
        if name == POLICY_FILE && regular {
            let bytes = read_blob(repo, e.id, Kind::Policy, path)?;
            out.policies.insert(path.to_string(), (e.id, Ok(bytes)));
        } else if name == POLICY_FILE && e.mode == Mode::SYMLINK {
            let policy = match resolve_link(repo, &find, path, e.id) {
                Ok(id) => (id, Ok(read_blob(repo, id, Kind::Policy, path)?)),
                Err(why) => (e.id, Err(why)),
            };
            out.policies.insert(path.to_string(), policy);
        }
        if e.mode != Mode::SYMLINK || !listed(path, name) {
            continue;
        }
        match resolve_link(repo, &find, path, e.id) {
            Ok(id) => {
                out.links.insert(path.to_string(), id);
            }
            Err(Unfollowed::Outside(why)) => {
                out.notes.push((path.to_string(), format!("{why}; not read")));
            }
            Err(Unfollowed::Broken(why)) => {
                // The link's own blob: its module changes when its target does.
                out.broken.insert(path.to_string(), why);
                out.links.insert(path.to_string(), e.id);
            }
        }
    }
    Ok(out)
}

/// A configuration file a source lists: a listed name, not under `.terraform/`.
pub(super) fn listed(path: &str, name: &str) -> bool {
    discover::is_listed(name)
        && !(path.contains(".terraform") && path.split('/').any(|c| c == ".terraform"))
}

/// The configuration files among `entries` whose directory `keep` accepts (asked once
/// per directory: a directory's files sort together). A link stands for the blob
/// [`special`] found for it, and is left out where it found none.
pub(super) fn list<'a>(
    entries: impl Iterator<Item = Entry<'a>>,
    links: &HashMap<String, gix::ObjectId>,
    keep: impl Fn(&str) -> bool,
) -> FileList {
    let mut files = FileList::with_capacity(entries.size_hint().0);
    let mut last: Option<(&[u8], bool)> = None;
    for e in entries {
        let link = e.mode == Mode::SYMLINK;
        if !link && e.mode != Mode::FILE && e.mode != Mode::FILE_EXECUTABLE {
            continue;
        }
        let cut = e.path.iter().rposition(|&b| b == b'/');
        let (dir, name) = match cut {
            Some(i) => (&e.path[..i], &e.path[i + 1..]),
            None => (&e.path[..0], e.path),
        };
        // The directory first: in a large repository most are left out whole.
        let kept = match last {
            Some((d, known)) if d == dir => known,
            _ => {
                let known = dir.to_str().is_ok_and(&keep);
                last = Some((dir, known));
                known
            }
        };
        if !kept {
            continue;
        }
        let Ok(name) = name.to_str() else { continue };
        let Ok(path) = e.path.to_str() else { continue };
        if !listed(path, name) {
            continue;
        }
        let id = if link {
            match links.get(path) {
                Some(id) => *id,
                None => continue,
            }
        } else {
            e.id
        };
        files.push(path, name.len(), id);
    }
    files.finish()
}

/// Follows a symbolic link the way the checkout would, but only inside the same tree:
/// git stores the target as text, and a target outside the repository is not ours to read.
pub(super) fn resolve_link(
    repo: &gix::Repository,
    find: &Lookup<'_>,
    path: &str,
    id: gix::ObjectId,
) -> Result<gix::ObjectId, Unfollowed> {
    use Unfollowed::{Broken, Outside};
    let (mut path, mut id) = (path.to_string(), id);
    for _ in 0..8 {
        // A link's blob is its target's path: a longer one is no path a checkout makes.
        let size = repo.find_header(id).map_err(|_| Broken("symbolic link target unreadable"))?;
        if size.size() > 4096 {
            return Err(Broken("symbolic link target longer than any path"));
        }
        let blob = repo.find_blob(id).map_err(|_| Broken("symbolic link target unreadable"))?;
        let target = blob.data.to_str().map_err(|_| Broken("symbolic link target is not UTF-8"))?;
        if target.starts_with('/') {
            return Err(Outside("symbolic link to an absolute path, outside the repository"));
        }
        let joined = super::join(split(&path).0, target);
        let Some(resolved) = normalize(&joined) else {
            return Err(Outside("symbolic link leading out of the repository"));
        };
        let Some((mode, target)) = find(resolved.as_bytes()) else {
            return Err(Broken(MISSING_TARGET));
        };
        if mode == Mode::SYMLINK {
            (path, id) = (resolved, target);
            continue;
        }
        if mode == Mode::FILE || mode == Mode::FILE_EXECUTABLE {
            return Ok(target);
        }
        return Err(Broken("symbolic link to something that is not a file"));
    }
    Err(Broken("too many levels of symbolic links"))
}

/// Why a link to nothing in the state is not followed.
pub(super) const MISSING_TARGET: &str = "symbolic link to a path the repository does not have";

/// Why a link in a git state is not followed.
#[derive(Clone, Copy, Debug)]
pub(super) enum Unfollowed {
    /// It leads out of the repository: not the repository's content, skipped with a note.
    Outside(&'static str),
    /// It leads nowhere a checkout could read: its module fails, as Terraform's would.
    Broken(&'static str),
}

/// `a/./b/../c` → `a/c`; `None` when `..` climbs above the start.
pub(super) fn normalize(path: &str) -> Option<String> {
    let mut out: Vec<&str> = Vec::new();
    for c in path.split(['/', '\\']) {
        match c {
            "" | "." => {}
            ".." => {
                out.pop()?;
            }
            c => out.push(c),
        }
    }
    Some(out.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalize_stays_inside() {
        assert_eq!(normalize("a/./b/../c.tf").as_deref(), Some("a/c.tf"));
        assert_eq!(normalize("a/../../c.tf"), None);
        assert_eq!(normalize("../x"), None);
    }
}
