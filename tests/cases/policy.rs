//! Policy fixtures: `tests/fixtures/policy/<case>/` holds `module/` (one or more module
//! directories, read into an in-memory source), an optional `policy.toml` (the built-in
//! policy without one) and an optional `case.toml` (`today = "YYYY-MM-DD"`, `engine`).
//! The snapshot `report.snap` is the human report exactly as the CLI draws it without
//! colour at width 100, then the compact lines; for a broken policy, its diagnostics.

use std::path::Path;

use override_guard::pipeline::audit::{Ask, Audit};
use override_guard::pipeline::policies::Trouble;
use override_guard::pipeline::{Choice, PolicyFile};
use override_guard::policy::{Coverage, Date, GlobBase};
use override_guard::report::{self, Style, findings};
use override_guard::source::MemorySource;
use override_guard::source::Source;
use override_guard::terraform::release::EngineChoice;

use crate::fixture::fixtures;
use crate::{case_name, per_case};

fn read_tree(root: &Path, rel: &str, src: &mut MemorySource) {
    let mut entries: Vec<_> =
        std::fs::read_dir(root.join(rel)).expect("module dir").map(|e| e.expect("entry")).collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let name = e.file_name().to_string_lossy().into_owned();
        let path = if rel.is_empty() { name } else { format!("{rel}/{name}") };
        if e.file_type().expect("type").is_dir() {
            read_tree(root, &path, src);
        } else {
            src.files.insert(path, std::fs::read(e.path()).expect("readable"));
        }
    }
}

/// Runs one case and renders what the CLI would print.
pub fn run_case(case: &Path) -> String {
    let case_toml = crate::fixture::case_toml(case);
    let today = crate::fixture::case_str(&case_toml, "today").unwrap_or("2026-11-22");
    let parts: Vec<u16> = today.split('-').map(|p| p.parse().expect("date")).collect();
    let today = Date { year: parts[0], month: parts[1] as u8, day: parts[2] as u8 };
    // `opentofu`, `terraform@1.13`: as `--engine` takes it.
    let engine = crate::fixture::case_str(&case_toml, "engine")
        .map_or(EngineChoice::Files, |e| EngineChoice::parse(e).expect("a modelled release"));
    let choice = match std::fs::read_to_string(case.join("policy.toml")) {
        Err(_) => Choice::Nearest,
        Ok(text) => Choice::Fixed(PolicyFile {
            path: "policy.toml".into(),
            text,
            base: GlobBase::default(),
        }),
    };
    let mut src = MemorySource::new();
    read_tree(&case.join("module"), "", &mut src);
    let modules: Vec<(String, Vec<String>)> =
        src.modules().expect("in-memory source").into_iter().collect();
    let dirs = modules.iter().map(|(d, _)| d.as_str());
    let ask = Ask { choice: &choice, levels: &[], engine, today };
    let mut audit = match Audit::find(&src, &ask, dirs) {
        Ok(a) => a,
        Err(Trouble::Policy(errors)) => {
            let shown: Vec<String> =
                errors.into_iter().map(|e| report::policy_error(e, Style::plain())).collect();
            return shown.join("\n");
        }
        Err(Trouble::Source(e)) => panic!("{e}"),
    };
    audit.scopes = audit.policies.list.iter().map(|_| Coverage::whole()).collect();
    let (found, summary) = audit.run(&src, &modules, &()).expect("in-memory source");
    let mut out = findings::human(&found, &summary, Style::plain());
    out.push_str("\n---- compact ----\n");
    out.push_str(&findings::compact(&found, &summary));
    out
}

/// Every check of the suite, one test per case.
pub fn trials() -> Vec<libtest_mimic::Trial> {
    per_case("policy", "report", fixtures("policy"), report).collect()
}

/// `report.snap` pins the rendered report.
fn report(case: &Path) {
    let name = case_name(case);
    let text = run_case(case);
    insta::with_settings!({snapshot_path => case, prepend_module_to_snapshot => false, snapshot_suffix => "", input_file => case.join("module"), description => name}, {
        insta::assert_snapshot!("report", text);
    });
}
