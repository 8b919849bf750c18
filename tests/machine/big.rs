//! Big inputs: tens of megabytes, a hundred thousand attributes, ten thousand override
//! files, megabytes of unclosed openers. Each takes seconds to a minute of a debug build,
//! so they run where `OVERRIDE_GUARD_SLOW_TESTS` is set (as `.ci/run` does) and are
//! reported ignored elsewhere. Memory and time are bounded as the child used them, with
//! headroom (see `measure.rs`), and the results must be exact.

use std::fmt::Write as _;
use std::time::Duration;

use crate::measure::*;
use crate::shapes;

/// One resource block of the big file: 12 lines, so block `n` starts at line `12n + 1`.
pub fn big_block(out: &mut impl std::io::Write, n: usize) -> usize {
    let block = format!(
        "resource \"aws_instance\" \"r{n}\" {{\n  ami           = \"ami-0123456789abcdef0\"\n  instance_type = \"t3.micro\"\n  tags = {{\n    Name = \"instance-{n}\"\n    Team = \"platform\"\n  }}\n  lifecycle {{\n    prevent_destroy = true\n  }}\n}}\n\n"
    );
    out.write_all(block.as_bytes()).expect("write");
    block.len()
}

/// Takes ~7 s alone and 0.8 GiB in a debug build (45 s and 2 GiB before the tokens, the
/// syntax tree and the model were no longer held at once), under 2 s in release.
pub fn a_fifty_megabyte_file_gives_the_correct_result() {
    let s = sandbox();
    s.write("big/main.tf", "");
    // Streamed to disk, so the test process stays small (see `Measured::inherited_kib`).
    let mut file =
        std::io::BufWriter::new(std::fs::File::create(s.path("big/main.tf")).expect("create"));
    let (mut blocks, mut size) = (0, 0);
    while size < 50 * 1024 * 1024 {
        size += big_block(&mut file, blocks);
        blocks += 1;
    }
    std::io::Write::flush(&mut file).expect("flush");
    drop(file);
    let last = blocks - 1;
    let over = format!(
        "resource \"aws_instance\" \"r{last}\" {{\n  lifecycle {{\n    prevent_destroy = false\n  }}\n}}\n"
    );
    let input = (size + over.len()) as u64;
    s.write("big/override.tf", &over);
    committed(&s);
    let got = og(&s, &["audit", "big", "--format", "compact"]);
    expect_code("audit of 50 MB", &got, 1);
    let lines: Vec<&str> = got.stdout.lines().collect();
    assert_eq!(
        lines,
        [
            format!(
                "big/main.tf:{}:1: warning[missing-override-comment]: resource.aws_instance.r{last} is changed by override.tf, but no comment above it names override.tf",
                12 * last + 1
            ),
            format!(
                "big/override.tf:3:5: error[weakened-safeguard]: resource.aws_instance.r{last}: prevent_destroy is turned off"
            ),
            "1 module, 2 files, 1 override file: 1 error, 1 warning (built-in default policy)"
                .to_string(),
        ],
        "{}",
        got.shown()
    );
    assert_rss_within("audit of 50 MB", &got, input);
}

/// `resource` with 100,000 attributes and a lifecycle block.
pub fn hundred_thousand_attributes() -> String {
    let mut t = String::from("resource \"aws_instance\" \"web\" {\n");
    for k in 0..100_000 {
        let _ = writeln!(t, "  a{k} = {k}");
    }
    t.push_str("  lifecycle {\n    prevent_destroy = true\n  }\n}\n");
    t
}

pub fn a_hundred_thousand_attributes_in_one_block() {
    let s = sandbox();
    let main = hundred_thousand_attributes();
    let over = "resource \"aws_instance\" \"web\" {\n  a99999 = \"changed\"\n  lifecycle {\n    prevent_destroy = false\n  }\n}\n";
    s.write("wide/main.tf", &main);
    s.write("wide/override.tf", over);
    let input = (main.len() + over.len()) as u64;
    committed(&s);
    let got = og(&s, &["audit", "wide", "--format", "compact"]);
    expect_code("audit", &got, 1);
    assert!(
        got.stdout.lines().any(|l| l == "wide/override.tf:4:5: error[weakened-safeguard]: resource.aws_instance.web: prevent_destroy is turned off"),
        "{}",
        got.shown()
    );
    assert!(
        got.stdout.ends_with(
            "1 module, 2 files, 1 override file: 1 error, 1 warning (built-in default policy)\n"
        ),
        "{}",
        got.shown()
    );
    assert_rss_within("audit of 100,000 attributes", &got, input);
    let got = og(&s, &["show", "wide"]);
    expect_code("show", &got, 0);
    assert!(
        got.stdout.lines().any(|l| l.starts_with("  a0 ") && l.ends_with(" = 0")),
        "{}",
        got.shown()
    );
    assert!(
        got.stdout.contains("\n  a99998 = 99998\n  a99999 = \"changed\" # ← override.tf:2\n"),
        "{}",
        got.shown()
    );
    assert_rss_within("show of 100,000 attributes", &got, input);
}

/// Merging is a lookup per override attribute: 100,000 over 100,000 should take about
/// as long as reading them (~2 s of CPU in a debug build), not minutes.
const LINEAR_MERGE_BUDGET: Duration = Duration::from_secs(30);

pub fn overriding_a_hundred_thousand_attributes_takes_linear_time() {
    let s = sandbox();
    s.write("wide/main.tf", hundred_thousand_attributes());
    let mut over = String::from("resource \"aws_instance\" \"web\" {\n");
    for k in 0..100_000 {
        let _ = writeln!(over, "  a{k} = \"o{k}\"");
    }
    over.push_str("}\n");
    s.write("wide/override.tf", &over);
    let got = og(&s, &["show", "wide"]);
    expect_code("show", &got, 0);
    assert_cpu_within("show of 100,000 overridden attributes", &got, LINEAR_MERGE_BUDGET);
    assert!(
        got.stdout.contains("  a99999 = \"o99999\" # ← override.tf:100001\n"),
        "{}",
        got.shown()
    );
}

pub fn audit_time_is_linear_in_the_findings() {
    let s = sandbox();
    let (mut main, mut over) = (String::new(), String::new());
    for k in 0..20_000 {
        let _ = write!(
            main,
            "resource \"aws_instance\" \"r{k}\" {{\n  instance_type = \"t3.micro\"\n}}\n"
        );
        let _ =
            write!(over, "resource \"aws_instance\" \"r{k}\" {{\n  instance_type = \"m{k}\"\n}}\n");
    }
    s.write("many/main.tf", main);
    s.write("many/override.tf", over);
    committed(&s);
    let show = og(&s, &["show", "many"]);
    expect_code("show", &show, 0);
    // Judging 20,000 warnings may cost a few times the merge and rendering, not 15 times.
    let budget = show.cpu * 3 + Duration::from_secs(5);
    let got = og(&s, &["audit", "many", "--format", "compact"]);
    expect_code("audit", &got, 0);
    assert_cpu_within("audit of 20,000 findings", &got, budget);
    assert!(
        got.stdout.ends_with("0 errors, 20000 warnings (built-in default policy)\n"),
        "{}",
        got.shown()
    );
}

pub fn ten_thousand_override_files() {
    let s = sandbox();
    let main = "resource \"aws_instance\" \"web\" {\n  instance_type = \"t3.micro\"\n  lifecycle {\n    prevent_destroy = true\n  }\n}\n";
    s.write("many/main.tf", main);
    let mut input = main.len() as u64;
    for k in 1..=10_000 {
        let text = if k == 5000 {
            "resource \"aws_instance\" \"web\" {\n  instance_type = \"m5000\"\n  lifecycle {\n    prevent_destroy = false\n  }\n}\n".to_string()
        } else {
            format!("resource \"aws_instance\" \"web\" {{\n  instance_type = \"m{k}\"\n}}\n")
        };
        input += text.len() as u64;
        s.write(&format!("many/o{k}_override.tf"), text);
    }
    committed(&s);
    let got = og(&s, &["audit", "many", "--format", "compact"]);
    expect_code("audit", &got, 1);
    assert!(
        got.stdout.lines().any(|l| l == "many/o5000_override.tf:4:5: error[weakened-safeguard]: resource.aws_instance.web: prevent_destroy is turned off"),
        "{}",
        got.shown()
    );
    // Only the files whose values survive are named: `o9` (it sorts last) and `o5000` (the
    // lifecycle); the 9,998 others are replaced by later files and change nothing.
    for file in ["o5000_override.tf", "o9_override.tf"] {
        let line = format!(
            "many/main.tf:1:1: warning[missing-override-comment]: resource.aws_instance.web is changed by {file}, but no comment above it names {file}"
        );
        assert!(got.stdout.lines().any(|l| l == line), "{}", got.shown());
    }
    assert!(
        got.stdout.ends_with("1 module, 10001 files, 10000 override files: 1 error, 2 warnings (built-in default policy)\n"),
        "{}",
        got.shown()
    );
    assert_rss_within("audit of 10,000 override files", &got, input);
    // Files merge in name order: `o9_override.tf` sorts last, `o5000` set the lifecycle.
    let got = og(&s, &["show", "many"]);
    expect_code("show", &got, 0);
    assert!(
        got.stdout.contains("  instance_type = \"m9\" # ← o9_override.tf:2\n"),
        "{}",
        got.shown()
    );
    assert!(
        got.stdout.contains("    prevent_destroy = false # ← o5000_override.tf:4\n"),
        "{}",
        got.shown()
    );
    assert_rss_within("show of 10,000 override files", &got, input);
}

/// Shapes that once made the reader rescan what it had read (found by the `linear` fuzz
/// target): each unclosed `/*` searched the rest of the file for a `*/`, and each message
/// naming an earlier place counted the lines and columns from the file's start. Megabytes of them
/// are read in linear time and refused with a syntax error.
/// CPU time for reading 4 MiB of one shape: a second or two in a debug build; the
/// quadratic paths took 9 s for 128 KiB.
const UNCLOSED_BUDGET: Duration = Duration::from_secs(60);

pub fn many_unclosed_openers_are_read_in_linear_time() {
    let s = sandbox();
    let size = 4 * 1024 * 1024;
    let shapes = [
        ("comments", "4/*0"),
        ("strings", "x = \"${\n"),
        ("parens", "x = (\n"),
        // Each "Attribute redefined" names the first definition's line and column.
        ("accents", "locals {\n  e\u{301} = 1\n  e\u{301} = 2\n}\n"),
    ];
    for (dir, unit) in shapes {
        s.write(&format!("{dir}/main.tf"), unit.repeat(size / unit.len()));
    }
    for (dir, _) in shapes {
        let got = og(&s, &["audit", dir, "--format", "compact"]);
        expect_code(dir, &got, 1);
        assert_cpu_within(dir, &got, UNCLOSED_BUDGET);
        assert!(got.stdout.contains(&format!("{dir}/main.tf:")), "{}", got.shown());
    }
    // Drawn for people, each of a file's thousands of findings reads only its own lines
    // (it once copied and scanned the whole file: 1 MiB of them took 400 s).
    s.write("drawn/main.tf", shapes[3].1.repeat((1 << 20) / shapes[3].1.len()));
    let got = og(&s, &["audit", "drawn", "--format", "human"]);
    expect_code("drawn", &got, 1);
    assert_cpu_within("drawn", &got, UNCLOSED_BUDGET);
    assert!(got.stdout.contains("Attribute redefined"), "{}", got.shown());
}

/// The hostile shapes (`tests/shapes.rs`) at 5 and 25 MB each (the variables file of
/// 875,000 small objects took 3 GB and 19 s before): the peak memory within each shape's
/// multiple of the input, and the CPU time growing with the input, not faster (at most
/// three times what five runs of the small one would take, and a second).
pub fn hostile_shapes_at_tens_of_megabytes_stay_within_their_multiples() {
    let run = |shape: &shapes::Shape, mb: usize| {
        let s = sandbox();
        let input = (shape.write)(&s.path("m"), shape.per_mb * mb).expect("write the shape");
        committed(&s);
        let what = format!("audit of {mb} MB of {}", shape.name);
        let got = og(&s, &["audit", "m", "--format", "compact"]);
        expect_code(&what, &got, 0);
        assert!(
            got.stdout.starts_with("1 module, 1 file, 0 override files: 0 errors, 0 warnings"),
            "{what}\n{}",
            got.shown()
        );
        assert_rss_multiple(&what, &got, input, shape.budget);
        got
    };
    for shape in shapes::ALL {
        let small = run(shape, 5);
        let big = run(shape, 25);
        let linear = small.cpu * 5 * 3 + Duration::from_secs(1);
        assert_cpu_within(&format!("{} at 25 MB", shape.name), &big, linear);
    }
}
