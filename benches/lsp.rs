//! The language server's update latency, with the server in this process (over
//! lsp-server's in-memory connection): a module of 50 files (45 primary files of 10
//! resources each, 5 override files changing some of them) on disk, one file open, and
//! keystrokes typed into it. A keystroke is timed from the change sent to the inlay hints
//! of the file received back: in between the server applies the edit, loads and merges
//! the module (the other files from the disk), judges it by the policy, publishes the
//! diagnostics of every file and answers the hints.
//!
//! `--files N` scales the module (nine primary files in ten, one override in ten): the
//! language server's target is a module of 500 files.
//!
//! `cargo bench --bench lsp [-- --keys N] [--files N]`; prints the median, the 95th
//! percentile and the maximum.
// A test binary has no surface: its `pub` items are shared between its own files.
#![allow(unreachable_pub)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout, clippy::print_stderr)]

use std::fmt::Write as _;
use std::path::Path;
use std::time::{Duration, Instant};

use lsp_server::{Connection, Message, Notification, Request, RequestId};
use serde_json::{Value, json};

/// The binary's allocator: the server allocates and frees a module's trees at every
/// keystroke, and the C library's allocator would time something the binary never runs.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

const RESOURCES: usize = 10;

fn primary(i: usize) -> String {
    let mut t = String::new();
    for r in 0..RESOURCES {
        let _ = write!(
            t,
            "resource \"aws_instance\" \"r{i}_{r}\" {{\n  ami           = \"ami-{i}{r}\"\n  instance_type = \"t3.micro\"\n  tags = {{\n    Name = \"r{i}_{r}\"\n    Team = \"platform\"\n  }}\n\n  lifecycle {{\n    prevent_destroy = true\n  }}\n}}\n\n"
        );
    }
    t
}

fn override_file(i: usize) -> String {
    let mut t = String::new();
    for r in 0..RESOURCES {
        let _ = write!(
            t,
            "resource \"aws_instance\" \"r{i}_{r}\" {{\n  instance_type = \"m6i.large\"\n}}\n\n"
        );
    }
    t
}

fn write_module(dir: &Path, primaries: usize, overrides: usize) {
    for i in 0..primaries {
        std::fs::write(dir.join(format!("r{i:02}.tf")), primary(i)).unwrap();
    }
    for i in 0..overrides {
        std::fs::write(dir.join(format!("r{i:02}_override.tf")), override_file(i)).unwrap();
    }
}

fn uri(p: &Path) -> String {
    format!("file://{}", p.display())
}

struct Client {
    conn: Connection,
    next: i32,
}

impl Client {
    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next += 1;
        let id = RequestId::from(self.next);
        self.conn
            .sender
            .send(Message::Request(Request { id: id.clone(), method: method.into(), params }))
            .unwrap();
        loop {
            match self.conn.receiver.recv().unwrap() {
                Message::Response(r) if r.id == id => {
                    return r.response_result.unwrap_or(Value::Null);
                }
                _ => {}
            }
        }
    }

    fn notify(&self, method: &str, params: Value) {
        self.conn
            .sender
            .send(Message::Notification(Notification { method: method.into(), params }))
            .unwrap();
    }
}

fn main() {
    let (mut keys, mut files) = (200, 50);
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        if a == "--keys" {
            keys = args.next().and_then(|v| v.parse().ok()).unwrap_or(keys);
        } else if a == "--files" {
            files = args.next().and_then(|v| v.parse().ok()).unwrap_or(files).max(2);
        }
    }
    let overrides = (files / 10).max(1);
    let primaries = files - overrides;
    let tmp = tempfile::tempdir().unwrap();
    let dir = std::fs::canonicalize(tmp.path()).unwrap();
    write_module(&dir, primaries, overrides);
    let (server, client) = Connection::memory();
    let today = override_guard::policy::Date { year: 2026, month: 11, day: 26 };
    let thread = std::thread::spawn(move || override_guard::lsp::serve(&server, today, |_| {}));
    let mut c = Client { conn: client, next: 0 };
    c.request("initialize", json!({"processId": null, "capabilities": {}}));
    c.notify("initialized", json!({}));

    let file = dir.join("r00.tf");
    let mut text = std::fs::read_to_string(&file).unwrap();
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri(&file), "languageId": "terraform", "version": 1, "text": text}}),
    );
    let range =
        json!({"start": {"line": 0, "character": 0}, "end": {"line": 99999, "character": 0}});
    let first = c.request(
        "textDocument/inlayHint",
        json!({"textDocument": {"uri": uri(&file)}, "range": range}),
    );
    let hints = first.as_array().map_or(0, Vec::len);
    assert!(hints >= RESOURCES, "the overrides show as hints ({hints})");

    // Typing into the tags of the first resource: `Name = "r0_0xxxx…"`.
    let line = text.lines().position(|l| l.contains("Name = ")).unwrap();
    let col = text.lines().nth(line).unwrap().len() - 1;
    let mut times = Vec::with_capacity(keys);
    for k in 0..keys {
        let at = json!({"line": line, "character": col + k});
        let t = Instant::now();
        c.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri(&file), "version": k + 2},
                   "contentChanges": [{"range": {"start": at, "end": at}, "text": "x"}]}),
        );
        let got = c.request(
            "textDocument/inlayHint",
            json!({"textDocument": {"uri": uri(&file)}, "range": range}),
        );
        times.push(t.elapsed());
        assert_eq!(got.as_array().map_or(0, Vec::len), hints);
    }
    text.clear();
    times.sort();
    let pick = |q: f64| times[((times.len() - 1) as f64 * q) as usize];
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "lsp keystroke, {files} files ({primaries} primary, {overrides} override), {keys} keystrokes: median {:.1} ms, p95 {:.1} ms, max {:.1} ms",
        ms(pick(0.5)),
        ms(pick(0.95)),
        ms(pick(1.0)),
    );
    c.request("shutdown", Value::Null);
    c.notify("exit", Value::Null);
    thread.join().unwrap().unwrap();
}
