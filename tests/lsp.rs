//! The language server, spoken to as an editor does: the binary started with `lsp`,
//! JSON-RPC over its stdin and stdout, files opened, changed without saving, asked about.
//! Answers are pinned as snapshots (paths under the sandbox written `file:///ROOT`), and
//! the code actions' edits are checked against what `fix` and `fold` write.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::util::Sandbox;

/// How long an answer may take before the test fails (a debug build on a busy machine).
const PATIENCE: Duration = Duration::from_secs(300);

pub const MAIN: &str = r#"terraform {
  backend "s3" {
    bucket = "state"
    key    = "app.tfstate"
  }
}

resource "aws_instance" "web" {
  ami           = "ami-123"
  instance_type = "t3.micro"

  lifecycle {
    prevent_destroy = true
  }
}

resource "aws_s3_bucket" "logs" {
  bucket        = "logs"
  force_destroy = false
}
"#;

pub const OVERRIDE: &str = r#"resource "aws_instance" "web" {
  instance_type = "m6i.large"
}

resource "aws_s3_bucket" "logs" {
  force_destroy = true
}
"#;

/// An editor's side of the protocol.
pub struct Client {
    child: Child,
    stdin: ChildStdin,
    rx: mpsc::Receiver<Value>,
    next: i64,
    /// Notifications received since the last [`Client::mark`].
    seen: Vec<Value>,
    /// Responses to no request asked (the error replies to messages that are no message).
    pub others: Vec<Value>,
    root: String,
    /// What the server wrote on stderr so far (it is echoed too).
    stderr: Arc<Mutex<String>>,
    stderr_thread: Option<std::thread::JoinHandle<()>>,
}

impl Client {
    /// Starts `override-guard lsp` in the sandbox and initialises it with the client
    /// capabilities `caps`.
    pub fn start(s: &Sandbox, caps: Value) -> Client {
        let mut c = Client::spawn(s);
        let init = c.request(
            "initialize",
            json!({"processId": null, "rootUri": c.root, "capabilities": caps}),
        );
        assert!(init["capabilities"]["inlayHintProvider"].as_bool().unwrap_or(false), "{init}");
        c.notify("initialized", json!({}));
        c
    }

    /// Starts `override-guard lsp` in the sandbox, not initialised.
    pub fn spawn(s: &Sandbox) -> Client {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_override-guard"));
        s.hermetic(&mut cmd);
        let mut child = cmd
            .arg("lsp")
            .current_dir(&s.root)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the server starts");
        let stdin = child.stdin.take().expect("stdin");
        let stderr = Arc::new(Mutex::new(String::new()));
        let mut pipe = BufReader::new(child.stderr.take().expect("stderr"));
        let kept = Arc::clone(&stderr);
        let stderr_thread = std::thread::spawn(move || {
            let mut line = String::new();
            while pipe.read_line(&mut line).unwrap_or(0) > 0 {
                eprint!("{line}");
                kept.lock().unwrap().push_str(&line);
                line.clear();
            }
        });
        let stdout = child.stdout.take().expect("stdout");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            loop {
                let mut len = 0usize;
                loop {
                    let mut line = String::new();
                    if r.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    let line = line.trim_end();
                    if line.is_empty() {
                        break;
                    }
                    if let Some(v) = line.strip_prefix("Content-Length: ") {
                        len = v.parse().expect("a length");
                    }
                }
                let mut body = vec![0; len];
                if r.read_exact(&mut body).is_err() {
                    return;
                }
                if tx.send(serde_json::from_slice(&body).expect("JSON from the server")).is_err() {
                    return;
                }
            }
        });
        let root = format!("file://{}", std::fs::canonicalize(&s.root).expect("root").display());
        let seen = Vec::new();
        let stderr_thread = Some(stderr_thread);
        Client { child, stdin, rx, next: 0, seen, others: Vec::new(), root, stderr, stderr_thread }
    }

    /// What most editors say they can do.
    pub fn full_capabilities() -> Value {
        json!({
            "general": {"positionEncodings": ["utf-16"]},
            "textDocument": {
                "publishDiagnostics": {"relatedInformation": true},
                "codeAction": {"disabledSupport": true},
            },
            "workspace": {
                "inlayHint": {"refreshSupport": true},
                "workspaceEdit": {"documentChanges": true, "resourceOperations": ["create", "rename", "delete"]},
            },
        })
    }

    pub fn uri(&self, rel: &str) -> String {
        format!("{}/{rel}", self.root)
    }

    fn write(&mut self, msg: Value) {
        let body = msg.to_string();
        self.send_raw(format!("Content-Length: {}\r\n\r\n{body}", body.len()).as_bytes());
    }

    /// Sends bytes as they are: no framing added.
    pub fn send_raw(&mut self, bytes: &[u8]) {
        self.stdin.write_all(bytes).expect("write");
        self.stdin.flush().expect("flush");
    }

    /// What the server wrote on stderr so far.
    pub fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    pub fn notify(&mut self, method: &str, params: Value) {
        self.write(json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    fn receive(&mut self, deadline: Instant) -> Value {
        let left = deadline.saturating_duration_since(Instant::now());
        let msg = self.rx.recv_timeout(left).expect("the server answers in time");
        // The server's own requests (refresh the hints, watch files) get an empty answer.
        if msg.get("method").is_some() && msg.get("id").is_some() {
            self.write(json!({"jsonrpc": "2.0", "id": msg["id"], "result": null}));
        }
        msg
    }

    /// Sends a request and waits for its result (notifications in between are kept).
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        self.next += 1;
        let id = self.next;
        self.write(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let deadline = Instant::now() + PATIENCE;
        loop {
            let msg = self.receive(deadline);
            if msg.get("id") == Some(&json!(id)) && msg.get("method").is_none() {
                assert!(msg.get("error").is_none(), "{method}: {msg}");
                return msg["result"].clone();
            }
            if msg.get("id").is_none() {
                self.seen.push(msg);
            } else if msg.get("method").is_none() {
                self.others.push(msg);
            }
        }
    }

    /// Sends a request and waits for its response, an error or a result.
    pub fn ask(&mut self, method: &str, params: Value) -> Value {
        self.next += 1;
        let id = self.next;
        self.write(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        self.response_to(&json!(id))
    }

    /// Waits for the response with `id` (one received already counts).
    pub fn response_to(&mut self, id: &Value) -> Value {
        if let Some(i) = self.others.iter().position(|m| &m["id"] == id) {
            return self.others.remove(i);
        }
        let deadline = Instant::now() + PATIENCE;
        loop {
            let msg = self.receive(deadline);
            if msg.get("method").is_some() {
                self.seen.push(msg);
            } else if &msg["id"] == id {
                return msg;
            } else {
                self.others.push(msg);
            }
        }
    }

    /// Forgets the notifications received so far.
    pub fn mark(&mut self) {
        self.seen.clear();
    }

    /// The diagnostics of `rel` published since the last mark (waiting for them).
    pub fn diagnostics(&mut self, rel: &str) -> Vec<Value> {
        let uri = self.uri(rel);
        let deadline = Instant::now() + PATIENCE;
        loop {
            let found = self.seen.iter().rev().find(|m| {
                m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri
            });
            if let Some(m) = found {
                return m["params"]["diagnostics"].as_array().cloned().unwrap_or_default();
            }
            let msg = self.receive(deadline);
            if msg.get("id").is_none() {
                self.seen.push(msg);
            }
        }
    }

    pub fn open(&mut self, rel: &str, text: &str) {
        let uri = self.uri(rel);
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "terraform", "version": 1, "text": text}}),
        );
    }

    /// Replaces a buffer's whole text without saving it.
    pub fn change(&mut self, rel: &str, text: &str) {
        let uri = self.uri(rel);
        self.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": text}]}),
        );
    }

    pub fn hints(&mut self, rel: &str) -> Vec<(u64, String)> {
        let uri = self.uri(rel);
        let r = self.request(
            "textDocument/inlayHint",
            json!({"textDocument": {"uri": uri}, "range": {"start": {"line": 0, "character": 0}, "end": {"line": 9999, "character": 0}}}),
        );
        r.as_array()
            .into_iter()
            .flatten()
            .map(|h| {
                (
                    h["position"]["line"].as_u64().unwrap_or(0) + 1,
                    h["label"].as_str().unwrap_or("").to_string(),
                )
            })
            .collect()
    }

    /// `rel`'s position of the first `needle` (line and UTF-16 column).
    pub fn at(text: &str, needle: &str) -> Value {
        let offset = text.find(needle).expect("needle");
        let line = text[..offset].matches('\n').count();
        let col = text[..offset].rsplit('\n').next().unwrap_or("").encode_utf16().count();
        json!({"line": line, "character": col})
    }

    pub fn position(&self, rel: &str, text: &str, needle: &str) -> Value {
        json!({"textDocument": {"uri": self.uri(rel)}, "position": Self::at(text, needle)})
    }

    pub fn actions(&mut self, rel: &str, text: &str, needle: &str) -> Vec<Value> {
        let at = Self::at(text, needle);
        let uri = self.uri(rel);
        let r = self.request(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": uri}, "range": {"start": at, "end": at}, "context": {"diagnostics": []}}),
        );
        r.as_array().cloned().unwrap_or_default()
    }

    /// The sandbox paths in a value, written `file:///ROOT`.
    pub fn shown(&self, v: &Value) -> String {
        serde_json::to_string_pretty(v).expect("JSON").replace(&self.root, "file:///ROOT")
    }

    /// Ends the session as an editor does; the server's exit status.
    pub fn shutdown(self) -> i32 {
        self.finish().0
    }

    /// Ends the session as an editor does; the server's exit status and all it wrote on
    /// stderr.
    pub fn finish(mut self) -> (i32, String) {
        self.request("shutdown", Value::Null);
        self.notify("exit", Value::Null);
        let deadline = Instant::now() + PATIENCE;
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                if let Some(t) = self.stderr_thread.take() {
                    t.join().expect("stderr thread");
                }
                return (status.code().unwrap_or(-1), self.stderr());
            }
            assert!(Instant::now() < deadline, "the server did not exit");
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

/// Applies LSP text edits (UTF-16 positions, as the client said) to a text.
pub fn apply(text: &str, edits: &[Value]) -> String {
    let offset = |p: &Value| -> usize {
        let (line, col) = (
            p["line"].as_u64().unwrap_or(0) as usize,
            p["character"].as_u64().unwrap_or(0) as usize,
        );
        let mut at = 0;
        for (i, l) in text.split_inclusive('\n').enumerate() {
            if i == line {
                let mut units = 0;
                for (b, c) in l.char_indices() {
                    if units >= col {
                        return at + b;
                    }
                    units += c.len_utf16();
                }
                return at + l.trim_end_matches('\n').len();
            }
            at += l.len();
        }
        text.len()
    };
    let mut edits: Vec<(usize, usize, String)> = edits
        .iter()
        .map(|e| {
            (
                offset(&e["range"]["start"]),
                offset(&e["range"]["end"]),
                e["newText"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    edits.sort_by_key(|e| std::cmp::Reverse(e.0));
    let mut out = text.to_string();
    for (s, e, t) in edits {
        out.replace_range(s..e, &t);
    }
    out
}

/// Commits what the sandbox holds: overrides git does not track are `local-override`
/// findings instead, as in `audit`.
fn commit(s: &Sandbox) {
    s.git(&["add", "-A"]);
    s.git(&["commit", "-q", "--no-verify", "-m", "module"]);
}

fn module() -> Sandbox {
    let s = Sandbox::new();
    s.write("app/main.tf", MAIN);
    s.write("app/override.tf", OVERRIDE);
    commit(&s);
    s
}

#[test]
fn diagnostics_hints_hover_and_jumps() {
    let s = module();
    let mut c = Client::start(&s, Client::full_capabilities());
    c.open("app/main.tf", MAIN);
    let main = c.diagnostics("app/main.tf");
    let over = c.diagnostics("app/override.tf");
    insta::assert_snapshot!(
        "lsp_diagnostics",
        c.shown(&json!({"main.tf": main, "override.tf": over}))
    );
    insta::assert_snapshot!(
        "lsp_hints",
        format!("{:#?}\n{:#?}", c.hints("app/main.tf"), c.hints("app/override.tf"))
    );
    let hover = c.request("textDocument/hover", c.position("app/main.tf", MAIN, "instance_type"));
    insta::assert_snapshot!("lsp_hover", hover["contents"]["value"].as_str().unwrap_or_default());

    let def = c.request(
        "textDocument/definition",
        c.position("app/override.tf", OVERRIDE, "instance_type"),
    );
    assert_eq!(def[0]["uri"], c.uri("app/main.tf"), "{def}");
    assert_eq!(def[0]["range"]["start"], Client::at(MAIN, "instance_type"), "{def}");
    let refs = c.request(
        "textDocument/references",
        json!({"textDocument": {"uri": c.uri("app/main.tf")}, "position": Client::at(MAIN, "\"web\""), "context": {"includeDeclaration": false}}),
    );
    assert_eq!(refs.as_array().map(Vec::len), Some(1), "{refs}");
    assert_eq!(refs[0]["uri"], c.uri("app/override.tf"));
    assert_eq!(refs[0]["range"]["start"], json!({"line": 0, "character": 0}));
    // Nothing to say where nothing is overridden.
    let plain = c.request("textDocument/hover", c.position("app/main.tf", MAIN, "ami "));
    assert_eq!(plain, Value::Null);
    assert_eq!(c.shutdown(), 0);
}

#[test]
fn unsaved_edits_change_the_hints_and_a_broken_file_does_not_stop_the_server() {
    let s = module();
    let mut c = Client::start(&s, Client::full_capabilities());
    c.open("app/main.tf", MAIN);
    c.open("app/override.tf", OVERRIDE);
    c.diagnostics("app/override.tf");
    assert!(c.hints("app/main.tf").iter().any(|(l, h)| *l == 10 && h.contains("m6i.large")));

    // Typed, not saved: the disk still says m6i.large.
    c.mark();
    c.change("app/override.tf", &OVERRIDE.replace("m6i.large", "c7g.xlarge"));
    // No diagnostic changes, so none is published again: the hints are asked at once (a
    // request about a module with a pending change is answered after its analysis).
    let hints = c.hints("app/main.tf");
    assert!(hints.iter().any(|(l, h)| *l == 10 && h.contains("c7g.xlarge")), "{hints:?}");
    let republished =
        c.seen.iter().filter(|m| m["method"] == "textDocument/publishDiagnostics").count();
    assert_eq!(republished, 0, "unchanged diagnostics are not sent again: {:?}", c.seen);
    assert_eq!(std::fs::read_to_string(s.path("app/override.tf")).unwrap(), OVERRIDE);

    // Half-typed: a syntax error is a diagnostic in that file; the server goes on.
    c.mark();
    c.change("app/override.tf", "resource \"aws_instance\" \"web\" {\n  instance_type = \n");
    let broken = c.diagnostics("app/override.tf");
    assert!(
        broken.iter().any(|d| d["severity"] == 1 && d["code"] == "merge-error"),
        "{}",
        c.shown(&json!(broken))
    );
    // A load failure is not silenced by a comment: no suppression is offered for it.
    let error = broken.iter().find(|d| d["code"] == "merge-error").expect("the error");
    let uri = c.uri("app/override.tf");
    let offered = c.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri}, "range": error["range"], "context": {"diagnostics": [error]}}),
    );
    let offered = offered.as_array().cloned().unwrap_or_default();
    assert!(!offered.is_empty(), "the fold action at least");
    assert!(
        !offered.iter().any(|a| a["title"].as_str().is_some_and(|t| t.contains("merge-error"))),
        "{}",
        c.shown(&json!(offered))
    );
    let _ = c.hints("app/main.tf");
    // Fixed again: everything comes back.
    c.mark();
    c.change("app/override.tf", OVERRIDE);
    c.diagnostics("app/override.tf");
    assert!(c.hints("app/main.tf").iter().any(|(_, h)| h.contains("m6i.large")));
    assert_eq!(c.shutdown(), 0);
}

#[test]
fn code_actions_write_what_fix_and_fold_write() {
    let s = module();
    let mut c = Client::start(&s, Client::full_capabilities());
    c.open("app/main.tf", MAIN);
    c.diagnostics("app/main.tf");
    let actions = c.actions("app/main.tf", MAIN, "resource \"aws_s3_bucket\"");
    let titles: Vec<&str> = actions.iter().filter_map(|a| a["title"].as_str()).collect();
    insta::assert_snapshot!("lsp_action_titles_main", titles.join("\n"));

    // The module-wide comment action is `fix`'s edit, byte for byte.
    let all = actions
        .iter()
        .find(|a| a["title"] == "Add every missing warning comment in this module")
        .expect("offered");
    let edited =
        apply(MAIN, all["edit"]["changes"][c.uri("app/main.tf")].as_array().expect("edits"));
    let fixed = Sandbox::empty();
    fixed.write("app/main.tf", MAIN);
    fixed.write("app/override.tf", OVERRIDE);
    let run = fixed.run(&["fix", "--allow-dirty", "app"]);
    assert!(run.code == 0 || run.code == 1, "{}", run.shown());
    assert_eq!(edited, std::fs::read_to_string(fixed.path("app/main.tf")).unwrap());

    // The one for the block at the cursor adds that block's comment only.
    let one = actions.iter().find(|a| a["title"] == "Add the warning comment").expect("offered");
    let edits = one["edit"]["changes"][c.uri("app/main.tf")].as_array().expect("edits").clone();
    assert_eq!(edits.len(), 1);
    let after = apply(MAIN, &edits);
    let bucket = after.lines().position(|l| l.starts_with("resource \"aws_s3_bucket\"")).unwrap();
    assert!(after.lines().nth(bucket - 1).unwrap().starts_with('#'), "{after}");
    assert_eq!(after.lines().count(), MAIN.lines().count() + 1, "{after}");

    // Suppression: a comment with a reason to fill in, above the finding's line.
    let sup = actions
        .iter()
        .find(|a| a["title"].as_str().is_some_and(|t| t.starts_with("Suppress")))
        .expect("offered");
    let after =
        apply(MAIN, sup["edit"]["changes"][c.uri("app/main.tf")].as_array().expect("edits"));
    assert!(after.contains("# override-guard:ignore["), "{after}");

    // Folding the override file: fold's rewrite of main.tf, and the override deleted.
    c.open("app/override.tf", OVERRIDE);
    let actions = c.actions("app/override.tf", OVERRIDE, "force_destroy");
    let fold = actions
        .iter()
        .find(|a| a["title"] == "Fold override.tf into the original files")
        .expect("offered");
    let ops = fold["edit"]["documentChanges"].as_array().expect("document changes");
    let deleted: Vec<&Value> =
        ops.iter().filter(|o| o["kind"] == "delete").map(|o| &o["uri"]).collect();
    assert_eq!(deleted, [&json!(c.uri("app/override.tf"))]);
    let main_edits =
        ops.iter().find(|o| o["textDocument"]["uri"] == c.uri("app/main.tf")).expect("main.tf");
    let folded_here = apply(MAIN, main_edits["edits"].as_array().expect("edits"));
    let folded = Sandbox::empty();
    folded.write("app/main.tf", MAIN);
    folded.write("app/override.tf", OVERRIDE);
    let run = folded.run(&["fold", "--allow-dirty", "app/override.tf"]);
    assert_eq!(run.code, 0, "{}", run.shown());
    assert_eq!(folded_here, std::fs::read_to_string(folded.path("app/main.tf")).unwrap());
    assert_eq!(c.shutdown(), 0);
}

#[test]
fn fold_is_disabled_with_the_reason_fold_gives() {
    let s = Sandbox::new();
    s.write("app/main.tf", MAIN);
    // An override of a block no primary file declares: Terraform rejects the module.
    let over = "resource \"aws_instance\" \"nowhere\" {\n  ami = \"x\"\n}\n";
    s.write("app/override.tf", over);
    commit(&s);
    let mut c = Client::start(&s, Client::full_capabilities());
    c.open("app/override.tf", over);
    c.diagnostics("app/override.tf");
    let actions = c.actions("app/override.tf", over, "ami");
    let fold = actions
        .iter()
        .find(|a| a["title"] == "Fold override.tf into the original files")
        .expect("listed");
    let reason = fold["disabled"]["reason"].as_str().unwrap_or_default();
    assert!(reason.contains("rejects this module"), "{fold}");
    assert!(fold.get("edit").is_none());
    // Without the client's support for deletions, fold cannot be offered at all.
    let mut plain = Client::start(&s, json!({}));
    plain.open("app/override.tf", over);
    plain.diagnostics("app/override.tf");
    let actions = plain.actions("app/override.tf", over, "ami");
    assert!(
        actions.iter().all(|a| a["title"] != "Fold override.tf into the original files"),
        "{actions:?}"
    );
    assert_eq!(c.shutdown(), 0);
    assert_eq!(plain.shutdown(), 0);
}

#[test]
fn the_nearest_policy_governs_and_its_unsaved_edits_count() {
    let s = module();
    s.write("app/.override-guard.toml", "[rules]\nmissing-override-comment = \"allow\"\n");
    commit(&s);
    let mut c = Client::start(&s, Client::full_capabilities());
    c.open("app/main.tf", MAIN);
    let main = c.diagnostics("app/main.tf");
    assert!(
        main.iter().all(|d| d["code"] != "missing-override-comment"),
        "{}",
        c.shown(&json!(main))
    );
    // The policy edited in the editor, not saved: the rule is back.
    c.mark();
    c.open("app/.override-guard.toml", "[rules]\nmissing-override-comment = \"deny\"\n");
    let main = c.diagnostics("app/main.tf");
    assert!(
        main.iter().any(|d| d["code"] == "missing-override-comment" && d["severity"] == 1),
        "{}",
        c.shown(&json!(main))
    );
    // Closed again: the disk's policy governs. Changed on disk, the editor's file
    // watcher tells the server, which judges again.
    c.mark();
    c.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": c.uri("app/.override-guard.toml")}}),
    );
    let main = c.diagnostics("app/main.tf");
    assert!(
        main.iter().all(|d| d["code"] != "missing-override-comment"),
        "{}",
        c.shown(&json!(main))
    );
    c.mark();
    s.write("app/.override-guard.toml", "[rules]\nmissing-override-comment = \"warn\"\n");
    c.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": c.uri("app/.override-guard.toml"), "type": 2}]}),
    );
    let main = c.diagnostics("app/main.tf");
    assert!(
        main.iter().any(|d| d["code"] == "missing-override-comment" && d["severity"] == 2),
        "{}",
        c.shown(&json!(main))
    );
    // A broken policy is said in the policy file, and the module says it is not judged.
    c.mark();
    c.open("app/.override-guard.toml", "[rules]\nmissing-override-comment = \"warn\"\n");
    c.mark();
    c.change("app/.override-guard.toml", "[rules]\nno-such-rule = \"deny\"\n");
    let policy = c.diagnostics("app/.override-guard.toml");
    assert!(policy.iter().any(|d| d["code"] == "policy"), "{}", c.shown(&json!(policy)));
    let main = c.diagnostics("app/main.tf");
    assert!(
        main.iter().any(|d| d["code"] == "policy" && d["severity"] == 2),
        "{}",
        c.shown(&json!(main))
    );
    assert_eq!(c.shutdown(), 0);
}

#[test]
fn opentofu_modules_and_files_outside_modules() {
    let s = Sandbox::new();
    s.write("tofu/main.tofu", MAIN);
    s.write("tofu/override.tofu", OVERRIDE);
    s.write("docs/README.md", "# not Terraform\n");
    s.write("vars/terraform.tfvars", "a = 1\n");
    commit(&s);
    let mut c = Client::start(&s, Client::full_capabilities());
    c.open("tofu/main.tofu", MAIN);
    c.diagnostics("tofu/main.tofu");
    assert!(c.hints("tofu/main.tofu").iter().any(|(_, h)| h.contains("override.tofu")));
    // Not a module: no answer, no diagnostics, no crash.
    c.open("docs/README.md", "# not Terraform\n");
    c.open("vars/terraform.tfvars", "a = 1\n");
    assert_eq!(c.hints("docs/README.md"), []);
    assert_eq!(c.hints("vars/terraform.tfvars"), []);
    let hover =
        c.request("textDocument/hover", c.position("docs/README.md", "# not Terraform\n", "not"));
    assert_eq!(hover, Value::Null);
    assert_eq!(c.shutdown(), 0);
}

#[test]
fn an_override_git_does_not_track_is_local_as_audit_says() {
    let s = Sandbox::new();
    s.write("app/main.tf", MAIN);
    commit(&s);
    s.write("app/override.tf", OVERRIDE);
    let mut c = Client::start(&s, Client::full_capabilities());
    c.open("app/main.tf", MAIN);
    let over = c.diagnostics("app/override.tf");
    let audit = s.run(&["audit", "app", "--format", "json"]);
    let report: Value = serde_json::from_str(&audit.out()).expect("json");
    let want: Vec<&Value> =
        report["findings"].as_array().into_iter().flatten().map(|f| &f["rule"]).collect();
    let main = c.diagnostics("app/main.tf");
    let got: Vec<&Value> = over.iter().chain(&main).map(|d| &d["code"]).collect();
    assert_eq!(got, want, "{}", c.shown(&json!(over)));
    assert!(got.contains(&&json!("local-override")), "{got:?}");
    assert_eq!(c.shutdown(), 0);
}

/// A file of the module that cannot be read (a dangling link) fails the module as in
/// `audit`, with the reason; the server goes on answering.
#[cfg(unix)]
#[test]
fn a_dangling_link_in_the_module_is_a_diagnostic_of_that_file() {
    let s = Sandbox::new();
    s.write("app/main.tf", MAIN);
    std::os::unix::fs::symlink("../shared/common.tf", s.path("app/common.tf")).expect("ln");
    commit(&s);
    let mut c = Client::start(&s, Client::full_capabilities());
    c.open("app/main.tf", MAIN);
    let got = c.diagnostics("app/common.tf");
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0]["code"], "merge-error", "{got:?}");
    let message = got[0]["message"].as_str().unwrap_or_default();
    assert!(message.contains("Failed to read file"), "{got:?}");
    assert!(message.contains("which does not exist"), "{got:?}");
    assert_eq!(c.shutdown(), 0);
}

/// The diagnostics last published for each file, from every notification seen.
fn published(c: &Client) -> std::collections::BTreeMap<String, Value> {
    c.seen
        .iter()
        .filter(|m| m["method"] == "textDocument/publishDiagnostics")
        .map(|m| {
            (
                m["params"]["uri"].as_str().unwrap_or("").to_string(),
                m["params"]["diagnostics"].clone(),
            )
        })
        .filter(|(_, d)| d.as_array().is_some_and(|a| !a.is_empty()))
        .collect()
}

/// The files the editor did not change are cached between keystrokes, but the cache is
/// checked against the disk: a file rewritten behind the server's back (same length, with
/// a new modification time or with the old one put back), a new file and a deleted file
/// are all seen at the next keystroke, and the server then says what a fresh one says.
#[test]
fn files_changed_on_disk_behind_the_server_are_seen_at_the_next_keystroke() {
    let s = module();
    let mut c = Client::start(&s, Client::full_capabilities());
    let mut typed = MAIN.to_string();
    c.open("app/main.tf", &typed);
    c.diagnostics("app/override.tf");
    assert!(c.hints("app/main.tf").iter().any(|(l, h)| *l == 10 && h.contains("m6i.large")));
    // Old enough for the cache to trust, then a keystroke that reads through it.
    let settle = || std::thread::sleep(Duration::from_millis(120));
    let mut keystroke = |c: &mut Client| {
        settle();
        typed.push('\n');
        c.change("app/main.tf", &typed);
        (c.hints("app/main.tf"), typed.clone())
    };
    let _ = keystroke(&mut c);

    let over = s.path("app/override.tf");
    let modified = std::fs::metadata(&over).and_then(|m| m.modified()).expect("mtime");
    let set_modified = |at: std::time::SystemTime| {
        let f = std::fs::OpenOptions::new().write(true).open(&over).expect("open");
        f.set_modified(at).expect("set the modification time");
    };
    // The same length, a new modification time.
    std::fs::write(&over, OVERRIDE.replace("m6i.large", "c6i.large")).expect("write");
    set_modified(modified + Duration::from_secs(1));
    let (hints, _) = keystroke(&mut c);
    assert!(hints.iter().any(|(l, h)| *l == 10 && h.contains("c6i.large")), "{hints:?}");
    // The same length and the same modification time as before.
    std::fs::write(&over, OVERRIDE.replace("m6i.large", "r6i.large")).expect("write");
    set_modified(modified + Duration::from_secs(1));
    let (hints, _) = keystroke(&mut c);
    assert!(hints.iter().any(|(l, h)| *l == 10 && h.contains("r6i.large")), "{hints:?}");

    // A new file, then that file deleted.
    let extra = "resource \"aws_s3_bucket\" \"logs\" {\n  bucket = \"elsewhere\"\n}\n";
    s.write("app/extra_override.tf", extra);
    let (hints, _) = keystroke(&mut c);
    assert!(hints.iter().any(|(_, h)| h.contains("elsewhere")), "{hints:?}");
    std::fs::remove_file(s.path("app/extra_override.tf")).expect("remove");
    let (hints, _) = keystroke(&mut c);
    assert!(!hints.iter().any(|(_, h)| h.contains("elsewhere")), "{hints:?}");
    s.write("app/extra_override.tf", extra);
    let (hints, typed) = keystroke(&mut c);
    assert!(hints.iter().any(|(_, h)| h.contains("elsewhere")), "{hints:?}");

    // A fresh server on the same disk and buffer says the same, to the byte.
    let mut fresh = Client::start(&s, Client::full_capabilities());
    fresh.open("app/main.tf", &typed);
    for rel in ["app/main.tf", "app/override.tf", "app/extra_override.tf"] {
        let range =
            json!({"start": {"line": 0, "character": 0}, "end": {"line": 9999, "character": 0}});
        let ask = |c: &mut Client| {
            let uri = c.uri(rel);
            c.request(
                "textDocument/inlayHint",
                json!({"textDocument": {"uri": uri}, "range": range}),
            )
        };
        assert_eq!(ask(&mut c), ask(&mut fresh), "{rel}");
    }
    assert_eq!(published(&c), published(&fresh));
    assert!(!published(&fresh).is_empty());
    assert_eq!(c.shutdown(), 0);
    assert_eq!(fresh.shutdown(), 0);
}

/// A module pinned by `.terraform-version` is judged in the editor for the pinned release,
/// as `audit` judges it, and the hover says which; an unsaved edit of the pin counts at
/// once, as an unsaved module file does.
#[test]
fn a_pinned_module_is_judged_for_its_release_and_an_edit_of_the_pin_counts() {
    let s = Sandbox::new();
    let main = "variable \"region\" {\n  default = \"eu-west-1\"\n}\n";
    let over = "variable \"region\" {\n  default = \"us-east-1\"\n  const   = true\n}\n";
    s.write("app/main.tf", main);
    s.write("app/override.tf", over);
    s.write("app/.terraform-version", "1.14.9\n");
    commit(&s);
    let mut c = Client::start(&s, Client::full_capabilities());
    c.open("app/main.tf", main);
    // Before 1.15 a variable has no `const`: the override file is rejected.
    let got = c.diagnostics("app/override.tf");
    let audit = s.run(&["audit", "app", "--format", "json"]);
    let report: Value = serde_json::from_str(&audit.out()).expect("json");
    let want: Vec<&Value> =
        report["findings"].as_array().into_iter().flatten().map(|f| &f["message"]).collect();
    assert!(
        got.iter().any(|d| d["code"] == "merge-error"
            && d["message"].as_str().is_some_and(|m| m.starts_with("Unsupported argument"))),
        "{}",
        c.shown(&json!(got))
    );
    assert!(
        want.iter().any(|m| m.as_str().is_some_and(|m| m.starts_with("Unsupported argument"))),
        "{want:?}"
    );
    let hover = c.request("textDocument/hover", c.position("app/main.tf", main, "default"));
    let text = hover["contents"]["value"].as_str().unwrap_or_default();
    assert!(
        text.contains("_Judged for Terraform 1.14.9, pinned in app/.terraform-version:1_"),
        "{hover}"
    );
    // The pin edited, not saved: 1.15 accepts `const`.
    c.mark();
    c.open("app/.terraform-version", "1.14.9\n");
    c.change("app/.terraform-version", "1.15.5\n");
    c.change("app/main.tf", main);
    let got = c.diagnostics("app/override.tf");
    assert!(!got.iter().any(|d| d["code"] == "merge-error"), "{}", c.shown(&json!(got)));
    let hover = c.request("textDocument/hover", c.position("app/main.tf", main, "default"));
    let text = hover["contents"]["value"].as_str().unwrap_or_default();
    assert!(
        text.contains("_Judged for Terraform 1.15.5, pinned in app/.terraform-version:1_"),
        "{hover}"
    );
    assert_eq!(c.shutdown(), 0);
}
