//! What a hostile repository can make override-guard do: run nothing, connect nowhere,
//! read nothing outside the repository, print no raw control sequence, leak no absolute
//! path, and let no file name forge a GitHub annotation.
//!
//! Every run is hermetic (a temporary HOME, no system or global git configuration, no
//! inherited `GIT_*` variable: see [`Sandbox`]). Where override-guard misbehaves today,
//! the test asserts the correct behaviour and is ignored with the reason `bug: ...`.

use crate::texts::*;
use std::net::TcpListener;
use std::path::{Path, PathBuf};

use crate::util::{Run, Sandbox};

/// Control sequences a hostile file carries: erase the screen (CSI), set the window title
/// (OSC ended by BEL), a hyperlink (OSC 8 ended by ST), backspace, carriage return,
/// DEL, the 8-bit CSI (U+009B) and NEL (U+0085), a right-to-left override and a
/// left-to-right isolate (Trojan Source).
const EVIL: &str = "\x1b[2J\x1b]0;pwned\x07\x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\\x08\r\x7f\u{9b}1m\u{85}\u{202e}\u{2066}\u{61c}";
/// The same without the carriage return, which ends a comment line in HCL.
const EVIL_COMMENT: &str = "\x1b[2J\x1b]0;pwned\x07\x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\\x08\x7f\u{9b}1m\u{85}\u{202e}\u{2066}\u{61c}";
/// The same, fit for a file or directory name (no `/`).
const EVIL_NAME: &str = "\x1b[2J\x1b]0;t\x07\x08\r\x7f\u{9b}1m\u{202e}";

/// `s` with every character that is not printable ASCII written as `\uXXXX`: a string
/// literal body for HCL, JSON and TOML alike (beyond the BMP, `\UXXXXXXXX`: HCL and TOML).
fn esc(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            ' '..='~' => out.push(c),
            c if (c as u32) <= 0xffff => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push_str(&format!("\\U{:08X}", c as u32)),
        }
    }
    out
}

/// Is `c` a character that can drive a terminal or reorder what it shows: C0 controls
/// (but newline and tab), DEL, C1 controls, and the bidirectional overrides, embeddings,
/// isolates and marks (the Arabic letter mark among them).
fn is_unsafe(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(
            c,
            '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
        )
}

/// Every unsafe character in some output, with where it is. With `colour`, the SGR
/// sequences override-guard itself draws (`ESC [ digits ; ... m`) are allowed.
fn unsafe_in(bytes: &[u8], colour: bool) -> Vec<String> {
    let text = match std::str::from_utf8(bytes) {
        Ok(t) => t.to_string(),
        Err(e) => return vec![format!("not UTF-8: {e}")],
    };
    let chars: Vec<char> = text.chars().collect();
    let mut found = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if colour && c == '\x1b' && chars.get(i + 1) == Some(&'[') {
            let mut j = i + 2;
            while chars.get(j).is_some_and(|d| d.is_ascii_digit() || *d == ';') {
                j += 1;
            }
            if chars.get(j) == Some(&'m') {
                i = j + 1;
                continue;
            }
        }
        if is_unsafe(c) {
            let from = i.saturating_sub(30);
            let context: String = chars[from..(i + 10).min(chars.len())].iter().collect();
            found.push(format!("U+{:04X} in {context:?}", c as u32));
        }
        i += 1;
    }
    found
}

/// Runs each command and collects every unsafe character it printed.
fn scan(s: &Sandbox, runs: &[Vec<String>]) -> Vec<String> {
    let mut problems = Vec::new();
    for args in runs {
        let colour = args.windows(2).any(|w| w[0] == "--color" && w[1] == "always");
        let got = s.run(args);
        for (stream, bytes) in [("stdout", &got.stdout), ("stderr", &got.stderr)] {
            for p in unsafe_in(bytes, colour) {
                problems.push(format!("{args:?} {stream}: {p}"));
            }
        }
    }
    problems
}

/// Owned argument lists from string slices.
fn args(runs: &[&[&str]]) -> Vec<Vec<String>> {
    runs.iter().map(|r| r.iter().map(|a| a.to_string()).collect()).collect()
}

#[track_caller]
fn assert_clean(problems: &[String]) {
    assert!(
        problems.is_empty(),
        "{} raw control character(s) reached the terminal:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

// ---------------------------------------------------------------------------------------
// No command execution, no network.
// ---------------------------------------------------------------------------------------

/// Hook and helper names a hostile `.git` could make git run.
const HOOKS: &[&str] = &[
    "applypatch-msg",
    "pre-applypatch",
    "post-applypatch",
    "pre-commit",
    "pre-merge-commit",
    "prepare-commit-msg",
    "commit-msg",
    "post-commit",
    "pre-rebase",
    "post-checkout",
    "post-merge",
    "pre-push",
    "pre-receive",
    "update",
    "reference-transaction",
    "post-receive",
    "post-update",
    "push-to-checkout",
    "pre-auto-gc",
    "post-rewrite",
    "sendemail-validate",
    "fsmonitor-watchman",
    "p4-pre-submit",
    "post-index-change",
];

/// A repository armed with every way of making git (or a careless tool) run a program:
/// each program only creates a marker file named after itself in `markers/`. Its
/// configuration files point at a local port nobody should connect to.
struct Trap {
    s: Sandbox,
    markers: PathBuf,
    listener: TcpListener,
}

impl Trap {
    fn new() -> Trap {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        listener.set_nonblocking(true).expect("nonblocking");
        let port = listener.local_addr().expect("addr").port();
        let s = Sandbox::new();
        let markers = s.beside("markers");
        std::fs::create_dir(&markers).expect("mkdir");
        let bin = s.beside("bin");
        std::fs::create_dir(&bin).expect("mkdir");
        let hooks = s.beside("hooks");
        std::fs::create_dir(&hooks).expect("mkdir");
        // A program per trap, and every hook, in the custom hooks directory and in .git/hooks.
        let program = |dir: &Path, name: &str| -> String {
            let p = dir.join(name);
            let script = format!("#!/bin/sh\ntouch '{}'\nexit 0\n", markers.join(name).display());
            std::fs::write(&p, script).expect("write");
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755))
                    .expect("chmod");
            }
            p.display().to_string()
        };
        let m = |name: &str| markers.join(name).display().to_string();
        let url = format!("127.0.0.1:{port}");
        // Repository content that looks like it runs, reads or fetches something.
        let main = format!(
            r#"terraform {{
  required_providers {{
    evil = {{
      source  = "{url}/evil/evil"
      version = "$(touch {dollar_rp})"
    }}
  }}
  backend "http" {{
    address = "http://{url}/state"
  }}
}}

module "git" {{
  source = "git::http://{url}/m.git?ref=`touch {backtick_mod}`"
}}

module "zip" {{
  source = "http://{url}/n.zip"
}}

data "external" "x" {{
  program = ["sh", "-c", "touch {external}"]
}}

resource "null_resource" "x" {{
  triggers = {{
    a = "$(touch {dollar})"
    b = "`touch {backtick}`"
    c = file("/etc/passwd")
    d = templatefile("/etc/passwd", {{}})
    e = "${{file("/etc/hostname")}}"
  }}
  provisioner "local-exec" {{
    command = "touch {local_exec}"
  }}
  lifecycle {{
    prevent_destroy = true
  }}
}}

variable "x" {{
  default = "$(touch {var_default})"
}}
"#,
            dollar_rp = m("dollar-required-providers"),
            backtick_mod = m("backtick-module"),
            external = m("external"),
            dollar = m("dollar"),
            backtick = m("backtick"),
            local_exec = m("local-exec"),
            var_default = m("var-default"),
        );
        let over = format!(
            r#"module "git" {{
  source = "git::ssh://git@{url}/$(touch {src})"
}}

resource "null_resource" "x" {{
  triggers = {{
    a = file("${{path.module}}/../../../etc/passwd")
  }}
  provisioner "local-exec" {{
    command = "$(touch {over_exec})"
  }}
  lifecycle {{
    prevent_destroy = false
  }}
}}
"#,
            src = m("module-source"),
            over_exec = m("override-exec"),
        );
        let json = format!(
            r#"{{"locals": {{"y": "${{file(\"/etc/passwd\")}}", "z": "$(touch {})"}}}}"#,
            m("json")
        );
        let policy = format!(
            "[rules.missing-override-comment]\npattern = \"$(touch {p})|`touch {p}`\"\n\n\
             [rules.override-file]\nlevel = \"deny\"\nallow-paths = [\"$(touch {p})/**\"]\n\n\
             [[exceptions]]\nrule = \"backend-swap\"\npaths = [\"`touch {p}`\"]\n\
             reason = \"$(touch {p}) `touch {p}`\"\n",
            p = m("policy")
        );
        s.commit(
            &[
                ("stack/main.tf", &main),
                ("stack/locals.tf.json", &json),
                ("stack/terraform.tfvars", &format!("x = \"$(touch {})\"\n", m("tfvars"))),
                (".override-guard.toml", &policy),
                (".gitattributes", "* filter=evil diff=evil merge=evil\n*.tf text eol=crlf\n"),
                (
                    ".gitmodules",
                    &format!(
                        "[submodule \"v\"]\n\tpath = vendor\n\turl = http://{url}/v.git\n\tupdate = !touch {}\n",
                        m("submodule-update")
                    ),
                ),
                ("db/main.tf", DB_MAIN),
            ],
            "hostile content",
        );
        s.stage(&[("stack/override.tf", &over), ("db/override.tf", WEAKEN)]);
        // Unstaged worktree changes, so anything comparing the worktree with the index
        // would need the clean filter.
        s.write("stack/main.tf", format!("{main}\n# unstaged\n"));
        s.write("db/main.tf", format!("{DB_MAIN}\n# unstaged\n"));
        // Last, the hooks (the script of hook NAME touches `hook-NAME`), in a custom hooks
        // directory and in .git/hooks, and the hostile configuration: git itself would trip
        // on them from here on.
        for h in HOOKS {
            program(&hooks, &format!("hook-{h}"));
            std::fs::rename(hooks.join(format!("hook-{h}")), hooks.join(h)).expect("mv");
            let git_hooks = s.path(".git/hooks");
            std::fs::create_dir_all(&git_hooks).expect("mkdir");
            std::fs::copy(hooks.join(h), git_hooks.join(h)).expect("cp");
        }
        let p = |name: &str| program(&bin, name);
        let config = format!(
            "[core]\n\tfsmonitor = {fsmonitor}\n\thooksPath = {hooks}\n\tpager = {pager}\n\
             \teditor = {editor}\n\taskPass = {askpass}\n\tsshCommand = {ssh}\n\
             \talternateRefsCommand = {alt}\n\tgitProxy = {proxy}\n\tuntrackedCache = true\n\
             [diff]\n\texternal = {external}\n[diff \"evil\"]\n\tcommand = {diffcmd}\n\
             \ttextconv = {textconv}\n[filter \"evil\"]\n\tclean = {clean}\n\tsmudge = {smudge}\n\
             \tprocess = {process}\n\trequired = true\n[merge \"evil\"]\n\tdriver = {merge}\n\
             [credential]\n\thelper = !{cred}\n[gpg]\n\tprogram = {gpg}\n[pager]\n\tdiff = {pdiff}\n\
             [http]\n\tproxy = http://{url}\n[remote \"origin\"]\n\turl = http://{url}/evil.git\n\
             \tfetch = +refs/heads/*:refs/remotes/origin/*\n[uploadpack]\n\tpackObjectsHook = {pack}\n\
             [sequence]\n\teditor = {seq}\n",
            fsmonitor = p("fsmonitor"),
            hooks = hooks.display(),
            pager = p("pager"),
            editor = p("editor"),
            askpass = p("askpass"),
            ssh = p("ssh"),
            alt = p("alternate-refs"),
            proxy = p("git-proxy"),
            external = p("diff-external"),
            diffcmd = p("diff-command"),
            textconv = p("textconv"),
            clean = p("filter-clean"),
            smudge = p("filter-smudge"),
            process = p("filter-process"),
            merge = p("merge-driver"),
            cred = p("credential"),
            gpg = p("gpg"),
            pdiff = p("pager-diff"),
            pack = p("pack-objects-hook"),
            seq = p("sequence-editor"),
        );
        let path = s.path(".git/config");
        let mut text = std::fs::read_to_string(&path).expect("read config");
        text.push_str(&config);
        std::fs::write(&path, text).expect("write config");
        Trap { s, markers, listener }
    }

    /// The marker files that exist (anywhere in the sandbox: also a `pwned`-like name a
    /// relative `touch` would have made).
    fn fired(&self) -> Vec<String> {
        let mut out: Vec<String> = std::fs::read_dir(&self.markers)
            .expect("markers")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        fn walk(dir: &Path, out: &mut Vec<String>) {
            for e in std::fs::read_dir(dir).expect("read_dir").flatten() {
                let p = e.path();
                let name = e.file_name().to_string_lossy().into_owned();
                if name.starts_with("touch") || name.contains("pwned") || name.starts_with("$(") {
                    out.push(p.display().to_string());
                }
                if e.file_type().is_ok_and(|t| t.is_dir()) {
                    walk(&p, out);
                }
            }
        }
        walk(self.s.tmp.path(), &mut out);
        out.sort();
        out
    }

    /// Whether anything connected to the port the configuration points at.
    fn connected(&self) -> bool {
        self.listener.accept().is_ok()
    }
}

#[test]
fn nothing_runs_and_nothing_connects_whatever_the_repository_says() {
    let t = Trap::new();
    let runs: &[&[&str]] = &[
        &["check"],
        &["check", "--new-only", "--format", "json"],
        &["check", "stack/main.tf"],
        &["diff"],
        &["diff", "--worktree"],
        &["diff", "HEAD"],
        &["diff", "HEAD", "--format", "sarif"],
        &["audit"],
        &["audit", "--staged"],
        &["audit", "--staged", "--format", "github"],
        &["audit", "--rev", "HEAD"],
        &["show", "--staged", "stack"],
        &["show", "--rev", "HEAD", "stack", "--format", "json"],
        &["show", "stack"],
        &["show", "stack", "--format", "tf-json"],
        &["vars", "stack"],
        &["vars", "stack", "--format", "json"],
        &["init", "--stdout"],
        &["explain", "$(touch pwned)"],
    ];
    let mut leaked = Vec::new();
    for args in runs {
        let got = t.s.run(args);
        assert!(matches!(got.code, 0..=2), "{args:?}: {}", got.shown());
        for text in [got.out(), got.err()] {
            // No file() or templatefile() was evaluated.
            if text.contains("root:x:0:0") || text.contains("/bin/sh") {
                leaked.push(format!("{args:?}: {}", got.shown()));
            }
        }
        assert_eq!(t.fired(), Vec::<String>::new(), "{args:?} ran a program");
    }
    assert!(leaked.is_empty(), "a file was read and printed:\n{}", leaked.join("\n"));
    assert!(!t.connected(), "something connected to the repository's URLs");

    // The traps are armed: git itself, in this repository, runs them.
    let _ = t.s.git_status(&["status", "--porcelain"]);
    let _ = t.s.git_status(&["diff", "HEAD", "--", "db/main.tf"]);
    let fired = t.fired();
    assert!(fired.contains(&"fsmonitor".to_string()), "{fired:?}");
    assert!(fired.iter().any(|m| m.starts_with("filter-")), "{fired:?}");
}

#[test]
fn the_hook_from_a_hostile_path_or_environment_runs_nothing_either() {
    // GIT_INDEX_FILE and file hints that look like commands: they are paths, nothing more.
    let t = Trap::new();
    let got = t.s.run_env(".", &["check", "$(touch pwned)", "`touch pwned`", ";touch pwned"], &[]);
    assert!(matches!(got.code, 0..=2), "{}", got.shown());
    let got = t.s.run_env(".", &["check"], &[("GIT_INDEX_FILE", "$(touch pwned)")]);
    assert!(matches!(got.code, 0..=2), "{}", got.shown());
    assert_eq!(t.fired(), Vec::<String>::new());
    assert!(!t.connected());
}

// ---------------------------------------------------------------------------------------
// Reads stay under the repository root.
// ---------------------------------------------------------------------------------------

/// A secret outside the repository, and a repository whose `db/override.tf` is a
/// symbolic link to it (relative), `db/abs_override.tf` too (absolute), a tfvars file
/// linked out, and a module directory `linked` that is a link to a directory outside.
#[cfg(unix)]
struct Outside {
    s: Sandbox,
}

/// What the files outside the repository hold: a string that must never be printed.
#[cfg(unix)]
const SECRET: &str = "HUNTER2-OUTSIDE-SECRET";

#[cfg(unix)]
impl Outside {
    fn new() -> Outside {
        let s = Sandbox::new();
        s.commit(&[("db/main.tf", DB_MAIN)], "db");
        let secret_override = format!(
            "resource \"aws_db_instance\" \"main\" {{\n  password = \"{SECRET}\"\n  lifecycle {{\n    prevent_destroy = false\n  }}\n}}\n"
        );
        std::fs::write(s.beside("outside.tf"), &secret_override).expect("write");
        std::fs::write(s.beside("outside.tfvars"), format!("region = \"{SECRET}\"\n"))
            .expect("write");
        std::fs::write(s.beside("outside.toml"), format!("{SECRET} = true\n")).expect("write");
        let dir = s.beside("outside-module");
        std::fs::create_dir(&dir).expect("mkdir");
        std::fs::write(
            dir.join("main.tf"),
            format!("variable \"region\" {{\n  default = \"{SECRET}\"\n}}\n"),
        )
        .expect("write");
        std::fs::write(dir.join("terraform.tfvars"), format!("region = \"{SECRET}-2\"\n"))
            .expect("write");
        Outside { s }
    }

    /// Links the override files out of the repository (relative and absolute).
    fn link_overrides(&self) {
        let s = &self.s;
        std::os::unix::fs::symlink("../../outside.tf", s.path("db/override.tf")).expect("ln");
        std::os::unix::fs::symlink(s.beside("outside.tf"), s.path("db/abs_override.tf"))
            .expect("ln");
    }
}

/// Asserts that a run printed nothing read from outside the repository.
#[cfg(unix)]
#[track_caller]
fn assert_not_read(args: &[&str], got: &Run) {
    assert!(
        !got.out().contains(SECRET) && !got.err().contains(SECRET),
        "{args:?} printed content from outside the repository:\n{}",
        got.shown()
    );
    assert!(
        !got.out().contains("weakened-safeguard") && !got.out().contains("prevent_destroy = false"),
        "{args:?} judged a file outside the repository:\n{}",
        got.shown()
    );
}

#[cfg(unix)]
#[test]
fn git_sources_do_not_follow_links_out_of_the_repository() {
    let o = Outside::new();
    o.link_overrides();
    o.s.git(&["add", "-A"]);
    for args in [
        &["diff", "--color", "never"][..],
        &["diff", "--format", "json"],
        &["check", "--format", "compact"],
        &["audit", "--staged", "--format", "json"],
        &["show", "--staged", "db", "--color", "never"],
    ] {
        let got = o.s.run(args);
        assert_eq!(got.code, 0, "{args:?}: {}", got.shown());
        assert_not_read(args, &got);
    }
    o.s.git(&["commit", "-q", "--no-verify", "-m", "links"]);
    for args in [
        &["audit", "--rev", "HEAD", "--format", "compact"][..],
        &["show", "--rev", "HEAD", "db"],
        &["diff", "HEAD~1", "HEAD", "--format", "json"],
    ] {
        let got = o.s.run(args);
        assert_eq!(got.code, 0, "{args:?}: {}", got.shown());
        assert_not_read(args, &got);
        if args[0] != "diff" {
            assert!(got.err().contains("db/override.tf: symbolic link leading out"), "{args:?}");
        }
    }
}

#[cfg(unix)]
#[test]
fn worktree_reads_do_not_follow_links_out_of_the_repository() {
    let o = Outside::new();
    o.link_overrides();
    std::os::unix::fs::symlink("../../outside.tfvars", o.s.path("db/terraform.tfvars"))
        .expect("ln");
    o.s.write("db/variables.tf", "variable \"region\" {\n  default = \"x\"\n}\n");
    for args in [
        &["audit", "--format", "compact"][..],
        &["audit", "db", "--format", "human", "--color", "never"],
        &["show", "db", "--color", "never"],
        &["show", "db", "--format", "json"],
        &["vars", "db"],
        &["vars", "db", "--format", "json"],
        &["diff", "--worktree", "--format", "json"],
        &["diff", "HEAD", "--color", "never"],
    ] {
        let got = o.s.run(args);
        assert_not_read(args, &got);
        // Not silently: the skipped link is named, as the git sources do.
        assert!(got.err().contains("db/override.tf"), "{args:?}: no note:\n{}", got.shown());
    }
}

#[cfg(unix)]
#[test]
fn a_policy_found_in_the_worktree_is_not_read_through_a_link_out_of_the_repository() {
    let o = Outside::new();
    std::os::unix::fs::symlink("../outside.toml", o.s.path(".override-guard.toml")).expect("ln");
    for args in [
        &["audit", "--format", "compact"][..],
        &["audit", "db", "--format", "json"],
        &["diff", "--worktree", "--color", "never"],
    ] {
        let got = o.s.run(args);
        assert_not_read(args, &got);
        assert!(!got.err().contains(o.s.tmp.path().to_str().expect("utf-8")), "{}", got.shown());
    }
}

#[cfg(unix)]
#[test]
fn audit_does_not_walk_into_a_module_directory_linked_out_of_the_repository() {
    let o = Outside::new();
    std::os::unix::fs::symlink("../outside-module", o.s.path("linked")).expect("ln");
    let got = o.s.run(&["audit", "--format", "json"]);
    assert_eq!(got.code, 0, "{}", got.shown());
    assert_not_read(&["audit"], &got);
    let v: serde_json::Value = serde_json::from_str(&got.out()).expect("json");
    assert_eq!(v["summary"]["modules"], 1, "{}", got.out());
    o.s.git(&["add", "-A"]);
    for args in [&["audit", "--staged"][..], &["check"], &["diff", "--format", "json"]] {
        let got = o.s.run(args);
        assert_not_read(args, &got);
    }
}

#[cfg(unix)]
#[test]
fn show_and_vars_do_not_read_a_module_directory_linked_out_of_the_repository() {
    let o = Outside::new();
    std::os::unix::fs::symlink("../outside-module", o.s.path("linked")).expect("ln");
    for args in
        [&["show", "linked"][..], &["vars", "linked"], &["vars", "linked", "--format", "json"]]
    {
        let got = o.s.run(args);
        assert_not_read(args, &got);
        assert_eq!(got.code, 2, "{args:?}: {}", got.shown());
    }
}

#[cfg(unix)]
#[test]
fn what_the_user_names_on_the_command_line_may_be_anywhere() {
    let o = Outside::new();
    o.s.commit(&[("app/variables.tf", "variable \"region\" {}\n")], "app");
    std::fs::write(o.s.beside("policy.toml"), "[rules.override-file]\nlevel = \"deny\"\n")
        .expect("write");
    let policy = o.s.beside("policy.toml");
    let got = o.s.run(&["audit", "--policy", policy.to_str().expect("utf-8"), "--format", "json"]);
    assert_eq!(got.code, 0, "{}", got.shown());
    let got = o.s.run(&["vars", "app", "--var-file", "../outside.tfvars"]);
    assert_eq!(got.code, 0, "{}", got.shown());
    assert!(got.out().contains(SECRET), "the named file is read:\n{}", got.shown());
}

#[cfg(unix)]
#[test]
fn a_policy_in_the_repository_cannot_point_outside_it() {
    let o = Outside::new();
    // Globs that climb out, exceptions for files outside: they match nothing and read
    // nothing; the one override file of the repository is still judged.
    let policy = "[rules.override-file]\nlevel = \"deny\"\nallow-paths = [\"../**\", \"/**\", \"../../outside.tf\"]\n\
        exclude = [\"../**\"]\n\n[[exceptions]]\nrule = \"backend-swap\"\npaths = [\"../outside.tf\", \"/etc/**\"]\n\
        reason = \"climbs out\"\n";
    o.s.commit(&[(".override-guard.toml", policy), ("db/override.tf", HARMLESS)], "policy");
    o.s.stage(&[("db/override.tf", &HARMLESS.replace("large", "xlarge"))]);
    for args in [
        &["audit", "--format", "json"][..],
        &["audit", "--staged", "--format", "json"],
        &["audit", "--rev", "HEAD", "--format", "json"],
        &["check", "--format", "json"],
    ] {
        let got = o.s.run(args);
        assert_not_read(args, &got);
        assert_eq!(got.code, 1, "{args:?}: {}", got.shown());
        assert!(got.out().contains("\"override-file\""), "{args:?}: {}", got.shown());
    }
    let got = o.s.run(&["diff", "--format", "json"]);
    assert_not_read(&["diff"], &got);
    assert_eq!(got.code, 0, "{}", got.shown());
}

// ---------------------------------------------------------------------------------------
// Terminal control sequences never reach the terminal raw.
// ---------------------------------------------------------------------------------------

/// A repository whose module directory, override file name, block labels, string values,
/// comments, variable descriptions, variables files and policy `reason` all carry
/// [`EVIL`]. The override is staged (for `check` and `diff`); everything else committed.
struct Hostile {
    s: Sandbox,
    /// The module directory (repository-relative), itself with control characters.
    dir: String,
}

impl Hostile {
    fn new() -> Hostile {
        let s = Sandbox::new();
        let dir = format!("m{EVIL_NAME}x");
        // (No `.` in the label: a protected-attribute glob matches dotted segments.)
        let label = esc(&format!("db{EVIL_NAME}"));
        let value = esc(EVIL);
        let main = format!(
            "# {EVIL_COMMENT}\nresource \"aws_db_instance\" \"{label}\" {{\n  # {EVIL_COMMENT}\n  name = \"{value}\"\n  \
             lifecycle {{\n    prevent_destroy = true\n  }}\n}}\n\n\
             variable \"v\" {{\n  description = \"{value}\"\n  default     = \"{value}\"\n}}\n\n\
             output \"o\" {{\n  value = \"{value}\"\n}}\n"
        );
        let over = format!(
            "resource \"aws_db_instance\" \"{label}\" {{\n  name     = \"o{value}\" # {EVIL_COMMENT}\n  \
             key_name = \"{value}\"\n  lifecycle {{\n    prevent_destroy = false\n  }}\n}}\n\n\
             variable \"v\" {{\n  type = any\n}}\n"
        );
        let policy = format!(
            "[rules.override-file]\nlevel = \"deny\"\n\n[rules.protected-attribute]\n\
             attributes = [\"resource.*.*.key_name\"]\n\n[[exceptions]]\nrule = \"backend-swap\"\n\
             paths = [\"nothing/**\"]\nreason = \"{value}\"\n\n[[exceptions]]\nrule = \"override-file\"\n\
             paths = [\"nowhere/**\"]\nreason = \"{value}\"\nexpires = 2001-01-01\n"
        );
        let json_vars = format!("{{\"{value}\": 1, \"v\": \"{value}!\"}}\n");
        s.commit(
            &[
                (&format!("{dir}/main.tf"), &main),
                (&format!("{dir}/terraform.tfvars"), &format!("v = \"{value}?\"\n")),
                (&format!("{dir}/z.auto.tfvars.json"), &json_vars),
                (".override-guard.toml", &policy),
            ],
            "hostile",
        );
        s.stage(&[(&format!("{dir}/ev{EVIL_NAME}il_override.tf"), &over)]);
        Hostile { s, dir }
    }
}

#[test]
fn finding_reports_escape_control_characters() {
    let h = Hostile::new();
    let mut runs = Vec::new();
    for format in ["human", "compact", "github"] {
        runs.push(vec!["audit", "--format", format, "--color", "never"]);
        runs.push(vec!["audit", "--staged", "--format", format, "--color", "never"]);
        runs.push(vec!["check", "--format", format, "--color", "never"]);
        runs.push(vec!["diff", "--format", format, "--color", "never"]);
    }
    runs.push(vec!["audit", &h.dir, "--format", "compact"]);
    let runs: Vec<Vec<String>> =
        runs.iter().map(|r| r.iter().map(|a| a.to_string()).collect()).collect();
    // The findings are there (so the test sees the hostile text).
    let got = h.s.run(&["audit", "--format", "compact"]);
    assert_eq!(got.code, 1, "{}", got.shown());
    for rule in ["weakened-safeguard", "protected-attribute", "override-file", "unused-exception"] {
        assert!(got.out().contains(rule), "{rule}: {}", got.shown());
    }
    assert_clean(&scan(&h.s, &runs));
}

#[test]
fn json_and_sarif_escape_c0_controls() {
    let h = Hostile::new();
    let runs = args(&[
        &["audit", "--format", "json"],
        &["audit", "--format", "sarif"],
        &["audit", "--staged", "--format", "json"],
        &["check", "--format", "json"],
        &["check", "--format", "sarif"],
        &["diff", "--format", "json"],
        &["diff", "--format", "sarif"],
        &["show", "--staged", "--format", "json"],
        &["show", "--format", "json"],
        &["vars", "--format", "json"],
    ]);
    let mut problems = Vec::new();
    for args in &runs {
        let mut args = args.clone();
        if args[0] == "show" || args[0] == "vars" {
            args.push(h.dir.clone());
        }
        let got = h.s.run(&args);
        // Terraform rejects the hostile block label (not a valid name): `show` and `vars`
        // print only the errors, on stderr.
        if got.code == 2 && got.stdout.is_empty() && (args[0] == "show" || args[0] == "vars") {
            assert!(got.err().contains("Invalid resource name"), "{args:?}: {}", got.shown());
        } else {
            let v: serde_json::Value = serde_json::from_slice(&got.stdout)
                .unwrap_or_else(|e| panic!("{args:?}: not JSON ({e}):\n{}", got.shown()));
            assert!(v.is_object());
            // The hostile text is in there, as data, escaped.
            assert!(got.out().contains("\\u001b[2J"), "{args:?}: {}", got.shown());
        }
        for (i, b) in got.stdout.iter().chain(got.stderr.iter()).enumerate() {
            if *b < 0x20 && *b != b'\n' {
                problems.push(format!("{args:?}: byte {b:#04x} at {i}"));
            }
        }
    }
    assert_clean(&problems);
}

#[test]
fn json_and_sarif_escape_del_c1_controls_and_bidi_overrides() {
    let h = Hostile::new();
    let mut runs = args(&[
        &["audit", "--format", "json"],
        &["audit", "--format", "sarif"],
        &["check", "--format", "json"],
        &["diff", "--format", "json"],
        &["diff", "--format", "sarif"],
    ]);
    runs.push(vec!["show".into(), h.dir.clone(), "--format".into(), "json".into()]);
    runs.push(vec!["vars".into(), h.dir.clone(), "--format".into(), "json".into()]);
    assert_clean(&scan(&h.s, &runs));
}

#[test]
fn show_escapes_control_characters() {
    let h = Hostile::new();
    let mut runs = Vec::new();
    for format in ["hcl", "tf-json"] {
        for from in [&[][..], &["--staged"]] {
            let mut r: Vec<String> = vec!["show".into(), h.dir.clone(), "--format".into()];
            r.push(format.into());
            r.extend(from.iter().map(|a| a.to_string()));
            runs.push(r);
        }
    }
    assert_clean(&scan(&h.s, &runs));
}

#[test]
fn vars_escapes_control_characters() {
    let h = Hostile::new();
    let runs = vec![
        vec!["vars".to_string(), h.dir.clone()],
        vec!["vars".to_string(), h.dir.clone(), "--show-sensitive".into()],
        vec!["vars".to_string(), h.dir.clone(), "--color".into(), "always".into()],
    ];
    assert_clean(&scan(&h.s, &runs));
}

/// The CI reports carry the hostile text as data: no raw control character, and (checked
/// against their schemas by `.ci/check_formats.py`) documents that still parse.
#[test]
fn ci_formats_escape_control_characters() {
    let h = Hostile::new();
    let mut runs = Vec::new();
    for format in ["gitlab", "junit", "checkstyle"] {
        for cmd in [&["audit"][..], &["audit", "--staged"], &["check"], &["diff"]] {
            let mut run: Vec<String> = cmd.iter().map(|a| a.to_string()).collect();
            run.extend(["--format".to_string(), format.to_string()]);
            runs.push(run);
        }
        let got = h.s.run(&["audit", "--format", format]);
        assert_eq!(got.code, 1, "{}", got.shown());
        crate::ci_formats::keep("hostile-cli", format, &got.out());
        let got = h.s.run(&["diff", "--format", format]);
        crate::ci_formats::keep("hostile-cli-diff", format, &got.out());
    }
    assert_clean(&scan(&h.s, &runs));
}

#[test]
fn colour_output_carries_only_our_own_sequences() {
    let h = Hostile::new();
    let runs = args(&[
        &["audit", "--format", "human", "--color", "always"],
        &["check", "--format", "human", "--color", "always"],
        &["diff", "--color", "always"],
    ]);
    let got = h.s.run(&runs[0]);
    assert!(got.out().contains("\x1b["), "colour is on: {}", got.shown());
    assert_clean(&scan(&h.s, &runs));
}

#[test]
fn policy_mistakes_escape_control_characters() {
    let h = Hostile::new();
    let value = esc(EVIL);
    let policy = format!("\"{value}\" = 1\n\n[rules]\n\"{value}\" = \"deny\"\n");
    h.s.stage(&[(".override-guard.toml", &policy)]);
    let runs = args(&[
        &["audit", "--color", "never"],
        &["audit", "--color", "always"],
        &["audit", "--staged", "--color", "never"],
        &["check", "--color", "never"],
        &["diff", "--color", "never"],
    ]);
    let got = h.s.run(&runs[0]);
    assert_eq!(got.code, 1, "{}", got.shown());
    assert!(got.out().contains("error[policy-error]"), "{}", got.shown());
    assert_clean(&scan(&h.s, &runs));
}

#[test]
fn errors_escape_the_paths_they_name() {
    // An unmerged path with control characters in its name.
    let s = Sandbox::new();
    let file = format!("db/m{EVIL_NAME}.tf");
    s.commit(&[(&file, DB_MAIN)], "one");
    s.git(&["checkout", "-q", "-b", "other"]);
    s.commit(&[(&file, &DB_MAIN.replace("true", "false"))], "theirs");
    s.git(&["checkout", "-q", "main"]);
    s.commit(&[(&file, &DB_MAIN.replace("main", "primary").replace("true", "null"))], "ours");
    assert!(!s.git_status(&["merge", "-q", "other"]), "the merge should conflict");
    let mut problems = Vec::new();
    for args in [&["check"][..], &["diff"], &["audit", "--staged"]] {
        let got = s.run(args);
        assert_eq!(got.code, 2, "{args:?}: {}", got.shown());
        assert!(got.err().contains("unmerged"), "{args:?}: {}", got.shown());
        problems
            .extend(unsafe_in(&got.stderr, false).into_iter().map(|p| format!("{args:?}: {p}")));
    }
    // A configuration file that cannot be read (a dangling link) in the worktree.
    #[cfg(unix)]
    {
        let s = Sandbox::new();
        s.write("db/main.tf", DB_MAIN);
        std::os::unix::fs::symlink("nowhere", s.path(&format!("db/x{EVIL_NAME}.tf"))).expect("ln");
        // Its module fails with a finding (audit: exit 1), or the run does (show: exit 2).
        for (args, code) in
            [(&["audit"][..], 1), (&["audit", "--format", "compact"], 1), (&["show", "db"], 2)]
        {
            let got = s.run(args);
            assert_eq!(got.code, code, "{args:?}: {}", got.shown());
            assert!(got.shown().contains("Failed to read file"), "{args:?}: {}", got.shown());
            for out in [&got.stdout, &got.stderr] {
                problems
                    .extend(unsafe_in(out, false).into_iter().map(|p| format!("{args:?}: {p}")));
            }
        }
    }
    assert_clean(&problems);
}

#[test]
fn command_line_text_is_escaped_in_errors() {
    let s = Sandbox::new();
    s.commit(&[("db/main.tf", DB_MAIN)], "one");
    let bad = format!("x{EVIL}");
    let runs = vec![
        vec!["explain".to_string(), bad.clone()],
        vec!["audit".to_string(), "--deny".into(), bad.clone()],
        vec!["check".to_string(), "--allow".into(), bad.clone()],
    ];
    assert_clean(&scan(&s, &runs));
}

// ---------------------------------------------------------------------------------------
// Paths in reports: relative, and no annotation injection.
// ---------------------------------------------------------------------------------------

/// The ways the sandbox's absolute path can appear in output (as is, canonical, JSON- or
/// URI-escaped).
fn absolute_forms(s: &Sandbox) -> Vec<String> {
    let raw = s.tmp.path().display().to_string();
    let canonical = std::fs::canonicalize(s.tmp.path()).expect("canonical").display().to_string();
    let mut forms = vec![raw.clone(), canonical.clone()];
    for f in [&raw, &canonical] {
        forms.push(f.replace('/', "\\/"));
        forms.push(f.trim_start_matches('/').to_string());
    }
    forms.sort();
    forms.dedup();
    forms
}

/// A repository with a policy at the root, a deny finding staged and in the worktree.
fn policy_repo() -> Sandbox {
    let s = Sandbox::new();
    s.commit(
        &[
            ("db/main.tf", DB_MAIN),
            (
                ".override-guard.toml",
                "[rules.override-file]\nlevel = \"warn\"\n\n[[exceptions]]\nrule = \"backend-swap\"\n\
                 paths = [\"nowhere/**\"]\nreason = \"an unused exception: a finding in the policy file\"\n",
            ),
            ("net/vpc/main.tf", "resource \"aws_vpc\" \"a\" {}\n"),
        ],
        "one",
    );
    s.stage(&[("db/override.tf", WEAKEN)]);
    s
}

#[track_caller]
fn assert_no_absolute_path(s: &Sandbox, dir: &str, args: &[&str], stderr_too: bool) {
    let got = s.run_env(dir, args, &[]);
    assert!(matches!(got.code, 0 | 1), "{dir} {args:?}: {}", got.shown());
    for form in absolute_forms(s) {
        assert!(!got.out().contains(&form), "{dir} {args:?} leaks {form}:\n{}", got.shown());
        if stderr_too {
            assert!(!got.err().contains(&form), "{dir} {args:?} leaks {form}:\n{}", got.shown());
        }
    }
}

const MACHINE_FORMATS: [&str; 7] =
    ["compact", "json", "sarif", "github", "gitlab", "junit", "checkstyle"];

#[test]
fn reports_from_the_root_carry_relative_paths() {
    let s = policy_repo();
    for format in MACHINE_FORMATS {
        for args in [
            &["audit", "--format", format][..],
            &["audit", "db", "--format", format],
            &["audit", "./db/", "--format", format],
            &["audit", "--staged", "--format", format],
            &["audit", "--rev", "HEAD", "--format", format],
            &["check", "--format", format],
            &["diff", "--format", format],
            &["diff", "--worktree", "--format", format],
            &["diff", "HEAD", "--format", format],
        ] {
            assert_no_absolute_path(&s, ".", args, true);
        }
    }
    for args in
        [&["show", "db", "--format", "json"][..], &["show", "--staged", "db"], &["vars", "db"]]
    {
        assert_no_absolute_path(&s, ".", args, true);
    }
}

#[test]
fn the_hook_and_the_review_from_a_subdirectory_carry_relative_paths() {
    let s = policy_repo();
    for format in MACHINE_FORMATS {
        for dir in ["db", "net/vpc"] {
            for args in [
                &["check", "--format", format][..],
                &["diff", "--format", format],
                &["audit", "--staged", "--format", format],
            ] {
                assert_no_absolute_path(&s, dir, args, true);
            }
        }
    }
}

#[test]
fn audit_from_a_subdirectory_carries_relative_paths() {
    let s = policy_repo();
    for format in MACHINE_FORMATS {
        for args in [
            &["audit", "--format", format][..],
            &["audit", ".", "--format", format],
            &["diff", "--worktree", "--format", format],
            &["diff", "HEAD", "--format", format],
        ] {
            assert_no_absolute_path(&s, "db", args, true);
        }
    }
    s.write(".override-guard.toml", "[rules]\nno-such-rule = \"deny\"\n");
    let got = s.run_env("db", &["audit", "--color", "never"], &[]);
    assert_eq!(got.code, 1, "{}", got.shown());
    assert!(got.out().contains("../.override-guard.toml:2:1"), "{}", got.shown());
    for form in absolute_forms(&s) {
        assert!(!got.shown().contains(&form), "leaks {form}:\n{}", got.shown());
    }
}

/// File and directory names that try to end a workflow command and start another.
const INJECTIONS: &[&str] = &[
    "a\n::error file=main.tf,line=1::forged",
    "b\r\n::warning::forged",
    "c::error::forged",
    "d,line=99,title=x::forged%0A::error::forged",
    "e%0A::error::forged",
];

/// A repository with, per injection, a module directory of that name holding an override
/// file of that name (a deny finding in each).
fn injection_repo() -> Sandbox {
    let s = Sandbox::new();
    let mut files: Vec<(String, String)> = Vec::new();
    for (i, name) in INJECTIONS.iter().enumerate() {
        let dir = format!("m{i}{name}");
        files.push((format!("{dir}/main.tf"), DB_MAIN.to_string()));
        files.push((format!("{dir}/{name}_override.tf"), WEAKEN.to_string()));
    }
    let files: Vec<(&str, &str)> = files.iter().map(|(p, c)| (p.as_str(), c.as_str())).collect();
    s.commit(&files[..1], "first");
    s.stage(&files[1..]);
    s
}

/// Checks GitHub workflow commands: one `::` line per finding, each well formed, its
/// properties free of `:` `,` and line breaks.
#[track_caller]
fn assert_github_lines(args: &[&str], got: &Run, findings: usize) {
    let out = got.out();
    // A workflow command is a line that starts with `::`.
    let commands: Vec<&str> = out.split(['\n', '\r']).filter(|l| l.starts_with("::")).collect();
    assert_eq!(commands.len(), findings, "{args:?}: one command per finding:\n{out}");
    for line in &commands {
        let (props, _message) = line
            .strip_prefix("::error ")
            .or_else(|| line.strip_prefix("::warning "))
            .and_then(|rest| rest.split_once("::"))
            .unwrap_or_else(|| panic!("{args:?}: not a workflow command: {line:?}"));
        let keys: Vec<&str> =
            props.split(',').map(|p| p.split_once('=').map_or(p, |(k, _)| k)).collect();
        assert_eq!(
            keys,
            ["file", "line", "col", "endLine", "endColumn", "title"],
            "{args:?}: forged properties: {line:?}"
        );
    }
}

#[test]
fn file_names_cannot_forge_github_annotations() {
    let s = injection_repo();
    let n = INJECTIONS.len();
    // Per module: weakened-safeguard (deny) and missing-override-comment (warn).
    for (args, findings) in [
        (&["audit", "--staged", "--format", "github"][..], 2 * n),
        (&["audit", "--format", "github"], 2 * n),
        (&["check", "--format", "github"], 2 * n),
        (&["diff", "--format", "github"], 2 * n),
    ] {
        let got = s.run(args);
        assert_eq!(got.code, 1, "{args:?}: {}", got.shown());
        assert_github_lines(args, &got, findings);
    }
}

#[test]
fn file_names_cannot_forge_compact_lines() {
    let s = injection_repo();
    let n = INJECTIONS.len();
    for args in [
        &["audit", "--format", "compact"][..],
        &["audit", "--staged", "--format", "compact"],
        &["check", "--format", "compact"],
        &["diff", "--format", "compact"],
    ] {
        let got = s.run(args);
        let out = got.out();
        let lines: Vec<&str> = out.split(['\n', '\r']).filter(|l| !l.is_empty()).collect();
        assert_eq!(lines.len(), 2 * n + 1, "{args:?}: one line per finding + summary:\n{out}");
        for l in &lines[..2 * n] {
            assert!(
                l.starts_with('m') && (l.contains(": error[") || l.contains(": warning[")),
                "{args:?}: forged line {l:?}"
            );
        }
    }
}

#[test]
fn the_policy_path_cannot_forge_a_github_annotation() {
    let s = Sandbox::new();
    let dir = "x\n::error file=main.tf,line=1::forged";
    s.commit(
        &[
            (&format!("{dir}/main.tf"), DB_MAIN),
            (&format!("{dir}/.override-guard.toml"), "[rules.override-file]\nlevel = \"deny\"\n"),
        ],
        "one",
    );
    for args in [
        &["audit", dir, "--format", "github"][..],
        &["audit", dir, "--staged", "--format", "github"],
    ] {
        let got = s.run(args);
        assert_eq!(got.code, 0, "{args:?}: {}", got.shown());
        assert_github_lines(args, &got, 0);
    }
}

/// No line a hostile name makes override-guard print (stdout or stderr: GitHub Actions
/// reads workflow commands from both) starts a workflow command, but its own annotations.
#[track_caller]
fn assert_no_forged_command(args: &[&str], got: &Run) {
    for (stream, text) in [("stdout", got.out()), ("stderr", got.err())] {
        for line in text.split(['\n', '\r']) {
            let ours = stream == "stdout"
                && (line.starts_with("::error file=") || line.starts_with("::warning file="))
                && !line.contains("forged");
            assert!(
                !line.trim_start().starts_with("::") || ours,
                "{args:?} {stream}: forged workflow command {line:?}:\n{}",
                got.shown()
            );
        }
    }
}

#[cfg(unix)]
#[test]
fn notes_and_errors_cannot_forge_github_annotations() {
    let name = "x\n::error file=main.tf,line=1::forged_override.tf";
    // A link out of the repository: skipped with a note naming it.
    let s = Sandbox::new();
    s.commit(&[("db/main.tf", DB_MAIN)], "db");
    std::os::unix::fs::symlink("/etc/hostname", s.path(&format!("db/{name}"))).expect("ln");
    s.git(&["add", "-A"]);
    for args in [
        &["check", "--format", "github"][..],
        &["audit", "--staged", "--format", "github"],
        &["show", "--staged", "db"],
    ] {
        let got = s.run(args);
        assert!(got.err().contains("note:"), "{args:?}: {}", got.shown());
        assert_no_forged_command(args, &got);
    }
    // A conflict: the error names the unmerged path.
    let s = Sandbox::new();
    let file = format!("db/{name}");
    s.commit(&[("db/main.tf", DB_MAIN), (&file, WEAKEN)], "one");
    s.git(&["checkout", "-q", "-b", "other"]);
    s.commit(&[(&file, &WEAKEN.replace("false", "null"))], "theirs");
    s.git(&["checkout", "-q", "main"]);
    s.commit(&[(&file, &WEAKEN.replace("false", "true"))], "ours");
    assert!(!s.git_status(&["merge", "-q", "other"]), "the merge should conflict");
    for args in [&["check", "--format", "github"][..], &["diff", "--format", "github"]] {
        let got = s.run(args);
        assert_eq!(got.code, 2, "{args:?}: {}", got.shown());
        assert_no_forged_command(args, &got);
    }
}

#[cfg(unix)]
#[test]
fn init_never_writes_through_a_link() {
    let s = Sandbox::new();
    s.commit(&[("db/main.tf", DB_MAIN)], "db");
    let victim = s.beside("victim.txt");
    // A dangling link where the policy would go, and one to an existing file outside.
    std::os::unix::fs::symlink("../victim.txt", s.path(".override-guard.toml")).expect("ln");
    std::fs::write(s.beside("existing.txt"), "mine\n").expect("write");
    std::os::unix::fs::symlink("../existing.txt", s.path("db/.override-guard.toml")).expect("ln");
    let got = s.run(&["init"]);
    assert_eq!(got.code, 2, "{}", got.shown());
    assert!(got.err().contains("already exists"), "{}", got.shown());
    assert!(!victim.exists(), "init wrote through a dangling link");
    let got = s.run_env("db", &["init"], &[]);
    assert_eq!(got.code, 2, "{}", got.shown());
    assert_eq!(std::fs::read_to_string(s.beside("existing.txt")).expect("read"), "mine\n");
}
