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
pub fn is_pin_file(name: &str) -> bool {
    FILES.contains(&name)
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
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    fn one(path: &str, bytes: &[u8]) -> Pin {
        match parse(path, bytes).as_slice() {
            [p] => p.clone(),
            other => panic!("{path}: {other:?}"),
        }
    }

    fn spec(path: &str, text: &str) -> Spec {
        one(path, text.as_bytes()).spec
    }

    fn exact(a: u32, b: u32, c: u32) -> Spec {
        Spec::Exact { version: Version::new(a, b, c), pre: None }
    }

    fn unreadable_why(p: &Pin) -> &str {
        match &p.spec {
            Spec::Unreadable(why) => why,
            other => panic!("{other:?} is readable"),
        }
    }

    /// A repository of files by path, read as `find` reads a source.
    fn repo(files: &[(&str, &str)]) -> impl Fn(&str) -> Option<Vec<u8>> {
        let map: BTreeMap<String, Vec<u8>> =
            files.iter().map(|(p, t)| (p.to_string(), t.as_bytes().to_vec())).collect();
        move |p: &str| map.get(p).cloned()
    }

    #[test]
    fn a_version_file_holds_an_exact_version_a_prefix_or_a_keyword() {
        let f = ".terraform-version";
        assert_eq!(spec(f, "1.9.8\n"), exact(1, 9, 8));
        assert_eq!(spec(f, "v1.9.8"), exact(1, 9, 8));
        assert_eq!(spec(f, "1.9"), Spec::Prefix { major: 1, minor: Some(9) });
        assert_eq!(spec(f, "1"), Spec::Prefix { major: 1, minor: None });
        assert_eq!(spec(f, "latest"), Spec::Latest);
        assert_eq!(spec(f, "latest-stable"), Spec::Latest);
        assert_eq!(spec(f, "latest:^1.9"), Spec::LatestMatching("^1.9".into()));
        assert!(
            matches!(spec(f, "latest:~> 1.9.0"), Spec::Constraint(c) if c.text() == "~> 1.9.0")
        );
        assert_eq!(spec(f, "latest:1\\.9"), Spec::LatestMatching("1\\.9".into()));
        assert_eq!(spec(f, "min:^1.9"), Spec::MinMatching("^1.9".into()));
        assert_eq!(spec(f, "min-required"), Spec::MinRequired);
        assert_eq!(spec(f, "latest-allowed"), Spec::LatestAllowed);
        assert!(matches!(spec(f, "~> 1.9.0"), Spec::Constraint(c) if c.text() == "~> 1.9.0"));
        assert_eq!(
            spec(f, "1.15.0-beta1"),
            Spec::Exact { version: Version::new(1, 15, 0), pre: Some("beta1".into()) }
        );
        assert_eq!(
            spec(f, "1.10-rc1"),
            Spec::Exact { version: Version::new(1, 10, 0), pre: Some("rc1".into()) }
        );
    }

    #[test]
    fn the_first_line_with_a_version_counts_comments_and_blanks_skipped() {
        let p = one(
            "infra/.terraform-version",
            b"# pinned for the upgrade\n\n  1.9.8  # until March\n1.10.0\n",
        );
        assert_eq!((p.engine, p.spec, p.line), (Engine::Terraform, exact(1, 9, 8), 3));
        assert_eq!((p.file.as_str(), p.text.as_str()), ("infra/.terraform-version", "1.9.8"));
        assert!(parse(".terraform-version", b"# nothing yet\n\n").is_empty());
        assert!(parse(".terraform-version", b"").is_empty());
        assert_eq!(one(".opentofu-version", b"1.10.0").engine, Engine::OpenTofu);
        assert_eq!(one(".tfswitchrc", b"1.9.8").engine, Engine::Terraform);
    }

    #[test]
    fn crlf_a_byte_order_mark_and_utf16_are_read() {
        assert_eq!(spec(".terraform-version", "1.9.8\r\n"), exact(1, 9, 8));
        assert_eq!(one(".terraform-version", b"\r\n\r\n1.9.8\r\n").line, 3);
        assert_eq!(one(".terraform-version", b"\xEF\xBB\xBF1.9.8\r\n").spec, exact(1, 9, 8));
        // Windows PowerShell's `echo 1.9.8 > .terraform-version`.
        let mut le = vec![0xFF, 0xFE];
        le.extend("1.9.8\r\n".encode_utf16().flat_map(u16::to_le_bytes));
        assert_eq!(one(".terraform-version", &le).spec, exact(1, 9, 8));
        let mut be = vec![0xFE, 0xFF];
        be.extend("1.10.0".encode_utf16().flat_map(u16::to_be_bytes));
        assert_eq!(one(".opentofu-version", &be).spec, exact(1, 10, 0));
        let tv = "\u{FEFF}terraform 1.9.8\r\nopentofu 1.10.0\r\n";
        assert_eq!(parse(".tool-versions", tv.as_bytes()).len(), 2);
    }

    #[test]
    fn binary_and_broken_text_are_unreadable_pins_not_panics() {
        let bin = one(".terraform-version", b"\x7fELF\x02\x01\x00\x00");
        assert_eq!((bin.line, unreadable_why(&bin)), (1, "binary, not text"));
        let latin1 = one(".terraform-version", b"1.9.8 \xE9t\xE9");
        assert_eq!(unreadable_why(&latin1), "not UTF-8 text");
        let odd = one(".terraform-version", &[0xFF, 0xFE, 0x00, 0xD8]);
        assert_eq!(unreadable_why(&odd), "not UTF-16 text");
        let words = one(".terraform-version", b"one point nine");
        assert!(unreadable_why(&words).contains("`one point nine` is no version"));
        // A tool file that cannot be read pins nothing known.
        assert!(parse(".tool-versions", b"\x00\x01").is_empty());
        assert!(parse("mise.toml", &[0xC3]).is_empty());
    }

    #[test]
    fn huge_inputs_are_refused_and_shown_short() {
        let line = "9".repeat(100_000);
        let p = one(".terraform-version", line.as_bytes());
        assert_eq!(unreadable_why(&p), "a pin of 100000 bytes is no version");
        assert!(p.text.chars().count() <= 81, "{}", p.text.len());
        let big = vec![b'1'; MAX_FILE + 1];
        let q = one(".terraform-version", &big);
        assert!(unreadable_why(&q).starts_with("a file of 1048577 bytes"));
        let lines = "\n".repeat(500_000) + "1.9.8";
        assert_eq!(one(".terraform-version", lines.as_bytes()).line, 500_001);
        let tools = "nodejs 20.1.0\n".repeat(50_000) + "terraform 1.9.8\n";
        assert_eq!(one(".tool-versions", tools.as_bytes()).line, 50_001);
    }

    #[test]
    fn bad_pins_are_unreadable_with_the_reason() {
        for text in [
            "1.x",
            "latest:(",
            "prefix:latest",
            "system",
            "ref:v1.9.0",
            "path:/opt/terraform",
            "1.9 1.8",
        ] {
            let p = one(".terraform-version", text.as_bytes());
            assert!(matches!(p.spec, Spec::Unreadable(_)), "{text}: {:?}", p.spec);
        }
        assert!(
            unreadable_why(&one(".terraform-version", b"latest:("))
                .contains("no regular expression")
        );
    }

    #[test]
    fn what_is_no_version_of_tenvs_shape_but_a_constraint_is_read_as_one() {
        for text in ["1.9.8.1", "1.9.99999999999", ">= 1.9, < 1.11", "=1.9.8", "~>1.9"] {
            assert!(matches!(spec(".terraform-version", text), Spec::Constraint(_)), "{text}");
        }
    }

    #[test]
    fn tool_versions_lines_name_the_tool() {
        let text =
            "# tools\nnodejs 20.1.0\nterraform 1.9.8 1.8.5 # and an older one\nopentofu 1.10.0\n";
        let pins = parse(".tool-versions", text.as_bytes());
        let got: Vec<(Engine, Spec, usize)> =
            pins.iter().map(|p| (p.engine, p.spec.clone(), p.line)).collect();
        assert_eq!(
            got,
            vec![(Engine::Terraform, exact(1, 9, 8), 3), (Engine::OpenTofu, exact(1, 10, 0), 4)]
        );
        assert_eq!(one(".tool-versions", b"tofu 1.9.0").engine, Engine::OpenTofu);
        assert_eq!(one(".tool-versions", b"terraform 1.9.8#pinned").spec, exact(1, 9, 8));
        assert!(
            parse(".tool-versions", b"terraform\n#terraform 1.9.8\nterraformer 1.0\n").is_empty()
        );
    }

    #[test]
    fn tool_versions_takes_the_last_line_of_a_tool_as_tenv_does() {
        let p = one(".tool-versions", b"terraform 1.8.5\nterraform 1.9.8\n");
        assert_eq!((p.spec, p.line), (exact(1, 9, 8), 2));
    }

    #[test]
    fn mise_tools_in_all_three_forms() {
        let text = "[env]\nX = 1\n\n[tools]\nnode = \"20\"\nterraform = \"1.9\"\nopentofu = { version = \"1.10.0\", os = [\"linux\"] }\n";
        let pins = parse("mise.toml", text.as_bytes());
        let got: Vec<(Engine, Spec, usize)> =
            pins.iter().map(|p| (p.engine, p.spec.clone(), p.line)).collect();
        assert_eq!(
            got,
            vec![
                (Engine::Terraform, Spec::Prefix { major: 1, minor: Some(9) }, 6),
                (Engine::OpenTofu, exact(1, 10, 0), 7),
            ]
        );
        let list = one(".mise.toml", b"[tools]\ntofu = [\"1.9.0\", \"1.8.0\"]\n");
        assert_eq!((list.engine, list.spec), (Engine::OpenTofu, exact(1, 9, 0)));
        let prefix = one("mise.toml", b"[tools]\n\"aqua:hashicorp/terraform\" = \"prefix:1.11\"\n");
        assert_eq!(prefix.spec, Spec::Prefix { major: 1, minor: Some(11) });
        let inline = one("mise.toml", b"tools = { terraform = \"latest\" }\r\n");
        assert_eq!(inline.spec, Spec::Latest);
        let twice = one("mise.toml", b"[tools]\ntofu = \"1.9.0\"\nopentofu = \"1.10.0\"\n");
        assert_eq!((twice.spec, twice.line), (exact(1, 9, 0), 2));
    }

    #[test]
    fn mise_values_that_are_no_version_are_unreadable() {
        assert_eq!(
            unreadable_why(&one("mise.toml", b"[tools]\nterraform = 1.9\n")),
            "not a string"
        );
        assert_eq!(
            unreadable_why(&one("mise.toml", b"[tools]\nterraform = []\n")),
            "an empty list"
        );
        let t = one("mise.toml", b"[tools]\nterraform = { os = [\"linux\"] }\n");
        assert_eq!(unreadable_why(&t), "a table without a `version` string");
        assert!(parse("mise.toml", b"[tools]\nnode = \"20\"\n").is_empty());
        assert!(parse("mise.toml", b"[tools\nnode = 20").is_empty());
        let broken = one("mise.toml", b"[tools]\nterraform = \"1.9\n");
        assert_eq!((broken.engine, broken.line), (Engine::Terraform, 2));
        assert!(unreadable_why(&broken).starts_with("not TOML: "));
    }

    #[test]
    fn a_hostile_mise_file_is_refused_without_trouble() {
        let deep =
            format!("[tools]\nterraform = {}\"1.9\"{}\n", "[".repeat(100_000), "]".repeat(100_000));
        let pins = parse("mise.toml", deep.as_bytes());
        assert!(pins.iter().all(|p| matches!(p.spec, Spec::Unreadable(_))), "{pins:?}");
        let tables = format!("[tools]\nterraform = {}\n", "{ a = ".repeat(50_000));
        assert!(
            parse("mise.toml", tables.as_bytes())
                .iter()
                .all(|p| matches!(p.spec, Spec::Unreadable(_)))
        );
        let wide = "[tools]\n".to_string()
            + &(0..20_000).map(|i| format!("t{i} = \"1\"\n")).collect::<String>();
        assert!(parse("mise.toml", wide.as_bytes()).is_empty());
        // Many keys of one engine behind backends: lines are counted once, the first wins.
        let many: String =
            (0..20_000).map(|i| format!("\"aqua:x{i}/terraform\" = \"1.{i}\"\n")).collect();
        let pins = parse("mise.toml", format!("[tools]\n{many}").as_bytes());
        assert_eq!(pins.iter().map(|p| p.line).collect::<Vec<_>>(), vec![2]);
    }

    proptest::proptest! {
        #[test]
        fn any_bytes_are_pins_or_nothing_never_a_panic(
            name in proptest::sample::select(FILES),
            bytes in proptest::collection::vec(proptest::sample::select(&b"19.v-#~<>=, \n\r\t[]{}\"'=:tofuerram\xEF\xBB\xBF\xFF\xFE\x00"[..]), 0..200),
        ) {
            for p in parse(name, &bytes) {
                proptest::prop_assert!(p.line >= 1 && p.text.chars().count() <= 81, "{:?}", p);
            }
        }
    }

    #[test]
    fn other_files_are_no_pins() {
        assert!(parse("main.tf", b"1.9.8").is_empty());
        assert!(parse("a/.terraform-version.bak", b"1.9.8").is_empty());
        assert!(parse(".terraform.lock.hcl", b"1.9.8").is_empty());
    }

    #[test]
    fn the_memo_finds_what_find_finds_and_asks_each_file_once() {
        let files =
            repo(&[(".terraform-version", "1.9.8"), ("envs/.tool-versions", "terraform 1.11.4")]);
        let asked = std::sync::Mutex::new(Vec::new());
        let read = |p: &str| {
            if let Ok(mut a) = asked.lock() {
                a.push(p.to_string());
            }
            files(p)
        };
        let memo = Memo::default();
        for dir in ["envs/a", "envs/b", "envs", "modules/x", "modules/y", "", "envs/a"] {
            assert_eq!(memo.find(&read, dir), find(&files, dir), "{dir}");
        }
        let mut asked = asked.into_inner().unwrap_or_default();
        let all = asked.len();
        asked.sort();
        asked.dedup();
        assert_eq!(all, asked.len(), "a path asked twice");
    }

    #[test]
    fn find_looks_in_the_module_then_its_parents_to_the_root() {
        let read = repo(&[(".terraform-version", "1.9.8"), ("envs/.terraform-version", "1.11.4")]);
        let p = find(&read, "envs/prod/network").expect("a pin");
        assert_eq!((p.file.as_str(), p.spec), ("envs/.terraform-version", exact(1, 11, 4)));
        let root = find(&read, "modules/vpc").expect("the root's");
        assert_eq!(root.file, ".terraform-version");
        assert_eq!(find(&read, "").map(|p| p.file), Some(".terraform-version".to_string()));
        assert_eq!(
            find(&read, "./envs/").map(|p| p.file),
            Some("envs/.terraform-version".to_string())
        );
        assert_eq!(find(&repo(&[]), "envs/prod"), None);
    }

    #[test]
    fn find_prefers_opentofu_in_a_directory_then_tenvs_order() {
        let both = repo(&[("m/.terraform-version", "1.9.8"), ("m/.opentofu-version", "1.10.0")]);
        assert_eq!(find(&both, "m").map(|p| p.engine), Some(Engine::OpenTofu));
        let tools =
            repo(&[("m/.terraform-version", "1.9.8"), ("m/.tool-versions", "opentofu 1.10.0")]);
        assert_eq!(find(&tools, "m").map(|p| p.file), Some("m/.tool-versions".to_string()));
        let tf = repo(&[
            ("m/.tool-versions", "terraform 1.8.5"),
            ("m/.tfswitchrc", "1.7.5"),
            ("m/.terraform-version", "1.9.8"),
        ]);
        assert_eq!(find(&tf, "m").map(|p| p.spec), Some(exact(1, 9, 8)));
        let rc = repo(&[("m/.tool-versions", "terraform 1.8.5"), ("m/.tfswitchrc", "1.7.5")]);
        assert_eq!(find(&rc, "m").map(|p| p.spec), Some(exact(1, 7, 5)));
        let mise_first = repo(&[
            ("m/.tool-versions", "terraform 1.8.5"),
            ("m/mise.toml", "[tools]\nterraform = \"1.9.8\""),
        ]);
        assert_eq!(find(&mise_first, "m").map(|p| p.file), Some("m/mise.toml".to_string()));
    }

    #[test]
    fn the_nearest_directory_wins_over_an_opentofu_pin_further_up() {
        let read = repo(&[(".opentofu-version", "1.10.0"), ("m/.terraform-version", "1.9.8")]);
        assert_eq!(find(&read, "m").map(|p| p.engine), Some(Engine::Terraform));
    }

    #[test]
    fn find_stops_at_an_unreadable_pin_and_skips_files_that_pin_nothing() {
        let read = repo(&[
            ("m/.terraform-version", "# soon\n"),
            ("m/.tool-versions", "nodejs 20"),
            (".terraform-version", "1.9.8"),
        ]);
        assert_eq!(find(&read, "m").map(|p| p.file), Some(".terraform-version".to_string()));
        let bad = repo(&[("m/.terraform-version", "one.nine"), (".terraform-version", "1.9.8")]);
        let p = find(&bad, "m").expect("the bad pin");
        assert_eq!(p.file, "m/.terraform-version");
        assert!(matches!(p.spec, Spec::Unreadable(_)));
    }

    #[test]
    fn find_never_leaves_the_repository() {
        let asked = std::cell::RefCell::new(Vec::<String>::new());
        let read = |p: &str| {
            asked.borrow_mut().push(p.to_string());
            None
        };
        assert_eq!(find(&read, "../../a/./b/../c/"), None);
        let asked = asked.borrow();
        assert!(
            asked.iter().all(|p| !p.contains("..") && !p.starts_with('/') && !p.contains("./")),
            "{asked:?}"
        );
        assert!(asked.contains(&"a/c/.terraform-version".to_string()), "{asked:?}");
        assert_eq!(dirs("a/c"), vec!["a/c", "a", ""]);
    }

    #[test]
    fn find_reads_each_file_once() {
        let count = std::cell::RefCell::new(BTreeMap::<String, usize>::new());
        let read = |p: &str| {
            *count.borrow_mut().entry(p.to_string()).or_default() += 1;
            None
        };
        assert_eq!(find(&read, "a/b"), None);
        let counts = count.borrow();
        assert!(counts.values().all(|&n| n == 1), "{counts:?}");
        assert_eq!(counts.len(), 3 * FILES.len());
        assert!(counts.contains_key("a/b/.tool-versions") && counts.contains_key("mise.toml"));
    }
}
