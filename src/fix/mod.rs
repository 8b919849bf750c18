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

/// The edited text of a file, laid out as `terraform fmt` would lay it out when the
/// original was: a new argument then lines up with its neighbours, and a hook or CI job
/// that runs `terraform fmt -check` stays green. A file that was not canonical keeps the
/// author's layout outside the edits.
pub(crate) fn keep_canonical(
    m: &crate::merge::Module,
    file: crate::terraform::FileId,
    edited: String,
) -> String {
    canonical(m, file, edited, false).0
}

/// [`keep_canonical`], and whether the text it gives reads as the same code as the
/// original (only comments and blank lines differ; see
/// [`override_guard_hcl::code::same_code`]): one scan of the original serves both.
pub(crate) fn keep_canonical_proven(
    m: &crate::merge::Module,
    file: crate::terraform::FileId,
    edited: String,
) -> (String, bool) {
    canonical(m, file, edited, true)
}

fn canonical(
    m: &crate::merge::Module,
    file: crate::terraform::FileId,
    edited: String,
    prove: bool,
) -> (String, bool) {
    use override_guard_hcl::{fmt, scan};
    let original = m.files.get(file);
    if original.syntax != crate::terraform::Syntax::Hcl {
        return (edited, false);
    }
    let tokens = scan::scan(original.text.as_bytes(), scan::Mode::Normal);
    // The load parsed the file: where it found no error, the layout alone can tell most
    // texts that are not canonical, without a second parse.
    let parsed =
        !m.parse_diagnostics().any(|d| d.is_error() && d.subject.is_none_or(|s| s.file == file));
    let standing = match parsed {
        true => fmt::standing(&original.text, &tokens),
        false if fmt::is_formatted(&original.text) => fmt::Standing::Canonical,
        false => fmt::Standing::Changed,
    };
    let proven = |text: &str| {
        prove && override_guard_hcl::code::same_code_scanned(&original.text, &tokens, text)
    };
    match standing {
        fmt::Standing::Changed => {
            let same = proven(&edited);
            (edited, same)
        }
        // Comments only (proven on the laid-out text): the layout is all `fmt` would do.
        fmt::Standing::Plain if prove => match fmt::lay_out(&edited) {
            laid if proven(&laid) => (laid, true),
            _ => (fmt::format(&edited).unwrap_or(edited), false),
        },
        _ => {
            let text = fmt::format(&edited).unwrap_or(edited);
            let same = proven(&text);
            (text, same)
        }
    }
}

/// `m`'s directory loaded again from `(name, text)` pairs, under the same engine: how
/// both commands prove an edit before writing it.
pub(crate) fn reload(
    m: &crate::merge::Module,
    files: &[(String, Arc<str>)],
) -> crate::merge::Module {
    let pairs: Vec<(&str, &str)> = files.iter().map(|(n, t)| (n.as_str(), &**t)).collect();
    // Most files of an edited module are not edited: their parses are taken as they are.
    let parses = crate::merge::Parses::of(m);
    crate::merge::load_texts_reusing(&m.dir, &pairs, Some(m.engine), Some(&parses))
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
        crate::report::review::unified_text(
            &self.before,
            self.after.as_deref().unwrap_or(""),
            &format!("a/{shown}"),
            &new,
        )
    }
}

/// The line ending a file uses (the first one it has), so inserted lines match it.
pub(crate) fn eol_of(text: &str) -> &'static str {
    match text.find('\n') {
        Some(i) if i > 0 && text.as_bytes()[i - 1] == b'\r' => "\r\n",
        _ => "\n",
    }
}

/// The start of the line holding `offset`.
pub fn line_start(text: &str, offset: usize) -> usize {
    crate::policy::context::line_start(text, offset)
}

/// The end of the line holding `offset`, past its line break.
pub fn line_end(text: &str, offset: usize) -> usize {
    let offset = offset.min(text.len());
    text[offset..].find('\n').map_or(text.len(), |i| offset + i + 1)
}

/// The indentation before `offset` when only blanks precede it on its line (the item
/// starts the line), else `None`.
pub(crate) fn indent_before(text: &str, offset: usize) -> Option<&str> {
    let s = line_start(text, offset);
    let lead = text.get(s..offset)?;
    lead.chars().all(|c| c == ' ' || c == '\t').then_some(lead)
}

/// The byte range of whole lines holding `start..end`, when nothing else shares them
/// (what deleting an item removes), else `None`.
pub(crate) fn whole_lines(text: &str, start: usize, end: usize) -> Option<(usize, usize)> {
    indent_before(text, start)?;
    let rest = &text[end.min(text.len())..line_end(text, end)];
    rest.trim().is_empty().then(|| (line_start(text, start), line_end(text, end)))
}

/// Re-indents a multi-line snippet from one depth to another: every line after the first
/// loses `from` and gains `to`. Written into a tab-indented file, the snippet's own
/// space indentation becomes tabs, one per step. A snippet with a heredoc is left alone
/// (its lines are literal text).
pub(crate) fn reindent(snippet: &str, from: &str, to: &str, eol: &str) -> String {
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

/// One member of a JSON object as written: its key and where the key and value are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct JsonMember {
    pub key: String,
    pub key_start: usize,
    pub value_start: usize,
    pub value_end: usize,
}

/// The members of the JSON object whose `{` is at `open`, in order, and the offset of its
/// `}`. The text was parsed already (strict JSON): this only finds the extents again.
pub(crate) fn json_members(text: &str, open: usize) -> Option<(Vec<JsonMember>, usize)> {
    let b = text.as_bytes();
    if b.get(open) != Some(&b'{') {
        return None;
    }
    let skip_ws = |mut i: usize| {
        while b.get(i).is_some_and(|c| c.is_ascii_whitespace()) {
            i += 1;
        }
        i
    };
    let string_end = |mut i: usize| -> Option<usize> {
        i += 1;
        loop {
            match b.get(i)? {
                b'\\' => i += 2,
                b'"' => return Some(i + 1),
                _ => i += 1,
            }
        }
    };
    let value_end = |mut i: usize| -> Option<usize> {
        let mut depth = 0usize;
        loop {
            match *b.get(i)? {
                b'"' => {
                    i = string_end(i)?;
                    if depth == 0 {
                        return Some(i);
                    }
                    continue;
                }
                b'{' | b'[' => depth += 1,
                b'}' | b']' if depth == 0 => return Some(i),
                b'}' | b']' => {
                    depth -= 1;
                    if depth == 0 {
                        return Some(i + 1);
                    }
                }
                b',' if depth == 0 => return Some(i),
                c if depth == 0 && c.is_ascii_whitespace() => return Some(i),
                _ => {}
            }
            i += 1;
        }
    };
    let mut out = Vec::new();
    let mut i = skip_ws(open + 1);
    loop {
        match b.get(i)? {
            b'}' => return Some((out, i)),
            b',' => i = skip_ws(i + 1),
            b'"' => {
                let end = string_end(i)?;
                let key: String = serde_json::from_str(text.get(i..end)?).ok()?;
                let colon = skip_ws(end);
                if b.get(colon) != Some(&b':') {
                    return None;
                }
                let value_start = skip_ws(colon + 1);
                let v_end = value_end(value_start)?;
                out.push(JsonMember { key, key_start: i, value_start, value_end: v_end });
                i = skip_ws(v_end);
            }
            _ => return None,
        }
    }
}

/// The bytes deleting a member removes: the member, its comma and the blanks up to the
/// next member; or, for the last member, the comma and blanks before it.
pub(crate) fn json_member_range(text: &str, m: &JsonMember) -> (usize, usize) {
    let after = &text[m.value_end..];
    let skip = after.len() - after.trim_start().len();
    if after[skip..].starts_with(',') {
        let rest = &after[skip + 1..];
        return (m.key_start, m.value_end + skip + 1 + (rest.len() - rest.trim_start().len()));
    }
    let head = text[..m.key_start].trim_end();
    match head.strip_suffix(',') {
        Some(h) => (h.len(), m.value_end),
        None => (m.key_start, m.value_end),
    }
}

/// The spans of every native item of a body, nested ones too, in source order (where a
/// comment above an item may sit).
pub(crate) fn item_spans(body: &crate::terraform::Body) -> Vec<crate::terraform::Span> {
    fn walk(body: &crate::terraform::Body, out: &mut Vec<crate::terraform::Span>) {
        for i in body.items.iter() {
            match i {
                crate::terraform::Item::Attr(a) => out.push(a.span),
                crate::terraform::Item::Block(b) => {
                    out.push(b.span);
                    walk(&b.body, out);
                }
                crate::terraform::Item::Json(_) => {}
            }
        }
    }
    let mut out = Vec::new();
    walk(body, &mut out);
    out
}

pub use crate::diag::list;

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
    fn json_members_are_found_again() {
        let t = r#"{ "a": {"x": [1, "}"]}, "b\"c": -1.5e3 ,"d":null}"#;
        let (m, close) = json_members(t, 0).unwrap();
        let keys: Vec<&str> = m.iter().map(|m| m.key.as_str()).collect();
        assert_eq!(keys, ["a", "b\"c", "d"]);
        assert_eq!(&t[m[0].value_start..m[0].value_end], r#"{"x": [1, "}"]}"#);
        assert_eq!(&t[m[1].value_start..m[1].value_end], "-1.5e3");
        assert_eq!(close, t.len() - 1);
        let (s, e) = json_member_range(t, &m[1]);
        assert_eq!(format!("{}{}", &t[..s], &t[e..]), r#"{ "a": {"x": [1, "}"]}, "d":null}"#);
        let (s, e) = json_member_range(t, &m[2]);
        assert_eq!(
            format!("{}{}", &t[..s], &t[e..]),
            r#"{ "a": {"x": [1, "}"]}, "b\"c": -1.5e3 }"#
        );
        assert_eq!(json_members("{}", 0), Some((vec![], 1)));
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
