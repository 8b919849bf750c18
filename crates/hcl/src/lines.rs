//! Lines and columns of a text, computed one way for every consumer: the parser's messages
//! that name another place, diagnostics and findings (1-based, as Terraform and HCL print
//! them), and editors (0-based, in UTF-16 units or bytes). The line starts are found once
//! per text; a column is counted on from the last one asked for on the same line, so the
//! thousands of diagnostics of one long line cost its length once, not once each.

use std::sync::Mutex;

use unicode_segmentation::UnicodeSegmentation;

/// What a column counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Columns {
    /// HCL's native syntax: grapheme clusters (a letter and its combining accent, an emoji
    /// sequence joined by zero-width joiners, are one); a byte order mark that starts the
    /// text is none.
    Graphemes,
    /// Characters (HCL's JSON syntax, TOML): a byte order mark is one.
    Chars,
    /// Characters, a byte order mark that starts the text being none (as editors count).
    CharsAfterBom,
    /// UTF-16 code units (the language server protocol's default).
    Utf16,
    /// Bytes (UTF-8 code units).
    Bytes,
}

impl Columns {
    /// The columns `s` takes; `at_start` when `s` starts the text.
    fn count(self, s: &str, at_start: bool) -> usize {
        let after_bom = if at_start { s.strip_prefix('\u{feff}').unwrap_or(s) } else { s };
        match self {
            Columns::Graphemes => after_bom.graphemes(true).count(),
            Columns::Chars => s.chars().count(),
            Columns::CharsAfterBom => after_bom.chars().count(),
            Columns::Utf16 => s.encode_utf16().count(),
            Columns::Bytes => s.len(),
        }
    }
}

/// How many columns a line's text up to some point takes, as HCL counts them (see
/// [`Columns::Graphemes`]); `first_line` when the text starts the file.
pub fn columns(line: &str, first_line: bool) -> usize {
    Columns::Graphemes.count(line, first_line)
}

/// The line starts of one text (a line ends after `\n`; a `\r` before it is part of the
/// line). The text itself is not kept: every question passes it again, the same text.
#[derive(Debug)]
pub struct LineIndex {
    starts: Vec<usize>,
    len: usize,
    /// The last column counted: (mode, line start, offset, column).
    last: Mutex<Option<(Columns, usize, usize, usize)>>,
}

impl Clone for LineIndex {
    fn clone(&self) -> Self {
        LineIndex { starts: self.starts.clone(), len: self.len, last: Mutex::new(None) }
    }
}

impl LineIndex {
    pub fn new(text: &str) -> Self {
        let starts = std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex { starts: starts.collect(), len: text.len(), last: Mutex::new(None) }
    }

    /// The lines of `text` as terminals and drawing libraries count them: a lone `\r` (one
    /// not followed by `\n`) ends a line too.
    pub fn with_lone_cr(text: &str) -> Self {
        let b = text.as_bytes();
        let ends = (0..b.len())
            .filter(|&i| b[i] == b'\n' || b[i] == b'\r' && b.get(i + 1) != Some(&b'\n'));
        let starts = std::iter::once(0).chain(ends.map(|i| i + 1));
        LineIndex { starts: starts.collect(), len: text.len(), last: Mutex::new(None) }
    }

    /// How many lines the text has (a text ending in a newline has an empty last line).
    pub fn lines(&self) -> usize {
        self.starts.len()
    }

    /// The 0-based line holding a byte offset (clamped to the text).
    pub fn line(&self, offset: usize) -> usize {
        let offset = offset.min(self.len);
        match self.starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i.saturating_sub(1),
        }
    }

    /// The byte offset at which a 0-based line starts; `None` past the last line.
    pub fn line_start(&self, line: usize) -> Option<usize> {
        self.starts.get(line).copied()
    }

    /// The byte range of a 0-based line, without its line break (`\n` or `\r\n`); past the
    /// last line, the empty range at the end of the text.
    pub fn line_range(&self, text: &str, line: usize) -> (usize, usize) {
        let start = self.starts.get(line).copied().unwrap_or(self.len);
        let mut end = self.starts.get(line + 1).map_or(self.len, |n| n - 1);
        if end > start && text.as_bytes().get(end - 1) == Some(&b'\r') {
            end -= 1;
        }
        (start, end.max(start))
    }

    /// 1-based line and column of a byte offset, as Terraform and HCL print them. The
    /// offset is clamped to the text and back to a character boundary.
    pub fn line_col(&self, text: &str, offset: usize, columns: Columns) -> (usize, usize) {
        let offset = floor_char_boundary(text, offset.min(self.len));
        let line = self.line(offset);
        let start = self.starts.get(line).copied().unwrap_or(0);
        let count = |from: usize| columns.count(text.get(from..offset).unwrap_or(""), from == 0);
        let mut last = self.last.lock().unwrap_or_else(|e| e.into_inner());
        let col = match *last {
            Some((m, s, from, col)) if m == columns && s == start && from <= offset => {
                col + count(from)
            }
            _ => count(start),
        };
        *last = Some((columns, start, offset, col));
        (line + 1, col + 1)
    }

    /// 0-based line and column of a byte offset (an editor's position).
    pub fn position(&self, text: &str, offset: usize, columns: Columns) -> (usize, usize) {
        let (line, col) = self.line_col(text, offset, columns);
        (line - 1, col - 1)
    }

    /// The byte offset of a 0-based line and column (the inverse of [`Self::position`] in
    /// UTF-16 units or bytes; other modes count characters): a column past the line's end is its end, a line past the
    /// text's end is the end of the text, a column inside a character is that character.
    pub fn offset(&self, text: &str, line: usize, column: usize, columns: Columns) -> usize {
        if line >= self.starts.len() {
            return self.len;
        }
        let (start, end) = self.line_range(text, line);
        let mut count = 0;
        for (i, c) in text.get(start..end).unwrap_or("").char_indices() {
            if count >= column {
                return start + i;
            }
            count += match columns {
                Columns::Utf16 => c.len_utf16(),
                Columns::Bytes => c.len_utf8(),
                Columns::Graphemes | Columns::Chars | Columns::CharsAfterBom => 1,
            };
        }
        end
    }
}

/// The largest character boundary of `text` at or before `offset` (≤ its length).
fn floor_char_boundary(text: &str, mut offset: usize) -> usize {
    offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_columns_as_hcl_counts_them() {
        let text = "\u{feff}a = \"e\u{301}👩‍💻\"\r\nb = 1\n";
        let idx = LineIndex::new(text);
        assert_eq!(idx.lines(), 3);
        let quote = text.rfind('"').unwrap();
        // BOM none, `e` + accent one, the emoji sequence one.
        assert_eq!(idx.line_col(text, quote, Columns::Graphemes), (1, 8));
        assert_eq!(idx.line_col(text, quote, Columns::Chars), (1, 12));
        assert_eq!(idx.line_col(text, quote, Columns::CharsAfterBom), (1, 11));
        assert_eq!(idx.line_col(text, quote, Columns::Bytes), (1, 23));
        assert_eq!(idx.line_col(text, quote, Columns::Utf16), (1, 14));
        let b = text.find('b').unwrap();
        assert_eq!(idx.line_col(text, b, Columns::Graphemes), (2, 1));
        assert_eq!(idx.line_col(text, text.len() + 5, Columns::Chars), (3, 1));
        // Inside a character is its start.
        assert_eq!(idx.line_col(text, 1, Columns::Bytes), (1, 1));
    }

    #[test]
    fn counting_on_along_a_line_agrees_with_counting_afresh() {
        let text = "x = \"ä😀b\" # ü\ny";
        let idx = LineIndex::new(text);
        let fresh: Vec<_> = (0..=text.len())
            .map(|o| LineIndex::new(text).line_col(text, o, Columns::Graphemes))
            .collect();
        let along: Vec<_> =
            (0..=text.len()).map(|o| idx.line_col(text, o, Columns::Graphemes)).collect();
        assert_eq!(fresh, along);
        // Backwards, and another mode in between, start afresh (inside the emoji is its start).
        assert_eq!(idx.line_col(text, 2, Columns::Graphemes), (1, 3));
        assert_eq!(idx.line_col(text, 9, Columns::Utf16), (1, 7));
    }

    #[test]
    fn a_lone_carriage_return_ends_a_line_where_asked() {
        let text = "a\rb\r\nc\n";
        assert_eq!(LineIndex::new(text).line(text.find('c').unwrap()), 1);
        let idx = LineIndex::with_lone_cr(text);
        assert_eq!(idx.lines(), 4);
        assert_eq!(idx.line(text.find('b').unwrap()), 1);
        assert_eq!(idx.line(text.find('c').unwrap()), 2);
        assert_eq!(idx.line_range(text, 1), (2, 3));
    }

    #[test]
    fn editor_positions_round_trip() {
        let text = "a = \"é😀\"\r\nb = 1\n";
        let idx = LineIndex::new(text);
        let after_emoji = text.find("\"\r").unwrap();
        assert_eq!(idx.position(text, after_emoji, Columns::Utf16), (0, 8));
        assert_eq!(idx.offset(text, 0, 8, Columns::Utf16), after_emoji);
        assert_eq!(idx.position(text, after_emoji, Columns::Bytes), (0, 11));
        assert_eq!(idx.offset(text, 0, 11, Columns::Bytes), after_emoji);
        assert_eq!(idx.line_range(text, 0).1, text.find('\r').unwrap());
        assert_eq!(idx.offset(text, 0, 99, Columns::Utf16), text.find('\r').unwrap());
        assert_eq!(idx.offset(text, 9, 0, Columns::Utf16), text.len());
        assert_eq!(idx.line_start(1), Some(text.find('b').unwrap()));
        assert_eq!(idx.line_start(3), None);
    }
}
