//! Big inputs of the shapes that once took a hundred times their size (`tests/shapes.rs`):
//! a variables file of small objects took 3 GB for 27 MB, and 19 s. Each shape is read at a
//! few megabytes here, its peak memory bounded as a multiple of its size (see
//! [`assert_rss_multiple`]); `tests/machine/big.rs` reads them at tens of megabytes, and
//! `cargo bench --bench big_inputs` measures them (BENCHMARKS.md).
#![cfg(unix)]

use std::fmt::Write as _;

use crate::measure::*;
use crate::shapes::{self, Shape};
use crate::util::Sandbox;

/// Writes a shape into `dir` of a new sandbox, committed (a file git does not track would
/// be a local-only note), and returns the sandbox and the bytes written.
fn written(dir: &str, shape: &Shape, n: usize) -> (Sandbox, u64) {
    let s = sandbox();
    let bytes = (shape.write)(&s.path(dir), n).expect("write the shape");
    committed(&s);
    (s, bytes)
}

/// `vars` prints the value twice (the outcome and the setting), each as long as the file.
const VARIABLES_JSON_SHOWN: u64 = 30;

/// CPU time for reading 100,000 attributes of one JSON body: about a second of a debug
/// build (the quadratic check took minutes).
const LINEAR_BODY_CPU: std::time::Duration = std::time::Duration::from_secs(30);

const CLEAN: &str =
    "1 module, 1 file, 0 override files: 0 errors, 0 warnings (built-in default policy)\n";

#[test]
fn a_variables_file_of_small_objects_is_read_in_a_small_multiple_of_its_size() {
    let (s, input) = written("m", &shapes::VARIABLES_JSON, 200_000);
    let got = og(&s, &["audit", "m", "--format", "compact"]);
    expect_code("audit", &got, 0);
    assert_eq!(got.stdout, CLEAN, "{}", got.shown());
    assert_rss_multiple(
        "audit of a 6 MB variables file",
        &got,
        input,
        shapes::VARIABLES_JSON.budget,
    );
    let got = og(&s, &["vars", "m"]);
    expect_code("vars", &got, 0);
    let expect = "module m: 1 variable(s)\n\nvar.items = [{ name = \"n0\", v = 0 }, { name = \"n1\", v = 1 }, ";
    assert!(got.stdout.starts_with(expect), "{}", got.shown());
    assert!(got.stdout.contains(", { name = \"n199999\", v = 199999 }]"), "{}", got.shown());
    // The value is printed twice, as the outcome and as the setting.
    assert_rss_multiple("vars of a 6 MB variables file", &got, input, VARIABLES_JSON_SHOWN);
}

#[test]
fn a_typed_variables_file_is_converted_in_a_small_multiple_of_its_size() {
    let (s, input) = written("m", &shapes::TYPED_VARIABLES_JSON, 100_000);
    let got = og(&s, &["audit", "m", "--format", "compact"]);
    expect_code("audit", &got, 0);
    assert_eq!(got.stdout, CLEAN, "{}", got.shown());
    assert_rss_multiple(
        "audit of a 3 MB typed variables file",
        &got,
        input,
        shapes::TYPED_VARIABLES_JSON.budget,
    );
}

/// A variables file in native syntax was parsed, then each value's source copied and
/// parsed again to evaluate it (a 6 MB file took 790 MB).
#[test]
fn a_native_variables_file_is_read_in_a_small_multiple_of_its_size() {
    let (s, input) = written("m", &shapes::VARIABLES_NATIVE, 100_000);
    let got = og(&s, &["audit", "m", "--format", "compact"]);
    expect_code("audit", &got, 0);
    assert_eq!(got.stdout, CLEAN, "{}", got.shown());
    assert_rss_multiple(
        "audit of a 3 MB native variables file",
        &got,
        input,
        shapes::VARIABLES_NATIVE.budget,
    );
}

#[test]
fn a_large_default_is_read_in_a_small_multiple_of_its_size() {
    let (s, input) = written("m", &shapes::DEFAULT, 100_000);
    let got = og(&s, &["audit", "m", "--format", "compact"]);
    expect_code("audit", &got, 0);
    assert_eq!(got.stdout, CLEAN, "{}", got.shown());
    assert_rss_multiple("audit of a 3 MB default", &got, input, shapes::DEFAULT.budget);
}

#[test]
fn a_list_of_numbers_is_read_in_a_small_multiple_of_its_size() {
    let (s, input) = written("m", &shapes::NUMBERS, 500_000);
    let got = og(&s, &["audit", "m", "--format", "compact"]);
    expect_code("audit", &got, 0);
    assert_eq!(got.stdout, CLEAN, "{}", got.shown());
    assert_rss_multiple("audit of 500,000 numbers", &got, input, shapes::NUMBERS.budget);
}

#[test]
fn resource_blocks_are_read_in_a_small_multiple_of_their_size() {
    let (s, input) = written("m", &shapes::RESOURCES, 20_000);
    let last = 19_999;
    let over = format!(
        "resource \"aws_instance\" \"r{last}\" {{\n  lifecycle {{\n    prevent_destroy = false\n  }}\n}}\n"
    );
    s.write("m/override.tf", &over);
    committed(&s);
    let got = og(&s, &["audit", "m", "--format", "compact"]);
    expect_code("audit", &got, 1);
    let mut expect = String::new();
    let _ = writeln!(
        expect,
        "m/main.tf:{}:1: warning[missing-override-comment]: resource.aws_instance.r{last} is changed by override.tf, but no comment above it names override.tf",
        12 * last + 1
    );
    let _ = writeln!(
        expect,
        "m/override.tf:3:5: error[weakened-safeguard]: resource.aws_instance.r{last}: prevent_destroy is turned off"
    );
    expect.push_str(
        "1 module, 2 files, 1 override file: 1 error, 1 warning (built-in default policy)\n",
    );
    assert_eq!(got.stdout, expect, "{}", got.shown());
    assert_rss_multiple(
        "audit of 20,000 resource blocks",
        &got,
        input + over.len() as u64,
        shapes::RESOURCES.budget,
    );
}

#[test]
fn a_json_list_of_objects_is_read_in_a_small_multiple_of_its_size() {
    let (s, input) = written("m", &shapes::JSON_LOCALS, 100_000);
    let got = og(&s, &["audit", "m", "--format", "compact"]);
    expect_code("audit", &got, 0);
    assert_eq!(got.stdout, CLEAN, "{}", got.shown());
    assert_rss_multiple("audit of a 3 MB JSON list", &got, input, shapes::JSON_LOCALS.budget);
}

/// Each attribute of a JSON body was checked against every one before it for a duplicate:
/// 50,000 took four seconds of a release build, and a few megabytes would take hours.
#[test]
fn a_json_body_of_many_attributes_is_read_in_linear_time() {
    let (s, input) = written("m", &shapes::JSON_ATTRIBUTES, 100_000);
    let got = og(&s, &["audit", "m", "--format", "compact"]);
    expect_code("audit", &got, 0);
    assert_eq!(got.stdout, CLEAN, "{}", got.shown());
    assert_cpu_within("audit of 100,000 JSON attributes", &got, LINEAR_BODY_CPU);
    assert_rss_multiple(
        "audit of 100,000 JSON attributes",
        &got,
        input,
        shapes::JSON_ATTRIBUTES.budget,
    );
}
