//! Bytes → one native-syntax file (`.tf` / `.tofu`), as `merge::load` parses it; a parse
//! error is drawn as the CLI draws it (its span must lie in the text).
#![no_main]

use std::sync::Arc;

use libfuzzer_sys::fuzz_target;
use override_guard::report::{self, Style};
use override_guard::terraform::{FileClass, Files, SourceText, Syntax, hcl};

fuzz_target!(|data: &[u8]| {
    // `merge::load` reports invalid UTF-8 itself and never parses it; every `&str` is a
    // valid input of the parser, so keep the fuzzer's bytes usable rather than rejecting.
    let text = String::from_utf8_lossy(data);
    let (_, diags) = hcl::parse_named(0, "main.tf", &text);
    let src = SourceText::new(
        "main.tf".into(),
        FileClass::Primary,
        Syntax::Hcl,
        Arc::from(text.as_ref()),
    );
    let files = Files { files: vec![src] };
    for d in &diags {
        let _ = report::compact(&files, d, "merge-error");
        let _ = report::human(&files, d, "merge-error", Style::plain());
    }
    // A standalone expression and a bare template (variable values, JSON strings) too.
    let _ = override_guard_hcl::parse_expression(&text);
    let _ = override_guard_hcl::parse_template(&text);
});
