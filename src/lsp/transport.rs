//! The protocol's framing on stdin and stdout, our own rather than lsp-server's: its stdio
//! transport (0.10) allocates whatever length a header claims before reading a byte of the
//! body (a claim of 2^64-1 bytes panics its reader thread), and ends the connection at the
//! first header or body it cannot read. A client's bytes are input like a repository's:
//! here a body that is not JSON is answered with a parse error, JSON that is no message
//! with an invalid-request error, a header block that cannot be framed is skipped up to
//! the next `Content-Length`, a length over [`MAX_BODY`] is refused, each with a note, and
//! the server goes on. The server still speaks through lsp-server's [`Connection`].

use std::io::{self, Read, Write};
use std::thread::JoinHandle;

use crossbeam_channel::{Receiver, Sender, bounded, select};
use lsp_server::{Connection, Message, Notification, Request, RequestId, Response, ResponseError};
use serde_json::{Map, Value, json};

/// The largest body read. An editor sends a whole file in `didOpen`: this is many times
/// the largest configuration file, and what one message may make the server hold.
pub(crate) const MAX_BODY: usize = 256 << 20;

/// The largest header block (real ones are one or two short lines).
const MAX_HEADER: usize = 8 << 10;

/// How much is read from stdin at a time.
const CHUNK: usize = 64 << 10;

/// The header that frames a body, as compared (header names ignore case).
const LENGTH: &[u8] = b"content-length";

/// What the [`Framer`] found in the bytes it was given.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Frame {
    /// A message's body, as many bytes as its header said.
    Body(Vec<u8>),
    /// Bytes that are no message were skipped, or a header line ignored: why.
    Skipped(String),
}

/// Cuts a byte stream into bodies by their `Content-Length` headers. It holds at most one
/// body (up to [`MAX_BODY`]) and one read beyond it; the memory of a body grows with the
/// bytes that come, never to a size a header claims.
#[derive(Default)]
pub(crate) struct Framer {
    buf: Vec<u8>,
    state: State,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum State {
    #[default]
    Header,
    /// A header said this many bytes follow.
    Body(usize),
    /// Bytes that are no message are skipped up to the next `Content-Length`.
    Resync,
}

/// A header block read from the start of a buffer.
#[derive(Debug, PartialEq, Eq)]
enum Header {
    Incomplete,
    /// The body's length and where the block ends; a note on a line ignored.
    Done {
        len: usize,
        end: usize,
        note: Option<String>,
    },
    /// No body can be framed from here: why, and where to look again.
    Bad {
        why: String,
        resume: usize,
    },
}

impl Framer {
    pub(crate) fn push(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
    }

    /// Whether the input stopped inside a message.
    pub(crate) fn pending(&self) -> bool {
        match self.state {
            State::Body(_) => true,
            State::Header => !self.buf.iter().all(u8::is_ascii_whitespace),
            State::Resync => false,
        }
    }

    /// The next body or note the bytes given so far hold.
    pub(crate) fn next_frame(&mut self) -> Option<Frame> {
        loop {
            match self.state {
                State::Body(len) => {
                    if self.buf.len() < len {
                        return None;
                    }
                    let rest = self.buf.split_off(len);
                    self.state = State::Header;
                    return Some(Frame::Body(std::mem::replace(&mut self.buf, rest)));
                }
                State::Resync => match find_length(&self.buf) {
                    Some(at) => {
                        self.buf.drain(..at);
                        self.state = State::Header;
                    }
                    None => {
                        // The name may be cut by the end of this read: its start is kept.
                        let keep = self.buf.len().saturating_sub(LENGTH.len() - 1);
                        self.buf.drain(..keep);
                        return None;
                    }
                },
                State::Header => {
                    // Line breaks between messages are no message.
                    let blank = self.buf.iter().take_while(|b| matches!(b, b'\r' | b'\n')).count();
                    self.buf.drain(..blank);
                    match header(&self.buf) {
                        Header::Incomplete => return None,
                        Header::Done { len, end, note } => {
                            self.buf.drain(..end);
                            self.state = State::Body(len);
                            if let Some(note) = note {
                                return Some(Frame::Skipped(note));
                            }
                        }
                        Header::Bad { why, resume } => {
                            self.buf.drain(..resume.clamp(1, self.buf.len().max(1)));
                            self.state = State::Resync;
                            let why = format!("{why}: skipped up to the next Content-Length");
                            return Some(Frame::Skipped(why));
                        }
                    }
                }
            }
        }
    }
}

/// Where `Content-Length` (in any case) next starts in `buf`.
fn find_length(buf: &[u8]) -> Option<usize> {
    buf.windows(LENGTH.len()).position(|w| w.eq_ignore_ascii_case(LENGTH))
}

/// Reads the header block at the start of `buf`: lines ending in `\n` (a `\r` before it
/// is dropped), up to an empty line. Lines that are not `name: value` are ignored with a
/// note, as are headers other than `Content-Length` (`Content-Type` names UTF-8, the only
/// encoding the protocol has).
fn header(buf: &[u8]) -> Header {
    let mut at = 0;
    let mut len: Option<usize> = None;
    let mut note = None;
    // Where the last `Content-Length` line starts: a failed block is searched again after it.
    let mut named = None;
    let bad =
        |why: String, named: Option<usize>| Header::Bad { why, resume: named.map_or(1, |n| n + 1) };
    loop {
        let Some(nl) = buf[at..].iter().position(|&b| b == b'\n') else {
            if buf.len() > MAX_HEADER {
                // No block can start before the last MAX_HEADER bytes: none has a line end.
                let why = format!("a header line longer than {MAX_HEADER} bytes");
                return Header::Bad { why, resume: buf.len() - MAX_HEADER };
            }
            return Header::Incomplete;
        };
        let start = at;
        let line = &buf[at..at + nl];
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        at += nl + 1;
        if at > MAX_HEADER {
            return bad(format!("a header block longer than {MAX_HEADER} bytes"), named);
        }
        if line.is_empty() {
            break;
        }
        let Some(colon) = line.iter().position(|&b| b == b':') else {
            note.get_or_insert_with(|| {
                "a header line that is not `name: value` was ignored".into()
            });
            continue;
        };
        if !line[..colon].trim_ascii().eq_ignore_ascii_case(LENGTH) {
            continue;
        }
        named = Some(start);
        match length(line[colon + 1..].trim_ascii()) {
            Ok(n) if len.is_some_and(|l| l != n) => {
                return bad("a header block with two different lengths".into(), named);
            }
            Ok(n) => len = Some(n),
            Err(why) => return bad(why, named),
        }
    }
    match len {
        Some(len) => Header::Done { len, end: at, note },
        None => bad("a header block without a Content-Length".into(), named),
    }
}

/// A `Content-Length` value: decimal digits, at most [`MAX_BODY`].
fn length(value: &[u8]) -> Result<usize, String> {
    if value.is_empty() || !value.iter().all(u8::is_ascii_digit) {
        return Err("a Content-Length that is not a number".into());
    }
    let bound = format!("is over the bound of {} MiB", MAX_BODY >> 20);
    // Digits only: the text is ASCII, and a number too long to parse is over the bound.
    let digits = String::from_utf8_lossy(value);
    match digits.parse::<usize>() {
        Ok(n) if n <= MAX_BODY => Ok(n),
        Ok(n) => Err(format!("a message of {n} bytes {bound}")),
        Err(_) if value.len() <= 40 => Err(format!("a message of {digits} bytes {bound}")),
        Err(_) => Err(format!("a message of a {}-digit number of bytes {bound}", value.len())),
    }
}

/// A body that is no message: what to note, and the error to answer with (none for a
/// response, which is never answered).
#[derive(Debug)]
pub(crate) struct Refused {
    pub(crate) note: String,
    pub(crate) reply: Option<Value>,
}

/// JSON-RPC's "Parse error": the body is not JSON.
const PARSE_ERROR: i32 = -32700;
/// JSON-RPC's "Invalid Request": JSON that is no message.
const INVALID_REQUEST: i32 = -32600;

/// The error reply to a body that is no message, with the id it had where it had one.
fn refuse(code: i32, id: Option<Value>, why: &str) -> Refused {
    // JSON-RPC: the id is a string or a number, or null where it cannot be told.
    let id = id.filter(|i| i.is_string() || i.is_number()).unwrap_or(Value::Null);
    let what = if code == PARSE_ERROR { "Parse error" } else { "Invalid Request" };
    let note = format!("a message that is {why} was answered with an error ({code})");
    let error = json!({"code": code, "message": format!("{what}: {why}")});
    Refused { note, reply: Some(json!({"jsonrpc": "2.0", "id": id, "error": error})) }
}

/// The message a body holds.
pub(crate) fn decode(body: &[u8]) -> Result<Message, Refused> {
    let value: Value = serde_json::from_slice(body)
        .map_err(|e| refuse(PARSE_ERROR, None, &format!("not JSON ({e})")))?;
    let mut obj = match value {
        Value::Object(obj) => obj,
        Value::Array(_) => {
            return Err(refuse(INVALID_REQUEST, None, "a batch, which the protocol does not use"));
        }
        _ => return Err(refuse(INVALID_REQUEST, None, "JSON but not an object")),
    };
    let params = obj.remove("params").unwrap_or(Value::Null);
    match (obj.remove("method"), obj.remove("id")) {
        (Some(Value::String(method)), None) => Ok(Notification { method, params }.into()),
        (Some(Value::String(method)), Some(id)) => match request_id(&id) {
            Some(id) => Ok(Request { id, method, params }.into()),
            None => Err(refuse(
                INVALID_REQUEST,
                Some(id),
                "a request whose id is not a string or a 32-bit integer",
            )),
        },
        (Some(_), id) => Err(refuse(INVALID_REQUEST, id, "a request whose method is not a string")),
        (None, Some(id)) if obj.contains_key("result") || obj.contains_key("error") => {
            response(id, obj)
        }
        (None, id) => {
            Err(refuse(INVALID_REQUEST, id, "neither a request, a notification nor a response"))
        }
    }
}

/// The ids lsp-server's messages can carry.
fn request_id(id: &Value) -> Option<RequestId> {
    match id {
        Value::String(s) => Some(RequestId::from(s.clone())),
        Value::Number(n) => n.as_i64().and_then(|n| i32::try_from(n).ok()).map(RequestId::from),
        _ => None,
    }
}

/// A response to one of the server's requests; one it cannot read is skipped.
fn response(id: Value, mut obj: Map<String, Value>) -> Result<Message, Refused> {
    let skip = |why: &str| Refused { note: format!("a response {why} was skipped"), reply: None };
    let id = request_id(&id).ok_or_else(|| skip("with an id the server never gives"))?;
    let response_result = match (obj.remove("result"), obj.remove("error")) {
        (Some(result), None) => Ok(result),
        (None, Some(error)) => Err(serde_json::from_value::<ResponseError>(error)
            .map_err(|_| skip("whose error is not an error object"))?),
        _ => return Err(skip("with both a result and an error")),
    };
    Ok(Response { id, response_result }.into())
}

/// The transport's threads: a reader that frames and decodes stdin, a writer that owns
/// stdout.
pub(crate) struct Io {
    reader: JoinHandle<()>,
    writer: JoinHandle<io::Result<()>>,
}

impl Io {
    /// Waits for the writer to send what the server said. The reader is waited for only
    /// when it has ended (after `exit` or the end of the input): one blocked on a client
    /// that keeps its end open must not keep the process.
    pub(crate) fn join(self) -> Result<(), String> {
        let written = match self.writer.join() {
            Ok(r) => r.map_err(|e| format!("writing to the client: {e}")),
            Err(_) => Err("the writer thread failed".to_string()),
        };
        if self.reader.is_finished() && self.reader.join().is_err() {
            return Err("the reader thread failed".to_string());
        }
        written
    }
}

/// A connection over this process's stdin and stdout. `note` says (on stderr) what was
/// skipped and why.
pub(crate) fn stdio(note: fn(&str)) -> io::Result<(Connection, Io)> {
    // No buffer between the threads and the server, as lsp-server's transport: a message
    // is read when the server is ready for it.
    let (to_server, from_client) = bounded::<Message>(0);
    let (to_client, outgoing) = bounded::<Message>(0);
    let (to_writer, replies) = bounded::<Value>(16);
    let reader = std::thread::Builder::new()
        .name("lsp-reader".into())
        .spawn(move || read(io::stdin().lock(), &to_server, &to_writer, note))?;
    let writer = std::thread::Builder::new()
        .name("lsp-writer".into())
        .spawn(move || write(io::stdout().lock(), &outgoing, &replies))?;
    Ok((Connection { sender: to_client, receiver: from_client }, Io { reader, writer }))
}

/// Frames and decodes `input` until its end or `exit`: messages go to the server, errors
/// to the writer.
fn read(
    mut input: impl Read,
    to_server: &Sender<Message>,
    replies: &Sender<Value>,
    note: fn(&str),
) {
    let mut framer = Framer::default();
    let mut chunk = vec![0; CHUNK];
    loop {
        while let Some(frame) = framer.next_frame() {
            match frame {
                Frame::Skipped(why) => note(&format!("note: lsp: {why}\n")),
                Frame::Body(body) => match decode(&body) {
                    Ok(msg) => {
                        let exit = matches!(&msg, Message::Notification(n) if n.method == "exit");
                        if to_server.send(msg).is_err() || exit {
                            return;
                        }
                    }
                    Err(refused) => {
                        note(&format!("note: lsp: {}\n", refused.note));
                        if let Some(reply) = refused.reply {
                            let _ = replies.send(reply);
                        }
                    }
                },
            }
        }
        match input.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => framer.push(&chunk[..n]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => {
                note(&format!("note: lsp: reading from the client failed: {e}\n"));
                break;
            }
        }
    }
    if framer.pending() {
        note("note: lsp: the input ended inside a message\n");
    }
}

/// Writes the server's messages and the reader's error replies until the server lets go.
fn write(
    mut out: impl Write,
    messages: &Receiver<Message>,
    replies: &Receiver<Value>,
) -> io::Result<()> {
    let mut replying = true;
    loop {
        let reply = if replying {
            select! {
                recv(messages) -> m => match m {
                    Ok(m) => { m.write(&mut out)?; continue; }
                    Err(_) => return Ok(()),
                },
                recv(replies) -> r => match r {
                    Ok(r) => r,
                    Err(_) => { replying = false; continue; }
                },
            }
        } else {
            match messages.recv() {
                Ok(m) => {
                    m.write(&mut out)?;
                    continue;
                }
                Err(_) => return Ok(()),
            }
        };
        let text = reply.to_string();
        write!(out, "Content-Length: {}\r\n\r\n{text}", text.len())?;
        out.flush()?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(body: &str) -> Vec<u8> {
        format!("Content-Length: {}\r\n\r\n{body}", body.len()).into_bytes()
    }

    /// Everything the framer finds in `input`, fed in pieces of `step` bytes.
    fn frames(input: &[u8], step: usize) -> Vec<Frame> {
        let mut f = Framer::default();
        let mut out = Vec::new();
        for piece in input.chunks(step.max(1)) {
            f.push(piece);
            while let Some(x) = f.next_frame() {
                out.push(x);
            }
        }
        out
    }

    fn bodies(found: &[Frame]) -> Vec<String> {
        found
            .iter()
            .filter_map(|f| match f {
                Frame::Body(b) => Some(String::from_utf8_lossy(b).into_owned()),
                Frame::Skipped(_) => None,
            })
            .collect()
    }

    fn notes(found: &[Frame]) -> Vec<&str> {
        found
            .iter()
            .filter_map(|f| match f {
                Frame::Skipped(s) => Some(s.as_str()),
                Frame::Body(_) => None,
            })
            .collect()
    }

    #[test]
    fn bodies_are_framed_whatever_the_reads() {
        let mut input = frame("{\"a\":1}");
        input.extend(
            b"content-length:5\nContent-Type: application/vscode-jsonrpc; charset=utf-8\n\nhello",
        );
        input.extend(b"\r\n");
        input.extend(frame("é"));
        for step in [1, 2, 3, 7, 1000] {
            let found = frames(&input, step);
            assert_eq!(bodies(&found), ["{\"a\":1}", "hello", "é"], "step {step}");
            assert!(notes(&found).is_empty(), "{found:?}");
        }
    }

    #[test]
    fn what_cannot_be_framed_is_skipped_up_to_the_next_length() {
        let good = frame("{}");
        let cases: Vec<(&str, Vec<u8>, &str)> = vec![
            ("huge", b"Content-Length: 18446744073709551615\r\n\r\n".to_vec(), "over the bound"),
            (
                "beyond u64",
                b"Content-Length: 99999999999999999999999\r\n\r\n".to_vec(),
                "over the bound",
            ),
            (
                "over the bound",
                format!("Content-Length: {}\r\n\r\n", MAX_BODY + 1).into_bytes(),
                "over the bound",
            ),
            ("negative", b"Content-Length: -1\r\n\r\n".to_vec(), "not a number"),
            ("not a number", b"Content-Length: ten\r\n\r\n".to_vec(), "not a number"),
            ("no length", b"Content-Type: x\r\n\r\n".to_vec(), "without a Content-Length"),
            (
                "two lengths",
                b"Content-Length: 2\r\nContent-Length: 3\r\n\r\n".to_vec(),
                "two different",
            ),
            (
                "a body without a header",
                b"{\"jsonrpc\":\"2.0\"}".to_vec(),
                "without a Content-Length",
            ),
            ("a long line", vec![b'x'; 3 * MAX_HEADER], "longer than"),
            ("many lines", b"x-y: z\r\n".repeat(MAX_HEADER), "longer than"),
        ];
        for (what, bad, said) in cases {
            let mut input = bad.clone();
            input.extend(&good);
            // Byte by byte only where the input is small: a header is read again at each read.
            let steps: &[usize] =
                if input.len() < 1024 { &[1, 5, 4096, usize::MAX] } else { &[997, usize::MAX] };
            for &step in steps {
                let found = frames(&input, step);
                assert_eq!(bodies(&found), ["{}"], "{what}, step {step}: {found:?}");
                assert!(notes(&found).iter().any(|n| n.contains(said)), "{what}: {found:?}");
            }
        }
    }

    #[test]
    fn a_claimed_length_is_not_allocated_before_its_bytes_come() {
        let mut f = Framer::default();
        f.push(format!("Content-Length: {MAX_BODY}\r\n\r\nab").as_bytes());
        assert_eq!(f.next_frame(), None);
        assert!(f.buf.capacity() < 1 << 20, "{}", f.buf.capacity());
        assert!(f.pending());
    }

    #[test]
    fn a_header_line_without_a_colon_is_noted_and_the_body_still_read() {
        let found = frames(b"garbage\r\nContent-Length: 2\r\n\r\n{}", 3);
        assert_eq!(bodies(&found), ["{}"]);
        assert_eq!(notes(&found), ["a header line that is not `name: value` was ignored"]);
    }

    fn refused(body: &str) -> Refused {
        match decode(body.as_bytes()) {
            Ok(m) => panic!("{body}: decoded as {m:?}"),
            Err(r) => r,
        }
    }

    #[test]
    fn bodies_that_are_no_message_get_the_error_json_rpc_says() {
        let cases = [
            ("abc", PARSE_ERROR, Value::Null),
            ("{\"id\": 1, \"method\": ", PARSE_ERROR, Value::Null),
            ("\"\\ud800\"", PARSE_ERROR, Value::Null),
            ("[]", INVALID_REQUEST, Value::Null),
            ("42", INVALID_REQUEST, Value::Null),
            ("{}", INVALID_REQUEST, Value::Null),
            ("{\"id\": 7}", INVALID_REQUEST, json!(7)),
            ("{\"id\": 7, \"method\": 5}", INVALID_REQUEST, json!(7)),
            ("{\"method\": null}", INVALID_REQUEST, Value::Null),
            ("{\"id\": 4294967296, \"method\": \"x\"}", INVALID_REQUEST, json!(4294967296u64)),
            ("{\"id\": 1.5, \"method\": \"x\"}", INVALID_REQUEST, json!(1.5)),
            ("{\"id\": {}, \"method\": \"x\"}", INVALID_REQUEST, Value::Null),
            ("{\"id\": null, \"method\": \"x\"}", INVALID_REQUEST, Value::Null),
        ];
        for (body, code, id) in cases {
            let r = refused(body);
            let reply = r.reply.unwrap_or_else(|| panic!("{body}: no reply"));
            assert_eq!(reply["error"]["code"], json!(code), "{body}: {reply}");
            assert_eq!(reply["id"], id, "{body}: {reply}");
            assert_eq!(reply["jsonrpc"], "2.0");
        }
        // Deeper than serde_json's limit: an error, not a stack overflow.
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        assert_eq!(refused(&deep).reply.unwrap()["error"]["code"], json!(PARSE_ERROR));
        let bytes = b"{\"method\": \"x\", \"params\": \"\xff\"}";
        assert!(decode(bytes).is_err());
    }

    /// Pieces a stream is made of: framing that almost works, and what breaks it.
    const PIECES: &[&[u8]] = &[
        b"Content-Length: ",
        b"content-length:",
        b"Content-Length: 2\r\n\r\n{}",
        b"0",
        b"7",
        b"18446744073709551615",
        b"\r\n",
        b"\n",
        b"\r",
        b":",
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\"}",
        b"[",
        b"\"",
        b"\xff",
        "é".as_bytes(),
        &[b'x'; 1000],
    ];

    proptest::proptest! {
        #[test]
        fn any_stream_is_bodies_and_notes_in_bounded_memory(
            pieces in proptest::collection::vec(proptest::sample::select(PIECES), 0..64),
            step in 1usize..40,
        ) {
            let input: Vec<u8> = pieces.concat();
            let mut f = Framer::default();
            for piece in input.chunks(step) {
                f.push(piece);
                while let Some(x) = f.next_frame() {
                    if let Frame::Body(b) = x {
                        let _ = decode(&b);
                    }
                }
                // Past a header block's bound only a body's bytes are kept.
                let body = matches!(f.state, State::Body(_));
                proptest::prop_assert!(body || f.buf.len() <= MAX_HEADER + step, "{}", f.buf.len());
            }
        }
    }

    #[test]
    fn messages_are_read_and_bad_responses_skipped_without_a_reply() {
        assert!(matches!(
            decode(br#"{"jsonrpc":"2.0","id":"a","method":"shutdown"}"#),
            Ok(Message::Request(r)) if r.method == "shutdown" && r.params.is_null()
        ));
        assert!(matches!(
            decode(br#"{"jsonrpc":"2.0","method":"exit","params":[1]}"#),
            Ok(Message::Notification(n)) if n.method == "exit" && n.params == json!([1])
        ));
        assert!(matches!(
            decode(br#"{"id":3,"error":{"code":-32601,"message":"no"}}"#),
            Ok(Message::Response(r)) if r.response_result.is_err()
        ));
        for body in [
            r#"{"id":3,"error":{"code":"x"}}"#,
            r#"{"id":3,"result":1,"error":{"code":1,"message":""}}"#,
            r#"{"id":[],"result":null}"#,
        ] {
            let r = refused(body);
            assert!(r.reply.is_none(), "{body}");
            assert!(r.note.contains("response"), "{body}: {}", r.note);
        }
    }
}
