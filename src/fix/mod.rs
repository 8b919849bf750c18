//! The two commands that change a user's files, computed without I/O: [`comments`] (`fix`:
//! the warning comments `missing-override-comment` asks for) and [`fold`] (`fold`: override
//! files applied to their originals for good).
//!
//! Every change is a byte-range [`Splice`] on the original text, never a re-print: the
//! bytes outside the spliced ranges (indentation, CRLF, comments, alignment) are the
//! user's, and stay exactly as they were. The caller (`app`) writes the results.

pub mod comments;
pub mod fold;

use std::sync::Arc;

/// Replace `start..end` of a text with `text` (an insertion when the range is empty).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Splice {
    pub start: usize,
    pub end: usize,
    pub text: String,
}

impl Splice {
    pub fn insert(at: usize, text: impl Into<String>) -> Splice {
        Splice { start: at, end: at, text: text.into() }
    }

    pub fn delete(start: usize, end: usize) -> Splice {
        Splice { start, end, text: String::new() }
    }
}

/// Applies splices to a text. They may come in any order; overlapping ranges are a bug in
/// the caller's plan, refused rather than guessed at. Insertions at one offset keep their
/// order.
pub fn apply(text: &str, splices: &[Splice]) -> Result<String, String> {
    let mut sorted: Vec<&Splice> = splices.iter().collect();
    sorted.sort_by_key(|s| (s.start, s.end));
    let mut out = String::with_capacity(text.len() + 256);
    let mut at = 0;
    for s in sorted {
        if s.start < at || s.end < s.start || s.end > text.len() {
            return Err(format!("overlapping edits at byte {}", s.start));
        }
        let (Some(keep), true) = (text.get(at..s.start), text.is_char_boundary(s.end)) else {
            return Err(format!("an edit inside a character at byte {}", s.start));
        };
        out.push_str(keep);
        out.push_str(&s.text);
        at = s.end;
    }
    out.push_str(&text[at..]);
    Ok(out)
}

/// What a command would do to one file.
#[derive(Clone, Debug)]
pub struct FileEdit {
    /// The path as the module knows it (relative to where the command reads from).
    pub path: String,
    pub before: Arc<str>,
    /// The new content; `None` deletes the file (`fold`'s override files).
    pub after: Option<String>,
}

impl FileEdit {
    /// A unified diff of the edit, `git diff` style (`/dev/null` for a deletion), naming
    /// the file `shown`.
    pub fn diff(&self, shown: &str) -> String {
        let new = match &self.after {
            Some(_) => format!("b/{shown}"),
            None => "/dev/null".to_string(),
        };
        crate::review::unified_text(
            &self.before,
            self.after.as_deref().unwrap_or(""),
            &format!("a/{shown}"),
            &new,
        )
    }
}

/// The line ending a file uses (the first one it has), so inserted lines match it.
pub fn eol_of(text: &str) -> &'static str {
    match text.find('\n') {
        Some(i) if i > 0 && text.as_bytes()[i - 1] == b'\r' => "\r\n",
        _ => "\n",
    }
}

/// The start of the line holding `offset`.
pub fn line_start(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].rfind('\n').map_or(0, |i| i + 1)
}

/// The end of the line holding `offset`, past its line break.
pub fn line_end(text: &str, offset: usize) -> usize {
    let offset = offset.min(text.len());
    text[offset..].find('\n').map_or(text.len(), |i| offset + i + 1)
}

/// The indentation before `offset` when only blanks precede it on its line (the item
/// starts the line), else `None`.
pub fn indent_before(text: &str, offset: usize) -> Option<&str> {
    let s = line_start(text, offset);
    let lead = text.get(s..offset)?;
    lead.chars().all(|c| c == ' ' || c == '\t').then_some(lead)
}

/// Does only blank space or a line comment follow `offset` on its line?
pub fn ends_line(text: &str, offset: usize) -> bool {
    let rest = &text[offset.min(text.len())..line_end(text, offset)];
    let t = rest.trim();
    t.is_empty() || t.starts_with('#') || t.starts_with("//")
}

/// The byte range of whole lines holding `start..end`, when nothing else shares them
/// (what deleting an item removes), else `None`.
pub fn whole_lines(text: &str, start: usize, end: usize) -> Option<(usize, usize)> {
    indent_before(text, start)?;
    let rest = &text[end.min(text.len())..line_end(text, end)];
    rest.trim().is_empty().then(|| (line_start(text, start), line_end(text, end)))
}

/// Re-indents a multi-line snippet from one depth to another: every line after the first
/// loses `from` and gains `to`. Written into a tab-indented file, the snippet's own
/// space indentation becomes tabs, one per step. A snippet with a heredoc is left alone
/// (its lines are literal text).
pub fn reindent(snippet: &str, from: &str, to: &str, eol: &str) -> String {
    let heredoc = snippet.contains("<<");
    let lines: Vec<&str> = snippet.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l)).collect();
    let rest = |l: &str| l.strip_prefix(from).unwrap_or(l.trim_start()).to_string();
    let lead = |l: &str| l.len() - l.trim_start_matches(' ').len();
    // The snippet's indentation step, when the target wants tabs.
    let step = lines
        .iter()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| lead(&rest(l)))
        .filter(|&n| n > 0)
        .min()
        .filter(|_| to.contains('\t'));
    let mut out = String::with_capacity(snippet.len());
    for (i, line) in lines.iter().enumerate() {
        if i > 0 {
            out.push_str(eol);
            if !heredoc && !line.trim().is_empty() {
                out.push_str(to);
                let r = rest(line);
                match step {
                    Some(n) => {
                        let spaces = lead(&r);
                        out.push_str(&"\t".repeat(spaces / n));
                        out.push_str(&r[spaces - spaces % n..]);
                    }
                    None => out.push_str(&r),
                }
                continue;
            }
        }
        out.push_str(line);
    }
    out
}

/// `a`, `a and b`, `a, b and c`; past four names, `a, b, c and 2 more`.
pub fn list(names: &[String]) -> String {
    let shown: Vec<&str> =
        names.iter().take(if names.len() > 4 { 3 } else { 4 }).map(|s| s.as_str()).collect();
    let more = names.len() - shown.len();
    match (shown.as_slice(), more) {
        ([], _) => String::new(),
        ([one], 0) => one.to_string(),
        (_, 0) => format!("{} and {}", shown[..shown.len() - 1].join(", "), shown[shown.len() - 1]),
        (_, n) => format!("{} and {n} more", shown.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splices_apply_in_offset_order_and_refuse_overlaps() {
        let t = "abcdef";
        let s = [Splice::insert(6, "!"), Splice::delete(1, 3), Splice::insert(0, ">")];
        assert_eq!(apply(t, &s).unwrap(), ">adef!");
        assert!(apply(t, &[Splice::delete(1, 4), Splice::delete(2, 5)]).is_err());
    }

    #[test]
    fn lines_and_indentation() {
        let t = "a {\r\n\t  b = 1\r\n}\r\n";
        assert_eq!(eol_of(t), "\r\n");
        let b = t.find('b').unwrap();
        assert_eq!(indent_before(t, b), Some("\t  "));
        assert_eq!(whole_lines(t, b, b + 5), Some((5, 15)));
        assert_eq!(reindent("x {\n    y = 1\n  }", "  ", "\t", "\r\n"), "x {\r\n\t\ty = 1\r\n\t}");
        assert_eq!(reindent("x {\n  y = 1\n}", "", "    ", "\n"), "x {\n      y = 1\n    }");
    }

    #[test]
    fn names_read_as_a_sentence() {
        let n = |v: &[&str]| list(&v.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert_eq!(n(&["a"]), "a");
        assert_eq!(n(&["a", "b"]), "a and b");
        assert_eq!(n(&["a", "b", "c", "d"]), "a, b, c and d");
        assert_eq!(n(&["a", "b", "c", "d", "e"]), "a, b, c and 2 more");
    }
}
