//! `terraform fmt`, reproduced: every `tests/fixtures/fmt/<case>/` holds an `input.tf` and
//! the `expected.tf` real Terraform 1.15.5's `fmt` made of it. Our formatter must write
//! exactly that, and leave it unchanged.

use override_guard_hcl::fmt::{
    Standing, format, is_formatted, is_formatted_valid, lay_out, standing,
};
use override_guard_hcl::scan::{Mode, scan};

use std::path::Path;

use crate::fixture::fixtures;
use crate::{per_case, whole};

/// Every check of the suite, one test per case.
pub fn trials() -> Vec<libtest_mimic::Trial> {
    let mut out = vec![whole("fmt", "count", || {
        assert!(fixtures("fmt").len() >= 10, "at least 10 fmt fixtures");
    })];
    out.extend(per_case("fmt", "agrees-with-terraform", fixtures("fmt"), agrees_with_terraform));
    out.push(whole("fmt", "corpus-agrees-with-terraform", corpus_agrees_with_terraform));
    out.push(whole("fmt", "the-quick-check-agrees", the_quick_check_agrees));
    out.push(whole(
        "fmt",
        "comment-lines-need-only-the-layout",
        comment_lines_need_only_the_layout,
    ));
    out
}

/// `is_formatted_valid` (which tells most texts that are not canonical by their layout,
/// without parsing them) answers as `is_formatted` does, on every native-syntax file of
/// every fixture that parses, on its canonical form, and on both with Terraform's own
/// rewrites to make (`"${x}"` and a legacy type) or with a space out of place.
fn the_quick_check_agrees() {
    let texts = fixture_texts();
    on_a_big_stack(move || agree_on(texts));
}

/// Runs `f` on a thread with room for the fixtures that nest thousands deep (more than a
/// debug build's default stack takes).
fn on_a_big_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(512 << 20)
        .spawn(f)
        .expect("a thread")
        .join()
        .expect("no failure");
}

/// Every native-syntax file of the fixtures, with its text.
fn fixture_texts() -> Vec<(std::path::PathBuf, String)> {
    fn walk(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
        for e in std::fs::read_dir(dir).expect("a fixture folder") {
            let p = e.expect("an entry").path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "tf") {
                out.push(p);
            }
        }
    }
    let mut files = Vec::new();
    walk(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures"), &mut files);
    files.sort();
    files.into_iter().filter_map(|p| std::fs::read_to_string(&p).ok().map(|t| (p, t))).collect()
}

/// What `fix` does to a canonical file with nothing for `fmt`'s rewrites to do: comment
/// lines above items, at their indentation. `lay_out` (no parse) must then write what
/// `format` writes, on every such file of the fixtures (and on their canonical forms),
/// with a comment above every line that opens a block, or above every other line.
fn comment_lines_need_only_the_layout() {
    let texts = fixture_texts();
    on_a_big_stack(move || {
        let mut checked = 0;
        for (p, text) in texts {
            let Some(formatted) = format(&text) else { continue };
            for t in [&text, &formatted] {
                if standing(t, &scan(t.as_bytes(), Mode::Normal)) != Standing::Plain {
                    continue;
                }
                for every in [true, false] {
                    let mut edited = String::new();
                    for (i, line) in t.split_inclusive('\n').enumerate() {
                        let code = line.trim();
                        let opens = code.ends_with('{') && !code.starts_with('#');
                        if opens || every && i % 2 == 1 && !code.is_empty() {
                            let indent = &line[..line.len() - line.trim_start().len()];
                            edited.push_str(&format!("{indent}# overridden by override.tf\n"));
                        }
                        edited.push_str(line);
                    }
                    // Inside a heredoc or a multi-line string the "comment" is text:
                    // such an edit is not one `fix` makes.
                    if !override_guard_hcl::code::same_code(t, &edited) {
                        continue;
                    }
                    assert_eq!(Some(lay_out(&edited)), format(&edited), "{}", p.display());
                    checked += 1;
                }
            }
        }
        assert!(checked > 300, "{checked} edits checked");
    });
}

fn agree_on(files: Vec<(std::path::PathBuf, String)>) {
    let (mut texts, mut canonical, mut not) = (0, 0, 0);
    for (p, text) in files {
        let Some(formatted) = format(&text) else { continue };
        let rewrite = format!("{formatted}\nlocals {{\n  a = \"${{b}}\"\n}}\n");
        let legacy = format!("{formatted}\nvariable \"v\" {{\n  type = \"string\"\n}}\n");
        let misplaced = formatted.replacen(" = ", "  = ", 1);
        for t in [&text, &formatted, &rewrite, &legacy, &misplaced] {
            let want = is_formatted(t);
            assert_eq!(is_formatted_valid(t), want, "{}:\n{t}", p.display());
            texts += 1;
            if want { canonical += 1 } else { not += 1 }
        }
    }
    assert!(texts > 1000 && canonical > 300 && not > 300, "{texts} {canonical} {not}");
}

/// `format(input.tf)` is `expected.tf`, and `expected.tf` is a fixed point.
fn agrees_with_terraform(case: &Path) {
    let input = std::fs::read_to_string(case.join("input.tf")).expect("input.tf");
    let expected = std::fs::read_to_string(case.join("expected.tf")).expect("expected.tf");
    let got = format(&input);
    assert!(
        got.as_deref() == Some(expected.as_str()),
        "--- ours\n{}\n--- terraform\n{expected}",
        got.unwrap_or_default()
    );
    assert_eq!(
        format(&expected).as_deref(),
        Some(expected.as_str()),
        "the expected text is not a fixed point"
    );
}

/// A differential run over a larger corpus, when one is at hand: `ORIG/` and `FMT/`
/// folders with the same file names, `FMT/` written by `terraform fmt`.
fn corpus_agrees_with_terraform() {
    let Ok(root) = std::env::var("OVERRIDE_GUARD_FMT_CORPUS") else { return };
    let root = std::path::Path::new(&root);
    let (orig, want) = (root.join("orig"), root.join("fmt"));
    let mut names: Vec<_> =
        std::fs::read_dir(&orig).expect("orig/").map(|e| e.expect("entry").file_name()).collect();
    names.sort();
    let (mut same, mut bad) = (0, Vec::new());
    for n in &names {
        let (Ok(input), Ok(expected)) =
            (std::fs::read_to_string(orig.join(n)), std::fs::read_to_string(want.join(n)))
        else {
            continue;
        };
        match format(&input) {
            Some(got) if got == expected => same += 1,
            None if input == expected => same += 1,
            got => {
                // Ours beside Terraform's, to compare with `diff -r`.
                if let Ok(out) = std::env::var("OVERRIDE_GUARD_FMT_OUT") {
                    let _ = std::fs::create_dir_all(&out);
                    let _ =
                        std::fs::write(std::path::Path::new(&out).join(n), got.unwrap_or(input));
                }
                bad.push(n.to_string_lossy().into_owned())
            }
        }
    }
    eprintln!("{same} of {} files formatted as Terraform formats them", names.len());
    assert!(
        bad.is_empty(),
        "{} differ: {}",
        bad.len(),
        bad.iter().take(40).cloned().collect::<Vec<_>>().join(" ")
    );
}
