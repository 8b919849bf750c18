//! Linear time: the fuzzer's bytes are a *unit* repeated to about 128 KiB, and reading
//! that text must stay within a time bound that only a linear (or n log n) reader meets.
//! Repetition is what turns a quadratic path (rescanning what was read, backtracking over
//! an unclosed construct, re-parsing a nested source) into seconds: a unit of `(`, `"${`,
//! `<<EOT⏎` or `/*` repeated is the shape such bugs need.
#![no_main]

use std::time::Duration;

use libfuzzer_sys::fuzz_target;
use override_guard::terraform::hcl;
use override_guard_hcl::{fmt, parse_expression, parse_template};

/// About 128 KiB of text: a linear reader takes a few milliseconds in a fuzzing build, a
/// quadratic one minutes. The bound is on the CPU time of this thread, which other
/// processes on the machine do not stretch as they do the wall time.
const SIZE: usize = 128 * 1024;
const BOUND: Duration = Duration::from_secs(2);

/// CPU time this thread has used so far.
fn thread_cpu() -> Duration {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: a valid pointer to a timespec for the call to fill in.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    Duration::new(u64::try_from(t.tv_sec).unwrap_or(0), u32::try_from(t.tv_nsec).unwrap_or(0))
}

fuzz_target!(|data: &[u8]| {
    let unit = String::from_utf8_lossy(data);
    if unit.is_empty() || unit.len() > 4096 {
        return;
    }
    let text = unit.repeat(SIZE / unit.len() + 1);
    let check = |what: &str, f: &dyn Fn()| {
        let start = thread_cpu();
        f();
        let took = thread_cpu().saturating_sub(start);
        assert!(took < BOUND, "{what}: {} bytes took {took:?} (unit {unit:?})", text.len());
    };
    check("parse_named", &|| {
        let _ = hcl::parse_named(0, "main.tf", &text);
    });
    check("parse_expression", &|| {
        let _ = parse_expression(&text);
    });
    check("parse_template", &|| {
        let _ = parse_template(&text);
    });
    check("fmt::format", &|| {
        let _ = fmt::format(&text);
    });
});
