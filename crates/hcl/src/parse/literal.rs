//! Literal text: escapes resolved as HCL resolves them, and Go's `%q` quoting for the
//! messages that quote user text.

use crate::error::SyntaxError;

/// A string as Go's `%q` shows it, without the quotes (for the few messages that quote
/// user text that way).
pub fn go_quote_inner(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                out.push_str(&format!("\\x{:02x}", c as u32))
            }
            c => out.push(c),
        }
    }
    out
}

/// A template literal's text with its escapes resolved (HCL's `ParseStringLiteralToken`):
/// backslash escapes in quoted strings, `$${` and `%%{` everywhere.
pub fn unescape(text: &str, at: usize, quoted: bool) -> (String, Vec<SyntaxError>) {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut errors = Vec::new();
    let mut i = 0;
    let mut lit_start = 0;
    let flush = |out: &mut String, from: usize, to: usize| {
        if let Some(s) = text.get(from..to) {
            out.push_str(s);
        }
    };
    while i < b.len() {
        match b[i] {
            b'\\' if quoted => {
                flush(&mut out, lit_start, i);
                let start = i;
                let Some(&sel) = b.get(i + 1) else {
                    errors.push(SyntaxError {
                        summary: "Invalid escape sequence".into(),
                        detail:
                            "Backslash must be followed by an escape sequence selector character."
                                .into(),
                        range: at + i..at + i + 1,
                    });
                    out.push('\\');
                    i += 1;
                    lit_start = i;
                    continue;
                };
                match sel {
                    b'n' => out.push('\n'),
                    b'r' => out.push('\r'),
                    b't' => out.push('\t'),
                    b'"' => out.push('"'),
                    b'\\' => out.push('\\'),
                    b'u' | b'U' => {
                        let max = if sel == b'u' { 4 } else { 8 };
                        let mut j = i + 2;
                        while j < b.len() && j < i + 2 + max && b[j].is_ascii_hexdigit() {
                            j += 1;
                        }
                        let slice = &text[i..j];
                        i = j;
                        lit_start = i;
                        if j - start - 2 != max {
                            errors.push(SyntaxError {
                                summary: "Invalid escape sequence".into(),
                                detail: if sel == b'u' {
                                    "The \\u escape sequence must be followed by four hexadecimal digits.".into()
                                } else {
                                    "The \\U escape sequence must be followed by eight hexadecimal digits.".into()
                                },
                                range: at + start..at + j,
                            });
                            out.push_str(slice);
                            continue;
                        }
                        let n = u32::from_str_radix(&slice[2..], 16).unwrap_or(u32::MAX);
                        match char::from_u32(n) {
                            Some(c) => out.push(c),
                            None => {
                                errors.push(SyntaxError {
                                    summary: "Invalid escape sequence".into(),
                                    detail: format!("Cannot encode character U+{n:04x} in UTF-8."),
                                    range: at + start..at + j,
                                });
                                out.push_str(slice);
                            }
                        }
                        continue;
                    }
                    _ => {
                        let n = text[i + 1..].chars().next().map_or(1, char::len_utf8);
                        let sym = &text[i + 1..i + 1 + n];
                        errors.push(SyntaxError {
                            summary: "Invalid escape sequence".into(),
                            detail: format!(
                                "The symbol \"{}\" is not a valid escape sequence selector.",
                                go_quote_inner(sym)
                            ),
                            range: at + i..at + i + 1 + n,
                        });
                        out.push_str(sym);
                        i += 1 + n;
                        lit_start = i;
                        continue;
                    }
                }
                i += 2;
                lit_start = i;
            }
            b'$' | b'%' if b.get(i + 1) == Some(&b[i]) && b.get(i + 2) == Some(&b'{') => {
                flush(&mut out, lit_start, i);
                out.push(b[i] as char);
                out.push('{');
                i += 3;
                lit_start = i;
            }
            _ => i += 1,
        }
    }
    flush(&mut out, lit_start, b.len());
    (out, errors)
}
