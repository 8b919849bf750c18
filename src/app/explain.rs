//! `explain` and `man`.

use super::outcome::Outcome;
use super::output::{write_err, write_out};
use crate::cli::Cli;
use crate::error;
use crate::policy::rules;
use crate::report;

/// `man [COMMAND]`: the manual page of the tool, or of one command (as git has
/// `git-commit(1)`), generated from the same definitions as `--help`.
pub(super) fn man(command: Option<&str>) -> Result<Outcome, error::Error> {
    use clap::CommandFactory;
    let cli = Cli::command();
    let page = match command {
        None => cli,
        Some(name) => {
            let Some(sub) = cli.find_subcommand(name) else {
                let names: Vec<&str> = cli.get_subcommands().map(|c| c.get_name()).collect();
                write_err(&format!(
                    "error: no command `{}`; commands: {}\n",
                    report::clean_line(name),
                    names.join(", ")
                ));
                return Ok(Outcome::Error);
            };
            let full = format!("override-guard-{name}");
            sub.clone().display_name(full.clone()).bin_name(full).version(env!("CARGO_PKG_VERSION"))
        }
    };
    let mut out = Vec::new();
    clap_mangen::Man::new(page).render(&mut out).map_err(|e| error::Error::io("-", e))?;
    write_out(&String::from_utf8_lossy(&out));
    Ok(Outcome::Clean)
}

pub(super) fn explain(rule: Option<&str>) -> Outcome {
    match rule {
        None => {
            let mut out = String::from("Rules (default level):\n");
            for r in rules::RULES {
                out.push_str(&format!("  {:<26} {:<5}  {}\n", r.id, r.level.as_str(), r.summary));
            }
            out.push_str(
                "\n`override-guard explain RULE` prints what a rule checks, why, and an example.\n",
            );
            write_out(&out);
            Outcome::Clean
        }
        Some(id) => match rules::find(id) {
            Some(r) => {
                let mut out =
                    format!("{} (default: {})\n{}\n\n{}", r.id, r.level.as_str(), r.summary, r.doc);
                if !r.options.is_empty() {
                    out.push_str("\nOptions\n");
                    for o in r.options {
                        out.push_str(&format!("  {}: {}\n", o.name, o.help));
                    }
                }
                write_out(&out);
                Outcome::Clean
            }
            None => {
                let hint = rules::suggestion(id);
                write_err(&format!("error: unknown rule `{}`{hint}\n", report::clean(id)));
                Outcome::Error
            }
        },
    }
}
