//! Byte offsets (what the pipeline speaks) to and from the protocol's positions, and
//! `file:` URIs to and from paths. Editors count columns in UTF-16 code units unless both
//! sides agree on UTF-8 at initialisation.

use std::path::{Path, PathBuf};

use override_guard_hcl::{Columns, LineIndex};

use super::protocol::{Position, Range};

/// How the protocol counts columns, as agreed at initialisation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Encoding {
    Utf8,
    Utf16,
}

/// The lines of a text, to turn offsets into positions and back.
pub(crate) struct Lines<'a> {
    text: &'a str,
    index: LineIndex,
    enc: Encoding,
}

impl<'a> Lines<'a> {
    pub(crate) fn new(text: &'a str, enc: Encoding) -> Self {
        Lines { text, index: LineIndex::new(text), enc }
    }

    fn columns(&self) -> Columns {
        match self.enc {
            Encoding::Utf8 => Columns::Bytes,
            Encoding::Utf16 => Columns::Utf16,
        }
    }

    /// The 0-based line holding a byte offset.
    pub(crate) fn line_of(&self, offset: usize) -> usize {
        self.index.line(offset)
    }

    /// The byte range of a 0-based line, without its line break.
    pub(crate) fn line_range(&self, line: usize) -> (usize, usize) {
        self.index.line_range(self.text, line)
    }

    /// The position of a byte offset (clamped to the text, and back to a character
    /// boundary).
    pub(crate) fn position(&self, offset: usize) -> Position {
        let (line, character) = self.index.position(self.text, offset, self.columns());
        Position { line: line as u32, character: character as u32 }
    }

    pub(crate) fn range(&self, start: usize, end: usize) -> Range {
        Range { start: self.position(start), end: self.position(end) }
    }

    /// The byte offset of a position; a column past the line's end is its end, a line
    /// past the text's end is the end of the text.
    pub(crate) fn offset(&self, p: Position) -> usize {
        self.index.offset(self.text, p.line as usize, p.character as usize, self.columns())
    }

    /// The indentation of the line holding `offset`.
    pub(crate) fn indent_of(&self, offset: usize) -> &'a str {
        let (start, end) = self.line_range(self.line_of(offset));
        let line = &self.text[start..end];
        &line[..line.len() - line.trim_start_matches([' ', '\t']).len()]
    }
}

/// The path of a `file:` URI (percent-decoded); `None` for any other scheme, for a URI
/// naming another host (`file://host/p`), and for one whose path is not UTF-8 or holds a
/// NUL. The URI is the client's: nothing here assumes more of it than that it is text.
pub(crate) fn path_of(uri: &str) -> Option<PathBuf> {
    let rest = uri.strip_prefix("file://")?;
    // `file:///p` or `file://localhost/p`; a query or fragment is no part of a file.
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    let rest = rest.split(['?', '#']).next().unwrap_or(rest);
    if !rest.starts_with('/') {
        return None;
    }
    let mut bytes = Vec::with_capacity(rest.len());
    let raw = rest.as_bytes();
    let mut i = 0;
    while i < raw.len() {
        if raw[i] == b'%'
            && let Some(h) = raw.get(i + 1..i + 3).filter(|h| h.iter().all(u8::is_ascii_hexdigit))
            && let Some(v) =
                std::str::from_utf8(h).ok().and_then(|h| u8::from_str_radix(h, 16).ok())
        {
            bytes.push(v);
            i += 3;
            continue;
        }
        bytes.push(raw[i]);
        i += 1;
    }
    let decoded = String::from_utf8(bytes).ok().filter(|d| !d.contains('\0'))?;
    // Windows: `file:///C:/x` is `C:/x` (a drive letter and a colon after the slash).
    let drive = matches!(decoded.as_bytes(), [b'/', d, b':', ..] if d.is_ascii_alphabetic());
    // The first byte is `/`: slicing after it is at a character boundary.
    Some(PathBuf::from(if drive { &decoded[1..] } else { decoded.as_str() }))
}

/// The `file:` URI of an absolute path.
pub(crate) fn uri_of(path: &Path) -> Option<String> {
    let s = path.to_str()?.replace('\\', "/");
    let mut out = String::from("file://");
    if !s.starts_with('/') {
        out.push('/');
    }
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' | b':' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_utf16_units_or_bytes() {
        let text = "a = \"é😀\"\r\nb = 1\n";
        let l16 = Lines::new(text, Encoding::Utf16);
        let after_emoji = text.find("\"\r").unwrap();
        assert_eq!(l16.position(after_emoji), Position { line: 0, character: 8 });
        assert_eq!(l16.offset(Position { line: 0, character: 8 }), after_emoji);
        let l8 = Lines::new(text, Encoding::Utf8);
        assert_eq!(l8.position(after_emoji), Position { line: 0, character: 11 });
        assert_eq!(l8.offset(Position { line: 0, character: 11 }), after_emoji);
        // The line's end is before its CR; past the end is the end.
        assert_eq!(l16.line_range(0).1, text.find('\r').unwrap());
        assert_eq!(l16.offset(Position { line: 0, character: 99 }), text.find('\r').unwrap());
        assert_eq!(l16.offset(Position { line: 9, character: 0 }), text.len());
        // Inside a character is its start.
        assert_eq!(l8.position(text.find('é').unwrap() + 1).character, 5);
    }

    #[test]
    fn file_uris_round_trip() {
        let p = Path::new("/tmp/a dir/zürich/main.tf");
        let uri = uri_of(p).unwrap();
        assert_eq!(uri, "file:///tmp/a%20dir/z%C3%BCrich/main.tf");
        assert_eq!(path_of(&uri).unwrap(), p);
        assert_eq!(path_of("untitled:Untitled-1"), None);
    }

    #[test]
    fn any_uri_is_a_path_or_none_never_a_panic() {
        let cases: &[(&str, Option<&str>)] = &[
            // A two-byte character where the drive check looked for `X:`.
            ("file://é:/main.tf", None),
            ("file:///é:/main.tf", Some("/é:/main.tf")),
            ("file:///C:/x/main.tf", Some("C:/x/main.tf")),
            ("file:///C%3A/x.tf", Some("C:/x.tf")),
            ("file:///1:/x.tf", Some("/1:/x.tf")),
            ("file://localhost/a.tf", Some("/a.tf")),
            ("file://host/a.tf", None),
            ("file://", None),
            ("file:///", Some("/")),
            ("file:///a.tf?x#y", Some("/a.tf")),
            // Escapes that are no escapes stay as written.
            ("file:///a%2", Some("/a%2")),
            ("file:///a%zz%+1%", Some("/a%zz%+1%")),
            ("file:///%C3%A9.tf", Some("/é.tf")),
            // Not UTF-8 once decoded, or a NUL: no path.
            ("file:///%FF.tf", None),
            ("file:///%C3", None),
            ("file:///a%00.tf", None),
            ("file:///é", Some("/é")),
        ];
        for (uri, want) in cases {
            assert_eq!(path_of(uri), want.map(PathBuf::from), "{uri}");
        }
        // Every cut of a URI with multi-byte characters in every place.
        let uri = "file:///é😀:/%C3%A9/ü.tf";
        for end in 0..=uri.len() {
            if let Some(prefix) = uri.get(..end) {
                let _ = path_of(prefix);
            }
        }
    }

    #[test]
    fn positions_from_the_client_are_clamped_to_the_text() {
        let text = "a = \"😀\"\r\nb\n";
        for enc in [Encoding::Utf8, Encoding::Utf16] {
            let l = Lines::new(text, enc);
            for line in [0, 1, 2, 3, u32::MAX] {
                for character in [0, 1, 5, 6, 7, 100, u32::MAX] {
                    let o = l.offset(Position { line, character });
                    assert!(text.is_char_boundary(o), "{line}:{character} -> {o}");
                    let _ = l.position(o);
                }
            }
            assert_eq!(l.offset(Position { line: u32::MAX, character: u32::MAX }), text.len());
            let _ = l.range(usize::MAX, 0);
            let _ = l.indent_of(usize::MAX);
        }
    }
}
