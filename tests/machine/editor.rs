//! A real editor: Neovim's built-in LSP client, headless, against `override-guard lsp`, on
//! `examples/app/main.tf` with its warning comments taken out. Neovim is named by
//! `OVERRIDE_GUARD_NVIM` (`.ci/run` installs Debian's package and sets it when it can);
//! without it the test is reported ignored. The script is `tests/editors/neovim.lua`.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::util::Sandbox;

pub const NVIM: &str = "OVERRIDE_GUARD_NVIM";

pub fn neovim_shows_diagnostics_hover_and_hints_and_applies_the_comment_action() {
    let nvim = std::env::var_os(NVIM).filter(|v| !v.is_empty()).unwrap_or_else(|| {
        panic!(
            "{NVIM}=path/to/nvim runs the Neovim test (as .ci/run does when it can install Neovim)"
        )
    });
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
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/editors/neovim.lua");
    let mut cmd = Command::new(&nvim);
    s.hermetic(&mut cmd);
    let mut child = cmd
        .args(["--headless", "--clean", "-u"])
        .arg(&script)
        .arg("main.tf")
        .current_dir(s.path("app"))
        .env("OG_BIN", env!("CARGO_BIN_EXE_override-guard"))
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
            panic!("Neovim did not finish in 120 s");
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
