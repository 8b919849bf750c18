//! The files teams pin a Terraform or OpenTofu release with, read as the version managers
//! read them: `.terraform-version` and `.opentofu-version` (tfenv, tenv, tfswitch),
//! `.tfswitchrc` (tfswitch), `.tool-versions` (asdf, mise) and `mise.toml` / `.mise.toml`
//! (mise's `[tools]`). Pure: the bytes come from a reader the caller gives, so a pin is found
//! the same way in a worktree, the index, a revision or an editor's buffers.
//!
//! Which file wins follows tenv: from the module's directory up to the repository's root,
//! the first directory with a pin decides; in it the OpenTofu files come first (tenv's `tf`
//! proxy runs OpenTofu wherever it finds an OpenTofu pin), then Terraform's, each engine's in
//! tenv's order (`.opentofu-version`, then `.tool-versions`; `.terraform-version`,
//! `.tfswitchrc`, then `.tool-versions`), with mise's own files before `.tool-versions`,
//! which mise reads last. tenv's proxy walks every parent for OpenTofu's files before it
//! looks for Terraform's; here the nearest directory decides first, so a module's own
//! `.terraform-version` is not overruled by an `.opentofu-version` at the root (the `tofu`
//! and `terraform` commands of tenv each walk for their own engine only).

use std::fmt;

use toml::de::{DeTable, DeValue};

use super::constraint::Constraint;
use super::discover::Engine;
use super::release::Version;

/// What a pin asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Spec {
    /// `1.9.8`, `v1.9.8`; a pre-release (`1.15.0-beta1`) is kept to be told apart.
    Exact { version: Version, pre: Option<String> },
    /// `1.9` (or `1`, or mise's `prefix:1.9`): the newest release of that minor (major), as
    /// tfenv and mise take it and as `terraform@1.9` means here. tenv installs 1.9.0.
    Prefix { major: u32, minor: Option<u32> },
    /// `latest` (also tenv's `latest-stable` and `latest-pre`): the newest release.
    Latest,
    /// `latest:^1.9`: the newest release whose number the regular expression matches (tfenv's
    /// and tenv's form; `latest:~> 1.9` is read as a constraint).
    LatestMatching(String),
    /// tenv's `min:^1.9`: the oldest release whose number it matches.
    MinMatching(String),
    /// `min-required`: the oldest release the module's `required_version` admits.
    MinRequired,
    /// `latest-allowed`: the newest release the module's `required_version` admits.
    LatestAllowed,
    /// Anything else that is a version constraint (`~> 1.9`): tenv installs the newest
    /// release it admits.
    Constraint(Constraint),
    /// What no version manager can read, and why: a diagnostic, never a panic.
    Unreadable(String),
}

/// A pin found: which engine, what it asks, where (a repository-relative path and a line
/// counted from 1), and the text as written (cut short where it is long).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pin {
    pub engine: Engine,
    pub spec: Spec,
    pub file: String,
    pub line: usize,
    pub text: String,
}

impl fmt::Display for Pin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: `{}`", self.file, self.line, self.text)
    }
}

/// More than any pin file holds: a bigger one is refused unread.
const MAX_FILE: usize = 1 << 20;
/// Longer than any version, keyword or constraint a team writes in a pin.
const MAX_SPEC: usize = 256;

/// At most this much of a text in a diagnostic.
fn shown(s: &str) -> String {
    const SHOWN: usize = 80;
    match s.char_indices().nth(SHOWN) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

/// A number of a version as tenv's version pattern takes it: digits only.
fn number(s: &str) -> Option<u32> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// Compiles a version manager's regular expression with a bound on its size.
pub(crate) fn regex(pattern: &str) -> Result<regex::Regex, String> {
    regex::RegexBuilder::new(pattern)
        .size_limit(1 << 20)
        .build()
        .map_err(|e| format!("`{}` is no regular expression: {e}", shown(pattern)))
}

impl Spec {
    /// A pin's text, trimmed: tenv's keywords, a version as tenv's pattern reads it
    /// (`v?N(.N){0,2}(-pre)?`), mise's `prefix:`, else a constraint, else unreadable.
    pub fn parse(text: &str) -> Spec {
        if text.len() > MAX_SPEC {
            return Spec::Unreadable(format!("a pin of {} bytes is no version", text.len()));
        }
        match text {
            "latest" | "latest-stable" | "latest-pre" => return Spec::Latest,
            "latest-allowed" => return Spec::LatestAllowed,
            "min-required" => return Spec::MinRequired,
            _ => {}
        }
        // `latest:~> 1.9`: an operator starts no sensible expression of a version number, so
        // it is read as the constraint it looks like (the newest release it admits).
        if let Some(k) = text
            .strip_prefix("latest:")
            .filter(|p| p.trim_start().starts_with(['~', '<', '>', '=', '!']))
            .and_then(|p| Constraint::parse(p).ok())
        {
            return Spec::Constraint(k);
        }
        for (prefix, latest) in [("latest:", true), ("min:", false)] {
            if let Some(pattern) = text.strip_prefix(prefix) {
                return match regex(pattern) {
                    Ok(_) if latest => Spec::LatestMatching(pattern.to_string()),
                    Ok(_) => Spec::MinMatching(pattern.to_string()),
                    Err(why) => Spec::Unreadable(why),
                };
            }
        }
        if let Some(v) = text.strip_prefix("prefix:") {
            return match Spec::version(v) {
                Some(Spec::Exact { version, pre: None }) => {
                    Spec::Prefix { major: version.major, minor: Some(version.minor) }
                }
                Some(s @ Spec::Prefix { .. }) => s,
                _ => Spec::Unreadable(format!("`{}` is no version prefix", shown(text))),
            };
        }
        if let Some(s) = Spec::version(text) {
            return s;
        }
        match Constraint::parse(text) {
            Ok(c) => Spec::Constraint(c),
            Err(_) => Spec::Unreadable(format!(
                "`{}` is no version, version constraint or keyword (`latest`, \
                 `latest:<regex>`, `min-required`, `latest-allowed`)",
                shown(text)
            )),
        }
    }

    /// tenv's exact version: one to three numbers, an optional `v`, an optional `-pre`.
    fn version(text: &str) -> Option<Spec> {
        let s = text.strip_prefix('v').unwrap_or(text);
        let (nums, pre) = match s.split_once('-') {
            Some((n, p)) => (n, Some(p)),
            None => (s, None),
        };
        if let Some(p) = pre
            && (p.is_empty()
                || !p.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.'))
        {
            return None;
        }
        let parts: Vec<&str> = nums.split('.').collect();
        if parts.len() > 3 {
            return None;
        }
        let n: Vec<u32> = parts.iter().map(|p| number(p)).collect::<Option<_>>()?;
        let pre = pre.map(str::to_string);
        Some(match (n.as_slice(), pre) {
            ([a, b, c], pre) => Spec::Exact { version: Version::new(*a, *b, *c), pre },
            ([a, b], None) => Spec::Prefix { major: *a, minor: Some(*b) },
            ([a], None) => Spec::Prefix { major: *a, minor: None },
            // `1.9-beta1`: tenv pads it to 1.9.0-beta1.
            (short, pre) => {
                let at = |i: usize| short.get(i).copied().unwrap_or(0);
                Spec::Exact { version: Version::new(at(0), at(1), at(2)), pre }
            }
        })
    }
}

/// The text of a pin file: UTF-8 (a byte-order mark dropped) or UTF-16 with its mark
/// (what Windows PowerShell's `>` writes); no NUL, no more than [`MAX_FILE`].
fn text_of(bytes: &[u8]) -> Result<String, String> {
    if bytes.len() > MAX_FILE {
        return Err(format!("a file of {} bytes is no pin file", bytes.len()));
    }
    let utf16 = |be: bool| {
        let units = bytes[2..].chunks(2).map(|c| match (c, be) {
            ([a, b], false) => u16::from_le_bytes([*a, *b]),
            ([a, b], true) => u16::from_be_bytes([*a, *b]),
            _ => 0xFFFD,
        });
        char::decode_utf16(units)
            .collect::<Result<String, _>>()
            .map_err(|_| "not UTF-16 text".to_string())
    };
    let text = match bytes {
        [0xFF, 0xFE, ..] => utf16(false)?,
        [0xFE, 0xFF, ..] => utf16(true)?,
        _ => {
            let b = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
            String::from_utf8(b.to_vec()).map_err(|_| "not UTF-8 text".to_string())?
        }
    };
    if text.contains('\0') {
        return Err("binary, not text".to_string());
    }
    Ok(text.strip_prefix('\u{FEFF}').map(str::to_string).unwrap_or(text))
}

/// A pin of a spec read from a text at a line.
fn pin(engine: Engine, file: &str, line: usize, text: &str) -> Pin {
    Pin { engine, spec: Spec::parse(text), file: file.to_string(), line, text: shown(text) }
}

fn unreadable(engine: Engine, file: &str, line: usize, why: String) -> Pin {
    Pin { engine, spec: Spec::Unreadable(why), file: file.to_string(), line, text: String::new() }
}

/// `.terraform-version`, `.opentofu-version`, `.tfswitchrc`: the first line with a version
/// (tfenv: `#` starts a comment, blank lines are skipped, `\r` is dropped; tenv reads the
/// whole file trimmed, the same for the one line such a file holds).
fn flat(engine: Engine, file: &str, text: &str) -> Option<Pin> {
    for (i, line) in text.split('\n').enumerate() {
        let l = line.split('#').next().unwrap_or("").trim();
        if !l.is_empty() {
            return Some(pin(engine, file, i + 1, l));
        }
    }
    None
}

/// The names a tool file gives an engine (mise takes `tofu` for OpenTofu too).
fn engine_named(name: &str) -> Option<Engine> {
    match name {
        "terraform" => Some(Engine::Terraform),
        "opentofu" | "tofu" => Some(Engine::OpenTofu),
        _ => None,
    }
}

/// `.tool-versions`: `terraform 1.9.8` lines, `#` comments; of several versions on a line
/// the first, and of several lines for one tool the last (tenv's reading).
fn tool_versions(file: &str, text: &str) -> Vec<Pin> {
    let mut found: Vec<Pin> = Vec::new();
    for (i, line) in text.split('\n').enumerate() {
        let l = line.trim();
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        let mut fields = l.split_whitespace();
        let (Some(name), Some(version)) = (fields.next(), fields.next()) else { continue };
        let Some(engine) = engine_named(name) else { continue };
        let version = version.split('#').next().unwrap_or("");
        if version.is_empty() {
            continue;
        }
        found.retain(|p| p.engine != engine);
        found.push(pin(engine, file, i + 1, version));
    }
    found
}

/// The offsets of a text's line ends, found once: a file of many tools is not counted
/// again for each.
fn line_ends(text: &str) -> Vec<usize> {
    text.bytes().enumerate().filter(|&(_, b)| b == b'\n').map(|(i, _)| i).collect()
}

/// The line (from 1) of a byte offset.
fn line_at(ends: &[usize], offset: usize) -> usize {
    ends.partition_point(|&e| e < offset) + 1
}

/// A `[tools]` key's engine: `terraform`, `opentofu`, `tofu`, also behind a backend
/// (`aqua:hashicorp/terraform`, `asdf:opentofu`).
fn tool_engine(key: &str) -> Option<Engine> {
    engine_named(key.rsplit([':', '/']).next().unwrap_or(key))
}

/// mise's `[tools]`: `terraform = "1.9"`, `{ version = "1.9" }`, or a list (the first).
fn mise(file: &str, text: &str) -> Vec<Pin> {
    let root = match DeTable::parse(text) {
        Ok(t) => t,
        Err(e) => {
            // A broken file pins nothing it does not name.
            let engine = if text.contains("tofu") {
                Engine::OpenTofu
            } else if text.contains("terraform") {
                Engine::Terraform
            } else {
                return Vec::new();
            };
            let line = line_at(&line_ends(text), e.span().map_or(0, |s| s.start));
            let why = format!("not TOML: {}", shown(e.message().trim_end()));
            return vec![unreadable(engine, file, line, why)];
        }
    };
    let ends = line_ends(text);
    let mut found: Vec<Pin> = Vec::new();
    for (key, value) in root.get_ref() {
        if key.get_ref() != "tools" {
            continue;
        }
        let DeValue::Table(tools) = value.get_ref() else { continue };
        for (tool, v) in tools {
            let Some(engine) = tool_engine(tool.get_ref()) else { continue };
            let line = line_at(&ends, v.span().start);
            let mut value = v;
            if let DeValue::Array(items) = value.get_ref() {
                match items.first() {
                    Some(first) => value = first,
                    None => {
                        found.push(unreadable(engine, file, line, "an empty list".to_string()));
                        continue;
                    }
                }
            }
            let version = match value.get_ref() {
                DeValue::String(s) => Ok(s.as_ref()),
                DeValue::Table(t) => t
                    .iter()
                    .find(|(k, _)| k.get_ref() == "version")
                    .and_then(|(_, v)| v.get_ref().as_str())
                    .ok_or_else(|| "a table without a `version` string".to_string()),
                _ => Err("not a string".to_string()),
            };
            let line = line_at(&ends, value.span().start);
            found.push(match version {
                Ok(s) => pin(engine, file, line, s.trim()),
                Err(why) => unreadable(engine, file, line, why),
            });
        }
    }
    // Of two keys for one engine (`tofu` and `opentofu`), the first in the file.
    found.sort_by_key(|p| p.line);
    let mut seen = Vec::new();
    found.retain(|p| {
        let first = !seen.contains(&p.engine);
        seen.push(p.engine);
        first
    });
    found
}

/// The pin files by name, each with the engines it can pin.
const FILES: &[&str] = &[
    ".opentofu-version",
    ".terraform-version",
    ".tfswitchrc",
    "mise.toml",
    ".mise.toml",
    ".tool-versions",
];

/// Is a file of this name one a version manager reads a pin from? (Sources keep such
/// files, which are no module's, so that a module's release is read from the same state.)
pub(crate) fn is_pin_file(name: &str) -> bool {
    FILES.contains(&name)
}

/// Every version file's name, for comparing two states' pins.
pub(crate) fn pin_file_names() -> &'static [&'static str] {
    FILES
}

/// Each engine's files in the order they are read in one directory.
const ORDER: &[(Engine, &[&str])] = &[
    (Engine::OpenTofu, &[".opentofu-version", "mise.toml", ".mise.toml", ".tool-versions"]),
    (
        Engine::Terraform,
        &[".terraform-version", ".tfswitchrc", "mise.toml", ".mise.toml", ".tool-versions"],
    ),
];

/// The pins a file holds, by its name (the last part of `path`): none for a file that is no
/// pin file; an unreadable pin for bytes no version manager can read.
pub fn parse(path: &str, bytes: &[u8]) -> Vec<Pin> {
    let name = path.rsplit('/').next().unwrap_or(path);
    if !FILES.contains(&name) {
        return Vec::new();
    }
    let flat_engine = match name {
        ".opentofu-version" => Some(Engine::OpenTofu),
        ".terraform-version" | ".tfswitchrc" => Some(Engine::Terraform),
        _ => None,
    };
    let text = match text_of(bytes) {
        Ok(t) => t,
        Err(why) => {
            return match flat_engine {
                Some(engine) => vec![unreadable(engine, path, 1, why)],
                // A tool file that cannot be read may pin another tool: nothing is known.
                None => Vec::new(),
            };
        }
    };
    match (flat_engine, name) {
        (Some(engine), _) => flat(engine, path, &text).into_iter().collect(),
        (None, ".tool-versions") => tool_versions(path, &text),
        (None, _) => mise(path, &text),
    }
}

/// The directories from a module's up to the root (`""`), nearest first. A `..` takes the
/// part before it away: the walk never leaves the repository.
fn dirs(module_dir: &str) -> Vec<String> {
    let mut parts: Vec<&str> = Vec::new();
    for p in module_dir.split('/') {
        match p {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    (0..=parts.len()).rev().map(|n| parts[..n].join("/")).collect()
}

/// The pin that decides a module's release: the nearest directory with one, in it the
/// first of `ORDER`. `read` gives a repository-relative file's bytes, `None` where there
/// is none. An unreadable pin is found too (tenv stops at it with an error), to be reported.
pub fn find(read: &dyn Fn(&str) -> Option<Vec<u8>>, module_dir: &str) -> Option<Pin> {
    dirs(module_dir).iter().find_map(|dir| in_dir(read, dir))
}

/// [`find`] for many modules of one state: what each directory holds is asked once, as
/// most modules share the directories above them.
#[derive(Debug, Default)]
pub struct Memo {
    dirs: std::sync::Mutex<std::collections::HashMap<String, Option<Pin>>>,
}

impl Memo {
    pub fn find(&self, read: &dyn Fn(&str) -> Option<Vec<u8>>, module_dir: &str) -> Option<Pin> {
        for dir in dirs(module_dir) {
            let known = self.dirs.lock().ok().and_then(|d| d.get(&dir).cloned());
            let here = match known {
                Some(here) => here,
                None => {
                    let here = in_dir(read, &dir);
                    if let Ok(mut d) = self.dirs.lock() {
                        d.insert(dir, here.clone());
                    }
                    here
                }
            };
            if here.is_some() {
                return here;
            }
        }
        None
    }
}

/// The pin of one directory: the first of `ORDER` its files hold.
fn in_dir(read: &dyn Fn(&str) -> Option<Vec<u8>>, dir: &str) -> Option<Pin> {
    let mut read_here: Vec<(&str, Vec<Pin>)> = Vec::new();
    for (engine, names) in ORDER {
        for name in *names {
            if !read_here.iter().any(|(n, _)| n == name) {
                let path = if dir.is_empty() { name.to_string() } else { format!("{dir}/{name}") };
                let pins = read(&path).map(|b| parse(&path, &b)).unwrap_or_default();
                read_here.push((name, pins));
            }
            let pins = read_here.iter().find(|(n, _)| n == name).map(|(_, p)| p);
            if let Some(p) = pins.and_then(|p| p.iter().find(|p| p.engine == *engine)) {
                return Some(p.clone());
            }
        }
    }
    None
}

#[cfg(test)]
#[path = "pins_tests.rs"]
mod tests;
