//! The version is set in one place, Cargo.toml: everything that names it follows, and the
//! ways of installing stay in step (each hook's `-src` twin, the wheel's build config).

use std::path::Path;

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
    for file in ["README.md", "python/README.md"] {
        let text = read(file);
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
        let twin = blocks
            .iter()
            .find(|t| t.lines().next() == Some(&format!("{id}-src")))
            .unwrap_or_else(|| panic!("{id} has no {id}-src twin"));
        assert_eq!(field(twin, "language"), "rust", "{id}-src builds from source");
        // Apart from id, name and language, the twins are the same hook.
        let rest = |b: &str| -> Vec<String> {
            b.lines()
                .skip(1)
                .filter(|l| {
                    !l.trim_start().starts_with("name:") && !l.trim_start().starts_with("language:")
                })
                .filter(|l| l.starts_with("  "))
                .map(str::to_string)
                .collect()
        };
        assert_eq!(rest(b), rest(twin), "{id} and {id}-src differ");
    }
}
