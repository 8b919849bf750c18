//! `engine-divergence`: Terraform and OpenTofu would run different configurations. See
//! [`RULE`].

use std::collections::HashMap;

use serde_json::Value;

use super::rule::Rule;
use crate::finding::{Finding, Level};
use crate::merge::{self, Module};
use crate::policy::context::{Context, lifecycle_varies, override_blocks};
use crate::terraform::discover::Skip;
use crate::terraform::{FileClass, Item, Span};

pub(crate) static RULE: Rule = Rule {
    id: super::RuleId::EngineDivergence,
    level: Level::Warn,
    summary: "an override file makes Terraform and OpenTofu compute different effective configurations",
    doc: "\
What it checks
  Loads a module that has override files with both engines and compares the effective
  configurations, then compares them again without the override files: only what the
  override files add to the difference, or change in it, is reported, with the first
  value that differs under each engine in the message (the others in the help). That is an
  override file only one engine merges (`override.tofu`, or `x_override.tf` shadowed by
  `x_override.tofu` for OpenTofu), override blocks one engine ignores and the other
  merges or rejects (`ephemeral`, `removed`), a `required_version` in an override file
  (OpenTofu reads it only from `.tofu` files), an output `type` or `deprecated` only one
  engine knows.
  A module without override files is not reported: `.tf`/`.tofu` twins of primary files
  are a deliberate way to give each engine its own configuration. Nor is one whose
  override files change the same thing for both engines, or something else. Where the
  primary files alone make one engine reject the module (an `action` block, which
  OpenTofu does not know), only an error of another kind that the override files add is
  reported: the message names it, and the finding points at the file it is in.

Why
  A repository that is run by both engines (or that is migrating) must mean one thing.
  An override file that makes the engines disagree is a plan that differs with the
  binary that runs it, and nothing in the primary files says so.

Example
  main.tf              instance_type = \"t3.micro\"
  override.tofu        instance_type = \"t3.large\"   # OpenTofu merges this, Terraform does not
",
    options: &[],
    configure: None,
    check: Some(check),
    inline: true,
};

fn check(cx: &Context<'_>, out: &mut Vec<Finding>) {
    let Some(other) = cx.other else { return };
    let (a, b) = (cx.m, other);
    if a.files.files.is_empty() || b.files.files.is_empty() {
        return; // only .tofu files: Terraform has nothing to run here
    }
    if a.override_files().next().is_none() && b.override_files().next().is_none() {
        return; // whatever differs is the module's own .tf/.tofu twins
    }
    // Same files, same merge result (provenance included): nothing to compare further.
    if a.has_errors() == b.has_errors()
        && a.blocks == b.blocks
        && a.locals == b.locals
        && a.settings == b.settings
    {
        return;
    }
    let full = divergence(a, b);
    if full == Divergence::Same {
        return;
    }
    // The same comparison without the override files: what the primary files (and
    // their .tofu twins) make differ by themselves is not the overrides' doing.
    let base_a = merge::without_overrides(a);
    let same_files = a.files.files.len() == b.files.files.len()
        && a.files.files.iter().zip(&b.files.files).all(|(x, y)| x.path == y.path);
    let base_b =
        if same_files { merge::reassemble(&base_a, b.engine) } else { merge::without_overrides(b) };
    let found = introduced(full, &divergence(&base_a, &base_b));
    if found.is_empty() {
        return;
    }
    let diff: Vec<String> = found.iter().map(|d| d.object.clone()).collect();
    // A rejection is the doing of the override file its error is in, if it is one.
    let blamed = found.iter().find_map(|d| match &d.how {
        How::Rejects { path: Some(p), .. } => {
            a.files.files.iter().position(|f| f.path == *p && f.class == FileClass::Override)
        }
        _ => None,
    });
    let span = blamed.map_or_else(|| anchor(a, b, &diff, cx), |id| Span::new(id, 0, 0));
    let shown: Vec<&str> = diff.iter().take(8).map(String::as_str).collect();
    let more = if diff.len() > 8 { format!(" and {} more", diff.len() - 8) } else { String::new() };
    let (ours, theirs) = (a.engine.name(), b.engine.name());
    // What differs, said in the message itself: the compact line is all a committer sees.
    let first = &found[0];
    let others = match found.len() {
        1 => String::new(),
        n => format!(" (and {} more)", n - 1),
    };
    let mut help = format!("differs: {}{more}\n", shown.join(", "));
    // The first is in the message; with more, each is said here.
    for d in found.iter().take(8).filter(|_| found.len() > 1) {
        help.push_str(&format!("  {}\n", d.said(ours, theirs)));
    }
    if let Some(f) = a.files.files.get(span.file)
        && !b.files.files.iter().any(|g| g.path == f.path)
    {
        help.push_str(&format!("{} is read by {ours} only\n", f.name()));
    }
    help.push_str("compare with `override-guard show --engine terraform` and `--engine opentofu`");
    out.push(
        Finding::new(
            RULE.id,
            format!(
                "{ours} and {theirs} compute different configurations for this module: {}{others}",
                first.said(ours, theirs)
            ),
            cx.site(span, "the configurations diverge from here"),
        )
        .help(help),
    );
}

/// One object the engines see differently, with the first leaf of it that differs.
#[derive(Debug, PartialEq)]
struct Differs {
    /// The configuration path down to an object (`resource.aws_instance.web`).
    object: String,
    how: How,
}

#[derive(Debug, PartialEq)]
enum How {
    /// A leaf's value under the engine in force and under the other (`None`: not set).
    Value { leaf: String, ours: Option<Value>, theirs: Option<Value> },
    /// One engine rejects the module: with its first error, and the file it is in.
    Rejects { by: &'static str, not_by: &'static str, error: String, path: Option<String> },
}

impl Differs {
    /// `resource.aws_instance.web.ami is "ami-2" under OpenTofu, not set under Terraform`.
    fn said(&self, ours: &str, theirs: &str) -> String {
        match &self.how {
            How::Value { leaf, ours: x, theirs: y } => {
                format!("{leaf} is {} under {ours}, {} under {theirs}", value(x), value(y))
            }
            How::Rejects { by, not_by, error, .. } => {
                format!("{by} rejects the module ({error}), {not_by} accepts it")
            }
        }
    }
}

/// A leaf's value in a sentence: JSON, at most 40 characters; `not set` when absent.
fn value(v: &Option<Value>) -> String {
    let Some(v) = v else { return "not set".to_string() };
    let text = v.to_string();
    if text.chars().count() > 40 {
        format!("{}…", text.chars().take(39).collect::<String>())
    } else {
        text
    }
}

/// How two engines' views of one module differ.
#[derive(Debug, PartialEq)]
enum Divergence {
    /// The same configuration, or both engines reject the module.
    Same,
    /// One engine rejects the module (its name, the other's, and its errors: summary and
    /// detail, with the path of the file each is in).
    Rejects { by: &'static str, not_by: &'static str, errors: Vec<(Said, Option<String>)> },
    /// Both accept it: the leaves that differ, with each engine's value (`None`: absent).
    Values(Vec<(String, Option<Value>, Option<Value>)>),
}

/// An error's summary and detail: what two loads of a module are compared by.
type Said = (String, String);

fn divergence(a: &Module, b: &Module) -> Divergence {
    let errors = |m: &Module| -> Vec<(Said, Option<String>)> {
        let errs = m.diagnostics.iter().filter(|d| d.is_error());
        let path = |d: &crate::diag::Diagnostic| {
            d.subject.and_then(|s| m.files.files.get(s.file)).map(|f| f.path.clone())
        };
        errs.map(|d| ((d.summary.clone(), d.detail.clone()), path(d))).collect()
    };
    match (a.has_errors(), b.has_errors()) {
        (false, false) => {
            let diff = merge::compare::differences(a, b);
            let out: Vec<_> =
                diff.into_iter().map(|d| (d.path.to_string(), d.left, d.right)).collect();
            if out.is_empty() { Divergence::Same } else { Divergence::Values(out) }
        }
        (true, false) => {
            Divergence::Rejects { by: a.engine.name(), not_by: b.engine.name(), errors: errors(a) }
        }
        (false, true) => {
            Divergence::Rejects { by: b.engine.name(), not_by: a.engine.name(), errors: errors(b) }
        }
        (true, true) => Divergence::Same,
    }
}

/// What differs in `full` (the module as loaded) that did not differ the same way in
/// `base` (without its override files), object by object (`resource.aws_instance.web`,
/// `terraform.required_version`), each with the first leaf that differs in it.
fn introduced(full: Divergence, base: &Divergence) -> Vec<Differs> {
    match full {
        Divergence::Same => Vec::new(),
        Divergence::Rejects { by, not_by, errors } => {
            // Where the primary files alone make the same engine reject the module, only
            // an error of another kind is the overrides' doing, and it is the one named.
            let known: Vec<&Said> = match base {
                Divergence::Rejects { by: b, errors: e, .. } if *b == by => {
                    e.iter().map(|(x, _)| x).collect()
                }
                _ => Vec::new(),
            };
            let Some(((error, _), path)) = errors.into_iter().find(|(x, _)| !known.contains(&x))
            else {
                return Vec::new();
            };
            vec![Differs {
                object: format!("{by} rejects the module, {not_by} accepts it"),
                how: How::Rejects { by, not_by, error, path },
            }]
        }
        Divergence::Values(values) => {
            let before: HashMap<&str, (&Option<Value>, &Option<Value>)> = match base {
                Divergence::Values(v) => v.iter().map(|(k, x, y)| (k.as_str(), (x, y))).collect(),
                _ => HashMap::new(),
            };
            let mut out: Vec<Differs> = Vec::new();
            for (k, x, y) in values {
                if before.get(k.as_str()) == Some(&(&x, &y)) {
                    continue;
                }
                let object = k.split('.').take(3).collect::<Vec<_>>().join(".");
                if !out.iter().any(|d| d.object == object) {
                    out.push(Differs { object, how: How::Value { leaf: k, ours: x, theirs: y } });
                }
            }
            out
        }
    }
}

/// Could the engines merge this module differently? Only constructs the engines treat
/// differently in override files can make them diverge (spec §5.12), so modules without
/// them skip the second merge. `.tofu` files are the caller's check.
pub(crate) fn may_diverge(m: &Module) -> bool {
    m.has_errors()
        || override_blocks(m).any(|b| match b.kind.as_str() {
            "resource" | "data" => lifecycle_varies(b),
        "variable" => b.attr("deprecated").is_some() || b.attr("const").is_some(),
        "output" => b.attr("type").is_some() || b.attr("deprecated").is_some(),
        "module" => b.attr("ignore_nested_deprecations").is_some(),
        "locals" | "provider" => false,
        // Swapping the state backend, the most common override: both engines replace the
        // backend or cloud block wholesale, and decode both alike.
        "terraform" => b.body.items.iter().any(|i| match i {
            Item::Block(x) => !matches!(x.kind.as_str(), "backend" | "cloud"),
            _ => true,
        }),
        _ => true, // ephemeral, action, removed, language, …
    })
}

/// Where to point: an override file only this engine merges, else one that changes an
/// object that differs, else the first override file; without any, the first `.tofu`
/// file that shadows another, else the first file.
fn anchor(a: &Module, b: &Module, diff: &[String], cx: &Context<'_>) -> Span {
    let overrides =
        || a.files.files.iter().enumerate().filter(|(_, f)| f.class == FileClass::Override);
    let alone =
        overrides().find(|(_, f)| !b.files.files.iter().any(|g| g.path == f.path)).map(|(i, _)| i);
    let changes = || {
        overrides().find(|(i, _)| {
            cx.changes
                .iter()
                .any(|c| c.file() == *i && diff.iter().any(|d| d.starts_with(c.address.as_str())))
        })
    };
    let find = |name: &str| a.files.files.iter().position(|f| f.name() == name);
    let shadow = || {
        a.skipped.iter().find_map(|(name, why)| match why {
            Skip::Shadowed { by } => find(by),
            Skip::TofuFile => find(&name.replace(".tofu", ".tf")),
            Skip::Ignored | Skip::NotConfig => None,
        })
    };
    let id = alone
        .or_else(|| changes().map(|(i, _)| i))
        .or_else(|| overrides().next().map(|(i, _)| i))
        .or_else(shadow)
        .unwrap_or(0);
    Span::new(id, 0, 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::merge::load_texts;
    use crate::policy::Policy;
    use crate::terraform::discover::Engine;

    const WEB: &str = "resource \"aws_instance\" \"web\" {\n  ami           = \"ami-1\"\n  instance_type = \"t3.micro\"\n}\n";
    const WEB_LARGE: &str = "resource \"aws_instance\" \"web\" {\n  ami           = \"ami-1\"\n  instance_type = \"t3.large\"\n}\n";

    /// The findings for a module loaded by both engines: (file pointed at, help).
    fn run(files: &[(&str, &str)]) -> Vec<(String, String)> {
        let m = load_texts("", files, None);
        let tofu = files.iter().any(|(n, _)| n.contains(".tofu"));
        let other = if tofu {
            load_texts("", files, Some(Engine::Terraform))
        } else {
            merge::reassemble(&m, Engine::OpenTofu)
        };
        let policy = Policy::builtin();
        let cx = Context::new(&m, Some(&other), &policy.options, &Default::default(), &[]);
        let mut out = Vec::new();
        check(&cx, &mut out);
        out.into_iter()
            .map(|f| {
                let help = f.help.unwrap_or_default();
                (f.primary.path, help.lines().next().unwrap_or_default().to_string())
            })
            .collect()
    }

    /// The message says what differs, with each engine's value (the compact line is all
    /// a committer sees), and the help which file only one engine reads.
    #[test]
    fn the_message_says_what_differs() {
        let ami = "resource \"aws_instance\" \"web\" {\n  ami = \"ami-2\"\n}\n";
        let files = [("main.tf", WEB), ("main.tofu", WEB_LARGE), ("override.tofu", ami)];
        let m = load_texts("", &files, None);
        let other = load_texts("", &files, Some(Engine::Terraform));
        let policy = Policy::builtin();
        let cx = Context::new(&m, Some(&other), &policy.options, &Default::default(), &[]);
        let mut out = Vec::new();
        check(&cx, &mut out);
        assert_eq!(
            out[0].message,
            "OpenTofu and Terraform compute different configurations for this module: resource.aws_instance.web.ami is \"ami-2\" under OpenTofu, \"ami-1\" under Terraform"
        );
        let help = out[0].help.as_deref().unwrap_or_default();
        assert!(help.contains("override.tofu is read by OpenTofu only"), "{help}");
    }

    #[test]
    fn tofu_twins_alone_are_not_reported() {
        assert_eq!(run(&[("main.tf", WEB), ("main.tofu", WEB_LARGE)]), []);
    }

    #[test]
    fn overrides_both_engines_merge_alike_add_nothing() {
        let same = "resource \"aws_instance\" \"web\" {\n  instance_type = \"m6i.large\"\n}\n";
        let tags = "resource \"aws_instance\" \"web\" {\n  tags = { a = \"b\" }\n}\n";
        assert_eq!(run(&[("main.tf", WEB), ("main.tofu", WEB_LARGE), ("override.tf", same)]), []);
        assert_eq!(run(&[("main.tf", WEB), ("main.tofu", WEB_LARGE), ("override.tf", tags)]), []);
        // A twin with one more block does not shift the others out of place.
        let extra = format!("resource \"aws_sqs_queue\" \"a\" {{}}\n{WEB_LARGE}");
        assert_eq!(run(&[("main.tf", WEB), ("main.tofu", &extra), ("override.tf", tags)]), []);
    }

    #[test]
    fn an_override_one_engine_merges_is_reported_at_it() {
        let ami = "resource \"aws_instance\" \"web\" {\n  ami = \"ami-2\"\n}\n";
        let want =
            [("override.tofu".to_string(), "differs: resource.aws_instance.web".to_string())];
        assert_eq!(run(&[("main.tf", WEB), ("override.tofu", ami)]), want);
        assert_eq!(
            run(&[("main.tf", WEB), ("main.tofu", WEB_LARGE), ("override.tofu", ami)]),
            want
        );
        // The same value as the twin already gives OpenTofu changes nothing.
        let large = "resource \"aws_instance\" \"web\" {\n  instance_type = \"t3.large\"\n}\n";
        assert_eq!(
            run(&[("main.tf", WEB), ("main.tofu", WEB_LARGE), ("override.tofu", large)]),
            []
        );
    }

    #[test]
    fn what_the_primary_files_make_differ_is_not_the_overrides_doing() {
        let region = "variable \"region\" {\n  default = \"a\"\n}\n";
        let region_override = "variable \"region\" {\n  default = \"b\"\n}\n";
        // OpenTofu reads required_version only from .tofu files, Terraform from any.
        let versions = "terraform {\n  required_version = \">= 1.9\"\n}\n";
        assert_eq!(
            run(&[
                ("versions.tf", versions),
                ("vars.tf", region),
                ("vars_override.tf", region_override)
            ]),
            []
        );
        let relaxed = "terraform {\n  required_version = \">= 1.5\"\n}\n";
        assert_eq!(
            run(&[("versions.tf", versions), ("versions_override.tf", relaxed)]),
            [(
                "versions_override.tf".to_string(),
                "differs: terraform.required_version".to_string()
            )]
        );
        // Terraform rejects experiments in any file; the override has nothing to do with it.
        let experiments = "terraform {\n  experiments = [x]\n}\n";
        assert_eq!(
            run(&[
                ("main.tf", experiments),
                ("vars.tf", region),
                ("vars_override.tf", region_override)
            ]),
            []
        );
    }

    /// An action block in main.tf already makes OpenTofu reject the module (its file
    /// schema has no action): an override of it adds nothing to the difference, and an
    /// override OpenTofu rejects for another reason is named by that reason, at its file.
    #[test]
    fn a_rejection_the_primary_files_cause_is_not_the_overrides_doing() {
        let action = |command: &str| {
            format!(
                "action \"local_command\" \"hello\" {{\n  config {{\n    command = \"{command}\"\n  }}\n}}\n"
            )
        };
        let main = format!("{}{WEB}", action("echo"));
        assert_eq!(run(&[("main.tf", &main), ("override.tf", &action("ls"))]), []);
        let removed = "removed {\n  from = aws_instance.old\n}\n";
        let ami = "resource \"aws_instance\" \"web\" {\n  ami = \"ami-2\"\n}\n";
        let files =
            [("main.tf", main.as_str()), ("a_override.tf", ami), ("z_override.tf", removed)];
        let m = load_texts("", &files, None);
        let other = merge::reassemble(&m, Engine::OpenTofu);
        let policy = Policy::builtin();
        let cx = Context::new(&m, Some(&other), &policy.options, &Default::default(), &[]);
        let mut out = Vec::new();
        check(&cx, &mut out);
        let [f] = &out[..] else { panic!("{out:?}") };
        assert_eq!(
            f.message,
            "Terraform and OpenTofu compute different configurations for this module: OpenTofu rejects the module (Cannot override 'Removed' blocks), Terraform accepts it"
        );
        // Pointed at the override file the error is in.
        assert_eq!(f.primary.path, "z_override.tf");
    }

    #[test]
    fn an_override_one_engine_rejects_is_reported() {
        let removed = "removed {\n  from = aws_instance.old\n}\n";
        assert_eq!(
            run(&[("main.tf", WEB), ("main.tofu", WEB_LARGE), ("override.tf", removed)]),
            [(
                "override.tf".to_string(),
                "differs: OpenTofu rejects the module, Terraform accepts it".to_string()
            )]
        );
    }

    /// The findings of the rule for `files` loaded with `engine` first, the other engine's
    /// view made by re-merging (the files have no `.tofu` file).
    fn run_as(files: &[(String, String)], engine: Engine) -> (bool, usize) {
        let pairs: Vec<(&str, &str)> =
            files.iter().map(|(n, t)| (n.as_str(), t.as_str())).collect();
        let m = load_texts("", &pairs, Some(engine));
        let other = merge::reassemble(&m, engine.other());
        let policy = Policy::builtin();
        let cx = Context::new(&m, Some(&other), &policy.options, &Default::default(), &[]);
        let mut out = Vec::new();
        check(&cx, &mut out);
        (may_diverge(&m), out.len())
    }

    /// Every module `may_diverge` lets skip the second merge has nothing to report: each
    /// module of the fixtures (without `.tofu` files), loaded with each engine first, and
    /// backend swaps over every kind of primary `terraform` block.
    #[test]
    fn a_module_that_may_not_diverge_does_not() {
        fn modules(dir: &std::path::Path, out: &mut Vec<Vec<(String, String)>>) {
            let Ok(entries) = std::fs::read_dir(dir) else { return };
            let mut files = Vec::new();
            for e in entries.flatten() {
                let p = e.path();
                let name = e.file_name().to_string_lossy().into_owned();
                if p.is_dir() {
                    modules(&p, out);
                } else if name.ends_with(".tf") || name.ends_with(".tf.json") {
                    files.push((name, std::fs::read_to_string(&p).unwrap_or_default()));
                } else if name.ends_with(".tofu") || name.ends_with(".tofu.json") {
                    return;
                }
            }
            if !files.is_empty() {
                files.sort();
                out.push(files);
            }
        }
        let mut all = Vec::new();
        modules(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures"), &mut all);
        let swap = "terraform {\n  backend \"s3\" {\n    bucket = \"b\"\n  }\n}\n";
        let primaries = [
            "terraform {\n  backend \"local\" {}\n}\n",
            "terraform {\n  cloud {\n    organization = \"o\"\n  }\n}\n",
            "terraform {\n  state_store \"x\" {}\n}\n",
            "terraform {\n  required_version = \">= 1.0\"\n  backend \"local\" {}\n}\n",
            "terraform {\n  encryption {}\n  backend \"local\" {}\n}\n",
            "terraform {\n  required_providers {\n    aws = { source = \"hashicorp/aws\" }\n  }\n}\n",
            "terraform {\n  backend \"a\" {}\n  backend \"b\" {}\n}\n",
        ];
        for p in primaries {
            for over in [
                swap,
                "terraform {\n  cloud {}\n}\n",
                "terraform {\n  backend \"x\" {}\n  cloud {}\n}\n",
            ] {
                all.push(vec![("main.tf".into(), p.into()), ("override.tf".into(), over.into())]);
            }
        }
        // Some fixtures nest thousands deep, more than a debug build's default stack takes.
        let judged = std::thread::Builder::new().stack_size(512 << 20).spawn(move || judge(&all));
        let (skipped, swaps) = judged.expect("a thread").join().expect("no failure");
        assert!(skipped > 300 && swaps >= 30, "{skipped} modules skipped, {swaps} backend swaps");
    }

    fn judge(all: &[Vec<(String, String)>]) -> (usize, usize) {
        let (mut skipped, mut swaps) = (0, 0);
        for files in all {
            for engine in [Engine::Terraform, Engine::OpenTofu] {
                let (may, found) = run_as(files, engine);
                if !may {
                    assert_eq!(found, 0, "{engine:?} first: {files:#?}");
                    skipped += 1;
                    swaps += usize::from(
                        files
                            .iter()
                            .any(|(n, t)| n.contains("override") && t.contains("terraform {")),
                    );
                }
            }
        }
        (skipped, swaps)
    }
}
