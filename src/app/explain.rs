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
            let rows: Vec<[&str; 3]> =
                rules::RULES.iter().map(|r| [r.id.as_str(), r.level.as_str(), r.summary]).collect();
            let mut out = String::from("Rules (default level):\n");
            out.push_str(&rule_table(&rows));
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

/// The rule list's rows (id, level, summary) in columns as wide as their longest entry,
/// so a new rule with a longer id cannot push its row out of line.
fn rule_table(rows: &[[&str; 3]]) -> String {
    let width = |col: usize| rows.iter().map(|r| r[col].chars().count()).max().unwrap_or(0);
    let (id, level) = (width(0), width(1));
    let mut out = String::new();
    for [r, l, summary] in rows {
        out.push_str(&format!("  {r:<id$}  {l:<level$}  {summary}\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Where each row's level and summary begin, in characters.
    fn starts(table: &str, row: &[&str; 3]) -> (usize, usize) {
        let line = table.lines().find(|l| l.trim_start().starts_with(row[0])).unwrap_or("");
        let at = |s: &str| line.find(&format!(" {s}")).map_or(0, |b| line[..b].chars().count());
        (at(row[1]), at(row[2]))
    }

    #[test]
    fn the_rule_list_lines_up_whatever_the_ids_lengths() {
        let long = "an-id-longer-than-any-rule-has-today";
        for rows in [
            vec![["a", "deny", "short"], [long, "warn", "long"], ["mid-sized-id", "allow", "x"]],
            rules::RULES.iter().map(|r| [r.id.as_str(), r.level.as_str(), r.summary]).collect(),
        ] {
            let table = rule_table(&rows);
            let columns: Vec<(usize, usize)> = rows.iter().map(|r| starts(&table, r)).collect();
            assert!(columns.windows(2).all(|w| w[0] == w[1]), "{columns:?}\n{table}");
            // Two spaces after the longest id, none wasted before it.
            let longest = rows.iter().map(|r| r[0].len()).max().unwrap_or(0);
            assert_eq!(columns[0].0, 2 + longest + 1, "{table}");
        }
    }
}
