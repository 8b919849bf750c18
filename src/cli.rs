//! The command line, as plain data (clap derive). No I/O here.

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

use crate::report::ReportFormat;
use crate::terraform::release::EngineChoice;

/// Guards Terraform and OpenTofu repositories against the quiet danger of override files.
#[derive(Debug, Parser)]
#[command(name = "override-guard", version, about, propagate_version = true)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub command: Command,

    /// When to use colours in human output.
    #[arg(long, global = true, value_enum, default_value_t = Color::Auto)]
    pub color: Color,
}

impl Cli {
    /// Parses the command line, keeping the order of `vars`' `--var` and `--var-file`
    /// arguments (Terraform lets a later one win).
    pub(crate) fn parse_ordered() -> Cli {
        use clap::{CommandFactory, FromArgMatches};
        let matches = Cli::command().get_matches();
        let mut cli = match Cli::from_arg_matches(&matches) {
            Ok(c) => c,
            Err(e) => e.exit(),
        };
        if let (Some(m), Command::Vars { var_files, vars, order, .. }) =
            (matches.subcommand_matches("vars"), &mut cli.command)
        {
            let at = |id: &str| m.indices_of(id).map(|i| i.collect::<Vec<_>>()).unwrap_or_default();
            let mut all: Vec<(usize, VarArg)> = at("vars")
                .into_iter()
                .zip(vars.iter())
                .map(|(i, v)| (i, VarArg::Var(v.clone())))
                .chain(
                    at("var_files")
                        .into_iter()
                        .zip(var_files.iter())
                        .map(|(i, f)| (i, VarArg::File(f.clone()))),
                )
                .collect();
            all.sort_by_key(|(i, _)| *i);
            *order = all.into_iter().map(|(_, a)| a).collect();
        }
        cli
    }
}

/// `--engine`'s help, the same for every command that takes it.
const ENGINE_HELP: &str = "Whose rules apply, and which release's: terraform, opentofu, \
     terraform@1.9, terraform@1.15.5, opentofu@1.10 (a minor means its newest modelled patch; \
     the engine alone its newest modelled release). Default: terraform, or opentofu when the \
     module has .tofu files";

/// `--engine`'s values: an engine, with or without a release (see [`EngineChoice::parse`]).
fn release(s: &str) -> Result<EngineChoice, String> {
    EngineChoice::parse(s).map_err(|e| e.to_string())
}

/// `--max-chars`' values: the verdict and the note on what is left out need their room,
/// so a smaller comment could not keep its limit.
fn comment_limit(s: &str) -> Result<usize, String> {
    match s.replace([',', '_'], "").parse::<usize>() {
        Ok(n) if n >= MIN_COMMENT => Ok(n),
        Ok(_) => Err(format!("a comment needs at least {MIN_COMMENT} characters")),
        Err(e) => Err(e.to_string()),
    }
}

const MIN_COMMENT: usize = 1000;

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Print the effective configuration of one module, with where every value came from.
    #[command(
        after_help = "Examples:\n  override-guard show examples/app\n  override-guard show examples/envs/prod --format tf-json\n\nExit status: 0 shown, 2 a module Terraform rejects (its errors are printed), or a usage\nor I/O error."
    )]
    Show {
        /// The module directory.
        #[arg(default_value = ".")]
        dir: PathBuf,
        /// Output format.
        #[arg(long, value_enum, default_value_t = ShowFormat::Hcl)]
        format: ShowFormat,
        #[arg(long, value_parser = release, help = ENGINE_HELP)]
        engine: Option<EngineChoice>,
        #[command(flatten)]
        from: FromArgs,
    },
    /// Each variable's effective declaration and where its value comes from.
    #[command(
        after_help = "Values are looked up as `terraform plan` does, lowest precedence first: the default,\nTF_VAR_<name> environment variables, terraform.tfvars, terraform.tfvars.json,\n*.auto.tfvars(.json) in name order, then --var and --var-file in command-line order.\n\nExamples:\n  override-guard vars envs/prod\n  override-guard vars envs/prod --var-file envs/prod/blue.tfvars --var replicas=3\n\nExit status: 0 every value fits, 2 a value Terraform would reject, or a usage or I/O error."
    )]
    Vars {
        /// The root module directory.
        #[arg(default_value = ".")]
        dir: PathBuf,
        /// A variables file, as `terraform plan -var-file` (relative to the current directory).
        #[arg(long = "var-file", value_name = "FILE")]
        var_files: Vec<PathBuf>,
        /// A variable value, as `terraform plan -var NAME=VALUE`.
        #[arg(long = "var", value_name = "NAME=VALUE")]
        vars: Vec<String>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = VarsFormat::Human)]
        format: VarsFormat,
        /// Print sensitive values instead of `(sensitive)`.
        #[arg(long)]
        show_sensitive: bool,
        #[arg(long, value_parser = release, help = ENGINE_HELP)]
        engine: Option<EngineChoice>,
        /// --var and --var-file in command-line order (filled in by [`Cli::parse_ordered`]).
        #[arg(skip)]
        order: Vec<VarArg>,
    },
    /// Evaluate the policy on every module under a directory: merge errors and findings.
    #[command(
        after_help = "Examples:\n  override-guard audit\n  override-guard audit examples/ --format compact\n  override-guard audit envs/dev envs/prod\n  override-guard audit --deny override-file --format sarif > results.sarif\n\nExit status: 0 clean or warnings only, 1 deny-level findings, 2 usage, policy or I/O error."
    )]
    Audit {
        /// Directories to audit, each with its subdirectories (ignored directories and
        /// .terraform/ are skipped; every configuration file of a module is read).
        #[arg(value_name = "PATH", default_value = ".")]
        paths: Vec<PathBuf>,
        /// Output format (default: human on a terminal, compact otherwise).
        #[arg(long, value_enum)]
        format: Option<ReportFormat>,
        #[arg(long, value_parser = release, help = ENGINE_HELP)]
        engine: Option<EngineChoice>,
        #[command(flatten)]
        from: FromArgs,
        #[command(flatten)]
        policy: PolicyArgs,
        #[command(flatten)]
        baseline: BaselineArgs,
        /// Record today's findings in FILE (a baseline for `--baseline`), then report
        /// as usual.
        #[arg(long, value_name = "FILE", conflicts_with = "baseline")]
        write_baseline: Option<PathBuf>,
        #[command(flatten)]
        comment: CommentArgs,
    },
    /// The pre-commit hook: judge the modules the staged change touches, as staged.
    #[command(
        after_help = "Reads the git index (or the temporary index git names in GIT_INDEX_FILE during\n`git commit -a` and `git commit PATHS`), never the worktree, and writes nothing.\nThe modules of the staged change are judged, and the modules of the FILES named (every\nfile of each module is read from the index): `pre-commit run --all-files` passes every\nfile. With --from-ref/--to-ref (or PRE_COMMIT_FROM_REF/PRE_COMMIT_TO_REF, which\n`pre-commit run --from-ref A --to-ref B` and pre-push set), the modules that A...B\nchanges are judged as B has them.\n\nExamples:\n  override-guard check\n  override-guard check --new-only\n  override-guard check --from-ref origin/main --to-ref HEAD\n\nExit status: 0 clean or warnings only, 1 deny-level findings, 2 usage, policy or git error."
    )]
    Check {
        /// Files the hook runner passes (optional): their modules are checked too.
        files: Vec<PathBuf>,
        /// Report only findings the change introduces (compared with HEAD, or with the
        /// start of the range).
        #[arg(long)]
        new_only: bool,
        /// Judge the modules the commits FROM...TO change, at TO, instead of the staged
        /// change (default: PRE_COMMIT_FROM_REF, set by `pre-commit run --from-ref`).
        #[arg(long, value_name = "FROM", requires = "to_ref")]
        from_ref: Option<String>,
        /// The end of the range (default: PRE_COMMIT_TO_REF).
        #[arg(long, value_name = "TO", requires = "from_ref")]
        to_ref: Option<String>,
        /// Output format (default: human on a terminal, compact otherwise).
        #[arg(long, value_enum)]
        format: Option<ReportFormat>,
        #[arg(long, value_parser = release, help = ENGINE_HELP)]
        engine: Option<EngineChoice>,
        #[command(flatten)]
        policy: PolicyArgs,
        #[command(flatten)]
        baseline: BaselineArgs,
        #[command(flatten)]
        comment: CommentArgs,
    },
    /// What a change does to the effective configuration, and the findings it adds or removes.
    #[command(
        after_help = "Examples, with the sides `git diff` would compare:\n  override-guard diff              HEAD -> index (what is staged)\n  override-guard diff --worktree   index -> worktree (what is not staged yet)\n  override-guard diff A            A -> worktree\n  override-guard diff A B          A -> B  (also A..B)\n  override-guard diff A...B        merge base of A and B -> B (a branch's own change)\n\nFormats: human (default) and json show the whole review; the others (compact,\nsarif, github, gitlab, junit, checkstyle) list the findings the change introduces.\nExit status: 0, or 1 when the change introduces deny-level findings; 2 on errors."
    )]
    Diff {
        /// Revisions: none, `A`, `A B`, `A..B` or `A...B`.
        #[arg(value_name = "REV", num_args = 0..=2)]
        revs: Vec<String>,
        /// Compare the index with the worktree (unstaged changes).
        #[arg(long, conflicts_with = "revs")]
        worktree: bool,
        /// Output format (default: human).
        #[arg(long, value_enum)]
        format: Option<ReportFormat>,
        #[arg(long, value_parser = release, help = ENGINE_HELP)]
        engine: Option<EngineChoice>,
        #[command(flatten)]
        policy: PolicyArgs,
        #[command(flatten)]
        comment: CommentArgs,
        /// Link the lines before the change, as --link-base those after (the base
        /// commit's URL).
        #[arg(long, value_name = "URL", help_heading = "Markdown comment")]
        link_base_before: Option<String>,
    },
    /// Write the warning comment above every original that an override file changes.
    #[command(
        after_help = "Each comment reads `# NOTE: <what> is|are overridden in <file>` (a \"//\" property in JSON),\ndirectly above the block, argument or local value; comments of that shape are kept up to\ndate by later runs, and removed when no override changes their item any more. Every other\nbyte of a file stays as it was. Files are written atomically; the git index is never\ntouched, and files whose content the index does not hold (unstaged changes, untracked)\nare not written without --allow-dirty.\n\nExamples:\n  override-guard fix --dry-run\n  override-guard fix envs/prod\n  override-guard fix --check        in CI: exit 1 when a comment is missing or stale\n\nExit status: 0 nothing (left) to fix, 1 --check found work, or an item needs a hand,\n2 usage, policy or I/O error, or files with unstaged changes."
    )]
    Fix {
        /// A module, or a directory of modules (as for audit).
        #[arg(default_value = ".")]
        path: PathBuf,
        /// Print the unified diff instead of writing.
        #[arg(long)]
        dry_run: bool,
        /// Write nothing; print the diff and exit 1 when a comment is missing or stale.
        #[arg(long, conflicts_with = "dry_run")]
        check: bool,
        /// Write files even when git does not hold their current content.
        #[arg(long)]
        allow_dirty: bool,
        #[arg(long, value_parser = release, help = ENGINE_HELP)]
        engine: Option<EngineChoice>,
        /// The policy file (its `[rules.missing-override-comment]` decides where comments
        /// are wanted, and their pattern).
        #[arg(long, value_name = "PATH")]
        policy: Option<PathBuf>,
    },
    /// Apply override files to their originals for good, then delete them.
    #[command(
        after_help = "The folded module is merged again before anything is written: its effective\nconfiguration must equal the one with the override files, value for value, or nothing is\nchanged and the reason is printed (an override Terraform ignores, one that cannot be\nwritten into the original file). An override that swaps the backend, which the module's\npolicy denies (backend-swap), is refused too unless --allow-backend-swap is given. Only\nthe changed arguments and blocks are rewritten.\n\nExamples:\n  override-guard fold envs/prod/override.tf --dry-run\n  override-guard fold envs/prod/override.tf envs/prod/tags_override.tf\n  override-guard fold envs/dev/backend_override.tf --allow-backend-swap\n\nExit status: 0 folded (or would fold), 1 refused, 2 usage or I/O error, or files with\nunstaged changes."
    )]
    Fold {
        /// The override files to fold (each folds into the ordinary files of its directory).
        #[arg(required = true, value_name = "OVERRIDE_FILE")]
        files: Vec<PathBuf>,
        /// Print the unified diff instead of writing.
        #[arg(long)]
        dry_run: bool,
        /// Write files even when git does not hold their current content.
        #[arg(long)]
        allow_dirty: bool,
        /// Fold an override that swaps the backend or cloud block even where the policy
        /// denies it (backend-swap): the swap becomes the original's own.
        #[arg(long)]
        allow_backend_swap: bool,
        #[arg(long, value_parser = release, help = ENGINE_HELP)]
        engine: Option<EngineChoice>,
    },
    /// Write a copy of a tree in which every module is its effective configuration, for
    /// scanners and policy engines that read files one by one.
    #[command(
        after_help = "Override files are folded into the files they override (as `fold` does, layout and\ncomments kept), `.tf` files that a `.tofu` twin shadows are left out, and under OpenTofu\n`.tofu` files are written as `.tf` (scanners read no `.tofu`). Every other file is copied\nas it is (git-ignored files outside modules, `.git` and `.terraform` are not). The map from\nevery line of every rewritten file back to your files is written to\nDIR/.override-guard-map.json, for `override-guard remap`.\n\nExamples:\n  override-guard flatten --out /tmp/flat\n  override-guard flatten envs/dev envs/prod --out build/flat --force\n\nExit status: 0 every module flattened, 1 a module copied as it is (Terraform rejects it,\nor folding it would change what it means), 2 usage or I/O error."
    )]
    Flatten {
        /// Directories to flatten, each with its subdirectories.
        #[arg(value_name = "PATH", default_value = ".")]
        paths: Vec<PathBuf>,
        /// Where to write the tree: a new or empty directory outside PATH.
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
        /// Empty DIR first when it is a tree flatten wrote before (it holds the map); any
        /// other directory that holds something is refused.
        #[arg(long)]
        force: bool,
        #[arg(long, value_parser = release, help = ENGINE_HELP)]
        engine: Option<EngineChoice>,
    },
    /// Run a scanner on a flattened copy of a tree and put its findings back on your files.
    #[command(
        after_help = "In COMMAND, {} stands for a temporary flattened copy of PATH, and {out} for a path the\nscanner writes its SARIF report to (its report on stdout then goes to stderr); without\n{out}, the scanner's stdout must be the SARIF log. Findings on a line an override file\nset point at that line of the override file; findings on a whole block that overrides\nchange point at the primary block and name each override block as a related location.\nThe temporary copy is removed afterwards and named nowhere in the output.\n\nExamples:\n  override-guard scan -- checkov -d {} -o sarif --output-file-path {out}\n  override-guard scan envs/prod --format github -- checkov -d {} -o sarif --output-file-path {out}\n\nExit status: the scanner's; 2 when override-guard itself fails (usage, I/O, no SARIF)."
    )]
    Scan {
        /// The directory to scan, with its subdirectories.
        #[arg(value_name = "PATH", default_value = ".")]
        path: PathBuf,
        /// How to print the scanner's findings.
        #[arg(long, value_enum, default_value_t = ScanFormat::Sarif)]
        format: ScanFormat,
        #[arg(long, value_parser = release, help = ENGINE_HELP)]
        engine: Option<EngineChoice>,
        /// The scanner's command line, after `--`.
        #[arg(last = true, required = true, value_name = "COMMAND")]
        command: Vec<String>,
    },
    /// Put the findings of a SARIF log made on a flattened tree back on your files.
    #[command(
        after_help = "For CI systems that run the scanner themselves: flatten, scan the copy, then remap.\n\nExamples:\n  override-guard flatten --out flat && checkov -d flat -o sarif --output-file-path out\n  override-guard remap out/results_sarif.sarif --tree flat > results.sarif\n\nExit status: 0 remapped, 2 usage or I/O error (a log that is not SARIF, a tree without\nits map)."
    )]
    Remap {
        /// The SARIF log (- for standard input).
        #[arg(value_name = "SARIF")]
        sarif: PathBuf,
        /// The flattened tree the log was made on (its map is read from it).
        #[arg(long, value_name = "DIR")]
        tree: PathBuf,
        /// How to print the scanner's findings.
        #[arg(long, value_enum, default_value_t = ScanFormat::Sarif)]
        format: ScanFormat,
    },
    /// Write a commented starter policy (.override-guard.toml); never overwrites a file.
    #[command(
        after_help = "Examples:\n  override-guard init\n  override-guard init --pre-commit\n  override-guard init --path infra/.override-guard.toml\n  override-guard init --stdout | less\n\nExit status: 0 written, 2 a file exists or cannot be written."
    )]
    Init {
        /// Where to write it.
        #[arg(long, default_value = ".override-guard.toml")]
        path: PathBuf,
        /// Print the starter policy (with --pre-commit, the hook configuration) instead of
        /// writing it.
        #[arg(long)]
        stdout: bool,
        /// Also write .pre-commit-config.yaml at the top of the repository, with the hook
        /// that works for this version: built from source until the version is released.
        #[arg(long)]
        pre_commit: bool,
    },
    /// Print what a rule checks, why, and an example; without RULE, list the rules.
    #[command(
        after_help = "Examples:\n  override-guard explain\n  override-guard explain backend-swap\n\nExit status: 0, or 2 for a rule that does not exist."
    )]
    Explain {
        /// A rule's id (`backend-swap`); without it, every rule is listed.
        rule: Option<String>,
    },
    /// Run the language server (stdio) that shows override effects in editors.
    #[command(
        after_help = "Editors start it themselves; see docs/editors.md for VS Code, Neovim and Helix.\n\nExit status: 0 when the editor asks it to exit, 2 on a protocol error."
    )]
    Lsp,
    /// Print a shell completion script.
    #[command(
        after_help = "Examples:\n  override-guard completions bash > ~/.local/share/bash-completion/completions/override-guard\n  override-guard completions zsh > ~/.zfunc/_override-guard\n  override-guard completions fish > ~/.config/fish/completions/override-guard.fish"
    )]
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print a manual page (roff), generated from this help: the tool's, or one command's.
    #[command(
        after_help = "Examples:\n  override-guard man | man -l -\n  override-guard man check | man -l -\n  override-guard man > /usr/local/share/man/man1/override-guard.1\n  override-guard man check > /usr/local/share/man/man1/override-guard-check.1"
    )]
    Man {
        /// A command (its page is `override-guard-COMMAND`).
        command: Option<String>,
    },
}

/// How a Markdown comment (`--format markdown`) is written: the review of `diff`, the
/// findings of `audit` and `check`.
#[derive(Clone, Debug, clap::Args)]
#[command(next_help_heading = "Markdown comment")]
pub(crate) struct CommentArgs {
    /// Link the lines the comment names to URL/PATH#LLINE
    /// (`https://github.com/OWNER/REPO/blob/COMMIT`), or to URL with `{path}` and `{line}`
    /// filled in when it names them; for `diff`, the lines after the change.
    #[arg(long, value_name = "URL")]
    pub(crate) link_base: Option<String>,
    /// The longest comment to write, in characters, 1,000 at least (default: the host's
    /// limit, 65,536 on GitHub, 32,767 on Bitbucket); modules beyond it are listed, never
    /// cut.
    #[arg(long, value_name = "CHARS", value_parser = comment_limit)]
    pub(crate) max_chars: Option<usize>,
    /// Whose Markdown: `gfm` (GitHub, GitLab; the default) or `bitbucket` (no HTML, no
    /// tables).
    #[arg(long, value_enum, value_name = "FLAVOR")]
    pub(crate) flavor: Option<crate::report::markdown::Flavor>,
}

impl CommentArgs {
    /// The report these options ask for in `format`, its comment of `scope`; `before`
    /// links the lines before a change (`diff --link-base-before`). A comment option with
    /// another format is refused: dropping it silently would leave a CI job posting
    /// something other than what its author wrote.
    pub(crate) fn report(
        &self,
        format: ReportFormat,
        scope: crate::report::markdown::Scope,
        before: Option<&str>,
    ) -> Result<crate::report::format::Report, crate::error::Error> {
        let given = [
            ("--link-base", self.link_base.is_some()),
            ("--link-base-before", before.is_some()),
            ("--max-chars", self.max_chars.is_some()),
            ("--flavor", self.flavor.is_some()),
        ];
        if format != ReportFormat::Markdown
            && let Some((flag, _)) = given.iter().find(|(_, on)| *on)
        {
            return Err(crate::error::Error::Usage {
                message: format!("{flag} is read only with --format markdown"),
            });
        }
        let flavor = self.flavor.unwrap_or_default();
        let comment = crate::report::markdown::Comment {
            flavor,
            links: crate::report::markdown::Links {
                after: self.link_base.clone(),
                before: before.map(str::to_string),
            },
            limit: self.max_chars.unwrap_or(flavor.limit()),
            scope,
        };
        Ok(crate::report::format::Report { format, comment })
    }
}

/// Where `show` and `audit` read from: the worktree unless told otherwise.
#[derive(Clone, Debug, Default, clap::Args)]
pub(crate) struct FromArgs {
    /// Read the staged content (the git index) instead of the worktree.
    #[arg(long, conflicts_with = "rev")]
    pub staged: bool,
    /// Read a revision (a commit, branch, tag or tree) instead of the worktree.
    #[arg(long, value_name = "REV")]
    pub rev: Option<String>,
}

/// Options every policy-evaluating command shares.
#[derive(Clone, Debug, Default, clap::Args)]
pub(crate) struct PolicyArgs {
    /// The policy file (default: .override-guard.toml in the directory or the nearest
    /// parent up to the repository root; else the built-in default).
    #[arg(long, value_name = "PATH")]
    pub policy: Option<PathBuf>,
    /// Report RULE at deny level everywhere (repeatable).
    #[arg(long, value_name = "RULE")]
    pub deny: Vec<String>,
    /// Report RULE at warn level everywhere (repeatable).
    #[arg(long, value_name = "RULE")]
    pub warn: Vec<String>,
    /// Turn RULE off (repeatable).
    #[arg(long, value_name = "RULE")]
    pub allow: Vec<String>,
    /// Exit 1 on warnings too.
    #[arg(long)]
    pub deny_warnings: bool,
    /// Exit 0 even when there are findings (errors still exit 2): for trying a policy in
    /// CI before enforcing it, as tflint's --force and checkov's --soft-fail.
    #[arg(long)]
    pub soft_fail: bool,
    /// Print only findings and errors: no summary, notes or hints.
    #[arg(long, short)]
    pub quiet: bool,
}

/// Adopting the tool on a repository that already has findings.
#[derive(Clone, Debug, Default, clap::Args)]
pub(crate) struct BaselineArgs {
    /// Report only findings that FILE (written by `audit --write-baseline`) does not
    /// record. For `check`, FILE is read from what is judged (the index, or the end of
    /// the range), like the policy.
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum VarsFormat {
    /// One block per variable: its value, where it comes from, what it overrides.
    Human,
    /// override-guard's JSON view of the same.
    Json,
}

/// One `--var` or `--var-file` argument, in command-line order.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum VarArg {
    Var(String),
    File(PathBuf),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum ShowFormat {
    /// Native syntax, loadable as one main.tf, with provenance comments.
    Hcl,
    /// Terraform's JSON syntax, loadable as one main.tf.json.
    TfJson,
    /// override-guard's own structured view (see docs/commands.md).
    Json,
    /// The `configuration` object of `terraform show -json` (for plan-JSON policies).
    ConfigJson,
}

/// How `scan` and `remap` print the scanner's findings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum ScanFormat {
    /// The scanner's SARIF log, its locations on your files.
    Sarif,
    /// `path:line:col: level[rule]: message`, one finding a line.
    Compact,
    /// GitHub Actions workflow annotations.
    Github,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum Color {
    Auto,
    Always,
    Never,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every argument of every command, subcommands of subcommands included, that
    /// `--help` would show without a word about it.
    fn without_help(cmd: &clap::Command, path: &str, out: &mut Vec<String>) {
        for a in cmd.get_arguments() {
            if !a.is_hide_set() && a.get_help().is_none() && a.get_long_help().is_none() {
                out.push(format!("{path} {}", a.get_id()));
            }
        }
        for sub in cmd.get_subcommands() {
            without_help(sub, &format!("{path} {}", sub.get_name()), out);
        }
    }

    #[test]
    fn every_argument_of_every_command_has_a_help_text() {
        use clap::CommandFactory;
        let mut cmd = Cli::command();
        // The generated --help and --version only exist once the command is built.
        cmd.build();
        let mut missing = Vec::new();
        without_help(&cmd, "override-guard", &mut missing);
        assert!(missing.is_empty(), "arguments without a help text: {missing:#?}");
        // The walk sees the commands' own arguments and the shared ones.
        let audit = cmd.find_subcommand("audit").map(|c| c.get_arguments().count());
        assert!(audit.is_some_and(|n| n > 10), "{audit:?}");
    }

    #[test]
    fn a_comment_fits_its_hosts_limit_unless_told_another() {
        use clap::Parser;
        let limit = |args: &[&str]| {
            let cli = Cli::try_parse_from(
                [&["override-guard", "audit", "--format", "markdown"], args].concat(),
            )
            .expect("parses");
            let Command::Audit { comment, .. } = cli.command else { panic!("audit") };
            let scope = crate::report::markdown::Scope::Modules;
            comment.report(ReportFormat::Markdown, scope, None).expect("markdown").comment.limit
        };
        assert_eq!(limit(&[]), 65_536);
        assert_eq!(limit(&["--flavor", "bitbucket"]), 32_767);
        assert_eq!(limit(&["--flavor", "bitbucket", "--max-chars", "1000"]), 1000);
        assert_eq!(limit(&["--max-chars", "1,000,000"]), 1_000_000);
        let small = Cli::try_parse_from(["override-guard", "audit", "--max-chars", "999"]);
        let said = small.err().map(|e| e.to_string()).unwrap_or_default();
        assert!(said.contains("a comment needs at least 1000 characters"), "{said}");
    }

    #[test]
    fn a_comment_option_with_another_format_is_refused_by_name() {
        use clap::Parser;
        let refused = |args: &[&str], before: Option<&str>| {
            let cli =
                Cli::try_parse_from([&["override-guard", "audit"], args].concat()).expect("parses");
            let Command::Audit { comment, .. } = cli.command else { panic!("audit") };
            let scope = crate::report::markdown::Scope::Modules;
            comment.report(ReportFormat::Sarif, scope, before).err().map(|e| e.to_string())
        };
        assert_eq!(refused(&[], None), None);
        let said = |flag: &str| Some(format!("{flag} is read only with --format markdown"));
        assert_eq!(refused(&["--link-base", "https://x"], None), said("--link-base"));
        assert_eq!(refused(&[], Some("https://x")), said("--link-base-before"));
        assert_eq!(refused(&["--max-chars", "9000"], None), said("--max-chars"));
        assert_eq!(refused(&["--flavor", "gfm"], None), said("--flavor"));
    }
}
