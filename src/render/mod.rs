//! Printing an effective configuration: native HCL with provenance comments, Terraform's
//! JSON syntax, and override-guard's own JSON view. Pure: returns strings.

pub mod hcl;
pub mod json;
pub mod tfjson;

use crate::merge::Module;
use crate::terraform::Span;

/// `{"file": …, "line": …, "column": …}` of a span, with the module-relative file name.
pub(crate) fn location(m: &Module, span: Span) -> serde_json::Value {
    let f = m.files.get(span.file);
    let (line, column) = f.line_col(span.start);
    serde_json::json!({ "file": f.path, "line": line, "column": column })
}
