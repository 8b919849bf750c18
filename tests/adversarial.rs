//! Adversarial inputs: pathological nesting, huge files and blocks, broken encodings,
//! hostile file-system layouts and damaged git repositories, all generated in temporary
//! directories and fed to the real binary.
//!
//! Whatever the input, a run must end by itself with an exit code (never a signal: a
//! stack overflow aborts the process), never panic, and either give the correct result
//! (0/1) or refuse with a message naming the file (2, or a `merge-error` finding in
//! `audit`, which docs/formats.md counts as a deny finding: exit 1). Every run is reaped with
//! `wait4` so its peak resident memory can be bounded too, and a watchdog kills a run that
//! hangs. Where override-guard misbehaves today, the test asserts the correct behaviour
//! and is ignored with the reason `bug: ...`.
#![cfg(unix)]

use crate::texts::*;
use std::ffi::OsStr;
use std::fmt::Write as _;
use std::os::unix::ffi::OsStrExt;

use crate::measure::*;
use crate::util::Sandbox;

// ---------------------------------------------------------------------------------------
// 1. Nesting 10,000 levels deep.

/// Native-syntax attribute values nested [`DEEP`] levels, by shape.
fn deep_hcl_values() -> Vec<(&'static str, String)> {
    vec![
        ("list", format!("{}{}", "[".repeat(DEEP), "]".repeat(DEEP))),
        ("parentheses", format!("{}1{}", "(".repeat(DEEP), ")".repeat(DEEP))),
        ("object", format!("{}1{}", "{ a = ".repeat(DEEP), " }".repeat(DEEP))),
        // Every `[` followed by a string holding a `]`: a bracket count that does not
        // skip strings sees depth 1 here.
        ("list behind string closers", format!("{}1{}", "[\"]\", ".repeat(DEEP), "]".repeat(DEEP))),
        ("unary operators", format!("{}true", "!".repeat(DEEP))),
        ("conditionals", format!("{}1", "true ? 1 : ".repeat(DEEP))),
        (
            "template directives",
            format!("\"{}x{}\"", "%{ if true }".repeat(DEEP), "%{ endif }".repeat(DEEP)),
        ),
        ("interpolations", format!("{}1{}", "\"${".repeat(DEEP), "}\"".repeat(DEEP))),
    ]
}

/// `a { a { ... } }` [`DEEP`] levels inside a resource, one block a line.
fn deep_hcl_blocks() -> String {
    format!(
        "resource \"aws_instance\" \"web\" {{\n{}{}}}\n",
        "a {\n".repeat(DEEP),
        "}\n".repeat(DEEP)
    )
}

/// Runs `audit DIR` (a `merge-error` naming `file`) and `show DIR` (exit 2, the file
/// named) on a module whose `file` holds `text`.
#[track_caller]
fn assert_rejected_module(s: &Sandbox, dir: &str, file: &str, text: &str, what: &str) {
    let got = og(s, &["audit", dir, "--format", "compact"]);
    expect_code(&format!("audit: {what}"), &got, 1);
    assert_merge_error_in(what, &got, &format!("{dir}/{file}"), text.lines().count());
    let got = og(s, &["show", dir, "--color", "never"]);
    expect_code(&format!("show: {what}"), &got, 2);
    assert!(
        got.stderr.contains(&format!("{file}:")),
        "show: {what}: file not named\n{}",
        got.shown()
    );
}

#[test]
fn deep_nesting_in_native_syntax_is_refused_without_overflowing() {
    let s = sandbox();
    let mut cases: Vec<(String, String)> = deep_hcl_values()
        .into_iter()
        .map(|(shape, v)| (shape.to_string(), format!("locals {{\n  x = {v}\n}}\n")))
        .collect();
    cases.push(("blocks".into(), deep_hcl_blocks()));
    for (i, (shape, deep)) in cases.iter().enumerate() {
        let base = if shape == "blocks" {
            "resource \"aws_instance\" \"web\" {\n  ami = \"x\"\n}\n"
        } else {
            "locals {\n  x = 1\n}\n"
        };
        // In the primary file.
        let dir = format!("p{i}");
        s.write(&format!("{dir}/main.tf"), deep);
        assert_rejected_module(&s, &dir, "main.tf", deep, &format!("{shape} in main.tf"));
        // In an override file, over a sane primary.
        let dir = format!("o{i}");
        s.write(&format!("{dir}/main.tf"), base);
        s.write(&format!("{dir}/override.tf"), deep);
        assert_rejected_module(&s, &dir, "override.tf", deep, &format!("{shape} in override.tf"));
    }
}

/// A long chain of operators is no nesting: Terraform reads 10,000 `+ 1` in a row, and so
/// does the parser (a chain of one precedence level is one node).
#[test]
fn a_ten_thousand_operator_chain_is_read() {
    let s = sandbox();
    s.write("chain/main.tf", format!("locals {{\n  x = 1{}\n}}\n", " + 1".repeat(DEEP)));
    s.write(
        "chain/variables.tf",
        format!("variable \"v\" {{\n  default = 1{}\n}}\n", " * 1 - 1 + 1".repeat(DEEP)),
    );
    committed(&s);
    let got = og(&s, &["audit", "chain", "--format", "compact"]);
    expect_code("audit of a long chain", &got, 0);
    let got = og(&s, &["show", "chain"]);
    expect_code("show of a long chain", &got, 0);
    let got = og(&s, &["vars", "chain"]);
    expect_code("vars of a long chain", &got, 0);
    assert!(got.stdout.contains("var.v = 1"), "{}", got.shown());
}

#[test]
fn deep_nesting_in_json_syntax_is_refused_without_overflowing() {
    let s = sandbox();
    let arrays = format!("{}{}", "[".repeat(DEEP), "]".repeat(DEEP));
    let objects = format!("{}1{}", "{\"a\": ".repeat(DEEP), "}".repeat(DEEP));
    let cases = [
        ("array value", format!("{{\"locals\": {{\"x\": {arrays}}}}}")),
        ("object value", format!("{{\"locals\": {{\"x\": {objects}}}}}")),
        (
            "nested block objects",
            format!(
                "{{\"resource\": {{\"aws_instance\": {{\"web\": {}{{}}{}}}}}}}",
                "{\"a\": ".repeat(DEEP),
                "}".repeat(DEEP)
            ),
        ),
        // Nesting inside a JSON string: the template is HCL again.
        ("template in a string", format!("{{\"locals\": {{\"x\": \"${{{arrays}}}\"}}}}")),
    ];
    for (i, (shape, deep)) in cases.iter().enumerate() {
        let base = if shape.contains("block") {
            "resource \"aws_instance\" \"web\" {\n  ami = \"x\"\n}\n"
        } else {
            "locals {\n  x = 1\n}\n"
        };
        let dir = format!("p{i}");
        s.write(&format!("{dir}/main.tf.json"), deep);
        assert_rejected_module(&s, &dir, "main.tf.json", deep, &format!("{shape} in main.tf.json"));
        let dir = format!("o{i}");
        s.write(&format!("{dir}/main.tf"), base);
        s.write(&format!("{dir}/override.tf.json"), deep);
        assert_rejected_module(
            &s,
            &dir,
            "override.tf.json",
            deep,
            &format!("{shape} in override.tf.json"),
        );
    }
}

/// Up to the JSON reader's limit (512 levels, an object counting two), a value is read,
/// merged and printed like any other: Terraform reads them too.
#[test]
fn json_nested_to_the_limit_is_read_and_printed() {
    let s = sandbox();
    // Two objects (four levels), then 508 arrays.
    let arrays = format!("{}1{}", "[".repeat(508), "]".repeat(508));
    s.write("m/main.tf.json", format!("{{\"locals\": {{\"x\": {arrays}}}}}"));
    s.write("m/variables.tf", "variable \"v\" {}\n");
    s.write(
        "m/deep.auto.tfvars.json",
        format!("{{\"v\": {}{}}}", "[".repeat(510), "]".repeat(510)),
    );
    for args in
        [&["audit", "m"][..], &["show", "m"], &["show", "m", "--format", "tf-json"], &["vars", "m"]]
    {
        let got = og(&s, args);
        expect_code(&args.join(" "), &got, 0);
    }
}

#[test]
fn deep_nesting_in_variables_files_and_flags_is_refused_without_overflowing() {
    let s = sandbox();
    let declare = "variable \"x\" {\n  type = any\n}\n";
    let arrays = format!("{}{}", "[".repeat(DEEP), "]".repeat(DEEP));
    let behind_strings = format!("{}{}", "[\"]\", ".repeat(DEEP), "]".repeat(DEEP));
    let files = [
        ("terraform.tfvars", format!("x = {arrays}\n")),
        ("terraform.tfvars", format!("x = {behind_strings}\n")),
        ("terraform.tfvars.json", format!("{{\"x\": {arrays}}}")),
        (
            "deep.auto.tfvars.json",
            format!("{{\"x\": {}1{}}}", "{\"a\": ".repeat(DEEP), "}".repeat(DEEP)),
        ),
    ];
    for (i, (file, text)) in files.iter().enumerate() {
        let dir = format!("f{i}");
        s.write(&format!("{dir}/variables.tf"), declare);
        s.write(&format!("{dir}/{file}"), text);
        let got = og(&s, &["vars", &dir]);
        expect_code(&format!("vars: {file} #{i}"), &got, 2);
        // `vars` prints its diagnostics on stdout, after the report.
        assert!(
            got.all().contains(&format!("{file}:1:")),
            "{file} #{i} not named\n{}",
            got.shown()
        );
    }
    s.write("flags/variables.tf", declare);
    for (i, value) in
        [arrays.clone(), behind_strings, format!("{}true", "!".repeat(DEEP))].iter().enumerate()
    {
        let got = og(&s, &["vars", "flags", "--var", &format!("x={value}")]);
        expect_code(&format!("vars --var #{i}"), &got, 2);
        assert!(got.all().contains("<value for var.x>"), "--var #{i} not named\n{}", got.shown());
    }
}

/// Brackets in comments, strings and heredocs are text, not nesting; Terraform accepts
/// them in any number.
#[test]
fn brackets_in_comments_and_strings_are_not_nesting() {
    let s = sandbox();
    let n = 300;
    s.write(
        "text/main.tf",
        format!(
            "# {}\nlocals {{\n  pattern = \"{}\"\n  doc     = <<EOT\n{}\nEOT\n}}\n",
            "(".repeat(n),
            "[".repeat(n),
            "{".repeat(n)
        ),
    );
    // One unbalanced `(` in each of 300 descriptions: the count only ever grows.
    let mut vars = String::new();
    for i in 0..n {
        let _ = write!(
            vars,
            "variable \"port_{i}\" {{\n  description = \"Port (TCP\"\n  default     = {i}\n}}\n\n"
        );
    }
    s.write("many/variables.tf", vars);
    for dir in ["text", "many"] {
        let got = og(&s, &["audit", dir, "--format", "compact"]);
        expect_code(&format!("audit {dir}"), &got, 0);
        let got = og(&s, &["show", dir]);
        expect_code(&format!("show {dir}"), &got, 0);
    }
}

#[test]
fn brackets_in_a_var_string_are_not_nesting() {
    let s = sandbox();
    s.write("m/variables.tf", "variable \"x\" {\n  type = any\n}\n");
    let got = og(&s, &["vars", "m", "--var", &format!("x=\"{}\"", "(".repeat(300))]);
    expect_code("vars --var", &got, 0);
    assert!(got.stdout.contains(&format!("var.x = \"{}", "(".repeat(50))), "{}", got.shown());
}

#[test]
fn deep_nesting_staged_for_commit_is_refused_by_the_hook() {
    let s = sandbox();
    s.commit(&[("db/main.tf", DB_MAIN)], "db");
    let deep = format!("locals {{\n  x = {}{}\n}}\n", "[".repeat(DEEP), "]".repeat(DEEP));
    s.stage(&[("db/override.tf", &deep)]);
    let got = og(&s, &["check", "--format", "compact"]);
    expect_code("check", &got, 1);
    assert_merge_error_in("check", &got, "db/override.tf", 3);
}

// ---------------------------------------------------------------------------------------
// 2 and 6. Huge inputs: a correct result in reasonable time and bounded memory.

// ---------------------------------------------------------------------------------------
// 3. Encodings and line endings.

/// Native syntax: "Invalid character encoding". JSON: Terraform's reader takes the broken
/// bytes as U+FFFD, and the error is what the value then is (confirmed on Terraform 1.15.5).
#[test]
fn invalid_utf8_is_an_encoding_error_naming_the_file() {
    let s = sandbox();
    let cases: [(&str, &str, &[u8], &str); 3] = [
        ("m0", "override.tf", b"resource \"aws_db_instance\" \"main\" {\n  lifecycle {\n    prevent_destroy = \"\xff\"\n  }\n}\n", "Invalid character encoding"),
        ("m1", "main.tf", b"resource \"aws_db_instance\" \"main\" {\n  lifecycle {\n    prevent_destroy = true\n  }\n  caf\xe9 = 1\n}\n", "Invalid character encoding"),
        ("m2", "override.tf.json", b"{\"resource\": {\"aws_db_instance\": {\"main\": {\"lifecycle\": {\"prevent_destroy\": \"\xc3\x28\"}}}}}", "Unsuitable value type"),
    ];
    for (dir, file, bytes, summary) in cases {
        if file != "main.tf" {
            s.write(&format!("{dir}/main.tf"), DB_MAIN);
        }
        s.write(&format!("{dir}/{file}"), bytes);
        let got = og(&s, &["audit", dir, "--format", "compact"]);
        expect_code(&format!("audit {dir}/{file}"), &got, 1);
        assert!(
            got.stdout.lines().any(|l| l.starts_with(&format!("{dir}/{file}:"))
                && l.contains(&format!("error[merge-error]: {summary}: "))),
            "{}",
            got.shown()
        );
        let got = og(&s, &["show", dir]);
        expect_code(&format!("show {dir}/{file}"), &got, 2);
        assert!(got.stderr.contains(summary), "{}", got.shown());
        assert!(got.stderr.contains(&format!("[{file}:")), "{}", got.shown());
    }
}

/// Terraform reads native variables files with the same scanner as `.tf` files: invalid
/// UTF-8 is "Invalid character encoding", not a value holding U+FFFD. Its JSON reader
/// takes each broken byte as U+FFFD, and the value is set (both confirmed on Terraform
/// 1.15.5 with `terraform plan`).
#[test]
fn invalid_utf8_in_variables_files_is_read_as_terraform_reads_it() {
    let s = sandbox();
    for (i, (file, text, broken)) in [
        ("terraform.tfvars", &b"x = \"\xff\"\n"[..], true),
        ("terraform.tfvars.json", b"{\"x\": \"\xff\"}", false),
        ("extra.tfvars", b"x = \"\xff\"\n", true),
        ("extra.tfvars.json", b"{\"x\": \"a\xffb\"}", false),
    ]
    .into_iter()
    .enumerate()
    {
        let dir = format!("v{i}");
        s.write(&format!("{dir}/variables.tf"), "variable \"x\" {}\n");
        s.write(&format!("{dir}/{file}"), text);
        let mut args = vec!["vars".to_string(), dir.clone()];
        if file.starts_with("extra") {
            args.extend(["--var-file".to_string(), format!("{dir}/{file}")]);
        }
        let got = og(&s, &args);
        if broken {
            expect_code(&format!("vars with {file}"), &got, 2);
            assert!(got.all().contains("Invalid character encoding"), "{file}\n{}", got.shown());
            assert!(got.all().contains("Unterminated template string"), "{file}\n{}", got.shown());
            assert!(got.all().contains(file), "{file}\n{}", got.shown());
            assert!(!got.all().contains('\u{fffd}'), "{file}\n{}", got.shown());
        } else {
            expect_code(&format!("vars with {file}"), &got, 0);
            assert!(got.stdout.contains('\u{fffd}'), "{file}\n{}", got.shown());
            assert!(!got.all().contains("Invalid character encoding"), "{file}\n{}", got.shown());
        }
    }
}

/// A JSON file that is not UTF-8 loads (as Terraform loads it), but `fold` and `fix` do not
/// write it back: its text is not its bytes. They say so, instead of calling it changed.
#[test]
fn fold_does_not_rewrite_a_file_that_is_not_utf8() {
    let s = sandbox();
    let main = "locals {\n  greeting = \"hello\"\n}\n";
    let over = &b"{\"locals\": {\"greeting\": \"caf\xe9\"}}\n"[..];
    s.write("f/main.tf", main);
    s.write("f/greeting_override.tf.json", over);
    s.git(&["add", "-A"]);
    let got = og(&s, &["audit", "f", "--format", "compact"]);
    assert!(!got.all().contains("error["), "{}", got.shown());
    for extra in [&[][..], &["--allow-dirty"][..]] {
        let mut args = vec!["fold", "f/greeting_override.tf.json"];
        args.extend(extra);
        let got = og(&s, &args);
        expect_code("fold", &got, 2);
        assert!(got.stderr.contains("greeting_override.tf.json: not UTF-8"), "{}", got.shown());
        assert!(!got.stderr.contains("not staged"), "{}", got.shown());
        assert_eq!(std::fs::read(s.root.join("f/greeting_override.tf.json")).expect("read"), over);
        assert_eq!(std::fs::read_to_string(s.root.join("f/main.tf")).expect("read"), main);
    }
}

/// `std::env::vars()` panics on the first variable that is not UTF-8, whatever its name.
#[test]
fn vars_survives_environment_variables_that_are_not_utf8() {
    let s = sandbox();
    s.write("v/variables.tf", "variable \"x\" {\n  default = \"d\"\n}\n");
    let bad = OsStr::from_bytes(b"\xff");
    let got = og_env(&s, &["vars", "v"], &[("UNRELATED", bad)]);
    expect_code("an unrelated variable", &got, 0);
    assert!(got.stdout.contains("var.x = \"d\""), "{}", got.shown());
    let got = og_env(&s, &["vars", "v"], &[("TF_VAR_x", bad)]);
    assert_sane("TF_VAR_x", &got);
    assert!(matches!(got.code, Some(0 | 2)), "{}", got.shown());
}

#[test]
fn nul_bytes_are_text_in_comments_and_an_error_elsewhere() {
    let s = sandbox();
    // In a comment: Terraform reads on; so must we, and the weakening is found.
    s.write("c/main.tf", DB_MAIN);
    s.write("c/override.tf", WEAKEN.replace("false\n", "false # \0 nul\n"));
    let got = og(&s, &["audit", "c", "--format", "compact"]);
    expect_code("NUL in a comment", &got, 1);
    assert!(got.stdout.contains(&format!("c/override.tf:3:5: {WEAKENED}")), "{}", got.shown());
    // Between tokens: a syntax error on that line, never a silently clean result.
    s.write("t/main.tf", DB_MAIN);
    s.write("t/override.tf", WEAKEN.replace("false\n", "false\0\n"));
    let got = og(&s, &["audit", "t", "--format", "compact"]);
    expect_code("NUL after a value", &got, 1);
    assert!(got.stdout.contains("t/override.tf:3:"), "{}", got.shown());
    assert_merge_error_in("NUL after a value", &got, "t/override.tf", 5);
    // After a JSON document.
    s.write("j/main.tf", DB_MAIN);
    s.write(
        "j/override.tf.json",
        "{\"resource\": {\"aws_db_instance\": {\"main\": {\"lifecycle\": {\"prevent_destroy\": false}}}}}\0",
    );
    let got = og(&s, &["audit", "j", "--format", "compact"]);
    expect_code("NUL after JSON", &got, 1);
    assert_merge_error_in("NUL after JSON", &got, "j/override.tf.json", 1);
}

/// Terraform 1.15.5 skips a byte order mark in native syntax (`.tf`, `.tfvars`) only: HCL's
/// JSON parser takes it for the start of a value and refuses `.tf.json` and `.tfvars.json`
/// files that begin with one.
#[test]
fn a_utf8_byte_order_mark_is_accepted_in_native_syntax_and_refused_in_json() {
    let s = sandbox();
    const BOM: &str = "\u{feff}";
    s.write("m/main.tf", format!("{BOM}{DB_MAIN}"));
    s.write("m/override.tf", format!("{BOM}{WEAKEN}"));
    s.write("m/variables.tf", format!("{BOM}variable \"n\" {{\n  type = number\n}}\n"));
    s.write("m/terraform.tfvars", format!("{BOM}n = 3\n"));
    let got = og(&s, &["audit", "m", "--format", "compact"]);
    expect_code("audit", &got, 1);
    assert!(got.stdout.contains(&format!("m/override.tf:3:5: {WEAKENED}")), "{}", got.shown());
    assert!(!got.stdout.contains("merge-error"), "{}", got.shown());
    let got = og(&s, &["vars", "m"]);
    expect_code("vars", &got, 0);
    assert!(got.stdout.contains("var.n = 3   (from terraform.tfvars:1)"), "{}", got.shown());
    let got = og(&s, &["show", "m"]);
    expect_code("show", &got, 0);
    assert!(got.stdout.contains("prevent_destroy = false # ← override.tf:3"), "{}", got.shown());

    s.write(
        "m/x_override.tf.json",
        format!("{BOM}{{\"resource\": {{\"aws_db_instance\": {{\"main\": {{\"tags\": {{\"a\": \"b\"}}}}}}}}}}"),
    );
    let got = og(&s, &["audit", "m", "--format", "compact"]);
    expect_code("audit of a JSON file with a mark", &got, 1);
    for summary in ["Invalid start of value", "Root value must be object"] {
        assert!(
            got.stdout
                .contains(&format!("m/x_override.tf.json:1:1: error[merge-error]: {summary}")),
            "{}",
            got.shown()
        );
    }
    std::fs::remove_file(s.path("m/x_override.tf.json")).expect("remove");
    s.write("m/z.auto.tfvars.json", format!("{BOM}{{\"n\": 4}}"));
    let got = og(&s, &["vars", "m"]);
    expect_code("vars with a JSON variables file with a mark", &got, 2);
    assert!(got.stdout.contains("Invalid start of value"), "{}", got.shown());
    assert!(got.stdout.contains("z.auto.tfvars.json:1:1"), "{}", got.shown());
}

/// Terraform strips the mark before counting (HCL's scanner starts after it at column 1),
/// and so does every editor.
#[test]
fn a_byte_order_mark_does_not_shift_columns() {
    let s = sandbox();
    s.write("m/main.tf", format!("\u{feff}{DB_MAIN}"));
    s.write("m/override.tf", WEAKEN);
    committed(&s);
    let got = og(&s, &["audit", "m", "--format", "compact"]);
    expect_code("audit", &got, 1);
    assert!(
        got.stdout.contains("m/main.tf:1:1: warning[missing-override-comment]"),
        "{}",
        got.shown()
    );
}

#[test]
fn crlf_line_endings_give_the_same_result() {
    let s = sandbox();
    let crlf = |t: &str| t.replace('\n', "\r\n");
    let heredoc = "locals {\n  doc = <<EOT\nline one\nEOT\n}\n";
    for (dir, conv) in [("lf", (|t: &str| t.to_string()) as fn(&str) -> String), ("crlf", crlf)] {
        s.write(&format!("{dir}/main.tf"), conv(DB_MAIN) + &conv(heredoc));
        s.write(&format!("{dir}/override.tf"), conv(WEAKEN));
        s.write(&format!("{dir}/variables.tf"), conv("variable \"n\" {\n  type = number\n}\n"));
        s.write(&format!("{dir}/terraform.tfvars"), conv("n = 3\n"));
    }
    let lf = og(&s, &["audit", "lf", "--format", "compact"]);
    expect_code("audit lf", &lf, 1);
    let crlf = og(&s, &["audit", "crlf", "--format", "compact"]);
    expect_code("audit crlf", &crlf, 1);
    assert_eq!(crlf.stdout.replace("crlf/", "lf/"), lf.stdout);
    let got = og(&s, &["vars", "crlf"]);
    expect_code("vars", &got, 0);
    assert!(got.stdout.contains("var.n = 3"), "{}", got.shown());
}

#[test]
fn lone_cr_line_endings_are_a_syntax_error_in_native_syntax_and_whitespace_in_json() {
    let s = sandbox();
    let cr = |t: &str| t.replace('\n', "\r");
    // Terraform's scanner knows `\n` and `\r\n` only: a lone CR is an invalid character.
    s.write("n/main.tf", cr(DB_MAIN));
    s.write("n/override.tf", cr(WEAKEN));
    let got = og(&s, &["audit", "n", "--format", "compact"]);
    expect_code("audit", &got, 1);
    assert_merge_error_in("main.tf", &got, "n/main.tf", 1);
    assert_merge_error_in("override.tf", &got, "n/override.tf", 1);
    let got = og(&s, &["show", "n", "--color", "never"]);
    expect_code("show", &got, 2);
    assert!(got.stderr.contains("[main.tf:1:"), "{}", got.shown());
    // In JSON a CR is whitespace: the override applies.
    s.write("j/main.tf", DB_MAIN);
    s.write(
        "j/override.tf.json",
        "{\r\"resource\": {\r\"aws_db_instance\": {\"main\": {\"lifecycle\": {\r\"prevent_destroy\": false}}}}}\r",
    );
    let got = og(&s, &["audit", "j", "--format", "compact"]);
    expect_code("audit json", &got, 1);
    assert!(got.stdout.contains(WEAKENED), "{}", got.shown());
}

/// Takes ~7 s alone (~17 s beside the rest of the suite) in a debug build.
#[test]
fn a_ten_megabyte_line_gives_the_correct_result() {
    let s = sandbox();
    let main = format!(
        "resource \"aws_db_instance\" \"main\" {{\n  big = \"{}\"\n  lifecycle {{\n    prevent_destroy = true\n  }}\n}}\n",
        "x".repeat(10 * 1024 * 1024)
    );
    s.write("m/main.tf", &main);
    let main_len = main.len();
    drop(main);
    s.write("m/override.tf", WEAKEN);
    let got = og(&s, &["audit", "m", "--format", "compact"]);
    expect_code("audit", &got, 1);
    assert!(got.stdout.contains(&format!("m/override.tf:3:5: {WEAKENED}")), "{}", got.shown());
    assert_rss_within("audit of a 10 MB line", &got, (main_len + WEAKEN.len()) as u64);
}

// ---------------------------------------------------------------------------------------
// 4. The file system.

#[test]
fn symbolic_link_loops_end_with_an_error_or_are_skipped() {
    let s = sandbox();
    s.write("m/main.tf", DB_MAIN);
    std::os::unix::fs::symlink("..", s.path("m/up")).expect("ln");
    std::os::unix::fs::symlink("../m", s.path("m/again")).expect("ln");
    std::os::unix::fs::symlink("self", s.path("m/self")).expect("ln");
    committed(&s);
    // Directory loops are not walked: one module, clean.
    let got = og(&s, &["audit", "--format", "compact"]);
    expect_code("audit", &got, 0);
    assert!(
        got.stdout.ends_with(
            "1 module, 1 file, 0 override files: 0 errors, 0 warnings (built-in default policy)\n"
        ),
        "{}",
        got.shown()
    );
    // A configuration file that is a loop of links cannot be read: its module fails, as
    // Terraform's loader does, with the reason.
    std::os::unix::fs::symlink("b.tf", s.path("m/a.tf")).expect("ln");
    std::os::unix::fs::symlink("a.tf", s.path("m/b.tf")).expect("ln");
    let got = og(&s, &["audit", "--format", "compact"]);
    expect_code("audit", &got, 1);
    assert!(
        got.stdout.lines().any(|l| l == "m/a.tf:1:1: error[merge-error]: Failed to read file: The file \"a.tf\" could not be read. Symbolic link that cannot be followed: Too many levels of symbolic links (os error 40)."),
        "{}",
        got.shown()
    );
    let got = og(&s, &["show", "m"]);
    expect_code("show", &got, 2);
    assert!(got.stderr.contains("Failed to read file (a.tf:1:1)"), "{}", got.shown());
    assert!(got.stderr.contains("Too many levels of symbolic links"), "{}", got.shown());
}

#[test]
fn an_io_error_names_the_file_as_findings_do() {
    let s = sandbox();
    s.write("sub/m/main.tf", DB_MAIN);
    std::os::unix::fs::symlink("b.tf", s.path("sub/m/a.tf")).expect("ln");
    std::os::unix::fs::symlink("a.tf", s.path("sub/m/b.tf")).expect("ln");
    s.write("sub/n/main.tf", DB_MAIN);
    s.write("sub/n/override.tf", WEAKEN);
    let got = og(&s, &["audit", "sub", "--format", "compact"]);
    expect_code("audit", &got, 1);
    assert!(got.stdout.contains("sub/m/a.tf:1:1: error[merge-error]: "), "{}", got.shown());
    // The other module is judged all the same.
    assert!(got.stdout.contains(&format!("sub/n/override.tf:3:5: {WEAKENED}")), "{}", got.shown());
}

/// A link out of the repository is not followed (SECURITY.md), so a link to an endless
/// device cannot make a run read forever; it is named in a note.
#[test]
fn a_link_to_an_endless_device_is_not_read() {
    let s = sandbox();
    s.write("m/main.tf", DB_MAIN);
    std::os::unix::fs::symlink("/dev/zero", s.path("m/zero_override.tf")).expect("ln");
    for args in [&["audit", "--format", "compact"][..], &["show", "m"]] {
        let got = og(&s, args);
        expect_code(&format!("{args:?}"), &got, 0);
        assert!(got.max_rss_kib < 256 * 1024, "{}", got.shown());
        assert!(got.stderr.contains("zero_override.tf: symbolic link"), "{}", got.shown());
    }
}

#[test]
fn a_link_to_a_fifo_does_not_hang() {
    let s = sandbox();
    s.write("m/main.tf", DB_MAIN);
    let fifo = std::ffi::CString::new(s.path("m/fifo").as_os_str().as_bytes()).expect("path");
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0, "mkfifo");
    std::os::unix::fs::symlink("fifo", s.path("m/pipe_override.tf")).expect("ln");
    for args in [&["audit", "--format", "compact"][..], &["show", "m"]] {
        let got = og(&s, args);
        assert_sane(&format!("{args:?}"), &got);
        assert!(got.all().contains("pipe_override.tf"), "{}", got.shown());
    }
}

/// Terraform reads a directory's entries as bytes: `\xff_override.tf` is an override file
/// like any other. Skipping it silently reports a weakened safeguard as clean.
#[test]
fn a_file_name_that_is_not_utf8_is_not_skipped_silently() {
    let s = sandbox();
    s.write("m/main.tf", DB_MAIN);
    write_raw(&s, b"m/\xff_override.tf", WEAKEN.as_bytes());
    for args in [&["audit", "--format", "compact"][..], &["show", "m"]] {
        let got = og(&s, args);
        assert_sane(&format!("{args:?}"), &got);
        assert!(matches!(got.code, Some(1 | 2)), "{args:?}: judged clean\n{}", got.shown());
        assert!(got.all().contains("_override.tf"), "{}", got.shown());
    }
}

#[test]
fn a_directory_name_that_is_not_utf8_is_not_skipped_silently() {
    let s = sandbox();
    write_raw(&s, b"\xff/main.tf", DB_MAIN.as_bytes());
    write_raw(&s, b"\xff/override.tf", WEAKEN.as_bytes());
    let got = og(&s, &["audit", "--format", "compact"]);
    assert_sane("audit", &got);
    assert!(matches!(got.code, Some(1 | 2)), "judged clean\n{}", got.shown());
    assert!(!got.stdout.contains("0 modules"), "{}", got.shown());
}

// ---------------------------------------------------------------------------------------
// 5. Damaged git repositories.

/// A repository with `db/main.tf` committed and the weakening `db/override.tf` staged.
fn staged_weakening() -> Sandbox {
    let s = sandbox();
    s.commit(&[("db/main.tf", DB_MAIN)], "db");
    s.stage(&[("db/override.tf", WEAKEN)]);
    s
}

/// The commands that read the index.
const INDEX_READERS: &[&[&str]] = &[
    &["check", "--format", "compact"],
    &["audit", "--staged", "--format", "compact"],
    &["show", "db", "--staged"],
    &["diff"],
];

#[test]
fn unmerged_index_entries_are_an_error_naming_the_path() {
    let s = sandbox();
    s.commit(&[("db/main.tf", DB_MAIN)], "base");
    s.git(&["checkout", "-q", "-b", "side"]);
    s.commit(&[("db/main.tf", &DB_MAIN.replace("true", "false"))], "side");
    s.git(&["checkout", "-q", "main"]);
    s.commit(&[("db/main.tf", &DB_MAIN.replace("true", "null"))], "main");
    assert!(!s.git_status(&["merge", "-q", "side"]), "the merge should conflict");
    for args in INDEX_READERS.iter().chain([&["diff", "--worktree"][..]].iter()) {
        let got = og(&s, args);
        expect_code(&format!("{args:?}"), &got, 2);
        assert!(got.stderr.contains("db/main.tf: unmerged"), "{args:?}\n{}", got.shown());
    }
}

/// A way to damage the bytes of an index.
type IndexEdit = Box<dyn Fn(&mut Vec<u8>)>;

/// Rewrites `.git/index` with `edit` applied to its bytes.
fn damage_index(s: &Sandbox, good: &[u8], edit: impl Fn(&mut Vec<u8>)) {
    let mut b = good.to_vec();
    edit(&mut b);
    std::fs::write(s.path(".git/index"), b).expect("write index");
}

#[test]
fn a_corrupt_index_is_an_error_naming_it() {
    let s = staged_weakening();
    let good = std::fs::read(s.path(".git/index")).expect("index");
    // With a null trailing checksum git (index.skipHash) and gix skip the verification,
    // so the damage reaches the entry parser.
    let unverified = |b: &mut Vec<u8>| {
        let n = b.len();
        b[n - 20..].fill(0);
    };
    let path_at = |b: &[u8]| b.windows(10).position(|w| w == b"db/main.tf").expect("entry");
    let cases: Vec<(&str, IndexEdit)> = vec![
        ("truncated", Box::new(|b| b.truncate(50))),
        ("empty", Box::new(|b| b.clear())),
        ("a flipped byte", Box::new(|b| b[40] ^= 0xff)),
        (
            "a flipped checksum",
            Box::new(|b| {
                let n = b.len();
                b[n - 5] ^= 0xff;
            }),
        ),
        (
            "an unknown version",
            Box::new(move |b| {
                b[4..8].copy_from_slice(&9u32.to_be_bytes());
                unverified(b);
            }),
        ),
        (
            "too many entries",
            Box::new(move |b| {
                b[8..12].copy_from_slice(&u32::MAX.to_be_bytes());
                unverified(b);
            }),
        ),
        (
            "a name running past the end",
            Box::new(move |b| {
                let at = path_at(b);
                b[at - 2..at].copy_from_slice(&0x0fffu16.to_be_bytes());
                unverified(b);
            }),
        ),
    ];
    for (what, edit) in &cases {
        damage_index(&s, &good, edit);
        for args in INDEX_READERS {
            let got = og(&s, args);
            expect_code(&format!("{what}: {args:?}"), &got, 2);
            assert!(got.stderr.contains(".git/index"), "{what}: {args:?}\n{}", got.shown());
        }
    }
}

/// The loose object file of `id`.
fn object_path(s: &Sandbox, id: &str) -> std::path::PathBuf {
    s.path(&format!(".git/objects/{}/{}", &id[..2], &id[2..]))
}

#[test]
fn a_missing_or_corrupt_object_is_an_error_naming_the_path() {
    let s = staged_weakening();
    let id = s.git(&["rev-parse", ":db/override.tf"]).trim().to_string();
    let object = object_path(&s, &id);
    let good = std::fs::read(&object).expect("loose object");
    std::fs::remove_file(&object).expect("rm");
    for args in INDEX_READERS {
        let got = og(&s, args);
        expect_code(&format!("missing: {args:?}"), &got, 2);
        assert!(got.stderr.contains("override.tf"), "{args:?}\n{}", got.shown());
        assert!(got.stderr.contains(&id), "{args:?}\n{}", got.shown());
    }
    // The object is there but its zlib stream is damaged.
    let mut bad = good.clone();
    let mid = bad.len() / 2;
    bad[mid] ^= 0xff;
    std::fs::write(&object, bad).expect("write");
    for args in INDEX_READERS {
        let got = og(&s, args);
        expect_code(&format!("corrupt: {args:?}"), &got, 2);
        assert!(got.stderr.contains("override.tf"), "{args:?}\n{}", got.shown());
    }
    // HEAD's tree gone: the hook compares HEAD with the index, so it cannot judge.
    std::fs::write(&object, good).expect("write");
    let tree = s.git(&["rev-parse", "HEAD^{tree}"]).trim().to_string();
    std::fs::remove_file(object_path(&s, &tree)).expect("rm");
    for args in [&["check"][..], &["diff"], &["audit", "--rev", "HEAD"]] {
        let got = og(&s, args);
        expect_code(&format!("no tree: {args:?}"), &got, 2);
        assert!(got.stderr.contains(&tree), "{args:?}\n{}", got.shown());
    }
}

#[test]
fn a_staged_file_name_that_is_not_utf8_is_not_skipped_silently() {
    let s = sandbox();
    s.commit(&[("db/main.tf", DB_MAIN)], "db");
    write_raw(&s, b"db/\xff_override.tf", WEAKEN.as_bytes());
    s.git(&["add", "-A"]);
    for args in
        [&["check", "--format", "compact"][..], &["audit", "--staged", "--format", "compact"]]
    {
        let got = og(&s, args);
        assert_sane(&format!("{args:?}"), &got);
        assert!(matches!(got.code, Some(1 | 2)), "{args:?}: judged clean\n{}", got.shown());
        assert!(got.all().contains("_override.tf"), "{}", got.shown());
    }
}

/// Each nested expression keeps its source text; when each level copied it, 1 MiB of
/// strings nested 900 levels deep took 1.9 GB and 4 s (found while profiling, missed by
/// the linear fuzz target, whose repeated units do not nest).
#[test]
fn deeply_nested_values_are_not_copied_per_level() {
    let s = sandbox();
    let depth = 900;
    let items = vec![format!("\"{}\"", "a".repeat(50)); 20_000].join(", ");
    let value = format!("{}{items}{}", "[".repeat(depth), "]".repeat(depth));
    s.write("deep/main.tf", format!("locals {{\n  x = {value}\n}}\n"));
    let got = og(&s, &["audit", "deep", "--format", "compact"]);
    expect_code("deep", &got, 0);
}

// ---------------------------------------------------------------------------------------
// Files a module cannot read: that module fails, as Terraform's loader fails it; every
// other module is judged and the run ends with its report (exit 1, not 2).

/// A link whose target the user creates later (terraform-example-foundation ships 32
/// such `*.auto.tfvars`), a dangling `.tf` link, and a healthy module beside them: in the
/// worktree, the index (`--staged`, the hook) and a revision alike.
#[test]
fn a_dangling_link_fails_its_module_only() {
    let s = sandbox();
    s.write("bad/main.tf", DB_MAIN);
    std::os::unix::fs::symlink("../shared/common.tf", s.path("bad/common.tf")).expect("ln");
    s.write("vars/main.tf", "variable \"n\" {\n  default = 1\n}\n");
    std::os::unix::fs::symlink("../secret/access.auto.tfvars", s.path("vars/access.auto.tfvars"))
        .expect("ln");
    // Terraform looks terraform.tfvars up by name and skips it when it cannot find it.
    std::os::unix::fs::symlink("nowhere.tfvars", s.path("vars/terraform.tfvars")).expect("ln");
    s.write("good/main.tf", DB_MAIN);
    s.write("good/override.tf", WEAKEN);
    committed(&s);
    let worktree = [
        "bad/common.tf:1:1: error[merge-error]: Failed to read file: The file \"common.tf\" could not be read. Symbolic link to ../shared/common.tf, which does not exist.",
        "vars/access.auto.tfvars:1:1: error[merge-error]: Failed to read variables file: Given variables file access.auto.tfvars does not exist.",
    ];
    let index = [
        "bad/common.tf:1:1: error[merge-error]: Failed to read file: The file \"common.tf\" could not be read. Symbolic link to a path the repository does not have.",
        "vars/access.auto.tfvars:1:1: error[merge-error]: Failed to read variables file: Given variables file access.auto.tfvars does not exist.",
    ];
    let good = format!("good/override.tf:3:5: {WEAKENED}");
    s.git(&["commit", "-q", "-m", "links"]);
    for (args, expected) in [
        (&["audit", "--format", "compact"][..], worktree),
        (&["audit", "--staged", "--format", "compact"], index),
        (&["audit", "--rev", "HEAD", "--format", "compact"], index),
        (&["check", "--format", "compact", "bad/common.tf", "vars/main.tf", "good/main.tf"], index),
    ] {
        let got = og(&s, args);
        expect_code(&format!("{args:?}"), &got, 1);
        for line in expected.iter().copied().chain([good.as_str()]) {
            assert!(got.stdout.lines().any(|l| l == line), "{args:?}: no {line}\n{}", got.shown());
        }
        assert!(got.stdout.contains("3 modules,"), "{args:?}: {}", got.shown());
        assert!(!got.stderr.contains("not read"), "{args:?}: {}", got.shown());
    }
    // The commands of one module say the same, with Terraform's exit.
    let got = og(&s, &["show", "bad"]);
    expect_code("show", &got, 2);
    assert!(got.stderr.contains("Failed to read file (common.tf:1:1)"), "{}", got.shown());
    let got = og(&s, &["vars", "vars"]);
    expect_code("vars", &got, 2);
    assert!(
        got.stdout.contains("Given variables file access.auto.tfvars does not exist."),
        "{}",
        got.shown()
    );
    assert!(!got.all().contains("terraform.tfvars"), "{}", got.shown());
}

/// A binary file saved with a `.tf` name: one error, not thousands.
#[test]
fn a_binary_file_is_one_error() {
    let s = sandbox();
    let mut bytes: Vec<u8> = (0..=255u8).cycle().take(6000).collect();
    bytes.extend_from_slice(b"\0\x7fELF\x02\x01");
    s.write("m/main.tf", DB_MAIN);
    s.write("m/blob.tf", &bytes);
    s.write("n/main.tf", DB_MAIN);
    s.write("n/override.tf", WEAKEN);
    committed(&s);
    let got = og(&s, &["audit", "--format", "compact"]);
    expect_code("audit", &got, 1);
    let errors: Vec<&str> = got.stdout.lines().filter(|l| l.starts_with("m/blob.tf:")).collect();
    assert_eq!(errors.len(), 1, "{}", got.shown());
    assert!(
        errors[0].contains("This looks like a binary file (it is not UTF-8 and holds NUL bytes)"),
        "{}",
        got.shown()
    );
    assert!(got.stdout.contains(&format!("n/override.tf:3:5: {WEAKENED}")), "{}", got.shown());
}

/// A binary file without NUL bytes (an executable's first bytes with its NULs taken out)
/// is one error too, Terraform's first, naming the file and line; Terraform 1.15.5 gives
/// 19 for these 96 bytes (tests/fixtures/syntax/594-binary-file-without-nul). A file in
/// Latin-1 keeps Terraform's two errors, and every other module is judged.
#[test]
fn a_binary_file_without_nul_bytes_is_one_error() {
    let s = sandbox();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let fixture = root.join("tests/fixtures/syntax/594-binary-file-without-nul/main.tf");
    s.write("m/main.tf", DB_MAIN);
    s.write("m/x.tf", std::fs::read(fixture).expect("the fixture"));
    s.write("l/main.tf", b"locals {\n  a = \"caf\xe9\"\n}\n");
    s.write("n/main.tf", DB_MAIN);
    s.write("n/override.tf", WEAKEN);
    committed(&s);
    let got = og(&s, &["audit", "--format", "compact"]);
    expect_code("audit", &got, 1);
    let errors: Vec<&str> = got.stdout.lines().filter(|l| l.starts_with("m/x.tf:")).collect();
    assert_eq!(
        errors,
        [
            "m/x.tf:1:1: error[merge-error]: Invalid character: This character is not used within the language. This looks like a binary file (it is not UTF-8 and holds control characters): its 7 other errors are not shown."
        ],
        "{}",
        got.shown()
    );
    let latin1: Vec<&str> = got.stdout.lines().filter(|l| l.starts_with("l/main.tf:")).collect();
    assert_eq!(
        latin1,
        [
            "l/main.tf:2:11: error[merge-error]: Invalid character encoding: All input files must be UTF-8 encoded. Ensure that UTF-8 encoding is selected in your editor.",
            "l/main.tf:2:11: error[merge-error]: Unterminated template string: No closing marker was found for the string.",
        ],
        "{}",
        got.shown()
    );
    assert!(got.stdout.contains(&format!("n/override.tf:3:5: {WEAKENED}")), "{}", got.shown());
}

/// A `*.auto.tfvars` that cannot be read, each way Terraform 1.15.5 was seen to word it
/// (`terraform plan`): a link loop, a link to a directory, a directory with such a name.
#[test]
fn variables_files_that_cannot_be_read_say_what_terraform_says() {
    let s = sandbox();
    s.write("v/main.tf", "variable \"a\" {\n  default = 1\n}\n");
    std::os::unix::fs::symlink("loop.auto.tfvars", s.path("v/loop.auto.tfvars")).expect("ln");
    std::fs::create_dir_all(s.path("v/z.auto.tfvars")).expect("mkdir");
    std::fs::create_dir_all(s.path("v/d")).expect("mkdir");
    std::os::unix::fs::symlink("d", s.path("v/y.auto.tfvars")).expect("ln");
    committed(&s);
    let got = og(&s, &["audit", "--format", "compact"]);
    expect_code("audit", &got, 1);
    for line in [
        "v/loop.auto.tfvars:1:1: error[merge-error]: Failed to read variables file: Error while reading loop.auto.tfvars: open loop.auto.tfvars: too many levels of symbolic links.",
        "v/y.auto.tfvars:1:1: error[merge-error]: Failed to read variables file: Error while reading y.auto.tfvars: read y.auto.tfvars: is a directory.",
        "v/z.auto.tfvars:1:1: error[merge-error]: Failed to read variables file: Error while reading z.auto.tfvars: read z.auto.tfvars: is a directory.",
    ] {
        assert!(got.stdout.lines().any(|l| l == line), "no {line}\n{}", got.shown());
    }
}
