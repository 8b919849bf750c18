//! Tokens read back: HCL's checks of the tokens themselves (reported before any syntax
//! error), and whether two texts are the same code.

use crate::error::SyntaxError;
use crate::scan::{Mode, scan};
use crate::tokens::{Kind, Token};

/// HCL's checks of the tokens themselves, reported before any syntax error: characters
/// the language does not use, bitwise operators, broken UTF-8, quoted strings split over
/// lines. Some are reported once (or every other time), as HCL does.
pub fn invalid_tokens(src: &[u8], tokens: impl IntoIterator<Item = Token>) -> Vec<SyntaxError> {
    let mut out = Vec::new();
    let (mut bitwise, mut backtick, mut apostrophe, mut semicolon, mut bad_utf8) = (0, 0, 0, 0, 0);
    let mut push = |summary: &str, detail: &str, t: &Token| {
        out.push(SyntaxError {
            summary: summary.into(),
            detail: detail.into(),
            range: t.start..t.end,
        });
    };
    for t in tokens {
        let t = &t;
        match t.kind {
            Kind::BitwiseAnd | Kind::BitwiseOr | Kind::BitwiseXor | Kind::BitwiseNot
                if bitwise < 4 =>
            {
                let suggestion = match t.kind {
                    Kind::BitwiseAnd => " Did you mean boolean AND (\"&&\")?",
                    Kind::BitwiseOr => " Did you mean boolean OR (\"||\")?",
                    Kind::BitwiseNot => " Did you mean boolean NOT (\"!\")?",
                    _ => "",
                };
                push(
                    "Unsupported operator",
                    &format!("Bitwise operators are not supported.{suggestion}"),
                    t,
                );
                bitwise += 1;
            }
            Kind::Backtick => {
                if backtick % 2 == 0 {
                    push(
                        "Invalid character",
                        "The \"`\" character is not valid. To create a multi-line string, use the \"heredoc\" syntax, like \"<<EOT\".",
                        t,
                    );
                }
                if backtick <= 2 {
                    backtick += 1;
                }
            }
            Kind::Apostrophe => {
                if apostrophe % 2 == 0 {
                    push(
                        "Invalid character",
                        "Single quotes are not valid. Use double quotes (\") to enclose strings.",
                        t,
                    );
                }
                if apostrophe <= 2 {
                    apostrophe += 1;
                }
            }
            Kind::Semicolon if semicolon < 1 => {
                push(
                    "Invalid character",
                    "The \";\" character is not valid. Use newlines to separate arguments and blocks, and commas to separate items in collection values.",
                    t,
                );
                semicolon += 1;
            }
            Kind::BadUtf8 if bad_utf8 < 1 => {
                push(
                    "Invalid character encoding",
                    "All input files must be UTF-8 encoded. Ensure that UTF-8 encoding is selected in your editor.",
                    t,
                );
                bad_utf8 += 1;
            }
            Kind::QuotedNewline => push(
                "Invalid multi-line string",
                "Quoted strings may not be split over multiple lines. To produce a multi-line string, either use the \\n escape to represent a newline character or use the \"heredoc\" multi-line template syntax.",
                t,
            ),
            Kind::Invalid => {
                let text = t.text(src);
                if text == "\u{201c}".as_bytes() || text == "\u{201d}".as_bytes() {
                    push(
                        "Invalid character",
                        "\"Curly quotes\" are not valid here. These can sometimes be inadvertently introduced when sharing code via documents or discussion forums. It might help to replace the character with a \"straight quote\".",
                        t,
                    );
                } else {
                    push("Invalid character", "This character is not used within the language.", t);
                }
            }
            _ => {}
        }
    }
    out
}

/// Do two texts read as the same code, apart from comments and blank lines? What the
/// parser reads of a file is its tokens with comments and blank lines left out (a line
/// comment ends its line, as a newline does; a run of newlines is one), so an edit that
/// only adds, removes or moves comments and blank lines between tokens cannot change
/// what the file means. A `false` says nothing: the texts may still mean the same.
pub fn same_code(a: &str, b: &str) -> bool {
    same_code_scanned(a, &scan(a.as_bytes(), Mode::Normal), b)
}

/// [`same_code`] for a text already scanned (`ta`: `a`'s tokens in [`Mode::Normal`]).
pub fn same_code_scanned(a: &str, ta: &[Token], b: &str) -> bool {
    let tb = scan(b.as_bytes(), Mode::Normal);
    let (mut x, mut y) = (code_tokens(ta, a.as_bytes()), code_tokens(&tb, b.as_bytes()));
    loop {
        match (x.next(), y.next()) {
            (None, None) => return true,
            (Some((kx, tx)), Some((ky, ty))) if kx == ky && same_bytes(tx, ty) => {}
            _ => return false,
        }
    }
}

/// Byte equality for the short texts of tokens, compared in place: a call to `memcmp` for
/// each token was most of the cost of comparing two files' tokens.
#[inline]
fn same_bytes(x: &[u8], y: &[u8]) -> bool {
    if x.len() != y.len() {
        return false;
    }
    if x.len() > 32 {
        return x == y;
    }
    x.iter().zip(y).fold(true, |same, (a, b)| same & (a == b))
}

/// The tokens the parser reads, as (kind, text), newlines collapsed and none before the
/// first token (a body starts by skipping them).
fn code_tokens<'a>(
    toks: &'a [Token],
    src: &'a [u8],
) -> impl Iterator<Item = (Kind, &'a [u8])> + 'a {
    let mut last_newline = true;
    toks.iter().filter_map(move |t| {
        let kind = match t.kind {
            Kind::Comment if t.text(src).last() == Some(&b'\n') => Kind::Newline,
            Kind::Comment => return None,
            k => k,
        };
        let newline = kind == Kind::Newline;
        let repeated = newline && last_newline;
        last_newline = newline;
        // A newline's own bytes (`\n` or `\r\n`, or a comment's) do not matter.
        (!repeated).then(|| (kind, if newline { &[][..] } else { t.text(src) }))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_code_ignores_comments_and_blank_lines_only() {
        let a = "resource \"x\" \"y\" {\n  a = 1\n\n  b = [\n    2,\n  ]\n}\n";
        let b = "# NOTE: overridden\n// two\nresource \"x\" \"y\" { /* c */\n  a = 1 # one\n  b = [\n    # in a list\n    2,\n  ]\n}\n";
        assert!(same_code(a, b));
        assert!(same_code(a, &a.replace('\n', "\r\n")));
        assert!(!same_code(a, &a.replace("a = 1", "a = 2")));
        assert!(!same_code(a, &a.replace("  b = [", "  c = [")));
        // A line's end is not whitespace: joining two lines changes what they mean.
        assert!(!same_code("a = 1\nb = 2\n", "a = 1 b = 2\n"));
        // Inside a heredoc a `#` line is text.
        let h = "a = <<EOT\nx\nEOT\n";
        assert!(!same_code(h, &h.replace("x\n", "# x\nx\n")));
        // Tokens short and long (compared in place, or by `memcmp`), differing at their
        // last byte or in their length.
        for n in [1, 31, 32, 33, 200] {
            let word = "w".repeat(n);
            let t = format!("{word} = \"{word}\"\n");
            assert!(same_code(&t, &format!("# c\n{t}")), "{n}");
            assert!(!same_code(&t, &format!("{word}x = \"{word}\"\n")), "{n}");
            assert!(!same_code(&t, &format!("{word} = \"{}v\"\n", &word[1..])), "{n}");
        }
    }
}
