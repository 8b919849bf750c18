//! The scanner: native-syntax text to tokens, as HCL's scanner cuts them (its token kinds,
//! its longest-match rules, its three modes: code, quoted template, heredoc). It never
//! fails: what it cannot place becomes an `Invalid` or `BadUtf8` token for the checks in
//! [`crate::code::invalid_tokens`], and it runs in one pass, linear in the input.

pub use crate::tokens::{Kind, Packed, Sink, TokSlice, Token, Tokens};

/// What the scanner is reading.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// A configuration file or an expression.
    Normal,
    /// A template with no delimiters (a JSON string that Terraform reads as a template).
    Template,
}

/// What the scanner is inside of.
#[derive(Debug)]
enum Frame {
    /// A quoted template.
    Quoted,
    /// A heredoc: its closing marker, and whether the next text starts a line.
    Heredoc { marker: (usize, usize), start_of_line: bool },
    /// A bare template (the outermost frame in [`Mode::Template`]).
    Bare,
    /// Code inside `${`/`%{`, returning at the brace depth it was opened at.
    Interp { braces: usize },
}

/// Cuts `src` into tokens; the last is always `Eof`. A byte order mark is skipped (its
/// bytes belong to no token).
pub fn scan(src: &[u8], mode: Mode) -> Vec<Token> {
    scan_into(src, mode, Vec::with_capacity(src.len() / 4))
}

/// [`scan`] into the parser's compact list: half the memory, where offsets fit 32 bits.
pub fn scan_tokens(src: &[u8], mode: Mode) -> Tokens {
    if u32::try_from(src.len()).is_ok() {
        Tokens::Packed(scan_into(src, mode, Vec::with_capacity(src.len() / 4)))
    } else {
        Tokens::Wide(scan(src, mode))
    }
}

fn scan_into<O: Sink>(src: &[u8], mode: Mode, out: O) -> O {
    let start = if src.starts_with(&[0xef, 0xbb, 0xbf]) { 3 } else { 0 };
    let mut s = Scanner { src, pos: start, out, braces: 0, no_close_after: usize::MAX };
    let mut stack: Vec<Frame> = Vec::new();
    if mode == Mode::Template {
        stack.push(Frame::Bare);
    }
    loop {
        if s.pos >= src.len() {
            break;
        }
        match stack.last() {
            None | Some(Frame::Interp { .. }) => s.code(&mut stack),
            Some(Frame::Quoted) => s.quoted(&mut stack),
            Some(Frame::Heredoc { .. }) => s.heredoc(&mut stack),
            Some(Frame::Bare) => s.bare(&mut stack),
        }
    }
    let end = src.len();
    s.out.push(Token { kind: Kind::Eof, start: end, end });
    s.out
}

struct Scanner<'a, O> {
    src: &'a [u8],
    pos: usize,
    out: O,
    /// Open `{` of code (HCL's brace count: template sequences return at their level).
    braces: usize,
    /// No `*/` follows this offset (`usize::MAX` until a search for one fails).
    no_close_after: usize,
}

/// The length of the UTF-8 sequence starting at `b[i]` as HCL's scanner accepts it (a
/// lead byte and the right number of continuation bytes), or `None` for a broken one.
fn utf8_len(b: &[u8], i: usize) -> Option<usize> {
    let c = *b.get(i)?;
    let n = match c {
        0x00..=0x7f => return Some(1),
        0xc0..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf7 => 4,
        _ => return None,
    };
    for k in 1..n {
        if !matches!(b.get(i + k), Some(0x80..=0xbf)) {
            return None;
        }
    }
    Some(n)
}

/// The character at `b[i..]`, when it is valid UTF-8.
fn char_at(b: &[u8], i: usize) -> Option<(char, usize)> {
    if let Some(&c) = b.get(i)
        && c.is_ascii()
    {
        return Some((c as char, 1));
    }
    let n = utf8_len(b, i)?;
    let s = std::str::from_utf8(b.get(i..i + n)?).ok()?;
    s.chars().next().map(|c| (c, n))
}

fn is_ident_start(c: char) -> bool {
    c == '_' || unicode_ident::is_xid_start(c)
}

fn is_ident_continue(c: char) -> bool {
    c == '-' || unicode_ident::is_xid_continue(c)
}

impl<O: Sink> Scanner<'_, O> {
    fn peek(&self, k: usize) -> Option<u8> {
        self.src.get(self.pos + k).copied()
    }

    fn emit(&mut self, kind: Kind, len: usize) {
        let start = self.pos;
        self.pos += len;
        self.out.push(Token { kind, start, end: self.pos });
    }

    /// One character that is no token of the language (or a broken UTF-8 byte).
    fn invalid(&mut self) {
        match utf8_len(self.src, self.pos) {
            Some(n) => self.emit(Kind::Invalid, n),
            None => self.emit(Kind::BadUtf8, 1),
        }
    }

    /// The length of an identifier at the current position, if one starts here.
    fn ident_len(&self, at: usize) -> Option<usize> {
        let (c, n) = char_at(self.src, at)?;
        if !is_ident_start(c) {
            return None;
        }
        let mut len = n;
        loop {
            // Most identifiers are ASCII: those bytes are judged without decoding.
            match self.src.get(at + len) {
                Some(b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'_' | b'-') => {
                    len += 1;
                    continue;
                }
                Some(c) if c.is_ascii() => break,
                _ => {}
            }
            let Some((c, n)) = char_at(self.src, at + len) else { break };
            if !is_ident_continue(c) {
                break;
            }
            len += n;
        }
        Some(len)
    }

    /// A number: a digit, then digits, dots and exponents, never ending with a dot.
    fn number_len(&self) -> usize {
        let b = self.src;
        let mut i = self.pos + 1;
        let mut good = i;
        loop {
            match b.get(i) {
                Some(b'0'..=b'9') => {
                    i += 1;
                    good = i;
                }
                Some(b'.') => i += 1,
                Some(b'e' | b'E') => {
                    let mut j = i + 1;
                    if matches!(b.get(j), Some(b'+' | b'-')) {
                        j += 1;
                    }
                    if matches!(b.get(j), Some(b'0'..=b'9')) {
                        i = j + 1;
                        good = i;
                    } else {
                        break;
                    }
                }
                _ => break,
            }
        }
        good - self.pos
    }

    /// `<<EOT` or `<<-EOT` and its newline: the heredoc's opening, with its marker.
    fn heredoc_open(&self) -> Option<(usize, (usize, usize))> {
        let mut i = self.pos + 2;
        if self.src.get(i) == Some(&b'-') {
            i += 1;
        }
        let name = self.ident_len(i)?;
        let marker = (i, i + name);
        let mut j = i + name;
        if self.src.get(j) == Some(&b'\r') {
            j += 1;
        }
        (self.src.get(j) == Some(&b'\n')).then_some((j + 1 - self.pos, marker))
    }

    /// Code: the main scanning mode.
    fn code(&mut self, stack: &mut Vec<Frame>) {
        let b = self.src;
        let c = b[self.pos];
        match c {
            b' ' | b'\t' => {
                let mut i = self.pos;
                while matches!(b.get(i), Some(b' ' | b'\t')) {
                    i += 1;
                }
                self.pos = i;
            }
            b'0'..=b'9' => {
                let n = self.number_len();
                self.emit(Kind::NumberLit, n);
            }
            b'#' => self.line_comment(1),
            b'/' if self.peek(1) == Some(b'/') => self.line_comment(2),
            b'/' if self.peek(1) == Some(b'*') => {
                // A block comment only counts when it is closed; otherwise `/` and `*`
                // are tokens and what follows is read as code (HCL's longest match).
                // Once no `*/` follows some point, none follows any later one: remembering
                // that keeps a text of many unclosed `/*` linear.
                let close = if self.pos >= self.no_close_after {
                    None
                } else {
                    find(b, self.pos + 2, b"*/")
                };
                match close {
                    Some(end) => self.emit(Kind::Comment, end + 2 - self.pos),
                    None => {
                        self.no_close_after = self.no_close_after.min(self.pos);
                        self.emit(Kind::Slash, 1)
                    }
                }
            }
            b'\n' => self.emit(Kind::Newline, 1),
            b'\r' if self.peek(1) == Some(b'\n') => self.emit(Kind::Newline, 2),
            b'=' if self.peek(1) == Some(b'=') => self.emit(Kind::EqualOp, 2),
            b'=' if self.peek(1) == Some(b'>') => self.emit(Kind::FatArrow, 2),
            b'!' if self.peek(1) == Some(b'=') => self.emit(Kind::NotEqual, 2),
            b'>' if self.peek(1) == Some(b'=') => self.emit(Kind::GreaterThanEq, 2),
            b'<' if self.peek(1) == Some(b'=') => self.emit(Kind::LessThanEq, 2),
            b'<' if self.peek(1) == Some(b'<') => match self.heredoc_open() {
                Some((len, marker)) => {
                    self.emit(Kind::OHeredoc, len);
                    stack.push(Frame::Heredoc { marker, start_of_line: true });
                }
                None => self.emit(Kind::LessThan, 1),
            },
            b'&' if self.peek(1) == Some(b'&') => self.emit(Kind::And, 2),
            b'|' if self.peek(1) == Some(b'|') => self.emit(Kind::Or, 2),
            b':' if self.peek(1) == Some(b':') => self.emit(Kind::DoubleColon, 2),
            b'.' if self.peek(1) == Some(b'.') && self.peek(2) == Some(b'.') => {
                self.emit(Kind::Ellipsis, 3)
            }
            b'{' => {
                self.braces += 1;
                self.emit(Kind::OBrace, 1);
            }
            b'}' => self.close_brace(stack, 1),
            b'~' if self.peek(1) == Some(b'}') => self.close_brace(stack, 2),
            b'"' => {
                self.emit(Kind::OQuote, 1);
                stack.push(Frame::Quoted);
            }
            _ => {
                let kind = match c {
                    b'[' => Some(Kind::OBrack),
                    b']' => Some(Kind::CBrack),
                    b'(' => Some(Kind::OParen),
                    b')' => Some(Kind::CParen),
                    b'.' => Some(Kind::Dot),
                    b',' => Some(Kind::Comma),
                    b'*' => Some(Kind::Star),
                    b'/' => Some(Kind::Slash),
                    b'%' => Some(Kind::Percent),
                    b'+' => Some(Kind::Plus),
                    b'-' => Some(Kind::Minus),
                    b'=' => Some(Kind::Equal),
                    b'<' => Some(Kind::LessThan),
                    b'>' => Some(Kind::GreaterThan),
                    b'!' => Some(Kind::Bang),
                    b'?' => Some(Kind::Question),
                    b':' => Some(Kind::Colon),
                    b'&' => Some(Kind::BitwiseAnd),
                    b'|' => Some(Kind::BitwiseOr),
                    b'~' => Some(Kind::BitwiseNot),
                    b'^' => Some(Kind::BitwiseXor),
                    b';' => Some(Kind::Semicolon),
                    b'`' => Some(Kind::Backtick),
                    b'\'' => Some(Kind::Apostrophe),
                    _ => None,
                };
                match kind {
                    Some(k) => self.emit(k, 1),
                    None => match self.ident_len(self.pos) {
                        Some(n) => self.emit(Kind::Ident, n),
                        None => self.invalid(),
                    },
                }
            }
        }
    }

    /// `}` (or `~}`): the end of a template sequence when it closes one, else a brace.
    fn close_brace(&mut self, stack: &mut Vec<Frame>, len: usize) {
        if let Some(Frame::Interp { braces }) = stack.last()
            && *braces == self.braces
        {
            self.emit(Kind::TemplateSeqEnd, len);
            self.braces = self.braces.saturating_sub(1);
            stack.pop();
            return;
        }
        // `~}` is a sequence end even where it closes nothing: the parser says why.
        self.emit(if len == 2 { Kind::TemplateSeqEnd } else { Kind::CBrace }, len);
        self.braces = self.braces.saturating_sub(1);
    }

    /// A `#` or `//` comment, with the newline that ends it.
    fn line_comment(&mut self, marker: usize) {
        let b = self.src;
        let mut i = self.pos + marker;
        while i < b.len() && b[i] != b'\n' {
            // `\r\n` ends it too; a lone `\r` is part of the comment.
            if b[i] == b'\r' && b.get(i + 1) == Some(&b'\n') {
                break;
            }
            i += 1;
        }
        if b.get(i) == Some(&b'\r') {
            i += 2;
        } else if i < b.len() {
            i += 1;
        }
        self.emit(Kind::Comment, i - self.pos);
    }

    /// `${` or `%{` (with `~`) at the current position: opens a template sequence.
    fn sequence(&mut self, stack: &mut Vec<Frame>) -> bool {
        let kind = match (self.peek(0), self.peek(1)) {
            (Some(b'$'), Some(b'{')) => Kind::TemplateInterp,
            (Some(b'%'), Some(b'{')) => Kind::TemplateControl,
            _ => return false,
        };
        let len = if self.peek(2) == Some(b'~') { 3 } else { 2 };
        self.braces += 1;
        if let Some(Frame::Heredoc { start_of_line, .. }) = stack.last_mut() {
            *start_of_line = false;
        }
        stack.push(Frame::Interp { braces: self.braces });
        self.emit(kind, len);
        true
    }

    /// `$${`/`%%{` (escapes), a `$` or `%` that opens nothing: the length of the literal
    /// text they make, or `None` when a sequence starts here. At the very end of the input
    /// a lone `$`/`%` cannot be decided: `Some(0)`.
    fn template_escape(&self) -> Option<usize> {
        let c = self.peek(0)?;
        match self.peek(1) {
            Some(b'{') => None,
            Some(d) if d == c && self.peek(2) == Some(b'{') => {
                Some(if self.peek(3) == Some(b'~') { 4 } else { 3 })
            }
            Some(_) => Some(1),
            None => Some(0),
        }
    }

    /// A quoted template.
    fn quoted(&mut self, stack: &mut Vec<Frame>) {
        let b = self.src;
        match b[self.pos] {
            b'"' => {
                self.emit(Kind::CQuote, 1);
                stack.pop();
            }
            b'\r' | b'\n' => {
                let mut i = self.pos;
                while matches!(b.get(i), Some(b'\r' | b'\n')) {
                    i += 1;
                }
                self.emit(Kind::QuotedNewline, i - self.pos);
            }
            b'$' | b'%' => {
                if self.sequence(stack) {
                    return;
                }
                match self.template_escape() {
                    Some(0) | None => self.rest_invalid(),
                    Some(n) => self.emit(Kind::QuotedLit, n),
                }
            }
            _ => {
                // A run of plain characters and backslash escapes.
                let mut i = self.pos;
                loop {
                    match b.get(i) {
                        None | Some(b'"' | b'$' | b'%' | b'\r' | b'\n') => break,
                        Some(b'\\') => match b.get(i + 1) {
                            Some(b'\r' | b'\n') | None => break,
                            Some(_) => match utf8_len(b, i + 1) {
                                Some(n) => i += 1 + n,
                                None => break,
                            },
                        },
                        Some(_) => match utf8_len(b, i) {
                            Some(n) => i += n,
                            None => break,
                        },
                    }
                }
                if i > self.pos {
                    self.emit(Kind::QuotedLit, i - self.pos);
                } else {
                    self.invalid();
                }
            }
        }
    }

    /// What is left cannot make a token (a `$` or `%` at the very end): HCL's scanner
    /// ends with one invalid token.
    fn rest_invalid(&mut self) {
        let n = self.src.len() - self.pos;
        self.emit(Kind::Invalid, n);
    }

    /// A heredoc's body: text line by line until the closing marker, alone on its line.
    fn heredoc(&mut self, stack: &mut Vec<Frame>) {
        let b = self.src;
        if matches!(b[self.pos], b'$' | b'%') {
            if self.sequence(stack) {
                return;
            }
            if self.template_escape() == Some(0) {
                return self.rest_invalid();
            }
        }
        let Some(Frame::Heredoc { marker, start_of_line }) = stack.last_mut() else { return };
        let (marker, start_of_line) = (*marker, *start_of_line);
        // A line's text up to its newline, or up to a sequence.
        let mut i = self.pos;
        loop {
            match b.get(i) {
                None | Some(b'\n') => break,
                Some(b'\r') if b.get(i + 1) == Some(&b'\n') => break,
                Some(b'$' | b'%') if i > self.pos => {
                    let d = b.get(i + 1);
                    if d == Some(&b'{') {
                        break;
                    }
                    // `$${` is literal text: skip it whole.
                    if d == b.get(i) && b.get(i + 2) == Some(&b'{') {
                        i += 3;
                    } else {
                        i += 1;
                    }
                }
                Some(b'$' | b'%') => {
                    let d = b.get(i + 1);
                    i += if d == b.get(i) && b.get(i + 2) == Some(&b'{') { 3 } else { 1 };
                }
                Some(_) => match utf8_len(b, i) {
                    Some(n) => i += n,
                    None => {
                        if i == self.pos {
                            self.emit(Kind::BadUtf8, 1);
                            return;
                        }
                        break;
                    }
                },
            }
        }
        let eol = match b.get(i) {
            Some(b'\n') => Some(i + 1),
            Some(b'\r') => Some(i + 2),
            _ => None,
        };
        let Some(end) = eol else {
            // Text that does not reach the end of its line (a sequence follows, or the
            // input ends).
            if let Some(Frame::Heredoc { start_of_line, .. }) = stack.last_mut() {
                *start_of_line = false;
            }
            if i > self.pos {
                self.emit(Kind::StringLit, i - self.pos);
            } else {
                self.invalid();
            }
            return;
        };
        let line = &b[self.pos..end];
        if start_of_line && line.trim_ascii() == &b[marker.0..marker.1] {
            // The closing marker, then its newline as a token of its own.
            let nl = if b[end - 2] == b'\r' { end - 2 } else { end - 1 };
            self.emit(Kind::CHeredoc, nl - self.pos);
            self.emit(Kind::Newline, end - nl);
            stack.pop();
            return;
        }
        if let Some(Frame::Heredoc { start_of_line, .. }) = stack.last_mut() {
            *start_of_line = true;
        }
        self.emit(Kind::StringLit, end - self.pos);
    }

    /// A bare template: text (with its newlines) and sequences, to the end of the input.
    fn bare(&mut self, stack: &mut Vec<Frame>) {
        let b = self.src;
        if matches!(b[self.pos], b'$' | b'%') {
            if self.sequence(stack) {
                return;
            }
            if self.template_escape() == Some(0) {
                // A trailing `$` or `%` of a bare template is literal text.
                let n = b.len() - self.pos;
                return self.emit(Kind::StringLit, n);
            }
        }
        let mut i = self.pos;
        loop {
            match b.get(i) {
                None => break,
                Some(b'\n') => {
                    i += 1;
                    break;
                }
                Some(b'\r') if b.get(i + 1) == Some(&b'\n') => {
                    i += 2;
                    break;
                }
                Some(b'$' | b'%') if i > self.pos => {
                    let d = b.get(i + 1);
                    if d == Some(&b'{') {
                        break;
                    }
                    i += if d == b.get(i) && b.get(i + 2) == Some(&b'{') { 3 } else { 1 };
                }
                Some(b'$' | b'%') => {
                    let d = b.get(i + 1);
                    i += if d == b.get(i) && b.get(i + 2) == Some(&b'{') { 3 } else { 1 };
                }
                Some(_) => match utf8_len(b, i) {
                    Some(n) => i += n,
                    None => break,
                },
            }
        }
        if i > self.pos {
            self.emit(Kind::StringLit, i - self.pos);
        } else {
            self.emit(Kind::BadUtf8, 1);
        }
    }
}

/// The offset of `needle` in `b` at or after `from`.
fn find(b: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    b.get(from..)?.windows(needle.len()).position(|w| w == needle).map(|p| p + from)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Vec<(Kind, String)> {
        scan(src.as_bytes(), Mode::Normal)
            .iter()
            .map(|t| (t.kind, String::from_utf8_lossy(t.text(src.as_bytes())).into_owned()))
            .collect()
    }

    #[test]
    fn numbers_never_end_with_a_dot() {
        let k = kinds("1.5 1. 1.2.3 1e5 1e x.0.1");
        let nums: Vec<&str> =
            k.iter().filter(|(k, _)| *k == Kind::NumberLit).map(|(_, s)| s.as_str()).collect();
        assert_eq!(nums, ["1.5", "1", "1.2.3", "1e5", "1", "0.1"]);
    }

    #[test]
    fn heredocs_end_at_their_marker_alone_on_a_line() {
        let k = kinds("x = <<EOT\nEOT\ny = <<-EOT\n  a ${b}\n  EOT]\n  EOT\n");
        let names: Vec<Kind> = k.iter().map(|(k, _)| *k).collect();
        assert_eq!(
            names,
            [
                Kind::Ident,
                Kind::Equal,
                Kind::OHeredoc,
                Kind::CHeredoc,
                Kind::Newline,
                Kind::Ident,
                Kind::Equal,
                Kind::OHeredoc,
                Kind::StringLit,
                Kind::TemplateInterp,
                Kind::Ident,
                Kind::TemplateSeqEnd,
                Kind::StringLit,
                Kind::StringLit,
                Kind::CHeredoc,
                Kind::Newline,
                Kind::Eof
            ]
        );
    }

    #[test]
    fn template_sequences_nest_and_return() {
        let k = kinds("\"a${ {b = \"c${d}\"} }e\"");
        let names: Vec<Kind> = k.iter().map(|(k, _)| *k).collect();
        assert_eq!(
            names,
            [
                Kind::OQuote,
                Kind::QuotedLit,
                Kind::TemplateInterp,
                Kind::OBrace,
                Kind::Ident,
                Kind::Equal,
                Kind::OQuote,
                Kind::QuotedLit,
                Kind::TemplateInterp,
                Kind::Ident,
                Kind::TemplateSeqEnd,
                Kind::CQuote,
                Kind::CBrace,
                Kind::TemplateSeqEnd,
                Kind::QuotedLit,
                Kind::CQuote,
                Kind::Eof
            ]
        );
    }

    #[test]
    fn an_unclosed_block_comment_is_code() {
        let k = kinds("/* a");
        assert_eq!(k[0].0, Kind::Slash);
        assert_eq!(k[1].0, Kind::Star);
        assert_eq!(k[2].0, Kind::Ident);
    }

    #[test]
    fn comments_keep_their_newline() {
        let k = kinds("# a\r\nb // c\n/* d */");
        assert_eq!(k[0], (Kind::Comment, "# a\r\n".into()));
        assert_eq!(k[2], (Kind::Comment, "// c\n".into()));
        assert_eq!(k[3], (Kind::Comment, "/* d */".into()));
    }

    #[test]
    fn quoted_strings_split_over_lines_and_escapes() {
        let k = kinds("\"a\nb $${x} \\\" %\"");
        let names: Vec<Kind> = k.iter().map(|(k, _)| *k).collect();
        assert_eq!(
            names,
            [
                Kind::OQuote,
                Kind::QuotedLit,
                Kind::QuotedNewline,
                Kind::QuotedLit,
                Kind::QuotedLit,
                Kind::QuotedLit,
                Kind::QuotedLit,
                Kind::CQuote,
                Kind::Eof
            ]
        );
    }
}
