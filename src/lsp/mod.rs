//! `override-guard lsp`: a language server that shows, where people read, what the
//! override files of a module really change. It runs beside an editor's Terraform server
//! (editors run several on one file) and gives:
//! - diagnostics: the findings of the same pipeline and policy as `audit`, for the module
//!   of every open file, unsaved buffers included, with the other side of each finding as
//!   related information;
//! - inlay hints at the end of every line an override changes (and, in the override, what
//!   it replaces), a hover with the effective value and what it displaced, "go to
//!   definition" from an override to the original, "find references" the other way;
//! - code actions: `fix`'s warning comment, `fold`'s fold (or why it cannot), and an
//!   inline suppression.
//!
//! The protocol is spoken through `lsp-server` (rust-analyzer's: a synchronous loop over
//! channels, no async runtime), its messages carried on stdio by a transport of our own
//! (`transport.rs`: a client's bytes are input, bounded and answered, never the end of it). Work happens between messages: a change marks its module
//! dirty, and dirty modules are analysed again when no message is waiting, or before a
//! request about them is answered, so a burst of keystrokes costs one analysis.

// What the server shows and offers is pure and private; the fuzz target (built with
// `--cfg fuzzing`) drives it directly, without the protocol.
#[cfg(fuzzing)]
pub mod actions;
#[cfg(not(fuzzing))]
pub(crate) mod actions;
#[cfg(fuzzing)]
pub mod analysis;
#[cfg(not(fuzzing))]
pub(crate) mod analysis;
pub(crate) mod protocol;
pub(crate) mod text;
pub(crate) mod transport;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

use lsp_server::{Connection, Message, Notification, Request, RequestId, Response};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use self::analysis::{Analysis, Jump};
use self::protocol::Client;
use self::text::{Encoding, Lines, path_of, uri_of};
use crate::finding::{Finding, Level};
use crate::merge::Module;
use crate::pipeline::Choice;
use crate::pipeline::audit::{Ask, Audit};
use crate::pipeline::policies::Trouble;
use crate::policy::{Date, GlobBase, Policy, PolicyError};
use crate::source::workspace::{IndexCache, State, Workspace};
use crate::source::{FileCache, POLICY_FILE, join};

/// Serves one client over `conn` until it says `exit`. `note` tells the user (on stderr)
/// what the client sent that was ignored, and why. Every message is the client's input:
/// one the server cannot use is answered with an error or noted, never the end of it.
pub fn serve(conn: &Connection, today: Date, note: fn(&str)) -> Result<(), String> {
    let (id, params) = initialize(conn)?;
    let client = Client::of(&params);
    let enc = if client.utf8 { Encoding::Utf8 } else { Encoding::Utf16 };
    let caps = json!({
        "capabilities": {
            "positionEncoding": if client.utf8 { "utf-8" } else { "utf-16" },
            "textDocumentSync": {"openClose": true, "change": 2, "save": {"includeText": false}},
            "hoverProvider": true,
            "definitionProvider": true,
            "referencesProvider": true,
            "codeActionProvider": {"codeActionKinds": ["quickfix", "refactor.rewrite"]},
            "inlayHintProvider": true,
        },
        "serverInfo": {"name": "override-guard", "version": env!("CARGO_PKG_VERSION")},
    });
    // Not lsp-server's initialize_finish: it panics when the client is gone, and ends the
    // session when anything but `initialized` comes next.
    let _ = conn.sender.send(Message::Response(Response::new_ok(id, caps)));
    let mut s = Server {
        conn,
        client,
        enc,
        today,
        docs: HashMap::new(),
        modules: HashMap::new(),
        dirty: BTreeSet::new(),
        published: HashMap::new(),
        requests: 0,
        index: Default::default(),
        files: std::sync::Arc::new(FileCache::default()),
        parses: Default::default(),
        shut: false,
        note,
        initialized: false,
    };
    loop {
        let msg = match conn.receiver.recv() {
            Ok(m) => m,
            Err(_) => return Ok(()),
        };
        match msg {
            Message::Request(req) if req.method == "shutdown" => {
                // Not lsp-server's handle_shutdown: it fails on anything but `exit` after
                // `shutdown`, and an editor may still answer a refresh request then.
                s.send(Message::Response(Response::new_ok(req.id, Value::Null)));
                s.shut = true;
            }
            Message::Request(req) if s.shut => {
                let e = Response::new_err(req.id, -32600, "the server is shutting down".into());
                s.send(Message::Response(e));
            }
            Message::Request(req) => {
                let (id, method) = (req.id.clone(), req.method.clone());
                // A bug of ours answers an error instead of taking the editor's server down.
                if catch_unwind(AssertUnwindSafe(|| s.request(req))).is_err() {
                    let message = format!("internal error answering {method}; the server goes on");
                    s.send(Message::Response(Response::new_err(id, -32603, message)));
                }
            }
            Message::Notification(n) if n.method == "exit" => return Ok(()),
            Message::Notification(n) if n.method == "initialized" => {
                if !std::mem::replace(&mut s.initialized, true) {
                    s.register_watchers();
                }
            }
            Message::Notification(n) => {
                let method = n.method.clone();
                if catch_unwind(AssertUnwindSafe(|| s.notification(n))).is_err() {
                    let method = brief(method);
                    s.noted(&format!("an internal error handling {method}; the server goes on"));
                }
            }
            Message::Response(_) => {}
        }
        if conn.receiver.is_empty()
            && !s.shut
            && catch_unwind(AssertUnwindSafe(|| s.flush())).is_err()
        {
            s.noted("an internal error analysing the open modules; the server goes on");
        }
    }
}

/// Waits for `initialize`. Requests before it are answered "not initialized" and
/// notifications dropped, as the protocol says.
fn initialize(conn: &Connection) -> Result<(RequestId, Value), String> {
    loop {
        match conn.receiver.recv() {
            Err(_) => return Err("the client left before initialize".into()),
            Ok(Message::Request(r)) if r.method == "initialize" => return Ok((r.id, r.params)),
            Ok(Message::Request(r)) => {
                let message = format!("{} before initialize", r.method);
                let _ =
                    conn.sender.send(Message::Response(Response::new_err(r.id, -32002, message)));
            }
            Ok(Message::Notification(n)) if n.method == "exit" => {
                return Err("the client said exit before initialize".into());
            }
            Ok(_) => {}
        }
    }
}

/// A request's parameters as the method takes them; JSON-RPC's "Invalid params" otherwise.
fn params<T: DeserializeOwned>(params: Value) -> Result<T, (i32, String)> {
    serde_json::from_value(params).map_err(|e| (-32602, format!("invalid params: {}", brief(e))))
}

/// A text of the client's (or serde's, which quotes the value it found: maybe a whole
/// document) cut short for a note or an error.
fn brief(text: impl std::fmt::Display) -> String {
    let text = text.to_string();
    match text.char_indices().nth(200) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text,
    }
}

/// A module as last analysed.
struct Analysed {
    /// The module's directory as the client names it, and as the source knows it.
    rel: String,
    /// The directory paths of the source are relative to (canonical).
    root: PathBuf,
    module: Module,
    analysis: Analysis,
    /// The policy that governs it, or the mistakes of its policy file (then nothing is
    /// judged until they are fixed).
    governing: Result<(Policy, GlobBase), Vec<PolicyError>>,
}

struct Server<'c> {
    conn: &'c Connection,
    client: Client,
    enc: Encoding,
    today: Date,
    /// Open buffers, by path as the client names them.
    docs: HashMap<PathBuf, String>,
    /// Analysed modules, by directory as the client names it.
    modules: HashMap<PathBuf, Analysed>,
    /// Module directories to analyse again.
    dirty: BTreeSet<PathBuf>,
    /// The diagnostics last published, by module directory and file.
    published: HashMap<PathBuf, BTreeMap<PathBuf, Vec<Value>>>,
    requests: u64,
    /// Each repository's index, as last read.
    index: IndexCache,
    /// The modules' files as last read from the disk, checked against it at every use:
    /// a keystroke in a module of 500 files reads one buffer, not 499 files.
    files: std::sync::Arc<FileCache>,
    /// Their parses, by text: a file read again unchanged is not parsed again.
    parses: std::sync::Arc<crate::merge::Parses>,
    /// `shutdown` was asked: only `exit` is awaited.
    shut: bool,
    /// Tells the user what the client sent that was ignored (see [`serve`]).
    note: fn(&str),
    /// The client said `initialized`: the server may ask it things.
    initialized: bool,
}

/// The module directory of a file: its directory, when the file is configuration (or
/// variables) of a module.
fn module_dir(path: &Path) -> Option<PathBuf> {
    let name = path.file_name()?.to_str()?;
    let module_file = crate::terraform::discover::is_listed(name) || name == POLICY_FILE;
    module_file.then(|| path.parent().map(Path::to_path_buf)).flatten()
}

impl Server<'_> {
    fn noted(&self, what: &str) {
        (self.note)(&format!("note: lsp: {what}\n"));
    }

    /// Parameters of a notification, or a note that it was ignored.
    fn heard<T: DeserializeOwned>(&self, n: Notification) -> Option<T> {
        serde_json::from_value(n.params)
            .map_err(|e| {
                let e = brief(e);
                self.noted(&format!("{} ignored: its params are not what it takes ({e})", n.method))
            })
            .ok()
    }

    fn send(&self, msg: Message) {
        // The client is gone when this fails; the loop ends at the next receive.
        let _ = self.conn.sender.send(msg);
    }

    fn notify(&self, method: &str, params: Value) {
        self.send(Message::Notification(Notification { method: method.into(), params }));
    }

    fn ask(&mut self, method: &str, params: Value) {
        self.requests += 1;
        let id = RequestId::from(format!("override-guard-{}", self.requests));
        self.send(Message::Request(Request { id, method: method.into(), params }));
    }

    fn register_watchers(&mut self) {
        if !self.client.watch_registration {
            return;
        }
        let watchers: Vec<Value> = [
            "**/.override-guard.toml",
            "**/*.tf",
            "**/*.tf.json",
            "**/*.tofu",
            "**/*.tofu.json",
            "**/*.tfvars",
            "**/*.tfvars.json",
        ]
        .iter()
        .map(|g| json!({"globPattern": g}))
        .collect();
        self.ask(
            "client/registerCapability",
            json!({"registrations": [{
                "id": "override-guard-files",
                "method": "workspace/didChangeWatchedFiles",
                "registerOptions": {"watchers": watchers},
            }]}),
        );
    }

    fn notification(&mut self, n: Notification) {
        use protocol::{DidChange, DidChangeWatchedFiles, DidOpen, DocumentParams};
        match n.method.as_str() {
            "textDocument/didOpen" => {
                if let Some(p) = self.heard::<DidOpen>(n)
                    && let Some(path) = path_of(&p.text_document.uri)
                {
                    self.touch(&path);
                    self.docs.insert(path, p.text_document.text);
                }
            }
            "textDocument/didChange" => {
                if let Some(p) = self.heard::<DidChange>(n)
                    && let Some(path) = path_of(&p.text_document.uri)
                    && let Some(doc) = self.docs.get_mut(&path)
                {
                    for c in p.content_changes {
                        match c.range {
                            Some(r) => {
                                let lines = Lines::new(doc, self.enc);
                                let (start, end) = (lines.offset(r.start), lines.offset(r.end));
                                doc.replace_range(start..end.max(start), &c.text);
                            }
                            None => *doc = c.text,
                        }
                    }
                    self.touch(&path);
                }
            }
            "textDocument/didClose" | "textDocument/didSave" => {
                let closed = n.method == "textDocument/didClose";
                if let Some(p) = self.heard::<DocumentParams>(n)
                    && let Some(path) = path_of(&p.text_document.uri)
                {
                    if closed {
                        self.docs.remove(&path);
                    }
                    self.touch(&path);
                }
            }
            "workspace/didChangeWatchedFiles" => {
                if let Some(p) = self.heard::<DidChangeWatchedFiles>(n) {
                    for c in p.changes {
                        if let Some(path) = path_of(&c.uri) {
                            self.touch(&path);
                        }
                    }
                }
            }
            _ => {}
        }
    }

    /// A file changed: its module is analysed again, and every module when it is a
    /// policy file (it may govern any of them).
    fn touch(&mut self, path: &Path) {
        if path.file_name().is_some_and(|n| n == POLICY_FILE) {
            // Every module shown, those whose last analysis failed too.
            self.dirty.extend(self.modules.keys().chain(self.published.keys()).cloned());
        }
        if let Some(dir) = module_dir(path)
            && path.file_name().is_some_and(|n| n != POLICY_FILE)
        {
            self.dirty.insert(dir);
        }
    }

    /// Analyses the dirty modules and publishes what changed.
    fn flush(&mut self) {
        if self.dirty.is_empty() {
            return;
        }
        let dirs: Vec<PathBuf> = std::mem::take(&mut self.dirty).into_iter().collect();
        for dir in dirs {
            self.refresh(&dir);
        }
        if self.client.inlay_refresh {
            self.ask("workspace/inlayHint/refresh", Value::Null);
        }
    }

    /// Analyses one module again (or forgets it when none of its files is open any more)
    /// and publishes the diagnostics that changed: a keystroke in a module of 50 files
    /// sends the few files whose diagnostics it changed, not 50 notifications.
    fn refresh(&mut self, dir: &Path) {
        let open = self.docs.keys().any(|p| p.parent() == Some(dir));
        self.modules.remove(dir);
        if !open && let Ok(canon) = std::fs::canonicalize(dir) {
            self.files.forget(&canon);
            // Kept by path within a source, not by full path: all go, the other modules'
            // files are parsed again once.
            self.parses.clear();
        }
        let mut now: BTreeMap<PathBuf, Vec<Value>> = BTreeMap::new();
        if open {
            let analysed =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.analyse(dir)));
            match analysed {
                Ok(Ok(Some(a))) => {
                    now.extend(self.diagnostics(dir, &a));
                    self.modules.insert(dir.to_path_buf(), a);
                }
                Ok(Ok(None)) => {}
                Ok(Err(message)) => {
                    if let Some(path) = self.docs.keys().find(|p| p.parent() == Some(dir)).cloned()
                    {
                        let d = json!({"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
                            "severity": 1, "source": "override-guard", "message": message});
                        now.insert(path, vec![d]);
                    }
                }
                Err(_) => {
                    // A bug of ours must not take the editor's server down; the module
                    // simply shows nothing until it changes again.
                }
            }
        }
        let before = self.published.remove(dir).unwrap_or_default();
        for (path, diags) in &now {
            if before.get(path) != Some(diags) {
                self.publish(path, diags.clone());
            }
        }
        for gone in before.keys().filter(|p| !now.contains_key(*p)) {
            self.publish(gone, Vec::new());
        }
        if !now.is_empty() {
            self.published.insert(dir.to_path_buf(), now);
        }
    }

    fn publish(&self, path: &Path, diagnostics: Vec<Value>) {
        if let Some(uri) = uri_of(path) {
            self.notify(
                "textDocument/publishDiagnostics",
                json!({"uri": uri, "diagnostics": diagnostics}),
            );
        }
    }

    /// Loads and judges the module in `dir` from the disk with the open buffers over it.
    /// `None` when the directory holds no module (only variables files, say).
    fn analyse(&self, dir: &Path) -> Result<Option<Analysed>, String> {
        // Named by where it lies: a directory the editor reached through a link is judged
        // where its files are.
        let canon = std::fs::canonicalize(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        // As `audit`: files git does not track are told apart (`local-override`).
        let state = State::Editor { buffers: &self.docs, cache: &self.files, index: &self.index };
        let (ws, opened) = Workspace::editor(canon, state).map_err(|e| e.to_string())?;
        let rel = ws.targets.first().map(|t| t.scope.clone()).unwrap_or_default();
        let ask = Ask {
            choice: &Choice::Nearest,
            levels: &[],
            engine: crate::terraform::release::EngineChoice::Files,
            today: self.today,
        };
        let (audit, judged) =
            match Audit::judge_dir(opened.source(), &ask, &rel, Some(self.parses.clone())) {
                Ok(Some(found)) => found,
                Ok(None) => return Ok(None),
                // Only a `--policy` file's mistakes come back so; the nearest one's are
                // `broken`.
                Err(Trouble::Policy(errors)) => {
                    let text: Vec<String> = errors.into_iter().map(|e| e.message).collect();
                    return Err(text.join("\n"));
                }
                Err(Trouble::Source(e)) => return Err(e.to_string()),
            };
        // A broken policy file: shown in that file, the module not judged.
        let governing = match audit.policies.of(&rel).1 {
            g if g.broken.is_empty() => Ok((g.policy.clone(), g.base.clone())),
            _ => Err(audit.policies.mistakes()),
        };
        let (loaded, findings) = (judged.loaded, judged.findings);
        let analysis = Analysis::new(&loaded.module, findings);
        let root = ws.root;
        Ok(Some(Analysed { rel, root, module: loaded.module, analysis, governing }))
    }

    /// Where a path of a module's source is, as the client names it: the module's own
    /// files in its directory, others (a policy file above) from the root.
    fn client_path(dir: &Path, a: &Analysed, path: &str) -> PathBuf {
        match crate::path::split(path) {
            (d, name) if d == a.rel => dir.join(name),
            _ => a.root.join(path),
        }
    }

    fn location(
        &self,
        dir: &Path,
        a: &Analysed,
        path: &str,
        text: &str,
        start: usize,
        end: usize,
    ) -> Option<Value> {
        let uri = uri_of(&Self::client_path(dir, a, path))?;
        let lines = Lines::new(text, self.enc);
        Some(json!({"uri": uri, "range": lines.range(start, end)}))
    }

    fn diagnostic(&self, dir: &Path, a: &Analysed, f: &Finding) -> Value {
        let lines = Lines::new(&f.primary.source, self.enc);
        let mut message = f.message.clone();
        if let Some(h) = &f.help {
            message.push_str("\nhelp: ");
            message.push_str(h);
        }
        let mut d = json!({
            "range": lines.range(f.primary.start, f.primary.end),
            "severity": match f.level { Level::Deny => 1, Level::Warn => 2, Level::Allow => 3 },
            "code": f.rule.as_str(),
            "source": "override-guard",
            "message": message,
        });
        if self.client.related_information && !f.related.is_empty() {
            let related: Vec<Value> = f
                .related
                .iter()
                .filter_map(|r| {
                    let location = self.location(dir, a, &r.path, &r.source, r.start, r.end)?;
                    Some(json!({"location": location, "message": if r.label.is_empty() { "related" } else { r.label.as_str() }}))
                })
                .collect();
            d["relatedInformation"] = json!(related);
        } else if !f.related.is_empty() {
            // Without related information, the other place goes into the message.
            let also: Vec<String> = f
                .related
                .iter()
                .map(|r| format!("{}:{}: {}", r.path, r.line_col(r.start).0, r.label))
                .collect();
            if let Some(m) = d["message"].as_str().map(|m| format!("{m}\n{}", also.join("\n"))) {
                d["message"] = json!(m);
            }
        }
        d
    }

    /// Every file of the module with its diagnostics (none for most), plus any other file
    /// a finding is in (a policy file).
    fn diagnostics(&self, dir: &Path, a: &Analysed) -> Vec<(PathBuf, Vec<Value>)> {
        let mut out: Vec<(PathBuf, Vec<Value>)> = a
            .analysis
            .files
            .iter()
            .map(|f| (Self::client_path(dir, a, &f.path), Vec::new()))
            .collect();
        // By index: a module of 500 files with as many findings is no quadratic search.
        let mut at: HashMap<PathBuf, usize> =
            out.iter().enumerate().map(|(i, (p, _))| (p.clone(), i)).collect();
        let mut add = |path: PathBuf, d: Value| match at.get(&path) {
            Some(&i) => out[i].1.push(d),
            None => {
                at.insert(path.clone(), out.len());
                out.push((path, vec![d]));
            }
        };
        for f in &a.analysis.findings {
            add(Self::client_path(dir, a, &f.primary.path), self.diagnostic(dir, a, f));
        }
        if let Err(errors) = &a.governing {
            for e in errors {
                let lines = Lines::new(&e.text, self.enc);
                let mut message = e.message.clone();
                if let Some(h) = &e.help {
                    message.push_str("\nhelp: ");
                    message.push_str(h);
                }
                let d = json!({"range": lines.range(e.span.start, e.span.end), "severity": 1,
                    "code": "policy", "source": "override-guard", "message": message});
                add(Self::client_path(dir, a, &e.path), d);
            }
            // Said in the module too: its findings are missing until the policy is fixed.
            if let Some(first) = a.analysis.files.first() {
                let path = errors.first().map_or(POLICY_FILE, |e| e.path.as_str());
                let d = json!({"range": Lines::new(&first.text, self.enc).range(0, 0), "severity": 2,
                    "code": "policy", "source": "override-guard",
                    "message": format!("{path} has mistakes: this module is not judged until they are fixed")});
                add(Self::client_path(dir, a, &first.path), d);
            }
        }
        out
    }

    fn request(&mut self, req: Request) {
        let result = match req.method.as_str() {
            "textDocument/hover" => params(req.params).map(|p| self.hover(&p)),
            "textDocument/definition" => {
                params(req.params).map(|p| self.jump(&p, Jump::Definition))
            }
            "textDocument/references" => {
                params(req.params).map(|p| self.jump(&p, Jump::References))
            }
            "textDocument/inlayHint" => params(req.params).map(|p| self.inlay_hints(&p)),
            "textDocument/codeAction" => params(req.params).map(|p| self.code_actions(&p)),
            "initialize" => Err((-32600, "initialize was answered already".to_string())),
            _ => Err((-32601, format!("unknown method {}", req.method))),
        };
        let response = match result {
            Ok(result) => Response::new_ok(req.id, result),
            Err((code, message)) => Response::new_err(req.id, code, message),
        };
        self.send(Message::Response(response));
    }

    /// The analysed module of a document, analysing what is pending first, and the
    /// document's path within the module's source.
    fn module_of(&mut self, uri: &str) -> Option<(PathBuf, String)> {
        let path = path_of(uri)?;
        let dir = module_dir(&path)?;
        if self.dirty.contains(&dir) || !self.modules.contains_key(&dir) {
            self.dirty.remove(&dir);
            if self.docs.contains_key(&path) {
                self.refresh(&dir);
            }
        }
        let a = self.modules.get(&dir)?;
        let name = path.file_name()?.to_str()?;
        Some((dir, join(&a.rel, name)))
    }

    fn at_position(&mut self, p: &protocol::PositionParams) -> Option<(PathBuf, String, usize)> {
        let (dir, path) = self.module_of(&p.text_document.uri)?;
        let file = self.modules.get(&dir)?.analysis.file(&path)?;
        let offset = Lines::new(&file.text, self.enc).offset(p.position);
        Some((dir, path, offset))
    }

    fn hover(&mut self, params: &protocol::PositionParams) -> Value {
        let Some((dir, path, offset)) = self.at_position(params) else { return Value::Null };
        let Some(a) = self.modules.get(&dir) else { return Value::Null };
        match a.analysis.hover(&path, offset) {
            Some(md) => json!({"contents": {"kind": "markdown", "value": md}}),
            None => Value::Null,
        }
    }

    fn jump(&mut self, params: &protocol::PositionParams, jump: Jump) -> Value {
        let Some((dir, path, offset)) = self.at_position(params) else { return Value::Null };
        let Some(a) = self.modules.get(&dir) else { return Value::Null };
        let Some(spot) = a.analysis.spot(&path, offset).filter(|s| s.jump == jump) else {
            return Value::Null;
        };
        let locations: Vec<Value> = spot
            .targets
            .iter()
            .filter_map(|t| {
                let text = &a.analysis.file(&t.path)?.text;
                self.location(&dir, a, &t.path, text, t.start, t.end)
            })
            .collect();
        json!(locations)
    }

    fn inlay_hints(&mut self, p: &protocol::RangeParams) -> Value {
        let Some((dir, path)) = self.module_of(&p.text_document.uri) else { return json!([]) };
        let Some(file) = self.modules.get(&dir).and_then(|a| a.analysis.file(&path)) else {
            return json!([]);
        };
        let lines = Lines::new(&file.text, self.enc);
        let (from, to) = (lines.offset(p.range.start), lines.offset(p.range.end));
        let hints: Vec<Value> = file
            .hints
            .iter()
            .filter(|h| from <= h.offset && h.offset <= to.max(from))
            .map(|h| {
                json!({
                    "position": lines.position(h.offset),
                    "label": h.label,
                    "paddingLeft": true,
                    "tooltip": {"kind": "markdown", "value": h.tooltip},
                })
            })
            .collect();
        json!(hints)
    }

    fn code_actions(&mut self, p: &protocol::RangeParams) -> Value {
        let Some((dir, path)) = self.module_of(&p.text_document.uri) else { return json!([]) };
        let Some(a) = self.modules.get(&dir) else { return json!([]) };
        let Some(file) = a.analysis.file(&path) else { return json!([]) };
        let lines = Lines::new(&file.text, self.enc);
        // A range the client gave backwards is the same range.
        let (from, to) = (lines.offset(p.range.start), lines.offset(p.range.end));
        let (start, end) = (from.min(to), from.max(to));
        let (policy, base) = match &a.governing {
            Ok((p, b)) => (p.clone(), b.clone()),
            Err(_) => (Policy::builtin(), GlobBase::default()),
        };
        let found = actions::at(
            &a.module,
            &a.analysis.findings,
            &policy,
            &base,
            self.today,
            &path,
            start..end,
        );
        let out: Vec<Value> =
            found.into_iter().filter_map(|act| self.code_action(&dir, a, act)).collect();
        json!(out)
    }

    fn code_action(&self, dir: &Path, a: &Analysed, act: actions::Action) -> Option<Value> {
        let kind = match act.kind {
            actions::Kind::QuickFix => "quickfix",
            actions::Kind::Rewrite => "refactor.rewrite",
        };
        let deletes = act.changes.iter().any(|c| c.edits.is_none());
        let disabled = act.disabled.clone().or_else(|| {
            (deletes && !self.client.delete_files)
                .then(|| "this editor cannot delete files through a language server; run `override-guard fold` instead".to_string())
        });
        let mut out = json!({"title": act.title, "kind": kind});
        if let Some(reason) = disabled {
            if !self.client.disabled_actions {
                return None;
            }
            out["disabled"] = json!({"reason": reason});
            return Some(out);
        }
        let diagnostics: Vec<Value> = act
            .resolves
            .iter()
            .filter_map(|&i| a.analysis.findings.get(i))
            .map(|f| self.diagnostic(dir, a, f))
            .collect();
        if !diagnostics.is_empty() {
            out["diagnostics"] = json!(diagnostics);
        }
        let mut ops = Vec::new();
        let mut changes = serde_json::Map::new();
        for c in &act.changes {
            let uri = uri_of(&Self::client_path(dir, a, &c.path))?;
            match &c.edits {
                Some(edits) => {
                    let text = a.analysis.file(&c.path)?.text.clone();
                    let lines = Lines::new(&text, self.enc);
                    let edits: Vec<Value> = edits
                        .iter()
                        .map(|e| json!({"range": lines.range(e.start, e.end), "newText": e.new_text}))
                        .collect();
                    ops.push(
                        json!({"textDocument": {"uri": uri, "version": null}, "edits": edits}),
                    );
                    changes.insert(uri, json!(edits));
                }
                None => ops.push(json!({"kind": "delete", "uri": uri})),
            }
        }
        out["edit"] =
            if deletes { json!({"documentChanges": ops}) } else { json!({"changes": changes}) };
        Some(out)
    }
}
