//! The `override-guard` binary: parse the command line, run, map the outcome to an exit code.

use std::io::Write;
use std::process::ExitCode;

use override_guard::app::{self, Outcome};
use override_guard::cli::Cli;
use override_guard::report::{self, Escapes};

fn main() -> ExitCode {
    let cli = Cli::parse_ordered();
    match app::run(&cli) {
        Ok(o) => ExitCode::from(o as u8),
        Err(e) => {
            // The path may come from a hostile repository: escaped, line breaks included.
            let line = format!("error: {}: {}\n", report::clean_line(&e.path), e.message);
            let _ =
                std::io::stderr().write_all(report::guard(&line, Escapes::Text, false).as_bytes());
            ExitCode::from(Outcome::Error as u8)
        }
    }
}
