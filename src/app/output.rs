//! Everything printed goes through here: stdout (with the output guard, which escapes
//! control characters; a closed pipe ends quietly, another write error fails the run),
//! stderr, `--quiet`, and the report formats.

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};

use crate::cli::Color;
use crate::report::{self, Escapes, ReportFormat};

/// Prints a rendered report with the escapes its format reads back.
pub(super) fn print_findings(text: &str, format: ReportFormat) {
    stdout_write(&report::guard(text, format.escapes(), COLOR.load(Ordering::Relaxed)));
}

/// Human on a terminal, compact otherwise (pipes, hook runners, CI logs).
pub(super) fn report_format(f: Option<ReportFormat>) -> ReportFormat {
    f.unwrap_or(if std::io::stdout().is_terminal() {
        ReportFormat::Human
    } else {
        ReportFormat::Compact
    })
}

pub(super) fn use_color(c: Color) -> bool {
    match c {
        Color::Always => true,
        Color::Never => false,
        Color::Auto => {
            std::io::stderr().is_terminal()
                && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
        }
    }
}

/// Whether this run draws colours (set once, in [`run`]): the output guard keeps colour
/// sequences only then.
pub(super) static COLOR: AtomicBool = AtomicBool::new(false);

/// The first error writing to stdout, other than a closed pipe; [`run`] turns it into exit
/// 2. Once set (or once the pipe is closed), nothing more is written.
pub(super) static STDOUT_ERROR: std::sync::Mutex<Option<std::io::Error>> =
    std::sync::Mutex::new(None);
pub(super) static STDOUT_CLOSED: AtomicBool = AtomicBool::new(false);

/// Writes to stdout and flushes, so that an error is seen here and not lost at exit. A
/// closed pipe (`| head`) ends the output quietly, as ripgrep does; any other error is
/// kept for [`run`].
pub(super) fn stdout_write(s: &str) {
    if STDOUT_CLOSED.load(Ordering::Relaxed) {
        return;
    }
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_all(s.as_bytes()).and_then(|()| out.flush()) {
        STDOUT_CLOSED.store(true, Ordering::Relaxed);
        if e.kind() != std::io::ErrorKind::BrokenPipe
            && let Ok(mut first) = STDOUT_ERROR.lock()
        {
            first.get_or_insert(e);
        }
    }
}

/// Prints text for people on stdout, through the output guard.
pub(super) fn write_out(s: &str) {
    stdout_write(&report::guard(s, Escapes::Text, COLOR.load(Ordering::Relaxed)));
}

/// Prints JSON, SARIF or HCL on stdout, through the output guard (with the syntax's own
/// escapes, so the document means the same).
pub(super) fn write_syntax(s: &str) {
    stdout_write(&report::guard(s, Escapes::Syntax, COLOR.load(Ordering::Relaxed)));
}

/// Prints on stderr, through the output guard. Its errors are not kept: there is nowhere
/// left to report them.
pub(super) fn write_err(s: &str) {
    let s = report::guard(s, Escapes::Text, COLOR.load(Ordering::Relaxed));
    let _ = std::io::stderr().lock().write_all(s.as_bytes());
}

/// Whether this run prints only findings and errors (`--quiet`, set once in [`dispatch`]).
pub(super) static QUIET: AtomicBool = AtomicBool::new(false);

/// A note, hint or warning on stderr: what `--quiet` leaves out.
pub(super) fn write_note(s: &str) {
    if !QUIET.load(Ordering::Relaxed) {
        write_err(s);
    }
}
