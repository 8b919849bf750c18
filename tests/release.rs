//! The version is set in one place, Cargo.toml: everything that names it follows, and the
//! ways of installing stay in step (each hook's `-src` twin, the wheel's build config).

use std::path::{Path, PathBuf};

fn read(rel: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(rel))
        .unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// Every `X.Y.Z` after `prefix` in `text`.
fn versions_after<'a>(text: &'a str, prefix: &str) -> Vec<&'a str> {
    text.match_indices(prefix)
        .map(|(i, _)| {
            let rest = &text[i + prefix.len()..];
            let end = rest.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(rest.len());
            rest[..end].trim_end_matches('.')
        })
        .filter(|v| v.chars().next().is_some_and(|c| c.is_ascii_digit()))
        .collect()
}

#[test]
fn every_mention_of_the_version_is_cargo_tomls() {
    let version = env!("CARGO_PKG_VERSION");
    let mut pages = crate::util::doc_pages();
    pages.push(("python/README.md".to_string(), read("python/README.md")));
    for (file, text) in pages {
        let file = file.as_str();
        // A `rev:` of ours: the line above names this repository.
        let lines: Vec<&str> = text.lines().collect();
        let ours: String = lines
            .windows(2)
            .filter(|w| w[0].contains("override-guard/override-guard"))
            .map(|w| w[1])
            .collect::<Vec<_>>()
            .join("\n");
        let mut seen = versions_after(&ours, "rev: v");
        seen.extend(versions_after(&text, "override-guard=="));
        seen.extend(versions_after(&text, "override-guard@v"));
        assert!(!seen.is_empty() || file != "README.md", "{file} names no version");
        for v in seen {
            assert_eq!(v, version, "{file} names version {v}; Cargo.toml says {version}");
        }
    }
    let changelog = read("CHANGELOG.md");
    assert!(
        changelog.contains(&format!("\n## {version}\n")),
        "CHANGELOG.md has no section for {version}"
    );
    // The wheel and the placeholder package take it from Cargo.toml.
    assert!(read("python/pyproject.toml").contains("dynamic = [\"version\"]"));
    assert!(read("python/pyproject.toml").contains("manifest-path = \"../Cargo.toml\""));
    // The `-src` hooks and the release wheels build Cargo.lock's dependencies.
    assert!(read("python/pyproject.toml").contains("\nlocked = true\n"));
    assert!(read("setup.py").contains("install_requires=[f\"override-guard=={VERSION}\"]"));
}

#[test]
fn each_hook_has_a_twin_built_from_source() {
    let hooks = read(".pre-commit-hooks.yaml");
    let blocks: Vec<&str> = hooks.split("\n- id: ").skip(1).collect();
    let field = |b: &str, key: &str| -> String {
        b.lines()
            .find_map(|l| l.trim().strip_prefix(&format!("{key}: ")).map(str::to_string))
            .unwrap_or_default()
    };
    let ids: Vec<String> =
        blocks.iter().map(|b| b.lines().next().unwrap_or("").to_string()).collect();
    assert!(ids.len() >= 6, "{ids:?}");
    for b in &blocks {
        let id = b.lines().next().unwrap_or("");
        if id.ends_with("-src") {
            continue;
        }
        assert_eq!(field(b, "language"), "python", "{id} installs the wheel");
        assert_eq!(field(b, "additional_dependencies"), "", "{id} installs the wheel only");
        let twin = blocks
            .iter()
            .find(|t| t.lines().next() == Some(&format!("{id}-src")))
            .unwrap_or_else(|| panic!("{id} has no {id}-src twin"));
        // Built from source by pip, with maturin, which passes cargo `--locked`: not
        // `language: rust`, whose `cargo install` ignores Cargo.lock.
        assert_eq!(field(twin, "language"), "python", "{id}-src");
        assert_eq!(field(twin, "additional_dependencies"), "[./python]", "{id}-src");
        // Apart from id, name and what installs it, the twins are the same hook.
        let rest = |b: &str| -> Vec<String> {
            b.lines()
                .skip(1)
                .filter(|l| {
                    !l.trim_start().starts_with("name:")
                        && !l.trim_start().starts_with("additional_dependencies:")
                })
                .filter(|l| l.starts_with("  "))
                .map(str::to_string)
                .collect()
        };
        assert_eq!(rest(b), rest(twin), "{id} and {id}-src differ");
    }
}

/// The HCL crate's name in the code and in the table of layers (docs/architecture.md).
const HCL: &str = "override_guard_hcl";

/// The table of layers in docs/architecture.md is the code's: each module of `src/` imports only modules
/// of its own floor or below (`crate::x` outside its unit tests, and the HCL crate as
/// `override_guard_hcl::`), no two modules of a floor import each other, and every
/// top-level module has a floor. The HCL crate (`crates/hcl/`) is the lowest floor: it
/// imports nothing of the tool.
#[test]
fn the_readme_layers_are_the_imports_of_the_code() {
    let readme = read("docs/architecture.md");
    let start =
        readme.find("| floor | modules | what |").expect("docs/architecture.md's table of layers");
    let table = readme[start..].split("\n\n").next().unwrap_or_default();
    let mut floor: std::collections::BTreeMap<String, usize> = Default::default();
    for (n, row) in table.lines().skip(2).enumerate() {
        let modules = row.split('|').nth(2).unwrap_or_default();
        // `terraform` (`syntax`, …): the parenthesised names are its submodules.
        let mut depth = 0;
        let mut outside = String::new();
        for c in modules.chars() {
            match c {
                '(' => depth += 1,
                ')' => depth -= 1,
                c if depth == 0 => outside.push(c),
                _ => {}
            }
        }
        for name in outside.split('`').skip(1).step_by(2) {
            floor.insert(name.trim_end_matches(".rs").to_string(), n);
        }
    }
    assert_eq!(
        floor.get(HCL),
        Some(&0),
        "the HCL crate is the lowest floor of docs/architecture.md"
    );
    let rs_files = |dir: PathBuf| {
        let mut files = vec![];
        let mut stack = vec![dir];
        while let Some(p) = stack.pop() {
            if p.is_dir() {
                stack.extend(std::fs::read_dir(&p).unwrap().map(|e| e.unwrap().path()));
            } else if p.extension().is_some_and(|e| e == "rs") {
                files.push(p);
            }
        }
        files
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let manifest = read("crates/hcl/Cargo.toml");
    let depends_on_the_tool = manifest.lines().any(|l| {
        let key = l.trim_start().trim_start_matches('[').trim_start_matches("dependencies.");
        key.starts_with("override-guard ")
            || key.starts_with("override-guard=")
            || key.starts_with("override-guard]")
    });
    assert!(!depends_on_the_tool, "crates/hcl/Cargo.toml depends on the tool");
    for f in rs_files(root.join("crates/hcl")) {
        let text = std::fs::read_to_string(&f).unwrap();
        assert!(!text.contains("override_guard::"), "{} imports the tool", f.display());
    }
    let src = root.join("src");
    let mut imports: std::collections::BTreeMap<String, std::collections::BTreeSet<String>> =
        Default::default();
    for entry in std::fs::read_dir(&src).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        if name == "lib" {
            continue;
        }
        assert!(
            floor.contains_key(&name),
            "src/{name} has no floor in docs/architecture.md's table of layers"
        );
        for f in rs_files(path) {
            let text = std::fs::read_to_string(&f).unwrap();
            let code = text.split("#[cfg(test)]").next().unwrap_or_default();
            if code.contains("override_guard_hcl::") {
                imports.entry(name.clone()).or_default().insert(HCL.to_string());
            }
            let prefix = if name == "main" { "override_guard::" } else { "crate::" };
            for (i, _) in code.match_indices(prefix) {
                if name == "main" && !code[..i].ends_with("use ") {
                    continue; // `override_guard::x` in main.rs's imports only
                }
                let rest = &code[i + prefix.len()..];
                let end = rest
                    .find(|c: char| !(c.is_ascii_lowercase() || c == '_'))
                    .unwrap_or(rest.len());
                let to = &rest[..end];
                if !to.is_empty() && to != name {
                    imports.entry(name.clone()).or_default().insert(to.to_string());
                }
            }
        }
    }
    for (from, tos) in &imports {
        for to in tos {
            let (Some(a), Some(b)) = (floor.get(from), floor.get(to)) else {
                panic!("src/{from} imports {to}, which has no floor in docs/architecture.md");
            };
            assert!(b <= a, "src/{from} (floor {a}) imports {to}, a floor above (floor {b})");
            let back = imports.get(to).is_some_and(|t| t.contains(from));
            assert!(!(a == b && back), "{from} and {to} import each other");
        }
    }
    assert!(imports.len() >= 15, "the imports were not read: {imports:?}");
}

/// The VS Code extension is the project's and under its licence: both texts beside it,
/// as the project's own; the `LICENSE` that vsce and the Marketplace look for, naming
/// them; `license` in package.json as Cargo.toml's; and the package's `files` (what `vsce
/// package` takes) holding them all. `tests/machine/vscode.rs` packages it with vsce.
#[test]
fn the_vscode_extension_carries_the_projects_licence() {
    for text in ["LICENSE-MIT", "LICENSE-APACHE"] {
        assert_eq!(read(&format!("editors/vscode/{text}")), read(text), "{text} differs");
    }
    let licence = env!("CARGO_PKG_LICENSE");
    let stated = read("editors/vscode/LICENSE");
    for name in ["LICENSE-MIT", "LICENSE-APACHE", licence] {
        assert!(stated.contains(name), "editors/vscode/LICENSE does not name {name}");
    }
    let package: serde_json::Value =
        serde_json::from_str(&read("editors/vscode/package.json")).expect("package.json");
    assert_eq!(package["license"], licence);
    let files: Vec<&str> = package["files"]
        .as_array()
        .expect("package.json lists its files")
        .iter()
        .filter_map(|f| f.as_str())
        .collect();
    let main = package["main"].as_str().expect("main").trim_start_matches("./");
    for want in ["LICENSE", "LICENSE-MIT", "LICENSE-APACHE", "README.md", main] {
        assert!(files.contains(&want), "package.json's files leave {want} out: {files:?}");
    }
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("editors/vscode");
    for f in &files {
        assert!(dir.join(f).is_file(), "package.json's files name {f}, which is not there");
    }
    // vsce refuses a package with both a .vscodeignore and `files`.
    assert!(!dir.join(".vscodeignore").exists());
}
