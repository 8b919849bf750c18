//! The shape of the tree that docs/architecture.md's "How it is built" promises, checked file
//! by file (the layers between top-level modules are `release.rs`'s): no file imports a file that
//! imports it back, directly or round a longer loop; no source file is over 800 lines, no
//! command file (`src/app/`) over 400, no function over 120. A module's `mod.rs` declaring its children is no
//! import, nor is handing a child's name on (`pub use child::X`: who takes `X` gets the
//! arrow to the child); calling into a child (`child::f`, or `X` used in the file that
//! hands it on) is, as is a child's `super::X` of something its parent defines. Doc
//! comments and tests are not read.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A crate's files by module path (`["merge", "decode", "common"]`; the root is `[]`).
type Modules = BTreeMap<Vec<String>, PathBuf>;

fn rs_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = vec![];
    let mut stack = vec![dir.to_path_buf()];
    while let Some(p) = stack.pop() {
        if p.is_dir() {
            stack.extend(std::fs::read_dir(&p).unwrap().map(|e| e.unwrap().path()));
        } else if p.extension().is_some_and(|e| e == "rs") {
            files.push(p);
        }
    }
    files.sort();
    files
}

/// The library's modules under `src` (a binary's `main.rs` is another crate: left out).
fn modules(src: &Path) -> Modules {
    let mut out = Modules::new();
    for f in rs_files(src) {
        let rel = f.strip_prefix(src).unwrap();
        let mut path: Vec<String> =
            rel.iter().map(|c| c.to_string_lossy().trim_end_matches(".rs").to_string()).collect();
        if path == ["main"] {
            continue;
        }
        if matches!(path.last().map(String::as_str), Some("mod" | "lib")) {
            path.pop();
        }
        out.insert(path, f);
    }
    out
}

/// The code of a file as the compiler sees it outside its tests (an item under
/// `#[cfg(test)]` is left out whole), without comments.
fn code(f: &Path) -> String {
    let text = std::fs::read_to_string(f).unwrap();
    let mut kept = String::new();
    let mut rest = text.as_str();
    while let Some(i) = rest.find("#[cfg(test)]") {
        kept.push_str(&rest[..i]);
        rest = &rest[i..];
        // The item ends at its first `;` or at the brace that closes its first `{`.
        let b = rest.as_bytes();
        let mut depth = 0;
        let mut end = b.len();
        for (k, &c) in b.iter().enumerate() {
            match c {
                b';' if depth == 0 => {
                    end = k + 1;
                    break;
                }
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = k + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        rest = &rest[end..];
    }
    kept.push_str(rest);
    kept.lines()
        .map(|l| match l.find("//") {
            Some(i) if !l[..i].contains('"') => &l[..i],
            _ => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn ident(s: &[u8], mut i: usize) -> (String, usize) {
    let start = i;
    while i < s.len() && (s[i].is_ascii_alphanumeric() || s[i] == b'_') {
        i += 1;
    }
    (String::from_utf8_lossy(&s[start..i]).into_owned(), i)
}

fn skip_ws(s: &[u8], mut i: usize) -> usize {
    while i < s.len() && s[i].is_ascii_whitespace() {
        i += 1;
    }
    i
}

/// The paths of a use tree or a path expression starting at `i` (`a::b::{c, d::e}`).
fn use_tree(s: &[u8], i: usize, prefix: Vec<String>, out: &mut Vec<Vec<String>>) -> usize {
    let mut path = prefix;
    let mut i = skip_ws(s, i);
    loop {
        if i < s.len() && s[i] == b'{' {
            i += 1;
            loop {
                i = skip_ws(s, i);
                if i >= s.len() || s[i] == b'}' {
                    return i + 1;
                }
                i = use_tree(s, i, path.clone(), out);
                i = skip_ws(s, i);
                if i < s.len() && s[i] == b',' {
                    i += 1;
                }
            }
        }
        if i < s.len() && s[i] == b'*' {
            out.push(path);
            return i + 1;
        }
        let (name, j) = ident(s, i);
        if name.is_empty() {
            out.push(path);
            return i;
        }
        if name != "self" {
            path.push(name);
        }
        i = j;
        if s[i..].starts_with(b"::") {
            i = skip_ws(s, i + 2);
        } else {
            out.push(path);
            // `x as y`: the alias names nothing of the tree.
            let k = skip_ws(s, i);
            if s[k..].starts_with(b"as ") {
                return ident(s, skip_ws(s, k + 3)).1;
            }
            return i;
        }
    }
}

/// Every path the file names that starts in the crate: `crate::`, `super::`, `self::`, or
/// one of the file's own child modules.
fn references(module: &[String], code: &str, children: &BTreeSet<String>) -> Vec<Vec<String>> {
    let s = code.as_bytes();
    let mut out = vec![];
    let mut i = 0;
    while i < s.len() {
        let boundary = i == 0 || !(s[i - 1].is_ascii_alphanumeric() || s[i - 1] == b'_');
        if !boundary || !(s[i].is_ascii_alphabetic() || s[i] == b'_') {
            i += 1;
            continue;
        }
        let (first, j) = ident(s, i);
        let qualified = i >= 2 && &s[i - 2..i] == b"::";
        if qualified || !s[j..].starts_with(b"::") {
            i = j;
            continue;
        }
        let base: Option<Vec<String>> = match first.as_str() {
            "crate" => Some(vec![]),
            "self" => Some(module.to_vec()),
            "super" => {
                let mut m = module.to_vec();
                let mut k = j;
                m.pop();
                while s[k..].starts_with(b"::super") {
                    m.pop();
                    k += 7;
                }
                if k != j {
                    let mut paths = vec![];
                    let end = use_tree(s, k + 2, m, &mut paths);
                    out.extend(paths);
                    i = end.max(j);
                    continue;
                }
                Some(m)
            }
            c if children.contains(c) => {
                let mut m = module.to_vec();
                m.push(c.to_string());
                Some(m)
            }
            _ => None,
        };
        match base {
            Some(base) => {
                let mut paths = vec![];
                let end = use_tree(s, j + 2, base, &mut paths);
                out.extend(paths);
                i = end.max(j);
            }
            None => i = j,
        }
    }
    out
}

/// Does `code` name `name` (a whole identifier, not part of a longer one or a path's tail)?
fn uses_name(code: &str, name: &str) -> bool {
    let b = code.as_bytes();
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    code.match_indices(name).any(|(i, _)| {
        let end = i + name.len();
        (i == 0 || !ident(b[i - 1])) && (end == b.len() || !ident(b[end]))
    })
}

/// The file a path leads to: its longest prefix that is a module, then, where the next
/// name is only handed on there (`pub use x::Name`), the file that defines it.
fn resolve(mods: &Modules, exports: &Exports, path: &[String], depth: usize) -> Option<PathBuf> {
    let n = (0..=path.len()).rev().find(|&n| mods.contains_key(&path[..n]))?;
    let file = mods[&path[..n]].clone();
    if depth < 8
        && let Some(name) = path.get(n)
        && let Some(to) = exports.get(&file).and_then(|e| e.get(name))
    {
        let mut to = to.clone();
        to.extend(path[n + 1..].iter().cloned());
        return resolve(mods, exports, &to, depth + 1).or(Some(file));
    }
    Some(file)
}

/// What each file hands on with `pub use`: the name and the path it comes from.
type Exports = BTreeMap<PathBuf, BTreeMap<String, Vec<String>>>;

/// The arrows between a crate's files.
fn arrows(src: &Path) -> BTreeMap<PathBuf, BTreeSet<PathBuf>> {
    let mods = modules(src);
    let mut refs = BTreeMap::new();
    let mut exports = Exports::new();
    for (module, file) in &mods {
        let code = code(file);
        let children: BTreeSet<String> = code
            .lines()
            .filter_map(|l| {
                let l = l.trim();
                let rest = l.strip_prefix("pub ").or(Some(l))?;
                let rest = rest.strip_prefix("(crate) ").unwrap_or(rest);
                rest.strip_prefix("mod ")?.strip_suffix(';').map(str::to_string)
            })
            .collect();
        for l in code.split(';') {
            let l = l.trim_start();
            let Some(rest) =
                l.strip_prefix("pub use ").or_else(|| l.strip_prefix("pub(crate) use "))
            else {
                continue;
            };
            for p in references(module, rest, &children) {
                if let Some(name) = p.last() {
                    exports.entry(file.clone()).or_default().insert(name.clone(), p);
                }
            }
        }
        // A `pub use` hands a name on: who takes it gets the arrow to the file that defines
        // it. The file itself imports it only where its own code uses the name.
        let own: String = code
            .split_inclusive(';')
            .filter(|l| {
                let l = l.trim_start();
                !(l.starts_with("pub use ") || l.starts_with("pub(crate) use "))
            })
            .collect();
        let mut paths = references(module, &own, &children);
        // (`mod convert;` declares a child; it does not use a function it hands on.)
        let body: String = own
            .split_inclusive(';')
            .filter(|l| {
                let l = l.trim_start();
                let l = l.strip_prefix("pub(crate) ").or(l.strip_prefix("pub ")).unwrap_or(l);
                !l.starts_with("mod ")
            })
            .collect();
        for (name, path) in exports.get(file).into_iter().flatten() {
            if uses_name(&body, name) {
                paths.push(path.clone());
            }
        }
        refs.insert(file.clone(), paths);
    }
    let mut out: BTreeMap<PathBuf, BTreeSet<PathBuf>> = BTreeMap::new();
    for (file, paths) in refs {
        let to: BTreeSet<PathBuf> = paths
            .iter()
            .filter_map(|p| resolve(&mods, &exports, p, 0))
            .filter(|t| *t != file)
            .collect();
        out.insert(file, to);
    }
    out
}

/// A loop of arrows, if there is one: the files in order.
fn a_circle(arrows: &BTreeMap<PathBuf, BTreeSet<PathBuf>>) -> Option<Vec<PathBuf>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        Open,
        Done,
    }
    let mut mark: BTreeMap<&PathBuf, Mark> = arrows.keys().map(|k| (k, Mark::New)).collect();
    fn visit<'a>(
        f: &'a PathBuf,
        arrows: &'a BTreeMap<PathBuf, BTreeSet<PathBuf>>,
        mark: &mut BTreeMap<&'a PathBuf, Mark>,
        stack: &mut Vec<&'a PathBuf>,
    ) -> Option<Vec<PathBuf>> {
        mark.insert(f, Mark::Open);
        stack.push(f);
        for t in arrows.get(f).into_iter().flatten() {
            match mark.get(t).copied().unwrap_or(Mark::Done) {
                Mark::Open => {
                    let from = stack.iter().position(|s| *s == t).unwrap();
                    return Some(stack[from..].iter().map(|p| (*p).clone()).collect());
                }
                Mark::New => {
                    if let Some(c) = visit(t, arrows, mark, stack) {
                        return Some(c);
                    }
                }
                Mark::Done => {}
            }
        }
        stack.pop();
        mark.insert(f, Mark::Done);
        None
    }
    for f in arrows.keys() {
        if mark[f] == Mark::New
            && let Some(c) = visit(f, arrows, &mut mark, &mut vec![])
        {
            return Some(c);
        }
    }
    None
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn no_file_imports_a_file_that_imports_it_back() {
    for (src, at_least) in [("src", 300), ("crates/hcl/src", 20)] {
        let mut arrows = arrows(&root().join(src));
        let total: usize = arrows.values().map(BTreeSet::len).sum();
        assert!(total >= at_least, "{src}: the imports were not read ({total} arrows)");
        // Every circle, each named once: the arrow that closes one is taken away to look on.
        let mut circles = vec![];
        while let Some(circle) = a_circle(&arrows) {
            let names: Vec<String> = circle
                .iter()
                .map(|p| p.strip_prefix(root()).unwrap().display().to_string())
                .collect();
            circles.push(names.join(" -> "));
            let (last, first) = (&circle[circle.len() - 1], &circle[0]);
            arrows.get_mut(last).unwrap().remove(first);
        }
        assert!(
            circles.is_empty(),
            "files that import each other in a circle:\n{}",
            circles.join("\n")
        );
    }
}

/// The check finds what it must: a parent calling into a child that takes a name from it,
/// a re-export followed to the file that defines the name (and not counted itself), a
/// longer loop, and nothing in doc comments or tests.
#[test]
fn the_circle_check_sees_circles() {
    let dir = tempfile::tempdir().unwrap();
    let w = |p: &str, t: &str| {
        let p = dir.path().join(p);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, t).unwrap();
    };
    w("lib.rs", "pub mod a;\npub mod b;\n/// [`crate::b::g`] in a doc comment is no import\n");
    w("a/mod.rs", "mod kid;\npub use kid::Thing;\npub fn f() {}\n");
    w("a/kid.rs", "pub struct Thing;\n#[cfg(test)]\nfn t() {\n    crate::b::g();\n}\n");
    w("b.rs", "use crate::a::Thing;\npub fn g() {}\n");
    let none = arrows(dir.path());
    assert_eq!(a_circle(&none), None, "{none:?}");
    // b takes `Thing` through a's re-export: the arrow is b -> kid.
    assert!(none[&dir.path().join("b.rs")].contains(&dir.path().join("a/kid.rs")), "{none:?}");
    // Handing a name on is no import; calling into the child is.
    w("a/kid.rs", "use super::f;\npub struct Thing;\n");
    assert_eq!(a_circle(&arrows(dir.path())), None, "a `pub use` is no import");
    w("a/mod.rs", "mod kid;\npub use kid::Thing;\npub fn f() -> Thing {\n    kid::Thing\n}\n");
    assert!(a_circle(&arrows(dir.path())).is_some(), "mod.rs -> kid -> mod.rs");
    w("a/mod.rs", "mod kid;\npub use kid::Thing;\npub fn f() -> Thing {\n    Thing\n}\n");
    assert!(a_circle(&arrows(dir.path())).is_some(), "a name handed on and used is imported");
    w("a/mod.rs", "mod kid;\npub use kid::Thing;\npub fn f() {}\n");
    w("a/kid.rs", "use crate::b::{self as bee, g};\npub struct Thing;\n");
    let c = a_circle(&arrows(dir.path())).expect("b -> kid -> b");
    assert_eq!(c.len(), 2, "{c:?}");
}

#[test]
fn no_source_file_over_800_lines_and_no_command_file_over_400() {
    let mut long = vec![];
    for dir in ["src", "crates/hcl/src"] {
        for f in rs_files(&root().join(dir)) {
            let lines = std::fs::read_to_string(&f).unwrap().lines().count();
            let rel = f.strip_prefix(root()).unwrap().display().to_string();
            let limit = if rel.starts_with("src/app/") { 400 } else { 800 };
            if lines > limit {
                long.push(format!("{rel}: {lines} lines (at most {limit})"));
            }
        }
    }
    assert!(long.is_empty(), "{}", long.join("\n"));
}

/// The functions of a file as `(name, first line, lines)`: an `fn` item with a body, from
/// its line to the brace at its indentation that closes it (the tree is `rustfmt`ed).
fn functions(text: &str) -> Vec<(String, usize, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = vec![];
    for (i, l) in lines.iter().enumerate() {
        let code = l.trim_start();
        let indent = &l[..l.len() - code.len()];
        let after_vis = code
            .strip_prefix("pub(crate) ")
            .or_else(|| code.strip_prefix("pub(super) "))
            .or_else(|| code.strip_prefix("pub "))
            .unwrap_or(code);
        let after_mods = after_vis.trim_start_matches("const ").trim_start_matches("unsafe ");
        let Some(rest) = after_mods.strip_prefix("fn ") else { continue };
        let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        match l.trim_end().chars().last() {
            Some(';') => continue,
            Some('}') => {
                out.push((name, i + 1, 1));
                continue;
            }
            _ => {}
        }
        let close = format!("{indent}}}");
        if let Some(end) = lines[i + 1..].iter().position(|x| *x == close) {
            out.push((name, i + 1, end + 2));
        }
    }
    out
}

#[test]
fn no_function_over_120_lines() {
    let mut long = vec![];
    for dir in ["src", "crates/hcl/src"] {
        for f in rs_files(&root().join(dir)) {
            let rel = f.strip_prefix(root()).unwrap().display().to_string();
            for (name, line, n) in functions(&std::fs::read_to_string(&f).unwrap()) {
                if n > 120 {
                    long.push(format!("{rel}:{line}: fn {name} is {n} lines (at most 120)"));
                }
            }
        }
    }
    assert!(long.is_empty(), "{}", long.join("\n"));
}

#[test]
fn the_function_measure_sees_a_function_to_its_closing_brace() {
    let text = "impl A {\n    pub(crate) fn f(&self) {\n        if x {\n        }\n    }\n    fn g();\n}\nfn h() {}\nconst fn k() {\n}\n";
    let got = functions(text);
    assert_eq!(got, [("f".to_string(), 2, 4), ("h".to_string(), 8, 1), ("k".to_string(), 9, 2)]);
}
