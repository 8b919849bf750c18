//! Rendering diagnostics for people (miette, pointing at the exact lines) and for tools
//! (one compact line each). Pure: returns strings.

use std::sync::Arc;

use miette::{
    GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteDiagnostic, MietteError,
    MietteSpanContents, NamedSource, Severity as MSeverity, SourceCode, SourceSpan, SpanContents,
};
use override_guard_hcl::LineIndex;

use crate::diag::{Diagnostic, Severity};
use crate::terraform::Files;

/// How to draw the human report.
#[derive(Clone, Copy, Debug)]
pub struct Style {
    pub color: bool,
    pub width: usize,
}

impl Style {
    /// What tests and snapshots use: no colour, fixed width, so output is stable.
    pub fn plain() -> Self {
        Style { color: false, width: 100 }
    }
}

fn handler(style: Style) -> GraphicalReportHandler {
    let theme =
        if style.color { GraphicalTheme::unicode() } else { GraphicalTheme::unicode_nocolor() };
    GraphicalReportHandler::new_themed(theme)
        .with_width(style.width)
        .with_links(false)
        .with_show_related_as_nested(true)
}

/// One diagnostic, drawn with the source lines it points at.
pub fn human(files: &Files, d: &Diagnostic, code: &str, style: Style) -> String {
    let mut md =
        MietteDiagnostic::new(clean(&d.summary)).with_code(code).with_severity(match d.severity {
            Severity::Error => MSeverity::Error,
            Severity::Warning => MSeverity::Warning,
        });
    let help = d.explained();
    if !help.is_empty() {
        md = md.with_help(clean(&help));
    }
    let mut out = String::new();
    let Some(subject) = d.subject else {
        let _ = handler(style).render_report(&mut out, &md);
        return out;
    };
    let file = files.get(subject.file);
    let mut labels = vec![LabeledSpan::new_primary_with_span(
        Some("here".into()),
        (subject.start, subject.end - subject.start),
    )];
    for (span, label) in &d.related {
        if span.file == subject.file {
            labels.push(LabeledSpan::new_with_span(
                Some(label.clone()),
                (span.start, span.end - span.start),
            ));
        }
    }
    if !drawable(&file.text, subject.start, subject.end) {
        let (l, c) = file.line_col(subject.start);
        md.message = format!("{} ({}:{l}:{c})", md.message, clean(&file.path));
        let _ = handler(style).render_report(&mut out, &md);
        return out;
    }
    md = md.with_labels(labels);
    let report = miette::Report::new(md)
        .with_source_code(NamedSource::new(clean(&file.path), lined(&file.text, 0)));
    let _ = handler(style).render_report(&mut out, report.as_ref());
    out
}

/// Can the lines of `start..end` be drawn? Lines of many thousand characters (minified or
/// generated files) are not: the drawing would be unreadable, and the drawing library
/// refuses such widths.
pub(crate) fn drawable(text: &str, start: usize, end: usize) -> bool {
    const LONGEST: usize = 2000;
    // An empty file (one that could not be read) has no line to draw.
    if text.is_empty() {
        return false;
    }
    let b = text.as_bytes();
    let start = start.min(b.len());
    let end = end.min(b.len()).max(start);
    // Looked for no further than a drawable line reaches: a file of one long line with
    // thousands of findings costs each of them that much, not the whole line.
    let back = start.saturating_sub(LONGEST + 1);
    let from = match b[back..start].iter().rposition(|&c| c == b'\n') {
        Some(i) => back + i + 1,
        None if back == 0 => 0,
        None => return false,
    };
    let ahead = b.len().min(end.saturating_add(LONGEST + 1));
    let to = match b[end..ahead].iter().position(|&c| c == b'\n') {
        Some(i) => end + i,
        None if ahead == b.len() => b.len(),
        None => return false,
    };
    b[from..to].split(|&c| c == b'\n').all(|l| l.len() <= LONGEST)
}

/// `path:line:col: level[code]: summary: detail`.
pub fn compact(files: &Files, d: &Diagnostic, code: &str) -> String {
    let level = match d.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    };
    let loc = match d.subject {
        Some(s) => {
            let f = files.get(s.file);
            let (l, c) = f.line_col(s.start);
            format!("{}:{l}:{c}", f.path)
        }
        None => "-".into(),
    };
    let detail = if d.detail.is_empty() { String::new() } else { format!(": {}", d.detail) };
    format!("{loc}: {level}[{code}]: {}{detail}", d.summary)
}

pub mod ci;
pub mod findings;
pub(crate) mod format;
pub(crate) mod markdown;
pub(crate) mod review;
pub(crate) use format::{Report, ReportFormat};
pub mod sarif;
pub(crate) mod vars;

/// Makes text safe to print on a terminal: control characters (other than newline and
/// tab) become visible escapes, so file contents and paths cannot drive the terminal.
pub fn clean(s: &str) -> String {
    if !s.chars().any(is_unsafe) {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if is_unsafe(c) {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

/// Like [`clean`] but keeps every byte offset valid: each unsafe character is replaced by
/// as many `?` as it has bytes. For source text that spans point into.
/// A file's text for the drawing library: cleaned once, with its line starts, so that the
/// library reads the few lines around a label instead of scanning the file from its start
/// for every finding (thousands of findings in one file would each cost its whole size).
#[derive(Clone, Debug)]
pub(crate) struct Lined {
    text: Arc<str>,
    lines: Arc<LineIndex>,
    /// The file's lines before `text` (a finding's excerpt starts further down).
    before: usize,
}

/// The [`Lined`] text of a file, or of its lines from line `before` (0-based) on, shared
/// by the findings drawn on it (per thread: the last few texts are kept, as reports go
/// file by file).
pub(crate) fn lined(text: &Arc<str>, before: usize) -> Lined {
    type Cache = std::cell::RefCell<Vec<(Arc<str>, Lined)>>;
    thread_local! {
        static CACHE: Cache = const { std::cell::RefCell::new(Vec::new()) };
    }
    CACHE.with(|c| {
        let mut c = c.borrow_mut();
        if let Some((_, hit)) = c.iter().find(|(t, l)| Arc::ptr_eq(t, text) && l.before == before) {
            return hit.clone();
        }
        let clean: Arc<str> = match clean_source(text) {
            s if *s == **text => text.clone(),
            s => s.into(),
        };
        // Lines as the library counts them: a lone `\r` ends one too.
        let l = Lined { lines: Arc::new(LineIndex::with_lone_cr(&clean)), text: clean, before };
        if c.len() == 4 {
            c.remove(0);
        }
        c.push((text.clone(), l.clone()));
        l
    })
}

impl SourceCode for Lined {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        before: usize,
        after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let len = self.text.len();
        let start = span.offset().min(len);
        let end = span.offset().saturating_add(span.len()).min(len).max(start);
        let line_of = |o: usize| self.lines.line(o);
        // A line more on each side than asked: the library picks its context from these.
        let first = line_of(start).saturating_sub(before + 1);
        let last = line_of(end).saturating_add(after + 1);
        let lo = self.lines.line_start(first).unwrap_or(0);
        let hi = self.lines.line_start(last + 1).unwrap_or(len);
        let part = self.text.get(lo..hi).ok_or(MietteError::OutOfBounds)?;
        let inner =
            part.read_span(&SourceSpan::new((start - lo).into(), end - start), before, after)?;
        Ok(Box::new(MietteSpanContents::new(
            inner.data(),
            SourceSpan::new((inner.span().offset() + lo).into(), inner.span().len()),
            inner.line() + first + self.before,
            inner.column(),
            // The library counts the lines from the start of the text (it joins two
            // snippets of one file on it).
            inner.line_count() + first + self.before,
        )))
    }
}

pub(crate) fn clean_source(s: &str) -> String {
    if !s.chars().any(|c| is_unsafe(c) && c != '\r') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\r' && chars.peek() == Some(&'\n') {
            out.push(c);
        } else if is_unsafe(c) {
            out.extend(std::iter::repeat_n('?', c.len_utf8()));
        } else {
            out.push(c);
        }
    }
    out
}

/// Like [`clean`], and line breaks too: for a name (a path, a key) printed inside a line,
/// where a line break would forge a line of its own (a compact finding, a GitHub
/// workflow command, a `note:`).
pub(crate) fn clean_line(s: &str) -> String {
    clean(s).replace('\n', "\\n")
}

/// Control characters but newline and tab, and every bidirectional formatting character
/// (Unicode's Bidi_Control: the Arabic letter mark, the left-to-right and right-to-left
/// marks, the embeddings, overrides and isolates), which can make a line read otherwise
/// than it is.
fn is_unsafe(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(
            c,
            '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
        )
}

/// How the last guard before the terminal writes an unsafe character.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Escapes {
    /// Text for people: `\u{1b}`.
    Text,
    /// JSON or HCL: `\u001b`, which both syntaxes read back as the same character inside
    /// a string (and such characters never occur outside one).
    Syntax,
}

/// The last guard on everything printed: whatever a renderer missed, no control
/// character, DEL, C1 character or bidirectional override from a repository reaches the
/// terminal raw. Each renderer escapes what it prints already; this is the backstop.
/// With `sgr`, the colour sequences (`ESC [ digits ; … m`) our renderers draw are kept.
pub fn guard(s: &str, escapes: Escapes, sgr: bool) -> std::borrow::Cow<'_, str> {
    if !s.chars().any(is_unsafe) {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 16);
    let mut rest = s;
    while let Some(c) = rest.chars().next() {
        if c == '\u{1b}'
            && sgr
            && let Some(len) = sgr_len(rest)
        {
            out.push_str(&rest[..len]);
            rest = &rest[len..];
            continue;
        }
        if !is_unsafe(c) {
            out.push(c);
        } else if escapes == Escapes::Text {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push_str(&format!("\\u{:04x}", c as u32));
        }
        rest = &rest[c.len_utf8()..];
    }
    std::borrow::Cow::Owned(out)
}

/// The length of a Select Graphic Rendition sequence at the start of `s` (`ESC [ 1;31 m`).
fn sgr_len(s: &str) -> Option<usize> {
    let body = s.strip_prefix("\u{1b}[")?;
    let end = body.find(|c: char| !(c.is_ascii_digit() || c == ';'))?;
    (body.as_bytes()[end] == b'm').then_some(2 + end + 1)
}

/// A policy-file mistake, drawn on the policy file.
pub fn policy_error(e: crate::policy::PolicyError, style: Style) -> String {
    let src = NamedSource::new(clean(&e.path), clean_source(&e.text));
    let report = miette::Report::new(e).with_source_code(src);
    let mut out = String::new();
    let _ = handler(style).render_report(&mut out, report.as_ref());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_guard_escapes_what_could_drive_a_terminal() {
        let hostile = "a\u{1b}]0;title\u{7}b\u{9b}c\u{7f}d\u{202e}e\rf\n\tg";
        assert_eq!(
            guard(hostile, Escapes::Text, false),
            "a\\u{1b}]0;title\\u{7}b\\u{9b}c\\u{7f}d\\u{202e}e\\u{d}f\n\tg"
        );
        assert_eq!(
            guard(hostile, Escapes::Syntax, false),
            "a\\u001b]0;title\\u0007b\\u009bc\\u007fd\\u202ee\\u000df\n\tg"
        );
        // Colour sequences pass only where colour was asked for; anything else is escaped.
        let coloured = "\u{1b}[1;31merror\u{1b}[0m \u{1b}[2J";
        assert_eq!(guard(coloured, Escapes::Text, true), "\u{1b}[1;31merror\u{1b}[0m \\u{1b}[2J");
        assert_eq!(
            guard(coloured, Escapes::Text, false),
            "\\u{1b}[1;31merror\\u{1b}[0m \\u{1b}[2J"
        );
        assert!(matches!(guard("plain\n", Escapes::Syntax, false), std::borrow::Cow::Borrowed(_)));
    }

    /// Every character Unicode classes as Bidi_Control (UnicodeData.txt, property list) is
    /// escaped, and no other printable one: the list is Unicode's, not a few picked.
    #[test]
    fn the_guard_escapes_every_bidirectional_control() {
        let bidi_control = [
            '\u{061c}', '\u{200e}', '\u{200f}', '\u{202a}', '\u{202b}', '\u{202c}', '\u{202d}',
            '\u{202e}', '\u{2066}', '\u{2067}', '\u{2068}', '\u{2069}',
        ];
        for c in bidi_control {
            let s = format!("a{c}b");
            assert_eq!(guard(&s, Escapes::Text, false), format!("a\\u{{{:x}}}b", c as u32));
            assert_eq!(guard(&s, Escapes::Syntax, false), format!("a\\u{:04x}b", c as u32));
        }
        for c in ['é', 'ب', '\u{200b}', '😀'] {
            assert!(!is_unsafe(c), "{c:?}");
        }
    }

    #[test]
    fn escaped_json_reads_back_as_the_same_text() {
        let v = serde_json::json!({ "s": "x\u{202e}\u{7f}\u{85}y" });
        let text = serde_json::to_string(&v).unwrap();
        let guarded = guard(&text, Escapes::Syntax, false);
        assert!(!guarded.contains('\u{202e}'));
        assert_eq!(serde_json::from_str::<serde_json::Value>(&guarded).unwrap(), v);
    }

    #[test]
    fn names_inside_a_line_cannot_break_it() {
        assert_eq!(clean_line("a\n::error file=x::y\u{1b}"), "a\\n::error file=x::y\\u{1b}");
    }
}
