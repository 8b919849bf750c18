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

/// The Linux targets of a release: `.ci/release-check` builds their wheels and archives.
fn release_check_targets() -> Vec<String> {
    let script = read(".ci/release-check");
    let line = script
        .lines()
        .find_map(|l| l.strip_prefix("all_targets=\""))
        .expect(".ci/release-check names its targets (all_targets=\"…\")");
    line.trim_end_matches('"').split_whitespace().map(str::to_string).collect()
}

/// The targets of the release workflow's archives: the Linux ones through
/// `.ci/release-check`, the others built on their own runners.
fn workflow_archive_targets() -> Vec<String> {
    let workflow = read(".github/workflows/release.yml");
    workflow
        .lines()
        .filter_map(|l| l.trim().strip_prefix("- { target: "))
        .filter_map(|l| l.split([',', '}']).next())
        .map(|t| t.trim().to_string())
        .collect()
}

/// `template` with every `{ var }` replaced as cargo-binstall does; a name it does not know
/// is an error, so a misspelt variable fails here instead of at a user's install.
fn render(template: &str, vars: &[(&str, &str)]) -> String {
    let mut out = String::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let close = rest[open..].find('}').map(|c| open + c).expect("a closing brace");
        let name = rest[open + 1..close].trim();
        let value = vars
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| *v)
            .unwrap_or_else(|| panic!("unknown template variable {name:?} in {template}"));
        out.push_str(value);
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    out
}

/// The file suffixes cargo-binstall tries for a `pkg-fmt`, in its order (`PkgFmt::extensions`
/// of binstalk-types): it renders `pkg-url` once with each as `archive-suffix`.
fn binstall_suffixes(pkg_fmt: &str) -> &'static [&'static str] {
    match pkg_fmt {
        "tgz" => &[".tgz", ".tar.gz"],
        "zip" => &[".zip"],
        other => panic!("pkg-fmt {other} is not one the release makes"),
    }
}

/// What the release uploads for a target: `override-guard-VERSION-TARGET.tar.gz` (`.zip` on
/// Windows), holding `override-guard-VERSION-TARGET/override-guard[.exe]`.
fn asset(target: &str) -> (String, String) {
    let version = env!("CARGO_PKG_VERSION");
    let windows = target.contains("-windows-");
    let dir = format!("override-guard-{version}-{target}");
    let file = format!("{dir}{}", if windows { ".zip" } else { ".tar.gz" });
    let bin = format!("{dir}/override-guard{}", if windows { ".exe" } else { "" });
    (file, bin)
}

/// `cargo binstall` finds every archive of the release: `[package.metadata.binstall]`
/// renders, for each target the release builds, to exactly the URL of the asset the
/// release uploads and the path of the binary inside it.
#[test]
fn the_binstall_template_renders_to_the_release_assets() {
    let manifest: toml::Table = toml::from_str(&read("Cargo.toml")).expect("Cargo.toml");
    let binstall = manifest["package"]["metadata"]["binstall"].as_table().expect("binstall");
    let field = |target: &str, key: &str| -> String {
        binstall
            .get("overrides")
            .and_then(|o| o.get(target))
            .and_then(|o| o.get(key))
            .or_else(|| binstall.get(key))
            .and_then(|v| v.as_str())
            .unwrap_or_else(|| panic!("binstall {key} for {target}"))
            .to_string()
    };
    let repo = env!("CARGO_PKG_REPOSITORY");
    let version = env!("CARGO_PKG_VERSION");
    let mut targets = release_check_targets();
    assert_eq!(targets.len(), 4, "x86_64 and aarch64, glibc and musl: {targets:?}");
    let workflow = workflow_archive_targets();
    for t in &targets {
        assert!(workflow.contains(t), "release.yml does not archive {t}: {workflow:?}");
    }
    targets.extend(workflow);
    targets.sort();
    targets.dedup();
    assert!(targets.iter().any(|t| t.contains("-windows-")), "{targets:?}");
    for target in &targets {
        let (file, bin) = asset(target);
        let windows = target.contains("-windows-");
        let fmt = field(target, "pkg-fmt");
        let urls: Vec<String> = binstall_suffixes(&fmt)
            .iter()
            .map(|suffix| {
                render(
                    &field(target, "pkg-url"),
                    &[
                        ("repo", repo),
                        ("name", "override-guard"),
                        ("version", version),
                        ("target", target),
                        ("archive-suffix", suffix),
                        ("binary-ext", if windows { ".exe" } else { "" }),
                    ],
                )
            })
            .collect();
        let want = format!("{repo}/releases/download/v{version}/{file}");
        assert_eq!(urls.iter().filter(|u| **u == want).count(), 1, "{target}: {urls:?} ≠ {want}");
        let bin_dir = render(
            &field(target, "bin-dir"),
            &[
                ("name", "override-guard"),
                ("version", version),
                ("target", target),
                ("bin", "override-guard"),
                ("binary-ext", if windows { ".exe" } else { "" }),
            ],
        );
        assert_eq!(bin_dir, bin, "{target}");
    }
}

/// The script and the workflow name the archives alike (what `asset` says), and the
/// workflow builds the Linux wheels and archives with the script.
#[test]
fn the_script_and_the_workflow_name_the_archives_alike() {
    let script = read(".ci/release-check");
    assert!(script.contains("name=override-guard-$version-$target\n"), "the script's name");
    assert!(script.contains("\"$out/dist/$name.tar.gz\""), "the script's archive");
    assert!(script.contains("cp \"$bin\" \"$stage/override-guard\""), "the binary's place");
    let workflow = read(".github/workflows/release.yml");
    assert!(
        workflow.contains(
            "NAME: override-guard-${{ needs.version.outputs.version }}-${{ matrix.target }}"
        ),
        "the workflow's name"
    );
    assert!(workflow.contains("bash .ci/release-check build"), "the workflow's Linux builds");
    for target in release_check_targets() {
        let (file, _) = asset(&target);
        assert!(file.ends_with(&format!("-{target}.tar.gz")), "{file}");
    }
    // Every tool the script installs is pinned.
    for pin in ["maturin_version=", "ziglang_version=", "auditwheel_version=", "twine_version="] {
        let v = script.lines().find_map(|l| l.strip_prefix(pin)).unwrap_or_default();
        assert!(
            v.split('.').count() == 3 && v.split('.').all(|p| p.parse::<u32>().is_ok()),
            "{pin}{v}"
        );
    }
    // The same maturin as CI's.
    let ci = read(".ci/run");
    let maturin = |text: &str| {
        text.lines().find_map(|l| l.strip_prefix("maturin_version=")).map(str::to_string)
    };
    assert_eq!(maturin(&script), maturin(&ci));
}

/// The image is the static binary alone: built on `scratch`, no `RUN` (there is no shell to
/// run it with), the binary as the entry point in exec form, the mounted repository as the
/// working directory, and a user other than root.
#[test]
fn the_container_image_is_the_static_binary_alone() {
    let dockerfile = read("Dockerfile");
    let instructions: Vec<(String, String)> = dockerfile
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        // Continuation lines (the labels) belong to the instruction above.
        .filter(|l| {
            l.split_whitespace().next().is_some_and(|w| w.chars().all(|c| c.is_ascii_uppercase()))
        })
        .map(|l| {
            let (op, arg) = l.split_once(' ').unwrap_or((l, ""));
            (op.to_string(), arg.trim().to_string())
        })
        .collect();
    let all = |op: &str| -> Vec<&str> {
        instructions.iter().filter(|(o, _)| o == op).map(|(_, a)| a.as_str()).collect()
    };
    assert_eq!(all("FROM"), ["scratch"]);
    assert!(all("RUN").is_empty(), "scratch has no shell to RUN with");
    assert_eq!(all("ENTRYPOINT"), ["[\"override-guard\"]"]);
    assert_eq!(all("WORKDIR"), ["/repo"]);
    let user = all("USER");
    assert!(user.len() == 1 && !user[0].starts_with('0') && user[0] != "root", "{user:?}");
    assert_eq!(all("COPY"), ["${TARGETARCH}/override-guard /usr/local/bin/override-guard"]);
    assert_eq!(all("ENV"), ["PATH=/usr/local/bin"]);
    // The script fills the context the COPY reads: one musl binary per architecture.
    let script = read(".ci/release-check");
    for (arch, target) in
        [("amd64", "x86_64-unknown-linux-musl"), ("arm64", "aarch64-unknown-linux-musl")]
    {
        assert!(
            script.contains(&format!("{arch}) target={target}")),
            "the script puts {target} in the context as {arch}"
        );
    }
    assert!(script.contains("cp \"$out/bin/$target/override-guard\" \"$ctx/$arch/\""));
}

/// The README's install table and docs/releasing.md name the assets as the release makes
/// them: every archive target, the archive and image names, and the script's steps.
#[test]
fn the_readme_and_the_release_doc_name_the_assets_as_built() {
    let readme = read("README.md");
    let install = readme
        .split("\n## Install\n")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .expect("the README's install section");
    assert!(install.contains("`override-guard-VERSION-TARGET.tar.gz`"), "the archive's name");
    let mut targets = release_check_targets();
    targets.extend(workflow_archive_targets());
    for target in &targets {
        let named = if target.contains("-windows-") {
            format!("`override-guard-VERSION-{target}.zip`")
        } else {
            format!("`{target}`")
        };
        assert!(install.contains(&named), "the install section does not name {named}");
    }
    let workflow = read(".github/workflows/release.yml");
    let image = "ghcr.io/override-guard/override-guard";
    assert!(install.contains(&format!("{image} audit .")), "the image's name");
    assert_eq!(
        format!("https://github.com/{}", image.trim_start_matches("ghcr.io/")),
        env!("CARGO_PKG_REPOSITORY"),
        "the image is the repository's (release.yml pushes ghcr.io/<repository>)"
    );
    assert!(workflow.contains("image=\"ghcr.io/${GITHUB_REPOSITORY,,}\""));
    assert!(install.contains("docs/releasing.md"));
    let doc = read("docs/releasing.md");
    for target in release_check_targets() {
        assert!(doc.contains(&format!("`{target}`")), "docs/releasing.md does not name {target}");
    }
    let script = read(".ci/release-check");
    for step in ["build", "sdist", "publish", "container"] {
        assert!(script.contains(&format!("\nstep_{step}() {{\n")), "the script has no step {step}");
        assert!(
            doc.contains(&format!("| `{step}` |")),
            "docs/releasing.md does not describe {step}"
        );
    }
}

/// The binary sets mimalloc's purge delay by its number in `mi_option_e` (the crate names
/// no such constant for the version it builds): the number must be the one the header of
/// the mimalloc in Cargo.lock gives `mi_option_purge_delay`.
#[test]
fn the_allocator_option_the_binary_sets_is_the_purge_delay() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    // This platform's packages only: the build downloaded those, not Windows' (offline,
    // the whole graph's metadata fails on a fresh cache).
    let rustc = std::process::Command::new("rustc").arg("-vV").output().expect("rustc -vV");
    let rustc = String::from_utf8_lossy(&rustc.stdout).into_owned();
    let host = rustc.lines().find_map(|l| l.strip_prefix("host: ")).expect("rustc's host");
    let out = std::process::Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--locked", "--offline"])
        .args(["--filter-platform", host])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo metadata");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).expect("metadata JSON");
    let sys = meta["packages"]
        .as_array()
        .expect("packages")
        .iter()
        .find(|p| p["name"] == "libmimalloc-sys")
        .expect("libmimalloc-sys in the lock");
    let dir = PathBuf::from(sys["manifest_path"].as_str().expect("manifest path"));
    let dir = dir.parent().expect("the crate's folder");
    // The `v2` feature (off here) would build the older line.
    let header = std::fs::read_to_string(dir.join("c_src/mimalloc/v3/include/mimalloc.h"))
        .expect("mimalloc.h");
    let body = header
        .split("typedef enum mi_option_e {")
        .nth(1)
        .and_then(|rest| rest.split('}').next())
        .expect("the mi_option_e enum");
    let names: Vec<&str> = body
        .lines()
        .map(|l| l.split("//").next().unwrap_or("").trim())
        .filter(|l| l.starts_with("mi_option_") && !l.contains('='))
        .map(|l| l.trim_end_matches(','))
        .collect();
    let number = names.iter().position(|n| *n == "mi_option_purge_delay").expect("purge_delay");
    assert!(
        read("src/main.rs")
            .contains(&format!("const MI_OPTION_PURGE_DELAY: std::ffi::c_int = {number};")),
        "mi_option_purge_delay is {number} in {}",
        dir.display()
    );
}
