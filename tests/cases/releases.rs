//! The loader release by release: every `tests/fixtures/releases/<case>/` holds a module
//! (`module/`) and what each runnable Terraform release made of it (`oracle.json`, one
//! structure per release, keyed by version, recorded with the project's oracle tool's
//! release matrix). Loaded for each of those releases, the module's diagnostics (summary,
//! detail, file, line) and effective configuration must be that release's. 1.8.4 is what
//! the matrix runs of 1.8; it is judged as `terraform@1.8.4`, 1.8's loader. A release
//! that cannot be run (1.7, 1.15.0–1.15.4) is judged where its `case.toml` says, under
//! `[read]`, which run release's result it has (and `read_why`, what was read). A merge
//! fixture re-run on the releases names its module (`module = "tests/fixtures/merge/…/module"`)
//! rather than holding a copy.

use std::path::Path;

use override_guard::merge::{self, Module};
use override_guard::terraform::release::{Feature, Release};
use serde_json::{Value, json};

use crate::fixture::{case_str, case_toml, fixtures};
use crate::merge::{differences, mine, oracle_diagnostics, relax, theirs};
use crate::{case_name, per_case, whole};

/// The Terraform releases the oracle's matrix runs: each case is confirmed on all of them.
pub const RUN: [&str; 9] =
    ["1.6.6", "1.8.4", "1.9.8", "1.10.5", "1.11.4", "1.12.2", "1.13.5", "1.14.9", "1.15.5"];

/// Every check of the suite, one test per case.
pub fn trials() -> Vec<libtest_mimic::Trial> {
    let mut out = vec![whole("releases", "count", || {
        assert!(fixtures("releases").len() >= 20, "at least 20 release fixtures");
    })];
    out.extend(per_case("releases", "agrees-with-each-release", fixtures("releases"), agrees));
    out.push(whole("releases", "opentofu-rows", opentofu_rows));
    out.push(whole("releases", "what-the-merge-keeps", what_the_merge_keeps));
    out
}

/// The summaries a release reports for these files.
fn summaries(release: &str, files: &[(&str, &str)]) -> Vec<String> {
    let r = Release::parse(release).expect("modelled");
    merge::load_texts("", files, r).diagnostics.into_iter().map(|d| d.summary).collect()
}

/// OpenTofu's rows, as read in its sources and tests at each tag (no build can be run):
/// ephemeral resources and arguments arrive in 1.11, `deprecated` in 1.10, `const` in
/// 1.12, `removed` in 1.7, a provider's `for_each` in 1.9, `.tofu`-only `required_version`
/// in 1.12.
fn opentofu_rows() {
    let eph = [("main.tf", "ephemeral \"random_password\" \"p\" {\n}\n")];
    assert_eq!(summaries("opentofu@1.10", &eph), ["Unsupported block type"]);
    assert!(summaries("opentofu@1.11", &eph).is_empty());
    let var = |arg: &str| format!("variable \"a\" {{\n  default = 1\n  {arg}\n}}\n");
    let dep = var("deprecated = \"x\"");
    assert_eq!(summaries("opentofu@1.9", &[("main.tf", &dep)]), ["Unsupported argument"]);
    assert!(summaries("opentofu@1.10", &[("main.tf", &dep)]).is_empty());
    let c = var("const = true");
    assert_eq!(summaries("opentofu@1.11", &[("main.tf", &c)]), ["Unsupported argument"]);
    assert!(summaries("opentofu@1.12", &[("main.tf", &c)]).is_empty());
    let removed = [("main.tf", "removed {\n  from = null_resource.a\n}\n")];
    assert_eq!(summaries("opentofu@1.6", &removed), ["Unsupported block type"]);
    assert!(summaries("opentofu@1.7", &removed).is_empty());
    // A provider's for_each: reserved before 1.9; from 1.9 decoded apart from the
    // configuration, which is all `(*Provider).merge` merges.
    let each = "provider \"aws\" {\n  alias    = \"by_region\"\n  for_each = toset([\"a\"])\n  region   = each.key\n}\n";
    let each_override = "provider \"aws\" {\n  alias    = \"by_region\"\n  for_each = toset([\"b\"])\n  region   = \"c\"\n}\n";
    assert_eq!(
        summaries("opentofu@1.8", &[("main.tf", each)]),
        ["Reserved argument name in provider block"]
    );
    let m = merge::load_texts(
        "",
        &[("main.tf", each), ("override.tf", each_override)],
        Release::parse("opentofu@1.9").expect("modelled"),
    );
    assert!(m.diagnostics.is_empty(), "{:?}", m.diagnostics);
    let b = &m.blocks[0];
    assert_eq!(
        b.attr("for_each").map(|a| m.files.range_string(a.span)),
        Some("main.tf:3,3-26".into())
    );
    assert_eq!(
        b.attr("region").map(|a| m.files.range_string(a.span)),
        Some("override.tf:4,3-17".into())
    );
    assert_eq!(m.ignored.len(), 1, "{:?}", m.ignored);
    // From 1.12 only `.tofu` files' required_version counts: a `.tf` file's is unread
    // (the primary's) or ignored (an override's); before, as Terraform, an override's
    // replaces the primary's.
    let versions = [
        ("versions.tf", "terraform {\n  required_version = \">= 1.9\"\n}\n"),
        ("versions_override.tf", "terraform {\n  required_version = \">= 1.5\"\n}\n"),
    ];
    let version = |release: &str| {
        let m = merge::load_texts("", &versions, Release::parse(release).expect("modelled"));
        let texts = |v: &[override_guard::terraform::Attr]| -> Vec<String> {
            v.iter().filter_map(|a| a.expr.as_str()).collect()
        };
        (texts(&m.settings.required_version), texts(&m.settings.unread_versions), m.ignored.len())
    };
    assert_eq!(version("opentofu@1.11"), (vec![">= 1.5".to_string()], vec![], 0));
    assert_eq!(version("opentofu@1.12"), (vec![], vec![">= 1.9".to_string()], 1));
    assert_eq!(version("terraform@1.15"), (vec![">= 1.5".to_string()], vec![], 0));
}

/// What the merge keeps where the diagnostics cannot tell: Terraform 1.13 drops every
/// action (1.14 keeps them), and before 1.15 a module's `ignore_nested_deprecations` is
/// an input like any, merged from an override.
fn what_the_merge_keeps() {
    let action = [("main.tf", "action \"a\" \"b\" {\n}\n")];
    let kinds = |release: &str| -> Vec<String> {
        let r = Release::parse(release).expect("modelled");
        merge::load_texts("", &action, r).blocks.iter().map(|b| b.kind.to_string()).collect()
    };
    assert!(kinds("terraform@1.13").is_empty());
    assert_eq!(kinds("terraform@1.14"), ["action"]);
    let files = [
        ("main.tf", "module \"m\" {\n  source = \"./a\"\n}\n"),
        ("override.tf", "module \"m\" {\n  ignore_nested_deprecations = true\n}\n"),
    ];
    let merged = |release: &str| {
        let r = Release::parse(release).expect("modelled");
        let m = merge::load_texts("", &files, r);
        assert!(m.diagnostics.is_empty(), "{release}: {:?}", m.diagnostics);
        m.blocks[0].attr("ignore_nested_deprecations").is_some()
    };
    assert!(merged("terraform@1.14"));
    assert!(!merged("terraform@1.15"));
}

/// The fixture's module as `release` loads it.
fn load(dir: &Path, release: Release) -> Module {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("module dir")
        .map(|e| e.expect("entry"))
        .filter(|e| e.file_type().map(|t| t.is_file()).unwrap_or(false))
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    merge::load("", &names, release, |p: &str| std::fs::read(dir.join(p))).expect("readable")
}

/// The diagnostics in the oracle's shape, sorted as it sorts them.
fn diagnostics(m: &Module) -> Vec<Value> {
    crate::merge::diagnostics(m)
}

/// A field an older release does not have is `null` in its dump: what that release's
/// loader means by it is the default (a variable or output is not ephemeral).
fn absent_is_default(s: &mut Value) {
    for kind in ["variables", "outputs"] {
        for (_, v) in s[kind].as_object_mut().into_iter().flatten() {
            if v["ephemeral"].is_null() {
                v["ephemeral"] = json!(false);
            }
        }
    }
}

/// Before 1.15 a module's source is a string, not an expression: the oracle's dump has
/// no range for it (nor for `version`), so neither side's is compared there.
fn unobserved_sources(facts: &mut Value) {
    for (_, m) in facts["modules"].as_object_mut().into_iter().flatten() {
        if let Some(m) = m.as_object_mut() {
            m.remove("source");
            m.remove("version");
        }
    }
}

fn agrees(case: &Path) {
    let name = case_name(case);
    let toml = case_toml(case);
    assert!(case_str(&toml, "about").is_some(), "{name}: case.toml says what the case shows");
    let oracle: Value = serde_json::from_str(
        &std::fs::read_to_string(case.join("oracle.json")).expect("oracle.json"),
    )
    .expect("json");
    let confirmed: Vec<&str> =
        oracle.as_object().into_iter().flatten().map(|(k, _)| k.as_str()).collect();
    assert_eq!(confirmed, RUN, "{name}: confirmed on every release the matrix runs");
    // Releases that cannot be run, read in Terraform's sources to load as a run one does.
    let mut judged: Vec<(String, &str)> = RUN.iter().map(|v| (v.to_string(), *v)).collect();
    if let Some(read) = toml.get("read").and_then(toml::Value::as_table) {
        assert!(case_str(&toml, "read_why").is_some(), "{name}: read_why says what was read");
        for (release, like) in read {
            let like = like.as_str().expect("a run release");
            assert!(RUN.contains(&like), "{name}: {release} reads as {like}, which is not run");
            judged.push((release.clone(), like));
        }
    }
    // A merge fixture re-run on every release names its module instead of copying it.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let module = case_str(&toml, "module").map_or_else(|| case.join("module"), |m| root.join(m));
    let mut diffs = Vec::new();
    for (v, like) in judged {
        let release = Release::parse(&format!("terraform@{v}")).expect("modelled");
        let mut s = oracle[like]["structure"].clone();
        absent_is_default(&mut s);
        let m = load(&module, release);
        let (mine_d, theirs_d) = (diagnostics(&m), oracle_diagnostics(&s));
        if mine_d != theirs_d {
            diffs.push(format!(
                "{v} diagnostics:\n    override-guard {}\n    Terraform      {}",
                json!(mine_d),
                json!(theirs_d)
            ));
        }
        let mut a = mine(&m);
        let mut b = theirs(&s);
        if !release.has(Feature::ModuleSourceExpressions) {
            unobserved_sources(&mut a);
            unobserved_sources(&mut b);
        }
        let mut here = Vec::new();
        if theirs_d.iter().any(|d| d["severity"] == "error") {
            differences(&a["files"], &b["files"], "files", &mut here);
        } else {
            relax(&mut a, &b);
            differences(&a, &b, "", &mut here);
        }
        diffs.extend(here.into_iter().map(|d| format!("{v} {d}")));
    }
    assert!(diffs.is_empty(), "{name} disagrees with Terraform:\n  {}", diffs.join("\n  "));
}
