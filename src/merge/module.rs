//! The effective configuration of one module as a value: its blocks, settings,
//! diagnostics and what it ignores, with where each came from. The data alone, below
//! everything that builds or reads it, so the merge's steps and its readers import it
//! without importing the merge itself.

use std::sync::Arc;

use crate::diag::Diagnostic;
use crate::terraform::choose::{self, Origin};
use crate::terraform::discover::{Engine, Skip};
use crate::terraform::release::Release;
use crate::terraform::{Attr, Block, FileClass, Files, Item, ParsedFile, SourceText, Span};

/// The effective configuration of one module, with provenance and Terraform's diagnostics.
#[derive(Clone, Debug)]
pub struct Module {
    /// Directory, relative to the source root (`""` for the root).
    pub dir: String,
    /// `release.engine`, the engine whose rules apply (kept apart: most readers ask only it).
    pub engine: Engine,
    /// The release judged for: what it merges, ignores and rejects (see
    /// [`crate::terraform::release`]).
    pub release: Release,
    /// Why that release: set by whoever chose it (a load alone knows only what it was
    /// asked), for the reports and `version-mismatch`.
    pub choice: ReleaseChoice,
    /// The loaded files, in merge order (primaries, then overrides).
    pub files: Files,
    /// Configuration-looking files that were not loaded, and why.
    pub skipped: Vec<(String, Skip)>,
    /// Effective top-level blocks other than `terraform` and `locals`, in declaration order.
    pub blocks: Vec<Block>,
    /// Effective local values, in declaration order.
    pub locals: Vec<Attr>,
    pub settings: Settings,
    pub diagnostics: Vec<Diagnostic>,
    /// Override content that Terraform reads but silently ignores.
    pub ignored: Vec<Ignored>,
    /// The override blocks (by `def_span`) that change nothing in the block they override:
    /// empty, or holding only what Terraform ignores. No change, for the rules and for the
    /// provenance (`# overridden by`). A value an override sets equal to the original's is
    /// a change: the override's value is the one that runs, whatever the original says later.
    pub unchanging: Vec<Span>,
    /// Every loaded file as parsed, before the merge: the policy compares originals with
    /// the override blocks that change them.
    /// Shared: the language server's parse cache and `merge::without_overrides` hand the
    /// same parses on instead of copying them.
    pub parsed: Vec<Arc<ParsedFile>>,
}

/// Where a module's release came from and what choosing it noticed.
#[derive(Clone, Debug, Default)]
pub struct ReleaseChoice {
    pub from: Origin,
    pub notes: Vec<choose::Finding>,
    /// The text of the pin file that chose (or was passed over), for the notes' sites.
    pub pin_text: Option<Arc<str>>,
}

/// The effective `terraform` block.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Settings {
    pub required_version: Vec<Attr>,
    /// One attribute per provider local name; the value is the requirement.
    pub required_providers: Vec<Attr>,
    /// The span of the `required_providers` block the entries were first declared in.
    pub required_providers_span: Option<Span>,
    /// At most one of backend, cloud and state_store after a valid merge.
    pub backend: Option<Block>,
    pub cloud: Option<Block>,
    pub state_store: Option<Block>,
    /// OpenTofu's state and plan encryption, merged.
    pub encryption: Option<Block>,
    /// Other content of primary `terraform` blocks (provider_meta, experiments, …).
    pub other: Vec<Item>,
    /// Primary files' `required_version` the release reads and then ignores (OpenTofu
    /// from 1.12 counts only `.tofu` files'): a constraint that constrains nothing.
    pub unread_versions: Vec<Attr>,
}

impl Settings {
    pub fn is_empty(&self) -> bool {
        self.required_version.is_empty()
            && self.required_providers.is_empty()
            && self.backend.is_none()
            && self.cloud.is_none()
            && self.state_store.is_none()
            && self.encryption.is_none()
            && self.other.is_empty()
    }
}

/// Something an override file says that has no effect.
#[derive(Clone, Debug, PartialEq)]
pub struct Ignored {
    pub span: Span,
    pub what: String,
    /// What to say at the span (most ignored content has no effect at all; a type set by an
    /// override file has, but its optional-attribute defaults do not).
    pub label: &'static str,
}

impl Module {
    /// A module of these files with nothing merged yet: where every load and every
    /// re-merge of already parsed files starts.
    pub(crate) fn unmerged(
        dir: String,
        release: Release,
        files: Files,
        skipped: Vec<(String, Skip)>,
    ) -> Module {
        Module {
            dir,
            engine: release.engine,
            release,
            choice: ReleaseChoice::default(),
            files,
            skipped,
            blocks: Vec::new(),
            locals: Vec::new(),
            settings: Settings::default(),
            diagnostics: Vec::new(),
            ignored: Vec::new(),
            unchanging: Vec::new(),
            parsed: Vec::new(),
        }
    }

    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }

    /// What reading and parsing the files reported (the rest of `diagnostics` is what
    /// decoding and merging them found). Empty for a module made by [`super::reassemble`].
    pub fn parse_diagnostics(&self) -> impl Iterator<Item = &Diagnostic> {
        self.parsed.iter().flat_map(|p| &p.diagnostics)
    }

    /// The override files of the module.
    pub fn override_files(&self) -> impl Iterator<Item = &SourceText> {
        self.files.files.iter().filter(|f| f.class == FileClass::Override)
    }

    /// Did something choose this module's release (a pin, a policy, `--engine` with a
    /// release, a `required_version` that excludes the newest), rather than the files
    /// alone with the engine's newest? What the reports then name.
    pub fn release_said(&self) -> bool {
        matches!(self.choice.from, Origin::Policy { .. } | Origin::Pin { .. })
            || self.release != Release::newest(self.engine)
    }

    /// Is this span in an override file?
    pub fn from_override(&self, span: Span) -> bool {
        self.files.files.get(span.file).is_some_and(|f| f.class == FileClass::Override)
    }
}

/// Does this file have a `.tofu`/`.tofu.json` extension?
pub(crate) fn tofu_file(m: &Module, file: crate::terraform::FileId) -> bool {
    let p = &m.files.get(file).path;
    p.ends_with(".tofu") || p.ends_with(".tofu.json")
}
