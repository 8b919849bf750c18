//! Loading a module: discovery, parsing and the merge in Terraform's order (spec §2):
//! every file decoded with Terraform's load-time checks, the required providers first,
//! the primary files appended, the override files merged. The only file of the merge
//! that calls its steps; none of them imports it.

use std::collections::HashMap;
use std::sync::Arc;

use super::module::Module;
use super::{decode, overrides, primaries};
use crate::diag::Diagnostic;
use crate::error::{Error as ToolError, size_text};
use crate::finding::sentence;
use crate::terraform::discover::{self, Engine};
use crate::terraform::release::{EngineChoice, Release};
use crate::terraform::{FileClass, Files, ParsedFile, SourceText, Span, Syntax, hcl, json};
use override_guard_hcl::parse::go_quote_inner;

/// Parsed native-syntax files kept between loads of the same module (the language server
/// loads it again at every keystroke): a file with the same path, place in the module and
/// text as before is not parsed again, and the module is given the cached text itself, so
/// the result is the one a fresh parse gives.
#[derive(Default)]
pub struct Parses {
    files: std::sync::Mutex<HashMap<(String, usize), Parsed>>,
}

type Parsed = (Arc<str>, Arc<ParsedFile>);

impl Parses {
    /// The text to use for a file (the cached one when equal) and its parse, if cached.
    fn get(&self, path: &str, id: usize, text: &str) -> Option<Parsed> {
        let files = self.files.lock().ok()?;
        let (t, f) = files.get(&(path.to_string(), id))?;
        (**t == *text).then(|| (t.clone(), f.clone()))
    }

    /// The native-syntax files of a loaded module as it parsed them, for loading its
    /// directory again from edited texts (`fix` and `fold` prove each edit that way): a
    /// file the edit left alone is not parsed again. A file whose parse found an error is
    /// left out: its text may stand for bytes that were not UTF-8, which parse otherwise.
    pub fn of(m: &Module) -> Parses {
        let mut files = HashMap::new();
        for f in &m.parsed {
            let Some(src) = m.files.files.get(f.file) else { continue };
            if src.syntax == Syntax::Hcl && !f.diagnostics.iter().any(Diagnostic::is_error) {
                files.insert((src.path.clone(), f.file), (src.text.clone(), f.clone()));
            }
        }
        Parses { files: std::sync::Mutex::new(files) }
    }

    /// How many files' parses are kept.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.files.lock().map_or(0, |f| f.len())
    }

    /// Forgets every parse (the modules they were of are no longer shown).
    pub fn clear(&self) {
        if let Ok(mut files) = self.files.lock() {
            files.clear();
        }
    }

    fn put(&self, path: &str, id: usize, parsed: Parsed) {
        if let Ok(mut files) = self.files.lock() {
            files.insert((path.to_string(), id), parsed);
        }
    }
}

/// Loads one module directory: discovery, parsing and the merge.
///
/// `target` is the engine or release asked for (see [`EngineChoice`]); without one, OpenTofu
/// applies when the directory has `.tofu` files. `read` is asked for the bytes of each file
/// discovery selects.
pub fn load<E: ReadError>(
    dir: &str,
    names: &[String],
    target: impl Into<EngineChoice>,
    read: impl FnMut(&str) -> Result<Vec<u8>, E>,
) -> Result<Module, E> {
    load_reusing(dir, names, target, read, None)
}

/// [`load`], reusing the parses of files that did not change since they were kept.
pub(crate) fn load_reusing<E: ReadError>(
    dir: &str,
    names: &[String],
    target: impl Into<EngineChoice>,
    mut read: impl FnMut(&str) -> Result<Vec<u8>, E>,
    parses: Option<&Parses>,
) -> Result<Module, E> {
    let release = target.into().resolve(names.iter().map(String::as_str));
    let engine = release.engine;
    let found = discover::discover(names.iter().map(String::as_str), engine);
    let mut raw = Vec::with_capacity(found.files.len());
    for c in &found.files {
        let bytes = match read(&crate::path::join(dir, &c.name)) {
            Ok(bytes) => Ok(bytes),
            Err(e) => Err(e.unreadable().ok_or(e)?),
        };
        raw.push((c.clone(), bytes));
    }
    let mut m = Module::unmerged(dir.to_string(), release, Files::default(), found.skipped);
    let mut parsed = Vec::with_capacity(raw.len());
    for (id, (c, bytes)) in raw.into_iter().enumerate() {
        let path = crate::path::join(dir, &c.name);
        let bytes = match bytes {
            Ok(bytes) => bytes,
            Err(why) => {
                // Terraform's loader: the module fails with this error, the others go on.
                m.files.files.push(SourceText::new(path, c.class, c.syntax, Arc::from("")));
                let d = Diagnostic::error(
                    "Failed to read file",
                    format!("The file \"{}\" could not be read.", go_quote_inner(&c.name)),
                    Span::new(id, 0, 0),
                )
                .with_cause(sentence(&why));
                parsed.push(Arc::new(ParsedFile {
                    file: id,
                    diagnostics: vec![d],
                    ..Default::default()
                }));
                continue;
            }
        };
        // Not text (a file git-crypt encrypted, another binary file): its errors as one.
        let what = super::binary_content(&bytes);
        let (text, bytes) = match String::from_utf8(bytes) {
            Ok(s) => (s, None),
            // Native syntax is read as Terraform's scanner reads it, broken bytes and all.
            Err(e) if c.syntax == Syntax::Hcl => (hcl::lossless_text(e.as_bytes()), Some(e)),
            // Terraform's JSON reader takes each broken byte as U+FFFD: in a string it is
            // part of the value, elsewhere a character no JSON token starts with.
            Err(e) => (String::from_utf8_lossy(e.as_bytes()).into_owned(), None),
        };
        let reusable = c.syntax == Syntax::Hcl && bytes.is_none();
        let kept = parses.filter(|_| reusable).and_then(|p| p.get(&path, id, &text));
        let text = kept.as_ref().map_or_else(|| Arc::from(text), |(t, _)| t.clone());
        m.files.files.push(SourceText::new(path, c.class, c.syntax, text));
        if let Some((_, f)) = kept {
            parsed.push(f);
            continue;
        }
        let src = &m.files.files[id];
        let result = match (c.syntax, &bytes) {
            // Messages naming another place in the file name it as `range_string` does.
            (Syntax::Hcl, Some(e)) => Ok(hcl::parse_bytes(id, src.name(), e.as_bytes(), &src.text)),
            (Syntax::Hcl, None) => Ok(hcl::parse_shared(id, src.name(), &src.text)),
            (Syntax::Json, _) => json::parse(id, src),
        };
        let as_one = |d: Vec<Diagnostic>| match what {
            Some(what) => super::one_error_of_binary(d, what),
            None => d,
        };
        let f = Arc::new(match result {
            Ok((f, diags)) => ParsedFile { diagnostics: as_one(diags), ..f },
            Err(d) => ParsedFile { file: id, diagnostics: as_one(d), ..Default::default() },
        });
        if let Some(p) = parses.filter(|_| reusable) {
            let src = &m.files.files[id];
            p.put(&src.path, id, (src.text.clone(), f.clone()));
        }
        parsed.push(f);
    }
    assemble(&mut m, &parsed);
    m.parsed = parsed;
    Ok(m)
}

/// The same module merged by another engine, reusing its parsed files. Only meaningful
/// when discovery picks the same files for both engines, i.e. without `.tofu` files.
/// The result carries no parsed files (it is for comparing effective configurations).
/// The other engine is judged at its newest modelled release; the same engine at the
/// module's.
pub fn reassemble(m: &Module, engine: Engine) -> Module {
    let release = if engine == m.engine { m.release } else { Release::newest(engine) };
    let mut o = Module::unmerged(m.dir.clone(), release, m.files.clone(), m.skipped.clone());
    assemble(&mut o, &m.parsed);
    o
}

/// The same module merged again for another release of its engine, from the files it
/// parsed: what the releases a constraint admits would each make of it. Discovery is the
/// same for every release of one engine, so the files are.
pub(crate) fn rejudged(m: &Module, release: Release) -> Module {
    let mut o = Module::unmerged(m.dir.clone(), release, m.files.clone(), m.skipped.clone());
    assemble(&mut o, &m.parsed);
    o.parsed = m.parsed.clone();
    o
}

/// The module as its primary files alone make it, merged again by the same engine from
/// the files it already parsed: what its override files change is the difference. Read
/// errors of the override files go with them. Needs the module's parsed files (a
/// [`reassemble`]d module has none: reassemble this one instead).
pub(crate) fn without_overrides(m: &Module) -> Module {
    // Files are in merge order: the primaries come first, so their ids stay the same.
    let n = m.files.files.iter().take_while(|f| f.class == FileClass::Primary).count();
    let files = Files { files: m.files.files[..n].to_vec() };
    let mut o = Module::unmerged(m.dir.clone(), m.release, files, m.skipped.clone());
    let primaries: Vec<Arc<ParsedFile>> = m.parsed.iter().filter(|p| p.file < n).cloned().collect();
    assemble(&mut o, &primaries);
    o.parsed = primaries;
    o
}

/// A reader's failure, as [`load`] sees it: either it concerns one file only (it is
/// missing, a dangling or looping link, unreadable, not a regular file), which fails that
/// module as Terraform's loader does ("Failed to read file") while the run goes on, or it
/// stops the run (a damaged repository).
pub trait ReadError: std::fmt::Display {
    /// Why the one file cannot be read, when the failure concerns that file only.
    fn unreadable(&self) -> Option<String>;

    /// The file, or the target of the link it is, does not exist (Terraform words some
    /// messages differently then, and skips a missing `terraform.tfvars`).
    fn missing(&self) -> bool {
        false
    }
}

/// The one rule for what a failed read stops: a failure of the file itself (missing, a
/// link that leads nowhere, unreadable, a directory or a device where a file was listed)
/// fails only the module that holds it, as Terraform's loader does; anything else (a
/// damaged repository, a file the state does not hold) stops the run.
impl ReadError for ToolError {
    fn unreadable(&self) -> Option<String> {
        match self {
            ToolError::Io { source, .. } => Some(source.to_string()),
            ToolError::BrokenLink { why, .. } => Some(why.clone()),
            ToolError::IsADirectory { .. } => Some("a directory, not a file".into()),
            ToolError::NotAFile { .. } => {
                Some("not a regular file (a FIFO, socket or device)".into())
            }
            ToolError::TooLarge { size, limit, .. } => Some(format!(
                "it holds {size} bytes, more than the {} override-guard reads from one file",
                size_text(*limit)
            )),
            ToolError::NoSuchFile { .. } => Some("no such file".into()),
            _ => None,
        }
    }

    fn missing(&self) -> bool {
        match self {
            ToolError::Io { source, .. } => source.kind() == std::io::ErrorKind::NotFound,
            ToolError::BrokenLink { missing, .. } => *missing,
            ToolError::NoSuchFile { .. } => true,
            _ => false,
        }
    }
}

impl ReadError for std::convert::Infallible {
    fn unreadable(&self) -> Option<String> {
        match *self {}
    }
}

/// A file system's error is about the file asked for.
impl ReadError for std::io::Error {
    fn unreadable(&self) -> Option<String> {
        Some(self.to_string())
    }

    fn missing(&self) -> bool {
        self.kind() == std::io::ErrorKind::NotFound
    }
}

/// Loads a module from in-memory `(name, text)` pairs (tests, fixtures, re-parsing output).
pub fn load_texts(dir: &str, files: &[(&str, &str)], target: impl Into<EngineChoice>) -> Module {
    load_texts_reusing(dir, files, target, None)
}

/// [`load_texts`], reusing the parses of files whose text is the one kept.
pub(crate) fn load_texts_reusing(
    dir: &str,
    files: &[(&str, &str)],
    target: impl Into<EngineChoice>,
    parses: Option<&Parses>,
) -> Module {
    let names: Vec<String> = files.iter().map(|(n, _)| n.to_string()).collect();
    let map: HashMap<String, &str> =
        files.iter().map(|(n, t)| (crate::path::join(dir, n), *t)).collect();
    let read = |p: &str| -> Result<Vec<u8>, std::convert::Infallible> {
        Ok(map.get(p).map(|t| t.as_bytes().to_vec()).unwrap_or_default())
    };
    match load_reusing(dir, &names, target, read, parses) {
        Ok(m) => m,
        Err(never) => match never {},
    }
}

fn assemble(m: &mut Module, parsed: &[Arc<ParsedFile>]) {
    let (primaries, overrides): (Vec<&ParsedFile>, Vec<&ParsedFile>) =
        parsed.iter().map(|f| &**f).partition(|f| m.files.get(f.file).class == FileClass::Primary);
    // Terraform reads and decodes every file, primaries then overrides, one file after
    // the other, before it merges any.
    for f in primaries.iter().chain(&overrides) {
        m.diagnostics.extend(f.diagnostics.iter().cloned());
        let is_override = m.files.get(f.file).class == FileClass::Override;
        // Each engine's slot keeps the first release asked of it (a module's own): another
        // release of that engine decodes again.
        let slot = &f.decoded[usize::from(m.engine == Engine::OpenTofu)];
        let v = m.release.version;
        let key = (v.major, v.minor, v.patch);
        let decode = || (key, decode::decode_file(&m.files, f, m.release, is_override));
        match slot.get_or_init(decode) {
            (k, found) if *k == key => m.diagnostics.extend(found.iter().cloned()),
            _ => m.diagnostics.extend(decode().1),
        }
    }
    let mut st = primaries::State::default();
    primaries::required_providers(m, &primaries, &overrides);
    for f in &primaries {
        primaries::append_file(m, &mut st, f);
    }
    for f in &overrides {
        overrides::merge_file(m, &mut st, f);
    }
    if !m.has_errors() && m.engine == Engine::Terraform {
        implied_provider_names(m);
    }
}

/// Once a module has loaded without errors, Terraform checks, as it builds the
/// configuration (`validateProviderConfigs`), that every resource and data source without a
/// `provider` argument implies a valid provider local name: the type up to its first `_`.
fn implied_provider_names(m: &mut Module) {
    let mut found = Vec::new();
    // Managed resources, then data sources (those nested in checks among them).
    let managed = m.blocks.iter().filter(|b| b.kind == "resource");
    let data = m.blocks.iter().flat_map(|b| match b.kind.as_str() {
        "data" => vec![b],
        "check" => b.body.blocks_of("data").collect(),
        _ => Vec::new(),
    });
    for b in managed.chain(data) {
        if b.attr("provider").is_some() {
            continue;
        }
        let Some(ty) = b.labels.first() else { continue };
        let implied = ty.split('_').next().unwrap_or_default();
        if let Err(e) = decode::provider_part(implied) {
            found.push(Diagnostic::error(
                "Invalid provider local name",
                format!("\"{implied}\" is an invalid implied provider local name: {e}"),
                b.decl_span(&m.files),
            ));
        }
    }
    m.diagnostics.extend(found);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_overrides_is_the_module_of_its_primary_files() {
        let main = "resource \"a\" \"b\" {\n  x = 1\n}\n";
        let m = load_texts(
            "",
            &[("main.tf", main), ("override.tf", "resource \"a\" \"b\" {\n  x = \n}\n")],
            None,
        );
        assert!(m.has_errors());
        let base = without_overrides(&m);
        let alone = load_texts("", &[("main.tf", main)], None);
        assert!(!base.has_errors());
        assert_eq!(base.files.files.len(), 1);
        assert_eq!(base.blocks, alone.blocks);
        // Another engine can merge it again from the same parsed files.
        assert_eq!(reassemble(&base, Engine::OpenTofu).blocks, alone.blocks);
    }

    #[test]
    fn a_module_loaded_again_reuses_the_parses_of_files_left_alone() {
        let main = "resource \"a\" \"b\" {\n  x = 1\n}\n";
        let over = "resource \"a\" \"b\" {\n  x = 2\n}\n";
        let broken = "locals {\n  y = \n}\n";
        let json = r#"{"variable": {"v": {"default": 1}}}"#;
        let before =
            [("broken.tf", broken), ("main.tf", main), ("override.tf", over), ("v.tf.json", json)];
        let m = load_texts("", &before, None);
        let edited = format!("# A comment.\n{main}");
        let after = [
            ("broken.tf", broken),
            ("main.tf", &edited),
            ("override.tf", over),
            ("v.tf.json", json),
        ];
        let again = load_texts_reusing("", &after, None, Some(&Parses::of(&m)));
        let fresh = load_texts("", &after, None);
        assert_eq!(format!("{:?}", again.blocks), format!("{:?}", fresh.blocks));
        assert_eq!(format!("{:?}", again.diagnostics), format!("{:?}", fresh.diagnostics));
        assert!(again.has_errors());
        let reused: Vec<&str> = again
            .parsed
            .iter()
            .zip(&m.parsed)
            .filter(|(a, b)| Arc::ptr_eq(a, b))
            .map(|(a, _)| again.files.get(a.file).name())
            .collect();
        // Only the native file without an error and without an edit is taken as it was.
        assert_eq!(reused, ["override.tf"]);
    }

    /// A reader's error about one file fails the module with Terraform's diagnostic and
    /// the reason; the other files still load. An error that is not the file's own stops.
    #[test]
    fn a_file_that_cannot_be_read_fails_its_module_only() {
        struct Broken(bool);
        impl std::fmt::Display for Broken {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("broken")
            }
        }
        impl ReadError for Broken {
            fn unreadable(&self) -> Option<String> {
                self.0.then(|| "symbolic link to nowhere.tf, which does not exist".into())
            }
        }
        let names = ["a.tf".to_string(), "main.tf".to_string()];
        let read = |file_only: bool| {
            move |p: &str| match p {
                "a.tf" => Err(Broken(file_only)),
                _ => Ok(b"resource \"x\" \"y\" {}\n".to_vec()),
            }
        };
        let Ok(m) = load("", &names, None, read(true)) else { panic!("one file's failure") };
        assert_eq!(m.blocks.len(), 1, "main.tf still loads");
        let [d] = &m.diagnostics[..] else { panic!("{:?}", m.diagnostics) };
        assert_eq!(d.summary, "Failed to read file");
        assert_eq!(d.detail, "The file \"a.tf\" could not be read.");
        assert_eq!(
            d.explained(),
            "The file \"a.tf\" could not be read.\nSymbolic link to nowhere.tf, which does not exist."
        );
        assert!(load("", &names, None, read(false)).is_err(), "a failure of the run stops it");
    }

    #[test]
    fn a_binary_file_is_one_error_and_a_stray_nul_is_not_binary() {
        let binary: Vec<u8> = (0..=255u8).cycle().take(3000).collect();
        let names = ["blob.tf".to_string()];
        let Ok(m) = load("", &names, None, |_: &str| Ok::<_, std::io::Error>(binary.clone()))
        else {
            panic!("in memory")
        };
        let [d] = &m.diagnostics[..] else { panic!("{:?}", m.diagnostics) };
        assert!(d.explained().contains("This looks like a binary file"), "{d:?}");
        // Text with a NUL between tokens keeps Terraform's every error.
        let m = load_texts("", &[("main.tf", "locals {\n  a = 1\0\n}\n")], None);
        assert_eq!(m.diagnostics.len(), 2, "{:?}", m.diagnostics);
    }

    /// A binary file without NUL bytes is binary too: what gives it away is a control
    /// character no text holds. Latin-1 text is not binary, and keeps Terraform's errors.
    #[test]
    fn a_binary_file_without_nul_bytes_is_one_error_and_latin1_text_is_not_binary() {
        let load_bytes = |bytes: Vec<u8>| {
            let names = ["x.tf".to_string()];
            let read = |_: &str| Ok::<_, std::io::Error>(bytes.clone());
            let Ok(m) = load("", &names, None, read) else { panic!("in memory") };
            m.diagnostics
        };
        let binary: Vec<u8> = (1..=255u8).cycle().take(3000).collect();
        let diags = load_bytes(binary);
        let [d] = &diags[..] else { panic!("{diags:?}") };
        assert!(
            d.explained().contains(
                "This looks like a binary file (it is not UTF-8 and holds control characters)"
            ),
            "{d:?}"
        );
        let latin1 = b"locals {\n  a = \"caf\xe9\"\n  b = \"na\xefve\"\n}\n".to_vec();
        let diags = load_bytes(latin1);
        let summaries: Vec<&str> = diags.iter().map(|d| d.summary.as_str()).collect();
        assert_eq!(summaries, ["Invalid character encoding", "Unterminated template string"]);
    }
}
