//! Bytes → one JSON-syntax file (`.tf.json` / `.tofu.json`), as `merge::load` parses it;
//! the diagnostics are drawn as the CLI draws them (their spans must lie in the text).
#![no_main]

use std::sync::Arc;

use libfuzzer_sys::fuzz_target;
use override_guard::report::{self, Style};
use override_guard::terraform::{FileClass, Files, SourceText, Syntax, json};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    // HCL's JSON checker alone, as the HCL crate runs it (spans within the text).
    for (_, _, start, end) in override_guard_hcl::json::check(&text) {
        assert!(start <= end && end <= text.len(), "{start}..{end} of {}", text.len());
    }
    // The first byte's low bit picks the class, so both primary and override decoding run.
    let (class, name) = if data.first().is_some_and(|b| b & 1 == 1) {
        (FileClass::Override, "a_override.tf.json")
    } else {
        (FileClass::Primary, "main.tf.json")
    };
    let src = SourceText::new(name.to_string(), class, Syntax::Json, Arc::from(text.as_ref()));
    let diags = match json::parse(0, &src) {
        Ok((_, diags)) => diags,
        Err(d) => d,
    };
    let files = Files { files: vec![src] };
    for d in &diags {
        let _ = report::compact(&files, d, "merge-error");
        let _ = report::human(&files, d, "merge-error", Style::plain());
    }
});
