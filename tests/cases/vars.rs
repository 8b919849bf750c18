//! The variable-value corpus: every case of `tests/fixtures/vars/` was planned on Terraform
//! 1.15.5 with its files, flags and environment. override-guard must find the same final
//! value for every variable and print the same diagnostics.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use override_guard::diag::Diagnostic;
use override_guard::merge::load_texts;
use override_guard::terraform::Files;
use override_guard::vars::{self, CliArg, Inputs, Outcome, VarFile};
use serde::Deserialize;

use crate::fixture::fixtures;
use crate::{per_case, whole};

#[derive(Deserialize)]
struct Case {
    #[serde(default)]
    flags: Vec<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    expect: Expect,
}

#[derive(Deserialize, Default)]
struct Expect {
    values: Option<BTreeMap<String, String>>,
    #[serde(default)]
    warnings: Vec<Diag>,
    #[serde(default)]
    nonfatal_errors: Vec<Diag>,
    error_summary: Option<String>,
    error_detail: Option<String>,
    error_at: Option<String>,
    nondeterministic: Option<String>,
    #[serde(default)]
    undeclared_candidates: Vec<String>,
}

#[derive(Deserialize, Debug, PartialEq, Clone)]
struct Diag {
    summary: String,
    detail: String,
    error_at: Option<String>,
}

fn diag(files: &Files, d: &Diagnostic, with_at: bool) -> Diag {
    let at = d.subject.filter(|_| with_at).map(|s| {
        let f = files.get(s.file);
        format!("{}:{}", f.path, f.line_col(s.start).0)
    });
    Diag { summary: d.summary.clone(), detail: d.detail.clone(), error_at: at }
}

fn read(dir: &Path, name: &str) -> Option<VarFile> {
    let text = std::fs::read_to_string(dir.join(name)).ok()?;
    Some(VarFile::new(name.to_string(), Arc::<str>::from(text)))
}

/// What override-guard reports for one case.
fn run(dir: &Path, case: &Case) -> vars::Report {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("case dir")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .collect();
    names.sort();
    let texts: Vec<(String, String)> = names
        .iter()
        .filter(|n| n.ends_with(".tf") || n.ends_with(".tf.json"))
        .map(|n| (n.clone(), std::fs::read_to_string(dir.join(n)).expect("read")))
        .collect();
    let refs: Vec<(&str, &str)> = texts.iter().map(|(n, t)| (n.as_str(), t.as_str())).collect();
    let module = load_texts("", &refs, None);
    let auto = vars::auto_files(names.iter().map(String::as_str))
        .iter()
        .filter_map(|n| read(dir, n))
        .collect();
    let cli = case
        .flags
        .iter()
        .map(|f| {
            if let Some(v) = f.strip_prefix("-var=") {
                CliArg::Var(v.to_string())
            } else {
                let p = f.strip_prefix("-var-file=").expect("only -var and -var-file flags");
                CliArg::File(read(dir, p).ok_or_else(|| p.to_string()))
            }
        })
        .collect();
    let env = case.env.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    vars::collect(&module, &Inputs { auto, cli, env })
}

fn check(dir: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(dir.join("case.toml")).map_err(|e| e.to_string())?;
    let case: Case = toml::from_str(&text).map_err(|e| e.to_string())?;
    let report = run(dir, &case);
    let errors: Vec<Diag> = report
        .diagnostics
        .iter()
        .filter(|d| d.is_error())
        .map(|d| diag(&report.files, d, true))
        .collect();
    let e = &case.expect;
    // Terraform run with -input=false fails on a variable without a value; override-guard
    // reports it as one that would be prompted for.
    if e.error_summary.as_deref() == Some("No value for required variable") {
        let prompted: Vec<&str> = report
            .vars
            .iter()
            .filter(|v| matches!(v.outcome, Outcome::Prompted))
            .map(|v| v.name.as_str())
            .collect();
        let named = prompted
            .iter()
            .any(|n| e.error_detail.as_deref().unwrap_or("").contains(&format!("\"{n}\"")));
        return if named && errors.is_empty() {
            Ok(())
        } else {
            Err(format!("want a prompted variable, got {prompted:?} and {errors:?}"))
        };
    }
    if let Some(summary) = &e.error_summary {
        let want = Diag {
            summary: summary.clone(),
            detail: e.error_detail.clone().unwrap_or_default(),
            error_at: e.error_at.clone(),
        };
        return if errors == vec![want.clone()] {
            Ok(())
        } else {
            Err(format!("want error {want:?}\n    got {errors:?}"))
        };
    }
    if errors != e.nonfatal_errors {
        return Err(format!("errors: want {:?}\n    got {errors:?}", e.nonfatal_errors));
    }
    let warnings: Vec<Diag> = report
        .diagnostics
        .iter()
        .filter(|d| !d.is_error())
        .map(|d| diag(&report.files, d, false))
        .collect();
    let want_warnings: Vec<Diag> =
        e.warnings.iter().map(|w| Diag { error_at: None, ..w.clone() }).collect();
    if e.nondeterministic.is_some() {
        // Terraform picks which two undeclared names to name at random: the count and the
        // closing line must agree, and each named one must be a candidate.
        let ok = warnings.len() == want_warnings.len()
            && warnings.last() == want_warnings.last()
            && warnings[..warnings.len() - 1].iter().all(|w| {
                e.undeclared_candidates
                    .iter()
                    .any(|c| w.detail.contains(&format!("variable named \"{c}\"")))
            });
        if !ok {
            return Err(format!("warnings: want like {want_warnings:?}\n    got {warnings:?}"));
        }
    } else if warnings != want_warnings {
        return Err(format!("warnings: want {want_warnings:?}\n    got {warnings:?}"));
    }
    let values = e.values.clone().unwrap_or_default();
    for v in &report.vars {
        let got = match &v.outcome {
            Outcome::Value(val, _) => val.to_json(),
            other => serde_json::Value::String(format!("{other:?}")),
        };
        let want =
            values.get(&v.name).ok_or_else(|| format!("no expected value for {}", v.name))?;
        let want: serde_json::Value = serde_json::from_str(want).map_err(|e| e.to_string())?;
        if got != want {
            return Err(format!("var.{}: want {want}, got {got}", v.name));
        }
    }
    if report.vars.len() != values.len() {
        return Err(format!("{} variables, {} expected", report.vars.len(), values.len()));
    }
    Ok(())
}

/// Every check of the suite, one test per case.
pub fn trials() -> Vec<libtest_mimic::Trial> {
    let mut out = vec![whole("vars", "count", || {
        let n = fixtures("vars").len();
        assert!(n >= 80, "only {n} cases");
    })];
    out.extend(per_case("vars", "matches-terraform", fixtures("vars"), |case| {
        if let Err(e) = check(case) {
            panic!("{}: {e}", case.display());
        }
    }));
    out
}
