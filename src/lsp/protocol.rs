//! The parts of the Language Server Protocol the server reads, as serde types. What it
//! sends is built as JSON where it is sent. The full type crate (lsp-types) describes all
//! of the protocol, a large crate to compile for the dozen shapes used here.

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Position {
    pub line: u32,
    pub character: u32,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Range {
    pub start: Position,
    pub end: Position,
}

#[derive(Clone, Debug, Deserialize)]
pub(crate) struct TextDocument {
    pub uri: String,
}

#[derive(Clone, Debug, Deserialize)]
pub(crate) struct OpenedDocument {
    pub uri: String,
    pub text: String,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct DidOpen {
    pub text_document: OpenedDocument,
}

/// A change: the whole text, or (incremental sync) a range replaced.
#[derive(Clone, Debug, Deserialize)]
pub(crate) struct ContentChange {
    pub range: Option<Range>,
    pub text: String,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct DidChange {
    pub text_document: TextDocument,
    pub content_changes: Vec<ContentChange>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct DocumentParams {
    pub text_document: TextDocument,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct PositionParams {
    pub text_document: TextDocument,
    pub position: Position,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RangeParams {
    pub text_document: TextDocument,
    pub range: Range,
}

#[derive(Clone, Debug, Deserialize)]
pub(crate) struct FileEvent {
    pub uri: String,
}

#[derive(Clone, Debug, Deserialize)]
pub(crate) struct DidChangeWatchedFiles {
    pub changes: Vec<FileEvent>,
}

/// What the server needs to know of the client's capabilities.
#[derive(Clone, Debug, Default)]
pub(crate) struct Client {
    pub utf8: bool,
    pub inlay_refresh: bool,
    pub watch_registration: bool,
    pub related_information: bool,
    /// Workspace edits may create, rename and delete files (`fold` deletes overrides).
    pub delete_files: bool,
    /// Code actions may come back disabled, with a reason.
    pub disabled_actions: bool,
}

impl Client {
    /// Reads the capabilities of an `initialize` request's parameters.
    pub(crate) fn of(init: &serde_json::Value) -> Client {
        let caps = &init["capabilities"];
        let has = |v: &serde_json::Value| v.as_bool().unwrap_or(false);
        let encodings = caps["general"]["positionEncodings"].as_array();
        Client {
            utf8: encodings.is_some_and(|e| e.iter().any(|x| x == "utf-8")),
            inlay_refresh: has(&caps["workspace"]["inlayHint"]["refreshSupport"]),
            watch_registration: has(
                &caps["workspace"]["didChangeWatchedFiles"]["dynamicRegistration"],
            ),
            related_information: has(
                &caps["textDocument"]["publishDiagnostics"]["relatedInformation"],
            ),
            delete_files: has(&caps["workspace"]["workspaceEdit"]["documentChanges"])
                && caps["workspace"]["workspaceEdit"]["resourceOperations"]
                    .as_array()
                    .is_some_and(|ops| ops.iter().any(|o| o == "delete")),
            disabled_actions: has(&caps["textDocument"]["codeAction"]["disabledSupport"]),
        }
    }
}
