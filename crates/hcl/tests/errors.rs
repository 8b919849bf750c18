//! The parser's error paths one construct at a time: a whole file stops reporting after its
//! first error's recovery, so each case here is a line (or two) of its own, with the
//! diagnostics HCL gives for it (byte range and summary, in order; the details are HCL's
//! words, checked by the corpus and by the tool's syntax fixtures). Each case was loaded
//! as a module by Terraform 1.15.5: the same summaries (besides the `Unsupported argument`
//! and `Unsupported block type` its schema adds for the top-level names), on the same lines;
//! the byte ranges are HCL's, which Terraform reports as lines only.
#![allow(unreachable_pub)]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use override_guard_hcl::parse_config;

/// `(text, "start..end summary | …")`; `""` for none.
const CASES: &[(&str, &str)] = &[
    ("a = \"${ x : y }\"\n", "10..11 Extra characters after interpolation expression"),
    ("a = \"${ x y }\"\n", "10..11 Extra characters after interpolation expression"),
    (
        "a = \"${ x \"\n",
        "11..12 Invalid multi-line string | 5..7 Unclosed template interpolation sequence",
    ),
    ("a = <<EOT\n${ x\nEOT\n", "15..18 Extra characters after interpolation expression"),
    ("a = \"%{ 1 }\"\n", "8..9 Invalid template directive"),
    (
        "a = \"%{ fi }x%{ endif }\"\n",
        "8..10 Invalid template control keyword | 13..23 Unexpected endif directive",
    ),
    (
        "a = \"%{ for }%{ endfor }\"\n",
        "12..13 Invalid 'for' directive | 13..24 Unexpected endfor directive",
    ),
    (
        "a = \"%{ for k, }%{ endfor }\"\n",
        "15..16 Invalid 'for' directive | 16..27 Unexpected endfor directive",
    ),
    (
        "a = \"%{ for k, 1 }%{ endfor }\"\n",
        "15..16 Invalid 'for' directive | 18..29 Unexpected endfor directive",
    ),
    (
        "a = \"%{ for k v }%{ endfor }\"\n",
        "14..15 Invalid 'for' directive | 17..28 Unexpected endfor directive",
    ),
    ("a = \"%{ if x y }a%{ endif }\"\n", "13..14 Extra characters in if marker"),
    ("a = \"%{ if x }a%{ else z }b%{ endif }\"\n", "23..24 Extra characters in else marker"),
    ("a = \"%{ if x }a%{ endif z }\"\n", "24..25 Extra characters in endif marker"),
    ("a = \"%{ for v in x }a%{ endfor z }\"\n", "31..32 Extra characters in endfor marker"),
    ("a = \"%{ if x }a\"\n", "15..16 Unexpected end of template"),
    ("a = \"a ${~ \"b\" ~} c %{~ if true ~} d %{~ endif ~}\"\n", ""),
    ("a = x.1.2\n", "6..9 Invalid legacy index syntax"),
    ("a = x.*.1.2\n", "6..7 Invalid legacy index syntax"),
    ("a = x.*.*\n", "8..9 Nested splat expression not allowed"),
    ("a = x.*.+\n", "6..7 Invalid attribute name"),
    ("a = x.+\n", "6..7 Invalid attribute name"),
    ("a = x[*\n", "8..8 Missing close bracket on splat index"),
    ("a = x[*]\n", ""),
    ("a = x[0\n", "8..8 Missing close bracket on index"),
    ("a = x[0]].b\n", "8..9 Missing newline after argument"),
    ("a = x.*.b.0\n", ""),
    ("a { b = 1, c = 2 }\n", "9..10 Invalid single-argument block definition"),
    ("a { b = 1\n}\n", "9..10 Invalid single-argument block definition"),
    ("a { b = 1 c }\n", "10..11 Invalid single-argument block definition"),
    ("a { b = 1 }\n", ""),
    ("a { b = 1", "2..3 Unclosed configuration block"),
    ("a = { b = 1 } {\n", "14..15 Missing newline after argument"),
    ("a b = 1\n", "4..5 Invalid block definition"),
    ("a \"b\"\n{\n}\n", "5..6 Invalid block definition"),
];

fn diagnostics(text: &str) -> String {
    let (_, errors) = parse_config(text);
    let shown: Vec<String> = errors
        .iter()
        .map(|e| format!("{}..{} {}", e.range.start, e.range.end, e.summary))
        .collect();
    shown.join(" | ")
}

#[test]
fn each_error_path_gives_hcls_diagnostics() {
    let failed: Vec<String> = CASES
        .iter()
        .filter(|(text, want)| diagnostics(text) != *want)
        .map(|(text, want)| format!("{text:?}: want {want:?}, got {:?}", diagnostics(text)))
        .collect();
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}
