//! `flatten`, `scan` and `remap`: the flattened tree (see `flat_tree`) written under the
//! directory the user named (or a temporary one, for `scan`), the scanner run, its SARIF
//! put back on the user's files.

use crate::error;
use crate::terraform::release::EngineChoice;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::flat_tree::{MAP_FILE, Tally, prepare_out, write_tree};
use super::outcome::Outcome;
use super::output::{write_err, write_out, write_syntax};
use super::workspace::Workspace;
use crate::cli::ScanFormat;
use crate::flatten::remap::{self, TreeMap};
use crate::report;
use crate::source::disk;

pub(super) fn flatten(
    paths: &[PathBuf],
    out: &Path,
    force: bool,
    engine: EngineChoice,
) -> Result<Outcome, error::Error> {
    let ws = Workspace::worktree(paths)?;
    let shown_out = out.display().to_string();
    prepare_out(&ws, out, force)?;
    let (map, w) = write_tree(&ws, out, engine)?;
    let text = serde_json::to_string_pretty(&map).unwrap_or_default() + "\n";
    std::fs::write(out.join(MAP_FILE), text)
        .map_err(|e| error::Error::io(format!("{shown_out}/{MAP_FILE}"), e))?;
    for n in &w.notes {
        write_err(n);
    }
    write_err(&summary(&w, &report::clean_line(&shown_out)));
    Ok(if map.unflattened.is_empty() { Outcome::Clean } else { Outcome::Findings })
}

/// `flatten`'s last line: how many modules were flattened, how many needed no change and
/// how many were copied as they are, so that a run with nothing to flatten reads as the
/// success it is.
fn summary(w: &Tally, out: &str) -> String {
    let copied = format!(
        "{} copied as {}; line map in {MAP_FILE}\n",
        count(w.copied, "other file"),
        if w.copied == 1 { "it is" } else { "they are" },
    );
    let unchanged = w.modules - w.flattened.min(w.modules) - w.refused.min(w.modules);
    if w.flattened == 0 && w.refused == 0 {
        let none = match w.modules {
            0 => "there is no module".to_string(),
            1 => "the module needed no change".to_string(),
            n => format!("none of the {n} modules needed a change"),
        };
        return format!(
            "nothing to flatten in {out}: {none} (no override file to fold, no shadowed .tf file to leave out); {copied}"
        );
    }
    let mut head =
        format!("flattened {} of {} into {out}", w.flattened, count(w.modules, "module"));
    if unchanged > 0 {
        head.push_str(&format!(", {unchanged} needed no change"));
    }
    if w.refused > 0 {
        let was = if w.refused == 1 { "was" } else { "were" };
        head.push_str(&format!(", {} {was} copied as it is", w.refused));
    }
    format!(
        "{head}: {} folded, {} left out, {copied}",
        count(w.folded, "override file"),
        count(w.shadowed, "shadowed .tf file"),
    )
}

/// `1 module`, `2 modules`.
fn count(n: usize, what: &str) -> String {
    if n == 1 { format!("1 {what}") } else { format!("{n} {what}s") }
}

/// A directory of its own under the system's temporary directory, removed when dropped
/// or when the run is stopped. Private to its user (0700): the copy can hold what a
/// variables file keeps to its owner, and other local users have no business in it.
struct TempDir(PathBuf, #[allow(dead_code)] super::stop::Registered);

impl TempDir {
    fn new() -> Result<TempDir, error::Error> {
        let base = std::env::temp_dir();
        let pid = std::process::id();
        let mut last = None;
        super::stop::watch();
        for n in 0..1000u32 {
            let p = base.join(format!("override-guard-scan-{pid}-{n}"));
            let mut dir = std::fs::DirBuilder::new();
            #[cfg(unix)]
            std::os::unix::fs::DirBuilderExt::mode(&mut dir, 0o700);
            match dir.create(&p) {
                Ok(()) => {
                    let registered = super::stop::register(p.clone());
                    return Ok(TempDir(p, registered));
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some(e),
                Err(e) => return Err(error::Error::io(base.display().to_string(), e)),
            }
        }
        Err(error::Error::io(
            base.display().to_string(),
            last.unwrap_or_else(|| std::io::Error::other("no free name")),
        ))
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

pub(super) fn scan(
    path: &Path,
    command: &[String],
    format: ScanFormat,
    engine: EngineChoice,
) -> Result<Outcome, error::Error> {
    let usage = |m: String| error::Error::Usage { message: m };
    let Some((program, args)) = command.split_first() else {
        return Err(usage(
            "scan needs a command after `--`, with {} for the flattened tree".into(),
        ));
    };
    if !command.iter().any(|a| a.contains("{}")) {
        return Err(usage(
            "the command does not name the tree to scan: write {} where its directory goes (`-- checkov -d {} -o sarif --output-file-path {out}`)".into(),
        ));
    }
    let ws = Workspace::worktree(&[path.to_path_buf()])?;
    let tmp = TempDir::new()?;
    let tree = tmp.0.join("override-guard-flattened");
    let report_path = tmp.0.join("report");
    std::fs::create_dir(&tree).map_err(|e| error::Error::io(tree.display().to_string(), e))?;
    let (map, w) = write_tree(&ws, &tree, engine)?;
    for n in &w.notes {
        write_err(n);
    }
    let tree_s = tree.display().to_string();
    let report_s = report_path.display().to_string();
    let fill = |a: &String| a.replace("{out}", &report_s).replace("{}", &tree_s);
    let wants_file = command.iter().any(|a| a.contains("{out}"));
    let mut cmd = Command::new(fill(program));
    cmd.args(args.iter().map(fill)).stdin(Stdio::inherit()).stderr(Stdio::inherit());
    cmd.stdout(Stdio::piped());
    let cannot =
        |e: std::io::Error| usage(format!("cannot run {}: {e}", report::clean_line(program)));
    let mut child = super::stop::Child::spawn(&mut cmd).map_err(cannot)?;
    // Its stdout is read beside the wait: a scanner that prints much would block on a
    // full pipe otherwise.
    let reader = child.stdout().map(|mut out| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = std::io::Read::read_to_end(&mut out, &mut buf);
            buf
        })
    });
    let status = match child.wait().map_err(cannot)? {
        Ok(status) => status,
        Err(sig) => {
            write_err(&format!(
                "error: stopped by signal {sig}; {} was stopped with it\n",
                report::clean_line(program)
            ));
            return Ok(Outcome::Stopped(sig));
        }
    };
    let stdout = reader.and_then(|r| r.join().ok()).unwrap_or_default();
    let text = if wants_file {
        // The scanner's own report on the terminal goes to stderr: stdout is ours.
        if !stdout.is_empty() {
            write_err(&String::from_utf8_lossy(&stdout));
        }
        read_report(&report_path)?
    } else {
        String::from_utf8_lossy(&stdout).into_owned()
    };
    let code = match status.code() {
        Some(c) => c,
        None => {
            write_err(&format!("error: {} was stopped by a signal\n", report::clean_line(program)));
            return Ok(Outcome::Error);
        }
    };
    let exists = |rel: &str| !rel.is_empty() && tree.join(rel).is_file();
    let roots = roots_of(&tree, &exists);
    let shown = if map.root.is_empty() { ".".to_string() } else { map.root.clone() };
    let mut log: serde_json::Value = match serde_json::from_str(text.trim_start_matches('\u{feff}'))
    {
        Ok(v) => v,
        Err(e) => {
            write_err(&format!(
                "error: {} did not give a SARIF log ({e}); scanners that print something else on stdout write SARIF to a file: put {{out}} where that file goes\n",
                report::clean_line(program)
            ));
            return Ok(Outcome::Error);
        }
    };
    match remap::sarif(&mut log, &map, &roots, &shown) {
        Ok(stats) => {
            print_log(&log, format);
            write_err(&format!(
                "{} of {} mapped back to your files: {} onto lines override files set, {} on blocks override files change\n",
                count(stats.results, "finding"),
                report::clean_line(program),
                stats.onto_overrides,
                stats.with_overrides
            ));
        }
        Err(why) => {
            write_err(&format!("error: {}: {why}\n", report::clean_line(program)));
            return Ok(Outcome::Error);
        }
    }
    Ok(Outcome::Scanner(u8::try_from(code).unwrap_or(2)))
}

/// The scanner's report: the file it wrote at `{out}`, or the one SARIF or JSON file in
/// the directory of that name (checkov's `--output-file-path` makes a directory).
fn read_report(p: &Path) -> Result<String, error::Error> {
    let shown = "{out}".to_string();
    let io = |e| error::Error::io(shown.clone(), e);
    let meta = std::fs::metadata(p).map_err(|_| error::Error::Usage {
        message: "the scanner wrote no report at {out}".into(),
    })?;
    let text = |p: &Path| {
        disk::read(p, disk::Kind::Report, disk::Links::Follow)
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .map_err(|e| e.error(shown.clone()))
    };
    if meta.is_file() {
        return text(p);
    }
    let mut found: Vec<PathBuf> = std::fs::read_dir(p)
        .map_err(io)?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|x| x.extension().is_some_and(|e| e == "sarif" || e == "json"))
        .collect();
    found.sort();
    match found.as_slice() {
        [one] => text(one),
        [] => {
            Err(error::Error::Usage { message: "the scanner wrote no SARIF file in {out}".into() })
        }
        _ => Err(error::Error::Usage {
            message: "the scanner wrote several files in {out}: ask it for SARIF alone".into(),
        }),
    }
}

pub(super) fn remap_cmd(
    sarif: &Path,
    tree: &Path,
    format: ScanFormat,
) -> Result<Outcome, error::Error> {
    let shown = tree.display().to_string();
    let map_path = tree.join(MAP_FILE);
    let text =
        super::workspace::read_named(&map_path, disk::Kind::Report, format!("{shown}/{MAP_FILE}"))?;
    let text = String::from_utf8_lossy(&text);
    let map: TreeMap = serde_json::from_str(&text).map_err(|e| error::Error::Usage {
        message: format!("{shown}/{MAP_FILE}: not a flatten map ({e})"),
    })?;
    let log_bytes = if sarif == Path::new("-") {
        disk::read_stdin(disk::Kind::Report).map_err(|e| e.error("standard input".into()))?
    } else {
        let shown = super::workspace::shown_path(sarif);
        super::workspace::read_named(sarif, disk::Kind::Report, shown)?
    };
    let log_text = String::from_utf8_lossy(&log_bytes);
    let mut log: serde_json::Value = serde_json::from_str(log_text.trim_start_matches('\u{feff}'))
        .map_err(|e| error::Error::Usage {
            message: format!("{}: not a SARIF log ({e})", sarif.display()),
        })?;
    let exists = |rel: &str| !rel.is_empty() && tree.join(rel).is_file();
    let roots = roots_of(tree, &exists);
    let root_shown = if map.root.is_empty() { ".".to_string() } else { map.root.clone() };
    remap::sarif(&mut log, &map, &roots, &root_shown)
        .map_err(|why| error::Error::Usage { message: format!("{}: {why}", sarif.display()) })?;
    print_log(&log, format);
    Ok(Outcome::Clean)
}

/// The spellings of a tree's root a scanner may have used (see [`remap::Roots`]).
fn roots_of<'a>(tree: &Path, exists: &'a dyn Fn(&str) -> bool) -> remap::Roots<'a> {
    let mut dirs = Vec::new();
    if let Some(abs) = crate::source::worktree::lexical_absolute(tree) {
        dirs.push(abs.display().to_string());
    }
    if let Ok(real) = std::fs::canonicalize(tree) {
        dirs.push(real.display().to_string());
    }
    dirs.dedup();
    let cwd = std::env::current_dir().ok().map(|c| c.display().to_string());
    remap::Roots { dirs, cwd, exists }
}

fn print_log(log: &serde_json::Value, format: ScanFormat) {
    match format {
        // JSON's own escapes: the terminal guard's `\u{202e}` would make the log no JSON.
        ScanFormat::Sarif => {
            write_syntax(&(serde_json::to_string_pretty(log).unwrap_or_default() + "\n"));
        }
        ScanFormat::Compact => {
            let mut out = String::new();
            for r in remap::results(log) {
                out.push_str(&format!(
                    "{}:{}:1: {}[{}]: {}\n",
                    report::clean_line(&r.path),
                    r.line,
                    r.level,
                    report::clean_line(&r.rule),
                    report::clean_line(&r.message).replace('\n', " ")
                ));
            }
            write_out(&out);
        }
        ScanFormat::Github => {
            let mut out = String::new();
            for r in remap::results(log) {
                let kind = match r.level {
                    "error" => "error",
                    "warning" => "warning",
                    _ => "notice",
                };
                out.push_str(&format!(
                    "::{kind} file={},line={},endLine={},title={}::{}\n",
                    report::findings::gh_property(&r.path),
                    r.line,
                    r.end_line,
                    report::findings::gh_property(&r.rule),
                    report::findings::gh_data(&r.message)
                ));
            }
            write_out(&out);
        }
    }
}
