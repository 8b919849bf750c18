//! A real editor: Neovim's built-in LSP client, headless, against `override-guard lsp`, on
//! `examples/app/main.tf` with its warning comments taken out, started by the recipes of
//! `docs/editors.md` exactly as written there (each marked `<!-- neovim recipe, from X.Y
//! -->`; a recipe for a newer Neovim than the one installed is named in a note and not
//! run), so the recipe a reader copies is the one that was tested. Neovim is named by
//! `OVERRIDE_GUARD_NVIM` (`.ci/run` installs Debian's package and sets it when it can);
//! without it the test is reported ignored. What drives the editor once the recipe has
//! started the server is `tests/editors/neovim.lua`.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::util::Sandbox;

pub const NVIM: &str = "OVERRIDE_GUARD_NVIM";

/// The recipes of `docs/editors.md`: the Neovim version each needs, and its text.
fn recipes() -> Vec<((u32, u32), String)> {
    let page = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/editors.md"),
    )
    .expect("docs/editors.md");
    let marker = "<!-- neovim recipe, from ";
    page.match_indices(marker)
        .map(|(at, _)| {
            let rest = &page[at + marker.len()..];
            let version = rest[..rest.find(" -->").expect("the marker ends")].trim();
            let body = &rest[rest.find("\n```lua\n").expect("a lua block follows") + 8..];
            let text = &body[..body.find("\n```\n").expect("the block ends") + 1];
            (version_of(version), text.to_string())
        })
        .collect()
}

/// `0.7` (or `0.7.2`) as `(0, 7)`.
fn version_of(text: &str) -> (u32, u32) {
    let mut parts = text.split('.').map(|p| p.parse::<u32>().expect("a version number"));
    (parts.next().expect("major"), parts.next().expect("minor"))
}

pub fn neovim_shows_diagnostics_hover_and_hints_and_applies_the_comment_action() {
    let nvim = std::env::var_os(NVIM).filter(|v| !v.is_empty()).unwrap_or_else(|| {
        panic!(
            "{NVIM}=path/to/nvim runs the Neovim test (as .ci/run does when it can install Neovim)"
        )
    });
    let shown = Command::new(&nvim).arg("--version").output().expect("nvim --version");
    let shown = String::from_utf8_lossy(&shown.stdout).into_owned();
    let first = shown.lines().next().unwrap_or_default();
    let installed =
        version_of(first.trim_start_matches("NVIM v").split(['-', ' ']).next().unwrap_or_default());
    let recipes = recipes();
    assert!(
        recipes.iter().any(|(from, _)| *from == (0, 7)),
        "docs/editors.md has no recipe for Neovim 0.7 (Debian 12's)"
    );
    let mut ran = 0;
    for (from, recipe) in recipes {
        if from > installed {
            eprintln!(
                "note: docs/editors.md's recipe for Neovim {}.{} and newer was not run: {first} is installed",
                from.0, from.1
            );
            continue;
        }
        neovim_runs(&nvim, &recipe);
        ran += 1;
    }
    assert!(ran > 0, "no recipe of docs/editors.md runs on {first}");
}

/// Neovim started by `recipe` shows what audit reports and applies `fix`'s comment.
fn neovim_runs(nvim: &std::ffi::OsStr, recipe: &str) {
    let s = Sandbox::new();
    let examples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/app");
    for e in std::fs::read_dir(&examples).expect("examples/app") {
        let p = e.expect("entry").path();
        let name = p.file_name().and_then(|n| n.to_str()).expect("name").to_string();
        let mut text = std::fs::read_to_string(&p).expect("readable");
        if name == "main.tf" {
            // Without its warning comments, main.tf has a finding to act on.
            text = text
                .lines()
                .filter(|l| !l.starts_with("# WARNING"))
                .map(|l| format!("{l}\n"))
                .collect();
        }
        s.write(&format!("app/{name}"), text);
    }
    s.git(&["add", "-A"]);
    s.git(&["commit", "-q", "--no-verify", "-m", "examples/app"]);
    let out = s.beside("neovim.json");
    let init = s.beside("init.lua");
    std::fs::write(&init, recipe).expect("write the recipe");
    // The recipe names `override-guard`: the binary under test, first on the PATH.
    let bin = s.beside("bin");
    std::fs::create_dir_all(&bin).expect("mkdir");
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_override-guard"), bin.join("override-guard"))
        .expect("link the binary");
    let mut dirs = vec![bin];
    dirs.extend(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()));
    let driver = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/editors/neovim.lua");
    let mut cmd = Command::new(nvim);
    s.hermetic(&mut cmd);
    let mut child = cmd
        .args(["--headless", "--clean", "-u"])
        .arg(&init)
        .args(["-c", "lua dofile(os.getenv('OG_DRIVER'))"])
        .arg("main.tf")
        .current_dir(s.path("app"))
        .env("PATH", std::env::join_paths(dirs).expect("PATH"))
        .env("OG_DRIVER", &driver)
        .env("OG_OUT", &out)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .spawn()
        .expect("Neovim starts");
    let deadline = Instant::now() + Duration::from_secs(600);
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("Neovim did not finish in 600 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "Neovim exited with {status}");
    let seen: Value =
        serde_json::from_str(&std::fs::read_to_string(&out).expect("Neovim wrote its results"))
            .expect("JSON");
    assert!(seen.get("failed").is_none(), "Neovim stopped at {}: {seen:#}", seen["failed"]);

    // What the editor shows is what audit reports.
    let audit = s.run(&["audit", "app", "--format", "compact"]);
    let want: Vec<String> = audit
        .out()
        .lines()
        .filter(|l| l.starts_with("app/main.tf:"))
        .map(|l| l.split(':').nth(1).unwrap_or_default().to_string())
        .collect();
    let got: Vec<String> = seen["diagnostics"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|d| d["line"].to_string())
        .collect();
    assert_eq!(got, want, "{seen:#}\n{}", audit.shown());
    assert!(seen["hover"].as_str().is_some_and(|h| h.contains("\"m6i.large\"")), "{seen:#}");
    let hints: Vec<&str> = seen["hints"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|h| h["label"].as_str())
        .collect();
    assert!(hints.iter().any(|h| h.starts_with("← overridden by override.tf")), "{hints:?}");
    assert!(hints.iter().any(|h| h.contains("m6i.large")), "{hints:?}");

    // The applied action gives the buffer `fix` writes.
    let run = s.run(&["fix", "--allow-dirty", "app"]);
    assert!(run.code == 0 || run.code == 1, "{}", run.shown());
    let fixed = std::fs::read_to_string(s.path("app/main.tf")).expect("main.tf");
    assert_eq!(seen["after"].as_str(), Some(fixed.as_str()));
}
