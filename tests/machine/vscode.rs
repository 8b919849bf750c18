//! The VS Code extension as `vsce package` makes it (`editors/vscode/`): the package holds
//! the project's licence texts, and vsce finds the licence file it looks for. vsce is
//! named by `OVERRIDE_GUARD_VSCE` (`.ci/run` installs `@vscode/vsce` from npm, pinned, and
//! sets it when npm is there); without it the test is reported ignored.

use std::process::{Command, Stdio};

use crate::util::Sandbox;

pub const VSCE: &str = "OVERRIDE_GUARD_VSCE";

pub fn the_packaged_extension_carries_the_licence_texts() {
    let vsce = std::env::var_os(VSCE).filter(|v| !v.is_empty()).unwrap_or_else(|| {
        panic!("{VSCE}=path/to/vsce runs the packaging test (as .ci/run does when npm is there)")
    });
    // A copy, so that packaging writes nothing into the checkout.
    let s = Sandbox::empty();
    let here = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("editors/vscode");
    for e in std::fs::read_dir(&here).expect("editors/vscode") {
        let p = e.expect("entry").path();
        let name = p.file_name().and_then(|n| n.to_str()).expect("name").to_string();
        s.write(&format!("ext/{name}"), std::fs::read(&p).expect("readable"));
    }
    let run = |args: &[&str]| {
        let mut cmd = Command::new(&vsce);
        s.hermetic(&mut cmd);
        let out = cmd
            .args(args)
            .current_dir(s.path("ext"))
            .stdin(Stdio::null())
            .output()
            .expect("vsce runs");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.status.success(), "vsce {args:?}:\n{text}");
        text
    };
    let listed = run(&["ls", "--no-dependencies"]);
    let files: Vec<&str> = listed.lines().map(str::trim).collect();
    for want in ["LICENSE", "LICENSE-MIT", "LICENSE-APACHE", "extension.js", "package.json"] {
        assert!(files.contains(&want), "vsce would not package {want}:\n{listed}");
    }
    // vsce warns (and asks whether to go on) when it finds no LICENSE; nothing else is
    // left for it to warn about either.
    let packed = run(&["package", "--no-dependencies", "-o", "override-guard.vsix"]);
    assert!(!packed.contains("WARNING"), "{packed}");
    assert!(packed.contains("LICENSE-APACHE") && packed.contains("LICENSE.txt"), "{packed}");
    assert!(s.path("ext/override-guard.vsix").is_file(), "{packed}");
}
