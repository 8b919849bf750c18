//! Sites in a module's files (`Site::in_module`, `Site::in_files`): how the policy's
//! findings point at what they are about. Below the context, the rules and the evaluation,
//! which make their findings' sites with it.

use crate::finding::Site;
use crate::merge::Module;
use crate::terraform::{Files, Span};

/// Sites are made from a module's files here: the finding types below the policy know
/// nothing of modules.
impl Site {
    /// A site in one of a module's files.
    pub fn in_module(m: &Module, span: Span, label: impl Into<String>) -> Site {
        Site::in_files(&m.files, span, label)
    }

    /// A place in one of `files` (a module's, or a variables report's).
    pub fn in_files(files: &Files, span: Span, label: impl Into<String>) -> Site {
        let f = files.get(span.file);
        Site {
            path: f.path.clone(),
            source: f.text.clone(),
            base: Default::default(),
            start: span.start.min(f.text.len()),
            end: span.end.min(f.text.len()),
            label: label.into(),
        }
    }
}
