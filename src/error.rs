//! Why a run could not read, list or write what it needed. Every message reads
//! `subject: what`, the subject being a path (as the user knows it, once the app has
//! rewritten it), a revision or an argument: the CLI prints it as `error: {message}`.
//! The codes are written as text: as paths they would read like imports of the crate's
//! root, which stands above this file.

use std::io;
use std::sync::Arc;

/// A failure of git (gix) itself, kept whole for whoever wants more than its first line.
/// Shared (`Arc`) for the same reason as [`Error`]'s I/O errors.
pub(crate) type GitCause = Arc<dyn std::error::Error + Send + Sync>;

/// What went wrong, with its cause where there is one.
///
/// `Clone` because a worktree source lists its files once and hands the outcome, a
/// failure included, to every caller; I/O and git causes are not `Clone`, so they are
/// shared through an `Arc`. The cause's text is part of the message (the CLI prints one
/// line, as before) and is also kept as the [`std::error::Error::source`].
#[derive(Clone, Debug, thiserror::Error, miette::Diagnostic)]
pub enum Error {
    /// Reading, listing, opening or writing a file or directory failed.
    #[error("{path}: {source}")]
    #[diagnostic(code("override_guard::io"))]
    Io {
        path: String,
        #[source]
        source: Arc<io::Error>,
    },

    /// The directory walk (ignore rules, a directory that vanished) failed.
    #[error("{path}: {source}")]
    #[diagnostic(code("override_guard::io"))]
    Walk {
        path: String,
        #[source]
        source: ignore::Error,
    },

    #[error("{path}: not a directory")]
    #[diagnostic(code("override_guard::not_a_directory"))]
    NotADirectory { path: String },

    #[error("{path}: is a directory")]
    #[diagnostic(code("override_guard::is_a_directory"))]
    IsADirectory { path: String },

    /// A FIFO, a socket or a device where a configuration file was expected.
    #[error("{path}: not a regular file; not read")]
    #[diagnostic(
        code("override_guard::not_a_file"),
        help("reading a FIFO or a device could block or never end")
    )]
    NotAFile { path: String },

    /// A file over the bound of what is read from one file of its kind
    /// (see `source::disk`): a huge file, or one that grows without end,
    /// would take all the memory there is.
    #[error("{path}: {size} bytes, more than the {} override-guard reads from one such file; not read", size_text(*.limit))]
    #[diagnostic(code("override_guard::too_large"))]
    TooLarge { path: String, size: u64, limit: u64 },

    /// A directory the user named resolves outside the repository.
    #[error("{path}: a symbolic link to a directory outside the repository; not read")]
    #[diagnostic(
        code("override_guard::link_outside"),
        help("what a repository links to outside itself is not its content")
    )]
    DirectoryLinkOutside { path: String },

    /// A configuration file is a link leading out of the repository.
    #[error("{path}: {}", LINK_OUTSIDE)]
    #[diagnostic(
        code("override_guard::link_outside"),
        help("what a repository links to outside itself is not its content")
    )]
    LinkOutside { path: String },

    /// A configuration file is a link that leads nowhere: dangling, looping, or to what
    /// is not a file. Terraform fails that module ("Failed to read file"), and so do we.
    #[error("{path}: {why}")]
    #[diagnostic(code("override_guard::broken_link"))]
    BrokenLink {
        path: String,
        why: String,
        /// Its target does not exist (as opposed to a loop, or a directory).
        missing: bool,
        /// The system's error number, when the system said why (a loop).
        os: Option<i32>,
    },

    /// A path named on the command line lies in a repository, as written, and leads out of
    /// it through a link (its own, or a directory's on its way).
    #[error(
        "{path}: a symbolic link leading out of the repository it is in, or a path through one; not used (name the place it points to, to use that)"
    )]
    #[diagnostic(
        code("override_guard::link_outside"),
        help("what a repository links to outside itself is not its content")
    )]
    NamedLinkOutside { path: String },

    /// A policy file is a link leading out of the repository.
    #[error(
        "{path}: a symbolic link leading out of the repository; not read (name it with --policy to use it)"
    )]
    #[diagnostic(code("override_guard::link_outside"))]
    PolicyLinkOutside { path: String },

    /// A configuration file's name is not UTF-8: Terraform would read it, so skipping it
    /// would judge another module than the one Terraform loads.
    #[error(
        "{path}: the path is not valid UTF-8: override-guard cannot judge the module Terraform would load; rename it"
    )]
    #[diagnostic(code("override_guard::path_not_utf8"))]
    PathNotUtf8 { path: String },

    /// A policy file or a baseline is not UTF-8 text.
    #[error("{path}: not UTF-8")]
    #[diagnostic(code("override_guard::not_utf8"))]
    NotUtf8 {
        path: String,
        #[source]
        source: std::str::Utf8Error,
    },

    /// In-memory sources (tests, content not on disk) have no such file.
    #[error("{path}: no such file")]
    #[diagnostic(code("override_guard::no_such_file"))]
    NoSuchFile { path: String },

    /// A git state (`the index`, a revision) does not hold the file asked for.
    #[error("{path}: not in {state}")]
    #[diagnostic(code("override_guard::git::missing"))]
    NotInState { path: String, state: String },

    /// A file of a git state was asked for before its module's blobs were read.
    #[error("{path}: not loaded from {state}")]
    #[diagnostic(code("override_guard::git::not_loaded"))]
    NotLoaded { path: String, state: String },

    #[error("{path}: not in a git repository ({})", brief(.source))]
    #[diagnostic(
        code("override_guard::git::no_repository"),
        help("`--staged`, `--rev`, `check` and `diff` read git: run them inside a repository")
    )]
    NotARepository {
        path: String,
        #[source]
        source: GitCause,
    },

    #[error("{rev}: unknown revision ({})", brief(.source))]
    #[diagnostic(
        code("override_guard::git::unknown_revision"),
        help("name a branch, a tag, a commit id or an expression such as `HEAD~1`")
    )]
    UnknownRevision {
        rev: String,
        #[source]
        source: GitCause,
    },

    #[error("{rev}: not a commit")]
    #[diagnostic(code("override_guard::git::not_a_commit"))]
    NotACommit { rev: String },

    #[error("{rev}: not a tree, commit or tag")]
    #[diagnostic(code("override_guard::git::not_a_tree"))]
    NotATree { rev: String },

    /// `A...B` of two revisions that share no history.
    #[error("{range}: no common ancestor")]
    #[diagnostic(
        code("override_guard::git::no_merge_base"),
        help("`A..B` compares the two revisions themselves")
    )]
    NoMergeBase { range: String },

    /// Any other failure of git: an object or an index that cannot be read. Only the
    /// first line is shown: the rest of a gix error's chain repeats the context.
    #[error("{path}: {}", brief(.source))]
    #[diagnostic(code("override_guard::git"))]
    Git {
        path: String,
        #[source]
        source: GitCause,
    },

    /// The index was asked for in a bare repository.
    #[error(
        "{path}: a bare repository has no index or worktree; read a revision instead (`audit --rev REV`, `show --rev REV`, `diff A B`)"
    )]
    #[diagnostic(code("override_guard::git::bare"))]
    BareIndex { path: String },

    /// The worktree was asked for in a bare repository.
    #[error(
        "{path}: a bare repository has no worktree; read a revision instead (`audit --rev REV`, `show --rev REV`, `diff A B`)"
    )]
    #[diagnostic(code("override_guard::git::bare"))]
    BareWorktree { path: String },

    /// Configuration files with conflicts in the index (`paths`, comma-separated): what
    /// the commit will hold is not decided yet.
    #[error(
        "{paths}: unmerged (a merge or rebase is in progress): resolve the conflict and stage the result first"
    )]
    #[diagnostic(code("override_guard::git::unmerged"))]
    Unmerged { paths: String },

    /// Only one end of `--from-ref/--to-ref` (or of the framework's variables).
    #[error("--from-ref/--to-ref: name both ends of the range, or neither")]
    #[diagnostic(
        code("override_guard::usage"),
        help("PRE_COMMIT_FROM_REF and PRE_COMMIT_TO_REF stand in for the flags")
    )]
    HalfRange,

    #[error("{revs}: at most two revisions")]
    #[diagnostic(
        code("override_guard::usage"),
        help("`diff` takes no revision, `A`, `A B`, `A..B` or `A...B`")
    )]
    TooManyRevisions { revs: String },

    /// A path the user named lies outside the repository's working tree.
    #[error("{path}: outside the repository's working tree")]
    #[diagnostic(code("override_guard::usage"))]
    OutsideWorktree { path: String },

    /// A file the hook must read from git (a baseline) lies outside the repository.
    #[error("{path}: outside the repository")]
    #[diagnostic(code("override_guard::usage"))]
    OutsideRepository { path: String },

    /// Directories of two repositories in one run: paths are relative to one root.
    #[error("{path}: not in the same git repository as {first}: name one repository at a time")]
    #[diagnostic(code("override_guard::usage"))]
    OtherRepository { path: String, first: String },

    /// A path given to `fold` that names no file (`..`, `/`).
    #[error("{path}: not a file name")]
    #[diagnostic(code("override_guard::usage"))]
    NotAFileName { path: String },

    /// A directory given to `fold`, which takes files.
    #[error("{path}: a directory; name the override files to fold")]
    #[diagnostic(code("override_guard::usage"))]
    FoldDirectory { path: String },

    #[error("{path}: no Terraform or OpenTofu configuration files here")]
    #[diagnostic(
        code("override_guard::no_configuration"),
        help("a module is a directory holding `.tf`, `.tf.json`, `.tofu` or `.tofu.json` files")
    )]
    NoConfiguration { path: String },

    /// No configuration in the directory named, but modules below it: the user likely
    /// meant one of them. `modules` as shown, `dir` as `audit` would take it.
    #[error(
        "{path}: no Terraform or OpenTofu configuration files here; its modules are in subdirectories: {} (show one of them, or audit them all with `override-guard audit {dir}`)",
        listed(.modules)
    )]
    #[diagnostic(code("override_guard::no_configuration"))]
    ModulesBelow { path: String, modules: Vec<String>, dir: String },

    #[error("{path}: cannot read the baseline: {source}")]
    #[diagnostic(code("override_guard::baseline"))]
    ReadBaseline {
        path: String,
        #[source]
        source: Arc<io::Error>,
    },

    /// A baseline that does not parse; `message` says where and why.
    #[error("{path}: {message}")]
    #[diagnostic(
        code("override_guard::baseline"),
        help("`override-guard audit --write-baseline FILE` writes a new one")
    )]
    BadBaseline { path: String, message: String },

    /// The hook reads the baseline from the state it judges (`state`), which lacks it.
    #[error(
        "{path}: not in {state}: the hook reads the baseline from what it judges; stage it (`git add`)"
    )]
    #[diagnostic(code("override_guard::baseline"))]
    BaselineNotStaged { path: String, state: String },

    /// A file named to the hook that exists nowhere: not on disk, not in the state
    /// judged, not among the change's deletions (the framework never passes such a path).
    #[error("{path}: no such file, in the worktree or in {state}")]
    #[diagnostic(code("override_guard::usage"))]
    NoFileToCheck { path: String, state: String },

    /// Renaming over a link would replace the link, not what it points at.
    #[error(
        "{path}: a symbolic link: nothing is written through links; edit the file it points to"
    )]
    #[diagnostic(code("override_guard::write"))]
    WriteThroughLink { path: String },

    #[error("{path}: not a regular file")]
    #[diagnostic(code("override_guard::write"))]
    WriteNotAFile { path: String },

    /// The file is not UTF-8: it was read as Terraform reads it (a JSON file's broken
    /// bytes as U+FFFD), and writing that back would change bytes the user did not ask to.
    #[error(
        "{path}: not UTF-8 (its broken bytes were read as U+FFFD, as Terraform reads them); override-guard does not rewrite it, nothing was written"
    )]
    #[diagnostic(code("override_guard::write"))]
    WriteNotUtf8 { path: String },

    /// The file changed between planning and writing: the plan is stale.
    #[error(
        "{path}: changed while override-guard was running; it was left alone, run override-guard again"
    )]
    #[diagnostic(code("override_guard::write"))]
    ChangedMeanwhile { path: String },

    /// A multi-file change stopped before this file: an earlier one could not be written.
    #[error("{path}: not written: the change stopped at an earlier file")]
    #[diagnostic(code("override_guard::write"))]
    NotReached { path: String },

    #[error("{path}: cannot write a temporary file beside it: {source}")]
    #[diagnostic(code("override_guard::write"))]
    TempFile {
        path: String,
        #[source]
        source: Arc<io::Error>,
    },

    #[error("{path}: cannot replace it: {source}")]
    #[diagnostic(code("override_guard::write"))]
    Replace {
        path: String,
        #[source]
        source: Arc<io::Error>,
    },

    #[error("{path}: cannot delete it: {source}")]
    #[diagnostic(code("override_guard::write"))]
    Delete {
        path: String,
        #[source]
        source: Arc<io::Error>,
    },

    /// Writing the report failed (a full disk, a closed file): a cut-short report must not
    /// pass for a whole one.
    #[error("standard output: the output could not be written whole: {source}")]
    #[diagnostic(code("override_guard::io"))]
    Stdout {
        #[source]
        source: Arc<io::Error>,
    },

    /// The language server could not speak with its editor (a broken stream, a first
    /// message that is not `initialize`).
    #[error("language server: {message}")]
    #[diagnostic(code("override_guard::lsp"))]
    Protocol { message: String },

    /// `flatten`, `scan` or `remap` asked for something they cannot do (an output
    /// directory that holds the tree, a command without `{}`, a report that is not SARIF).
    #[error("{message}")]
    #[diagnostic(code("override_guard::usage"))]
    Usage { message: String },
}

impl Error {
    /// An I/O failure about `path`.
    pub fn io(path: impl Into<String>, source: io::Error) -> Error {
        Error::Io { path: path.into(), source: Arc::new(source) }
    }

    /// The same error about another spelling of its subject: paths are found relative to
    /// a source's root, and shown as the user named them (or escaped, for a terminal).
    /// The subjects that are fixed text (`standard output`, `--from-ref/--to-ref`) stay.
    pub fn map_path(self, f: impl FnOnce(&str) -> String) -> Error {
        use Error::*;
        let mut this = self;
        match &mut this {
            Io { path, .. }
            | Walk { path, .. }
            | NotADirectory { path }
            | IsADirectory { path }
            | NotAFile { path }
            | TooLarge { path, .. }
            | DirectoryLinkOutside { path }
            | LinkOutside { path }
            | NamedLinkOutside { path }
            | BrokenLink { path, .. }
            | PolicyLinkOutside { path }
            | PathNotUtf8 { path }
            | NotUtf8 { path, .. }
            | NoSuchFile { path }
            | NotInState { path, .. }
            | NotLoaded { path, .. }
            | NotARepository { path, .. }
            | UnknownRevision { rev: path, .. }
            | NotACommit { rev: path }
            | NotATree { rev: path }
            | NoMergeBase { range: path }
            | Git { path, .. }
            | BareIndex { path }
            | BareWorktree { path }
            | Unmerged { paths: path }
            | TooManyRevisions { revs: path }
            | OutsideWorktree { path }
            | OutsideRepository { path }
            | OtherRepository { path, .. }
            | NotAFileName { path }
            | FoldDirectory { path }
            | NoConfiguration { path }
            | ModulesBelow { path, .. }
            | ReadBaseline { path, .. }
            | BadBaseline { path, .. }
            | BaselineNotStaged { path, .. }
            | NoFileToCheck { path, .. }
            | WriteThroughLink { path }
            | WriteNotAFile { path }
            | WriteNotUtf8 { path }
            | ChangedMeanwhile { path }
            | NotReached { path }
            | TempFile { path, .. }
            | Replace { path, .. }
            | Delete { path, .. } => *path = f(path),
            HalfRange | Stdout { .. } | Protocol { .. } | Usage { .. } => {}
        }
        this
    }
}

impl Error {
    /// The error Go's `os.ReadFile` gives for this failure of file `name`, which Terraform
    /// quotes for a variables file ("open x: permission denied", "read x: is a
    /// directory"): Go names the call that failed and the system's text in lower case.
    pub fn go_text(&self, name: &str) -> Option<String> {
        /// `EISDIR`: Go opens a directory and fails when it reads it.
        const EISDIR: i32 = 21;
        let os = match self {
            Error::Io { source, .. } => source.raw_os_error(),
            Error::BrokenLink { os, .. } => *os,
            Error::IsADirectory { .. } => Some(EISDIR),
            _ => None,
        }?;
        if os == EISDIR {
            return Some(format!("read {name}: is a directory"));
        }
        let text = io::Error::from_raw_os_error(os).to_string();
        let text = text.split(" (os error").next().unwrap_or_default();
        let mut c = text.chars();
        let lower: String = c.next().map(|f| f.to_lowercase().collect()).unwrap_or_default();
        Some(format!("open {name}: {lower}{}", c.as_str()))
    }
}

/// Why a link out of the repository is not read, for errors and for the notes about
/// links a listing skipped.
pub(crate) const LINK_OUTSIDE: &str = "symbolic link leading out of the repository; not read";

/// The first line of a gix error: its chain repeats the context, which reads badly.
fn brief(e: &GitCause) -> String {
    e.to_string().lines().next().unwrap_or_default().to_string()
}

/// A size for people: `128 MiB`, `3.2 GiB`, `812 bytes`.
pub(crate) fn size_text(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if bytes < 1024 {
        return format!("{bytes} bytes");
    }
    let mut v = bytes as f64 / 1024.0;
    let mut unit = 0;
    while v >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    if v.fract() == 0.0 || v >= 100.0 {
        format!("{v:.0} {}", UNITS[unit])
    } else {
        format!("{v:.1} {}", UNITS[unit])
    }
}

/// At most three modules, then how many more.
fn listed(modules: &[String]) -> String {
    let more =
        if modules.len() > 3 { format!(" and {} more", modules.len() - 3) } else { String::new() };
    format!("{}{more}", modules.iter().take(3).cloned().collect::<Vec<_>>().join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_as_people_write_them() {
        assert_eq!(size_text(812), "812 bytes");
        assert_eq!(size_text(128 << 20), "128 MiB");
        assert_eq!(size_text(3 << 29), "1.5 GiB");
        assert_eq!(size_text(1536), "1.5 KiB");
    }

    #[test]
    fn messages_lead_with_the_subject_which_map_path_rewrites() {
        let e = Error::ModulesBelow {
            path: "envs".into(),
            modules: ["a", "b", "c", "d", "e"].map(String::from).to_vec(),
            dir: "envs".into(),
        };
        assert_eq!(
            e.map_path(|p| format!("./{p}")).to_string(),
            "./envs: no Terraform or OpenTofu configuration files here; its modules are in subdirectories: a, b, c and 2 more (show one of them, or audit them all with `override-guard audit envs`)"
        );
        let io = Error::io("main.tf", io::Error::from(io::ErrorKind::PermissionDenied));
        assert!(std::error::Error::source(&io).is_some());
        assert_eq!(
            Error::HalfRange.map_path(|_| "x".into()).to_string(),
            "--from-ref/--to-ref: name both ends of the range, or neither"
        );
    }
}
