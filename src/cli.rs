//! The command line, as plain data (clap derive). No I/O here.

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

use crate::terraform::discover::Engine;

/// Guards Terraform and OpenTofu repositories against the quiet danger of override files.
#[derive(Debug, Parser)]
#[command(name = "override-guard", version, about, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,

    /// When to use colours in human output.
    #[arg(long, global = true, value_enum, default_value_t = Color::Auto)]
    pub color: Color,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Print the effective configuration of one module, with where every value came from.
    #[command(
        after_help = "Examples:\n  override-guard show examples/app\n  override-guard show examples/envs/prod --format tf-json"
    )]
    Show {
        /// The module directory.
        #[arg(default_value = ".")]
        dir: PathBuf,
        #[arg(long, value_enum, default_value_t = ShowFormat::Hcl)]
        format: ShowFormat,
        /// Whose rules apply (default: terraform, or opentofu when the module has .tofu files).
        #[arg(long, value_enum)]
        engine: Option<Engine>,
    },
    /// Report every override file and every merge error under a directory.
    #[command(
        after_help = "Examples:\n  override-guard audit\n  override-guard audit examples/ --format compact"
    )]
    Audit {
        /// Where to start (modules are directories; .gitignore is honoured, .terraform/ skipped).
        #[arg(default_value = ".")]
        path: PathBuf,
        /// Output format (default: human on a terminal, compact otherwise).
        #[arg(long, value_enum)]
        format: Option<ReportFormat>,
        #[arg(long, value_enum)]
        engine: Option<Engine>,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ShowFormat {
    /// Native syntax, loadable as one main.tf, with provenance comments.
    Hcl,
    /// Terraform's JSON syntax, loadable as one main.tf.json.
    TfJson,
    /// override-guard's own structured view (see README).
    Json,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ReportFormat {
    Human,
    Compact,
    Json,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Color {
    Auto,
    Always,
    Never,
}
