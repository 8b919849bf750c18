//! The `override-guard` binary: parse the command line, run, map the outcome to an exit code.

use std::process::ExitCode;

use override_guard::app::{self, Outcome};
use override_guard::cli::Cli;

fn main() -> ExitCode {
    let cli = Cli::parse_ordered();
    match app::run(&cli) {
        Ok(o) => ExitCode::from(o as u8),
        Err(e) => {
            let report = miette::Report::new(e);
            eprintln!("error: {report}");
            ExitCode::from(Outcome::Error as u8)
        }
    }
}
