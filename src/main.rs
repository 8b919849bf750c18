//! The `override-guard` binary: parse the command line, run, map the outcome to an exit code.

use std::io::Write;
use std::process::ExitCode;

use override_guard::app::{self, Outcome};
use override_guard::cli::Cli;
use override_guard::report::{self, Escapes};

/// Reading a module allocates many small nodes and frees them when its verdict is in;
/// mimalloc does that in about a fifth less CPU time than the C library's allocator.
/// Without transparent huge pages (`no_thp`): with them, every 2 MiB page it touches
/// counts whole, and an audit's peak memory doubled for 3 % of CPU time.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The stack of every thread that parses: the parser descends recursively, and a file
/// may nest up to its limit of levels. Address space only: pages are used as touched.
const STACK: usize = 256 << 20;

fn main() -> ExitCode {
    let _ = rayon::ThreadPoolBuilder::new().stack_size(STACK).build_global();
    let run = std::thread::Builder::new().stack_size(STACK).spawn(run);
    match run.map(|h| h.join()) {
        Ok(Ok(code)) => code,
        // A panic was reported on stderr already; a thread that could not start is ours.
        Ok(Err(_)) => ExitCode::from(101),
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "error: cannot start: {e}");
            ExitCode::from(Outcome::Error.code())
        }
    }
}

fn run() -> ExitCode {
    let cli = Cli::parse_ordered();
    match app::run(&cli) {
        Ok(o) => ExitCode::from(o.code()),
        Err(e) => {
            // The path may come from a hostile repository: escaped, line breaks included.
            let line = format!("error: {}\n", e.map_path(report::clean_line));
            let _ =
                std::io::stderr().write_all(report::guard(&line, Escapes::Text, false).as_bytes());
            ExitCode::from(Outcome::Error.code())
        }
    }
}
