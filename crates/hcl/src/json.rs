//! HCL's JSON parser (`hcl/json`: `scan`, `parseFileContent`, `Parse`) run for its
//! diagnostics alone: the same tokens, the same recovery, the same summaries, details and
//! byte ranges. The value tree itself is read elsewhere, once this finds no error.
//!
//! Recursion: one call per nesting level, bounded by the depth check that runs first, and
//! here too (the reader's limit), should that check count differently.

/// How deep JSON values may nest, counted as the JSON reader counts (an array one level,
/// an object two: itself and the property holding the value). The reader stops at this
/// depth with an error of its own; ours says what the limit is. It keeps the recursion of
/// the reader and of everything after it (the value as an expression) within what native
/// syntax may nest ([`crate::parse::MAX_DEPTH`], 1000 levels).
pub const MAX_DEPTH: usize = 512;

/// One error: summary, detail and byte range.
pub type SyntaxError = (&'static str, String, usize, usize);

const VALUE_START: &str =
    "A JSON value must start with a brace, a bracket, a number, a string, or a keyword.";
const COMMA_IN_OBJECT: &str = "A comma must appear between each property definition in an object.";

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    BraceO,
    BraceC,
    BrackO,
    BrackC,
    Comma,
    Colon,
    Equals,
    Keyword,
    String,
    Number,
    Eof,
    Invalid,
}

#[derive(Clone, Copy, Debug)]
struct Tok {
    kind: Kind,
    start: usize,
    end: usize,
}

/// What a value parsed to, as far as the checks after it need to know.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Node {
    Object,
    Array,
    String,
    Other,
}

/// HCL's errors for a JSON document, in its order (empty when HCL reads it).
pub fn check(text: &str) -> Vec<SyntaxError> {
    let mut p = Parser { text, next: token_at(text, 0), depth: 0, out: Vec::new() };
    let first = p.peek();
    let root = p.value();
    if p.out.is_empty() && p.peek().kind != Kind::Eof {
        let t = p.peek();
        p.err(
            "Extraneous data after value",
            "Extra characters appear after the JSON value.".into(),
            t.start,
            t.end,
        );
    }
    if !matches!(root, Some(Node::Object | Node::Array)) {
        // An invalid value stands at the token it started with; a scalar is one token.
        p.err(
            "Root value must be object",
            "The root value in a JSON-based configuration must be either a JSON object or a JSON array of objects.".into(),
            first.start,
            first.end,
        );
    }
    p.out
}

/// HCL's scanner, one token at a time from `i`: whitespace is space, tab, CR and LF only;
/// an invalid byte is the last token before the end (HCL marks one byte; the whole
/// character keeps the range on a boundary).
fn token_at(text: &str, mut i: usize) -> Tok {
    let b = text.as_bytes();
    while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\r' | b'\n') {
        i += 1;
    }
    let start = i;
    let Some(&c) = b.get(i) else {
        return Tok { kind: Kind::Eof, start, end: start };
    };
    let kind = match c {
        b'{' => Kind::BraceO,
        b'}' => Kind::BraceC,
        b'[' => Kind::BrackO,
        b']' => Kind::BrackC,
        b',' => Kind::Comma,
        b':' => Kind::Colon,
        b'=' => Kind::Equals,
        b'"' => Kind::String,
        b'-' | b'+' | b'.' | b'0'..=b'9' => Kind::Number,
        c if c.is_ascii_alphabetic() => Kind::Keyword,
        _ => Kind::Invalid,
    };
    let end = match kind {
        Kind::String => {
            // To the unescaped closing quote, or up to a control character or the end.
            let mut j = i + 1;
            let mut escaping = false;
            while j < b.len() {
                match b[j] {
                    b'\\' => {
                        escaping = !escaping;
                        j += 1;
                    }
                    b'"' => {
                        j += 1;
                        if !escaping {
                            break;
                        }
                        escaping = false;
                    }
                    0..=31 => break,
                    _ => {
                        j += text[j..].chars().next().map_or(1, char::len_utf8);
                        escaping = false;
                    }
                }
            }
            j
        }
        Kind::Number => {
            let mut j = i;
            while j < b.len() && matches!(b[j], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9') {
                j += 1;
            }
            j
        }
        Kind::Keyword => {
            let mut j = i;
            while j < b.len() && (b[j].is_ascii_alphabetic() || b[j] == b'_') {
                j += 1;
            }
            j
        }
        Kind::Invalid => i + text[i..].chars().next().map_or(1, char::len_utf8),
        _ => i + 1,
    };
    Tok { kind, start, end }
}

struct Parser<'t> {
    text: &'t str,
    /// The next token (scanned as the parser goes: a file may hold millions).
    next: Tok,
    depth: usize,
    out: Vec<SyntaxError>,
}

impl Parser<'_> {
    fn peek(&self) -> Tok {
        self.next
    }

    /// The next token; the end stays the end, and HCL's scanner stops after an invalid one.
    fn read(&mut self) -> Tok {
        let t = self.next;
        self.next = match t.kind {
            Kind::Eof => t,
            Kind::Invalid => Tok { kind: Kind::Eof, start: t.end, end: t.end },
            _ => token_at(self.text, t.end),
        };
        t
    }

    fn err(&mut self, summary: &'static str, detail: String, start: usize, end: usize) {
        self.out.push((summary, detail, start, end));
    }

    /// `parseValue`: `None` where HCL has an invalid value (its errors are out).
    fn value(&mut self) -> Option<Node> {
        let t = self.peek();
        let (summary, detail) = match t.kind {
            Kind::BraceO | Kind::BrackO if self.depth >= MAX_DEPTH => {
                ("Nesting too deep", "JSON values may be nested at most 512 levels deep.")
            }
            Kind::BraceO | Kind::BrackO => {
                self.depth += 1;
                let n = if t.kind == Kind::BraceO { self.object() } else { self.array() };
                self.depth -= 1;
                return n;
            }
            Kind::Number => return self.number(),
            Kind::String => return self.string(),
            Kind::Keyword => return self.keyword(),
            Kind::BraceC => ("Missing JSON value", VALUE_START),
            Kind::BrackC => ("Missing array element value", VALUE_START),
            Kind::Eof => ("Missing value", "The JSON data ends prematurely."),
            _ => ("Invalid start of value", VALUE_START),
        };
        self.err(summary, detail.into(), t.start, t.end);
        None
    }

    /// `recover` of `parseObject` (`[`/`]` for `parseArray`): on to what seems the end.
    fn recover(&mut self, mut t: Tok, open_kind: Kind, close_kind: Kind) {
        let mut open = 1;
        loop {
            match t.kind {
                k if k == open_kind => open += 1,
                k if k == close_kind => {
                    open -= 1;
                    if open <= 1 {
                        return;
                    }
                }
                Kind::Eof => return,
                _ => {}
            }
            t = self.read();
        }
    }

    fn object(&mut self) -> Option<Node> {
        let open = self.read();
        loop {
            if self.peek().kind == Kind::BraceC {
                break;
            }
            let key_tok = self.peek();
            let key = self.value();
            if key != Some(Node::String) {
                self.err(
                    "Invalid object property name",
                    "A JSON object property name must be a string".into(),
                    key_tok.start,
                    key_tok.end,
                );
                return None;
            }
            let colon = self.read();
            if colon.kind != Kind::Colon {
                self.recover(colon, Kind::BraceO, Kind::BraceC);
                let (summary, detail) = match colon.kind {
                    Kind::BraceC | Kind::Comma => (
                        "Missing object value",
                        "A JSON object attribute must have a value, introduced by a colon.",
                    ),
                    Kind::Equals => (
                        "Missing property value colon",
                        "JSON uses a colon as its name/value delimiter, not an equals sign.",
                    ),
                    _ => (
                        "Missing property value colon",
                        "A colon must appear between an object property's name and its value.",
                    ),
                };
                self.err(summary, detail.into(), colon.start, colon.end);
                return None;
            }
            self.value();
            match self.peek().kind {
                Kind::Comma => {
                    let comma = self.read();
                    if self.peek().kind == Kind::BraceC {
                        self.err(
                            "Trailing comma in object",
                            "JSON does not permit a trailing comma after the final property in an object.".into(),
                            comma.start,
                            comma.end,
                        );
                        return None;
                    }
                }
                Kind::Eof => {
                    self.err(
                        "Unclosed object",
                        "No closing brace was found for this JSON object.".into(),
                        open.start,
                        open.end,
                    );
                    return None;
                }
                Kind::BrackC => {
                    // Terraform 1.15.5's HCL reads the bracket and marks what follows it.
                    self.read();
                    let at = self.peek();
                    self.err(
                        "Mismatched braces",
                        "A JSON object must be closed with a brace, not a bracket.".into(),
                        at.start,
                        at.end,
                    );
                    return None;
                }
                Kind::BraceC => break,
                _ => {
                    let t = self.read();
                    self.recover(t, Kind::BraceO, Kind::BraceC);
                    let at = self.peek();
                    self.err(
                        "Missing attribute seperator comma",
                        COMMA_IN_OBJECT.into(),
                        at.start,
                        at.end,
                    );
                    return None;
                }
            }
        }
        self.read();
        Some(Node::Object)
    }

    fn array(&mut self) -> Option<Node> {
        let open = self.read();
        loop {
            if self.peek().kind == Kind::BrackC {
                break;
            }
            self.value();
            match self.peek().kind {
                Kind::Comma => {
                    let comma = self.read();
                    if self.peek().kind == Kind::BrackC {
                        self.err(
                            "Trailing comma in array",
                            "JSON does not permit a trailing comma after the final value in an array.".into(),
                            comma.start,
                            comma.end,
                        );
                        return None;
                    }
                }
                Kind::Colon => {
                    let t = self.read();
                    self.recover(t, Kind::BrackO, Kind::BrackC);
                    let at = self.peek();
                    self.err(
                        "Invalid array value",
                        "A colon is not used to introduce values in a JSON array.".into(),
                        at.start,
                        at.end,
                    );
                    return None;
                }
                Kind::Eof => {
                    let t = self.read();
                    self.recover(t, Kind::BrackO, Kind::BrackC);
                    self.err(
                        "Unclosed object",
                        "No closing bracket was found for this JSON array.".into(),
                        open.start,
                        open.end,
                    );
                    return None;
                }
                Kind::BraceC => {
                    // Terraform 1.15.5's HCL marks where its recovery stopped.
                    let t = self.read();
                    self.recover(t, Kind::BrackO, Kind::BrackC);
                    let at = self.peek();
                    self.err(
                        "Mismatched brackets",
                        "A JSON array must be closed with a bracket, not a brace.".into(),
                        at.start,
                        at.end,
                    );
                    return None;
                }
                Kind::BrackC => break,
                _ => {
                    let t = self.read();
                    self.recover(t, Kind::BrackO, Kind::BrackC);
                    let at = self.peek();
                    self.err(
                        "Missing attribute seperator comma",
                        "A comma must appear between each value in an array.".into(),
                        at.start,
                        at.end,
                    );
                    return None;
                }
            }
        }
        self.read();
        Some(Node::Array)
    }

    /// `parseNumber`: the token must be a JSON number.
    fn number(&mut self) -> Option<Node> {
        let t = self.read();
        if json_number(&self.text[t.start..t.end]) {
            Some(Node::Other)
        } else {
            self.err(
                "Invalid JSON number",
                "There is a syntax error in the given JSON number.".into(),
                t.start,
                t.end,
            );
            None
        }
    }

    /// `parseString`: Go's JSON decoder reads the token; HCL marks the byte after the
    /// decoder's error offset (the byte after a bad escape, or after an unclosed string).
    fn string(&mut self) -> Option<Node> {
        let t = self.read();
        match string_error(&self.text.as_bytes()[t.start..t.end]) {
            None => Some(Node::String),
            Some(offset) => {
                // Past the end of the file, the range is empty.
                let at = (t.start + offset).min(self.text.len());
                let end = at
                    + self.text.get(at..).and_then(|r| r.chars().next()).map_or(0, char::len_utf8);
                self.err(
                    "Invalid JSON string",
                    "There is a syntax error in the given JSON string.".into(),
                    at,
                    end,
                );
                None
            }
        }
    }

    fn keyword(&mut self) -> Option<Node> {
        let t = self.read();
        let word = &self.text[t.start..t.end];
        let detail = match word {
            "true" | "false" | "null" => return Some(Node::Other),
            "undefined" | "NaN" | "Infinity" => {
                format!("The JavaScript identifier {word:?} cannot be used in JSON.")
            }
            _ => {
                // `keywordSuggestion`: the first keyword fewer than 3 edits away.
                let hint = ["false", "true", "null"]
                    .iter()
                    .find(|k| strsim::levenshtein(k, word) < 3)
                    .map(|k| format!(" Did you mean {k:?}?"))
                    .unwrap_or_default();
                format!("{word:?} is not a valid JSON keyword.{hint}")
            }
        };
        self.err("Invalid JSON keyword", detail, t.start, t.end);
        None
    }
}

/// JSON's number grammar: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
fn json_number(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = usize::from(b.first() == Some(&b'-'));
    let digits = |i: &mut usize| {
        let from = *i;
        while b.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        *i > from
    };
    match b.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => {
            digits(&mut i);
        }
        _ => return false,
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        if !digits(&mut i) {
            return false;
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if !digits(&mut i) {
            return false;
        }
    }
    i == b.len()
}

/// Where Go's JSON decoder stops on a string token: the count of bytes it read when it
/// failed (the bad byte included; the whole token for an unclosed string).
fn string_error(b: &[u8]) -> Option<usize> {
    let mut i = 1;
    while i < b.len() {
        match b[i] {
            b'"' if i + 1 == b.len() => return None,
            b'"' => return Some(i + 2),
            b'\\' => {
                i += 1;
                match b.get(i) {
                    None => return Some(b.len()),
                    Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => i += 1,
                    Some(b'u') => {
                        for k in 1..=4 {
                            match b.get(i + k) {
                                None => return Some(b.len()),
                                Some(h) if h.is_ascii_hexdigit() => {}
                                Some(_) => return Some(i + k + 1),
                            }
                        }
                        i += 5;
                    }
                    Some(_) => return Some(i + 1),
                }
            }
            0..=31 => return Some(i + 1),
            _ => i += 1,
        }
    }
    Some(b.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summaries(text: &str) -> Vec<&'static str> {
        check(text).into_iter().map(|(s, ..)| s).collect()
    }

    #[test]
    fn numbers_follow_jsons_grammar() {
        for ok in ["0", "-0", "12", "1.5", "1e5", "1E+5", "-2.5e-3"] {
            assert!(json_number(ok), "{ok}");
        }
        for bad in ["", "-", "01", "1.", ".5", "+1", "1e", "1e+", "--1", "1.2.3"] {
            assert!(!json_number(bad), "{bad}");
        }
    }

    #[test]
    fn recovery_reports_what_hcl_reports() {
        assert!(check("{\"a\": [1, {\"b\": null}], \"c\": \"\\u00e9\"}").is_empty());
        assert_eq!(
            summaries("{"),
            ["Missing value", "Invalid object property name", "Root value must be object"]
        );
        assert_eq!(
            summaries("{\"locals\": {\"a\": 1}"),
            ["Unclosed object", "Root value must be object"]
        );
        assert_eq!(summaries("{} x"), ["Extraneous data after value"]);
        assert_eq!(summaries("{\"a\": \"x\\qy\"}"), ["Invalid JSON string"]);
        // The decoder stops after the bad escape: HCL marks the byte after it.
        assert_eq!(check("{\"a\": \"x\\qy\"}")[0].2, 10);
    }
}
