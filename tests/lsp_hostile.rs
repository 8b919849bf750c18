//! The language server against a client whose bytes are hostile: every attack is sent to a
//! fresh server with a module open, then a well-formed request; the server must answer it
//! (and what JSON-RPC says to answer the attack), exit cleanly when asked, and never panic.

use serde_json::{Value, json};

use crate::lsp::{Client, MAIN, OVERRIDE};
use crate::util::Sandbox;

fn module() -> Sandbox {
    let s = Sandbox::new();
    s.write("app/main.tf", MAIN);
    s.write("app/override.tf", OVERRIDE);
    s.git(&["add", "-A"]);
    s.git(&["commit", "-q", "--no-verify", "-m", "module"]);
    s
}

fn frame(body: &[u8]) -> Vec<u8> {
    let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    out.extend_from_slice(body);
    out
}

fn message(v: Value) -> Vec<u8> {
    frame(v.to_string().as_bytes())
}

/// What the server must answer to an attack: an error reply with this code and id, a
/// note on stderr holding the text, or no error at all.
enum Expect {
    Reply(i64, Value),
    Note(&'static str),
    Quiet,
}

/// Runs one attack: `bytes` (built with the client's URIs) sent after the module is open;
/// then the server must still hover, answer `expect`, and exit with 0 and no panic.
fn survives(what: &str, bytes: impl Fn(&Client) -> Vec<u8>, expect: Expect) {
    let s = module();
    let mut c = Client::start(&s, Client::full_capabilities());
    c.open("app/override.tf", OVERRIDE);
    let raw = bytes(&c);
    c.send_raw(&raw);
    let hover =
        c.request("textDocument/hover", c.position("app/override.tf", OVERRIDE, "instance_type"));
    let shown = hover["contents"]["value"].as_str().unwrap_or_default();
    assert!(shown.contains("t3.micro"), "{what}: the hover after it: {hover}");
    if let Expect::Reply(code, id) = &expect {
        let reply = c.response_to(id);
        assert_eq!(reply["error"]["code"], json!(code), "{what}: {reply}");
        // An error quotes little of what it was sent.
        let len = reply.to_string().len();
        assert!(len < 1000, "{what}: a reply of {len} bytes");
    }
    let others = std::mem::take(&mut c.others);
    let (status, stderr) = c.finish();
    assert_eq!(status, 0, "{what}: the server's exit\n{stderr}");
    assert!(!stderr.contains("panicked"), "{what}: a panic\n{stderr}");
    match expect {
        Expect::Note(text) => assert!(stderr.contains(text), "{what}: no note `{text}`\n{stderr}"),
        Expect::Quiet => {
            let errors: Vec<&Value> = others.iter().filter(|m| m.get("error").is_some()).collect();
            assert!(errors.is_empty(), "{what}: error replies {errors:?}");
        }
        Expect::Reply(..) => {}
    }
}

#[test]
fn a_uri_with_a_multibyte_character_where_a_drive_letter_goes() {
    for uri in ["file://é:/main.tf", "file:///é:/main.tf", "file://€€:/x/main.tf"] {
        let open = |_: &Client| {
            message(json!({"jsonrpc": "2.0", "method": "textDocument/didOpen",
                "params": {"textDocument": {"uri": uri, "languageId": "terraform", "version": 1, "text": MAIN}}}))
        };
        survives(uri, open, Expect::Quiet);
    }
}

#[test]
fn a_length_of_two_to_the_sixty_four_is_refused_with_a_note() {
    survives(
        "u64::MAX",
        |_| b"Content-Length: 18446744073709551615\r\n\r\n".to_vec(),
        Expect::Note("over the bound of 256 MiB"),
    );
}

#[test]
fn a_body_that_is_not_json_gets_a_parse_error() {
    survives(
        "not JSON",
        |_| frame(b"{\"jsonrpc\": \"2.0\", \"id\": 1,"),
        Expect::Reply(-32700, Value::Null),
    );
}

#[test]
fn a_request_before_initialize_and_initialize_twice_are_errors() {
    let s = module();
    let mut c = Client::spawn(&s);
    let early = c.ask("textDocument/hover", json!({}));
    assert_eq!(early["error"]["code"], -32002, "{early}");
    c.notify("textDocument/didOpen", json!({"textDocument": {"uri": "file:///x.tf", "text": ""}}));
    let init = c.ask("initialize", json!({"processId": null, "capabilities": {}}));
    assert!(init["result"]["capabilities"].is_object(), "{init}");
    // Before `initialized`, requests are served already.
    let hover = c.ask(
        "textDocument/hover",
        json!({"textDocument": {"uri": c.uri("x.tf")}, "position": {"line": 0, "character": 0}}),
    );
    assert_eq!(hover["result"], Value::Null, "{hover}");
    c.notify("initialized", json!({}));
    let again = c.ask("initialize", json!({"processId": null, "capabilities": {}}));
    assert_eq!(again["error"]["code"], -32600, "{again}");
    let (status, stderr) = c.finish();
    assert_eq!(status, 0, "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

/// A message of a request asking `method` with `params` and the id `id`.
fn asking(id: Value, method: &str, params: Value) -> Vec<u8> {
    message(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
}

fn notice(method: &str, params: Value) -> Vec<u8> {
    message(json!({"jsonrpc": "2.0", "method": method, "params": params}))
}

type Attack = Box<dyn Fn(&Client) -> Vec<u8>>;

fn at(line: u64, character: u64) -> Value {
    json!({"line": line, "character": character})
}

fn range(start: Value, end: Value) -> Value {
    json!({"start": start, "end": end})
}

#[test]
fn hostile_messages() {
    let cases: Vec<(&str, Attack, Expect)> = vec![
        (
            "a length beyond any integer",
            Box::new(|_| b"Content-Length: 99999999999999999999999999\r\n\r\n".to_vec()),
            Expect::Note("over the bound"),
        ),
        (
            "a length that is not a number",
            Box::new(|_| b"Content-Length: -5\r\n\r\n{}".to_vec()),
            Expect::Note("not a number"),
        ),
        (
            "a header without a colon",
            Box::new(|_| b"Content-Length 5\r\n\r\nhello".to_vec()),
            Expect::Note("without a Content-Length"),
        ),
        // What follows a header block without a length is not read as a message: this shutdown is skipped.
        (
            "a header block without a length",
            Box::new(|_| {
                let mut b = b"Content-Type: application/json\r\n\r\n".to_vec();
                b.extend(
                    json!({"jsonrpc": "2.0", "id": 90, "method": "shutdown"})
                        .to_string()
                        .as_bytes(),
                );
                b
            }),
            Expect::Note("without a Content-Length"),
        ),
        (
            "a header line of 100 KiB",
            Box::new(|_| vec![b'x'; 100 << 10]),
            Expect::Note("longer than"),
        ),
        (
            "a body that is not UTF-8",
            Box::new(|_| frame(b"{\"jsonrpc\":\"2.0\",\"method\":\"\xff\xfe\"}")),
            Expect::Reply(-32700, Value::Null),
        ),
        (
            "nesting 100,000 deep",
            Box::new(|_| {
                frame(format!("{}{}", "[".repeat(100_000), "]".repeat(100_000)).as_bytes())
            }),
            Expect::Reply(-32700, Value::Null),
        ),
        (
            "a batch",
            Box::new(|_| frame(b"[{\"jsonrpc\":\"2.0\",\"id\":91,\"method\":\"shutdown\"}]")),
            Expect::Reply(-32600, Value::Null),
        ),
        ("a number", Box::new(|_| frame(b"42")), Expect::Reply(-32600, Value::Null)),
        (
            "an id without a method",
            Box::new(|_| frame(b"{\"jsonrpc\":\"2.0\",\"id\":92}")),
            Expect::Reply(-32600, json!(92)),
        ),
        (
            "a method that is not a string",
            Box::new(|_| frame(b"{\"jsonrpc\":\"2.0\",\"id\":93,\"method\":[]}")),
            Expect::Reply(-32600, json!(93)),
        ),
        (
            "an id beyond 32 bits",
            Box::new(|_| asking(json!(1u64 << 40), "shutdown", Value::Null)),
            Expect::Reply(-32600, json!(1u64 << 40)),
        ),
        (
            "a response that is no response",
            Box::new(|_| frame(b"{\"id\":\"override-guard-1\",\"error\":{\"code\":\"x\"}}")),
            Expect::Note("response"),
        ),
        (
            "a megabyte where a document goes",
            Box::new(|_| {
                let doc = "x".repeat(1 << 20);
                let params = json!({"textDocument": doc, "position": at(0, 0)});
                asking(json!(102), "textDocument/hover", params)
            }),
            Expect::Reply(-32602, json!(102)),
        ),
        (
            "params of the wrong shape",
            Box::new(|_| asking(json!(94), "textDocument/hover", json!("main.tf"))),
            Expect::Reply(-32602, json!(94)),
        ),
        (
            "a negative line",
            Box::new(|c| {
                asking(
                    json!(95),
                    "textDocument/hover",
                    json!({"textDocument": {"uri": c.uri("app/override.tf")}, "position": {"line": -1, "character": 0}}),
                )
            }),
            Expect::Reply(-32602, json!(95)),
        ),
        (
            "a line past u32",
            Box::new(|c| {
                asking(
                    json!(96),
                    "textDocument/inlayHint",
                    json!({"textDocument": {"uri": c.uri("app/override.tf")}, "range": range(at(0, 0), at(1 << 40, 0))}),
                )
            }),
            Expect::Reply(-32602, json!(96)),
        ),
        (
            "a notification of the wrong shape",
            Box::new(|_| notice("textDocument/didChange", json!({"textDocument": 5}))),
            Expect::Note("didChange ignored"),
        ),
        (
            "positions past the end, ranges backwards",
            Box::new(|c| {
                let doc = json!({"uri": c.uri("app/override.tf")});
                let far = at(u64::from(u32::MAX), u64::from(u32::MAX));
                let mut b = asking(
                    json!(97),
                    "textDocument/hover",
                    json!({"textDocument": doc, "position": far}),
                );
                b.extend(asking(json!(98), "textDocument/codeAction", json!({"textDocument": doc, "range": range(far.clone(), at(0, 3)), "context": {"diagnostics": []}})));
                b.extend(asking(
                    json!(99),
                    "textDocument/inlayHint",
                    json!({"textDocument": doc, "range": range(at(5, 0), at(1, 0))}),
                ));
                b.extend(asking(
                    json!(100),
                    "textDocument/definition",
                    json!({"textDocument": doc, "position": at(1, 9999)}),
                ));
                b
            }),
            Expect::Quiet,
        ),
        (
            "edits out of order, backwards and past the end, then the text restored",
            Box::new(|c| {
                let doc = json!({"uri": c.uri("app/override.tf"), "version": 2});
                let changes = json!([
                    {"range": range(at(3, 2), at(0, 1)), "text": "é"},
                    {"range": range(at(9999, 0), at(u64::from(u32::MAX), 7)), "text": "😀\n"},
                    {"range": range(at(0, 1), at(0, 1)), "text": "\u{301}"},
                    {"range": range(at(2, 0), at(1, 0)), "text": ""},
                    {"text": OVERRIDE},
                ]);
                notice(
                    "textDocument/didChange",
                    json!({"textDocument": doc, "contentChanges": changes}),
                )
            }),
            Expect::Quiet,
        ),
        (
            "documents never opened, and URIs that are no path",
            Box::new(|c| {
                let pos = at(0, 0);
                let mut b = Vec::new();
                for uri in [
                    c.uri("app/main.tf"),
                    c.uri("nowhere/x.tf"),
                    "file:///%FF%FE.tf".into(),
                    "file://host/x.tf".into(),
                    "untitled:1".into(),
                    "".into(),
                ] {
                    b.extend(notice("textDocument/didChange", json!({"textDocument": {"uri": uri, "version": 3}, "contentChanges": [{"range": range(pos.clone(), pos.clone()), "text": "x"}]})));
                    b.extend(asking(json!(101), "textDocument/references", json!({"textDocument": {"uri": uri}, "position": pos, "context": {"includeDeclaration": true}})));
                    b.extend(notice(
                        "textDocument/didClose",
                        json!({"textDocument": {"uri": uri}}),
                    ));
                }
                b.extend(notice("textDocument/didOpen", json!({"textDocument": {"uri": "file:///%C3.tf", "languageId": "terraform", "version": 1, "text": ""}})));
                b
            }),
            Expect::Quiet,
        ),
        (
            "an unknown method",
            Box::new(|_| asking(json!("x"), "$/whatever", json!({}))),
            Expect::Reply(-32601, json!("x")),
        ),
    ];
    for (what, attack, expect) in cases {
        survives(what, attack, expect);
    }
}
