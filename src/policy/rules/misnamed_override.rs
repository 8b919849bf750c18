//! `misnamed-override`: a file named like an override file that the engine does not
//! merge as one. See [`RULE`].

use std::sync::Arc;

use super::rule::Rule;
use crate::diag::Diagnostic;
use crate::finding::Site;
use crate::finding::{Finding, Level};
use crate::merge::Module;
use crate::policy::context::Context;
use crate::terraform::discover::{self, Engine, Misnamed, Miss, Skip};
use crate::terraform::{FileClass, FileId};

pub(super) static RULE: Rule = Rule {
    id: super::RuleId::MisnamedOverride,
    level: Level::Warn,
    summary: "a file named like an override file that the engine reads as an ordinary file, or not at all",
    doc: "\
What it checks
  A file whose name says \"override\" to a person but not to the engine. An override file
  is named `override` or `<anything>_override`, in lowercase, before `.tf` or `.tf.json`
  (OpenTofu: also `.tofu` and `.tofu.json`). Near misses:
  - read as an ordinary primary file, so its blocks are added to the module instead of
    merged into the ones they repeat (a duplicate-declaration error, said so when it
    happened): `Override.tf`, `main_OVERRIDE.tf`, `main.override.tf`, `main-override.tf`,
    and `override_main.tf` when it repeats a block of another file;
  - not read at all: `main_override.tf.txt`, `x.tf.override`, `OVERRIDE.TF` (extensions
    are case-sensitive);
  - a test file, which only `terraform test` reads: `override.tftest.hcl`;
  - a variables file, read only when `-var-file` names it: `x_override.tfvars` (the
    finding suggests `x_override.auto.tfvars`, which is loaded by itself).
  The finding says what the engine does with the file and names the file that works,
  but a file read as an ordinary one is advised a new name only where it would merge:
  each of its blocks has an original to override (the module is merged again with the
  file renamed). Otherwise the finding says the file is read as an ordinary file and what
  the engine would say as an override file, without advice: `provider-dev-override.tf`
  alone in a module (the CLI's `dev_overrides`), renamed `provider-dev_override.tf`,
  would be rejected (\"Missing data resource to override\").
  Not reported: names that are override files for the engine in force; under Terraform,
  any `.tofu` name (Terraform reads none, whatever its name: audit with OpenTofu, the
  default for a module with `.tofu` files); `override_x.tf` that repeats no other
  file's block (`override_policy.tf` may mean the word); `overrides.tf`,
  `mainoverride.tf`, `override.json`, `override.hcl`; ignored names and deliberate
  copies (`override.tf~`, `override.tf.bak`, `override.tf.example`). A file that is read
  takes an inline suppression above the block the finding points at; one no engine reads
  has no line for it: an `[[exceptions]]` entry with its path excuses it.

Why
  Nothing else tells the author: Terraform reads `main.override.tf` as one more file
  (and rejects the module when it repeats a block), and skips `main_override.tf.txt`
  silently. An override that does nothing, or breaks the module, is one the author
  believes is in force.

Example
  main.tf              resource \"aws_instance\" \"web\" { instance_type = \"t3.micro\" }
  main.override.tf     resource \"aws_instance\" \"web\" { instance_type = \"m6i.large\" }
  → main.override.tf is not an override file: Terraform reads it as an ordinary file,
    so its blocks are declared twice (1 duplicate-declaration error)
    help: name it main_override.tf
",
    options: &[],
    configure: None,
    check: Some(check),
    inline: true,
};

fn check(cx: &Context<'_>, out: &mut Vec<Finding>) {
    let m = cx.m;
    for (id, f) in m.files.files.iter().enumerate() {
        let Some(miss) = discover::misnamed(f.name()) else { continue };
        if f.class != FileClass::Primary {
            continue;
        }
        let dups = duplicates(m, id);
        if miss.miss == Miss::Prefix && dups.is_empty() {
            continue; // nothing says it was meant to override
        }
        out.push(read_as_primary(cx, id, &miss, &dups));
    }
    for (name, why) in &m.skipped {
        if *why != Skip::NotConfig {
            continue;
        }
        let Some(miss) = discover::misnamed(name) else { continue };
        if m.engine == Engine::Terraform && is_tofu(&miss) {
            continue; // Terraform reads no `.tofu` file, however it is named
        }
        out.push(not_read(m, name, &miss));
    }
}

/// Is the name that would work an OpenTofu one? Then it is OpenTofu's business only.
fn is_tofu(miss: &Misnamed) -> bool {
    miss.miss != Miss::Tfvars && (miss.fix.ends_with(".tofu") || miss.fix.ends_with(".tofu.json"))
}

/// The duplicate-declaration errors a file takes part in (as the later or the earlier
/// declaration: Terraform reports the later one, in name order).
fn duplicates(m: &Module, id: FileId) -> Vec<&Diagnostic> {
    m.diagnostics
        .iter()
        .filter(|d| d.is_error() && d.summary.starts_with("Duplicate "))
        .filter(|d| {
            d.subject.is_some_and(|s| s.file == id) || d.related.iter().any(|(s, _)| s.file == id)
        })
        .collect()
}

/// Is a file of the fix's name already in the module?
fn taken(m: &Module, miss: &Misnamed) -> bool {
    m.files.files.iter().any(|f| f.name() == miss.fix)
        || m.skipped.iter().any(|(n, _)| *n == miss.fix)
}

/// What a fix says: the name to use, or the file to move the content into when one of
/// that name is already there.
fn rename(m: &Module, miss: &Misnamed) -> String {
    if taken(m, miss) {
        format!("move its content into {}, which is an override file", miss.fix)
    } else {
        format!("name it {}", miss.fix)
    }
}

/// The first error the engine would give for the file `id` were it the override file
/// `miss.fix` names (the module merged again, that file renamed), that it does not give
/// now: `None` when the rename merges cleanly. A file named `provider-dev-override.tf`
/// (the CLI's `dev_overrides`, in Terraform's and OpenTofu's own tests) that declares a
/// data source no other file has would be rejected as an override ("Missing data resource
/// to override"): renaming it is no fix.
fn rename_breaks(m: &Module, id: FileId, miss: &Misnamed) -> Option<Diagnostic> {
    // With the name taken, the content would join that file: a name beside it that sorts
    // before it stands for that (the order of two override files matters only where
    // both set the same thing).
    let name = if taken(m, miss) { format!("0_{}", miss.fix) } else { miss.fix.clone() };
    let files: Vec<(&str, &str)> = m
        .files
        .files
        .iter()
        .enumerate()
        .map(|(i, f)| (if i == id { name.as_str() } else { f.name() }, &*f.text))
        .collect();
    let renamed = crate::merge::load_texts(&m.dir, &files, Some(m.engine));
    let path = crate::path::join(&m.dir, &name);
    let at = renamed.files.files.iter().position(|f| f.path == path)?;
    // What the engine says about this file now, duplicate declarations aside (the rename
    // is what ends them).
    let mut now: Vec<(&str, &str)> = m
        .diagnostics
        .iter()
        .filter(|d| d.is_error() && !d.summary.starts_with("Duplicate "))
        .filter(|d| names(d, id))
        .map(|d| (d.summary.as_str(), d.detail.as_str()))
        .collect();
    for d in renamed.diagnostics.iter().filter(|d| d.is_error() && names(d, at)) {
        match now.iter().position(|&(s, t)| s == d.summary && t == d.detail) {
            Some(i) => {
                now.swap_remove(i);
            }
            None => return Some(d.clone()),
        }
    }
    None
}

/// Does a diagnostic point into file `id` (as its subject or beside it)?
fn names(d: &Diagnostic, id: FileId) -> bool {
    d.subject.is_some_and(|s| s.file == id) || d.related.iter().any(|(s, _)| s.file == id)
}

/// The rule an override file's name follows, for the engine in force.
fn naming_rule(engine: Engine) -> &'static str {
    match engine {
        Engine::Terraform => {
            "an override file's name, before `.tf` or `.tf.json`, is `override` or ends in `_override` (in lowercase)"
        }
        Engine::OpenTofu => {
            "an override file's name, before `.tf`, `.tf.json`, `.tofu` or `.tofu.json`, is `override` or ends in `_override` (in lowercase)"
        }
    }
}

fn read_as_primary(cx: &Context<'_>, id: FileId, miss: &Misnamed, dups: &[&Diagnostic]) -> Finding {
    let m = cx.m;
    let name = m.files.get(id).name();
    let engine = m.engine.name();
    let first = dups.first();
    let message = match dups.len() {
        0 => format!(
            "{name} is not an override file: {engine} reads it as an ordinary file, so its blocks are added to the module, not merged into others"
        ),
        n => format!(
            "{name} is not an override file: {engine} reads it as an ordinary file, so its blocks are declared twice ({n} duplicate-declaration error{})",
            if n == 1 { "" } else { "s" }
        ),
    };
    // The first repeated block in this file, and its twin in the other one.
    let (here, there) = match first {
        Some(d) => {
            let mut spans = d.subject.iter().copied().chain(d.related.iter().map(|(s, _)| *s));
            let here = spans.clone().find(|s| s.file == id);
            (here, spans.find(|s| s.file != id))
        }
        None => (None, None),
    };
    let span = here.unwrap_or_else(|| super::override_file::first_line(cx, id));
    // Advice only where it works: each block of the file has an original to override.
    let help = match rename_breaks(m, id, miss) {
        None => format!("{}: {}", rename(m, miss), naming_rule(m.engine)),
        Some(d) => {
            let as_override = if taken(m, miss) {
                format!("moved into {}, an override file,", miss.fix)
            } else {
                format!("named {}, an override file,", miss.fix)
            };
            let detail = d.explained();
            let detail = if detail.is_empty() { String::new() } else { format!(" {detail}") };
            let now = if dups.is_empty() {
                format!("{engine} loads it as an ordinary file; {as_override} it would not")
            } else {
                format!("{as_override} it would not load either")
            };
            format!("{now}: {}.{detail}", d.summary)
        }
    };
    let mut f =
        Finding::new(RULE.id, message, cx.site(span, "read as an ordinary file")).help(help);
    if let Some(there) = there {
        f = f.related(cx.site(there, "declared here too"));
    }
    f
}

fn not_read(m: &Module, name: &str, miss: &Misnamed) -> Finding {
    let engine = m.engine.name();
    let fix = rename(m, miss);
    let (message, help) = match miss.miss {
        Miss::Test => {
            let command = match m.engine {
                Engine::Terraform => "terraform test",
                Engine::OpenTofu => "tofu test",
            };
            (
                format!(
                    "{name} is not an override file: it is a test file, which only `{command}` reads, and never merges into the module"
                ),
                format!(
                    "to override the module's configuration, {fix}; a test of its own reads better without `override` in its name"
                ),
            )
        }
        Miss::Tfvars => (
            format!(
                "{name} is not an override file: variables files have none, and {engine} reads this one only when `-var-file` names it"
            ),
            format!(
                "{fix} to have {engine} load it by itself, after terraform.tfvars, so its values win; or keep naming it with `-var-file`"
            ),
        ),
        Miss::Txt => (
            format!(
                "{name} is not an override file: {engine} does not read it at all, because of the `.txt` at the end of its name"
            ),
            format!("{fix}: {}", naming_rule(m.engine)),
        ),
        Miss::ExtCase => (
            format!(
                "{name} is not an override file: {engine} does not read it at all, because its extension is not in lowercase"
            ),
            format!("{fix}: {}", naming_rule(m.engine)),
        ),
        Miss::Suffix => (
            format!(
                "{name} is not an override file: {engine} does not read it at all, because `.override` at the end of its name makes it no configuration file"
            ),
            format!("{fix}: {}", naming_rule(m.engine)),
        ),
        // Configuration names: read, or skipped for a reason of their own (not listed here).
        Miss::Case | Miss::Separator | Miss::Prefix => (
            format!("{name} is not an override file: {engine} does not read it"),
            format!("{fix}: {}", naming_rule(m.engine)),
        ),
    };
    let site = Site {
        path: crate::path::join(&m.dir, name),
        source: Arc::from(""),
        base: Default::default(),
        start: 0,
        end: 0,
        label: "not read".into(),
    };
    Finding::new(RULE.id, message, site).help(help)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::merge::load_texts;

    const BASE: &str = "resource \"aws_instance\" \"web\" {\n  instance_type = \"t3.micro\"\n}\n";
    const OVER: &str = "resource \"aws_instance\" \"web\" {\n  instance_type = \"m6i.large\"\n}\n";

    fn findings(files: &[(&str, &str)], engine: Engine) -> Vec<Finding> {
        let m = load_texts("m", files, Some(engine));
        let policy = crate::policy::Policy::builtin();
        let cx = Context::new(&m, None, &policy.options, &Default::default(), &[]);
        let mut out = Vec::new();
        check(&cx, &mut out);
        out
    }

    fn paths(files: &[(&str, &str)], engine: Engine) -> Vec<String> {
        findings(files, engine).into_iter().map(|f| f.primary.path).collect()
    }

    #[test]
    fn names_read_as_primaries_are_reported_with_the_duplicates_they_cause() {
        let got = findings(&[("main.tf", BASE), ("main.override.tf", OVER)], Engine::Terraform);
        assert_eq!(got.len(), 1);
        assert!(got[0].message.contains("declared twice (1 duplicate-declaration error)"));
        assert!(got[0].help.as_deref().is_some_and(|h| h.starts_with("name it main_override.tf")));
        // `main.override.tf` sorts first: Terraform reports the error at main.tf, and the
        // finding still points into the misnamed file, with main.tf beside it.
        assert_eq!(got[0].primary.path, "m/main.override.tf");
        assert_eq!(got[0].related[0].path, "m/main.tf");
        let alone = findings(
            &[("main.tf", BASE), ("Override.tf", "locals {\n  a = 1\n}\n")],
            Engine::Terraform,
        );
        assert!(alone[0].message.contains("added to the module"), "{}", alone[0].message);
    }

    #[test]
    fn override_first_needs_a_repeated_block() {
        let dup = [("main.tf", BASE), ("override_main.tf", OVER)];
        assert_eq!(paths(&dup, Engine::Terraform), ["m/override_main.tf"]);
        let own = [("main.tf", BASE), ("override_policy.tf", "locals {\n  p = 1\n}\n")];
        assert!(paths(&own, Engine::Terraform).is_empty());
    }

    #[test]
    fn true_overrides_and_other_words_are_not_reported() {
        let files = [
            ("main.tf", BASE),
            ("main_override.tf", OVER),
            ("override.tf.json", "{}"),
            ("overrides.tf", "locals {\n  o = 1\n}\n"),
        ];
        assert!(paths(&files, Engine::Terraform).is_empty());
        assert!(paths(&files, Engine::OpenTofu).is_empty());
    }

    #[test]
    fn tofu_names_are_judged_by_opentofu_only() {
        let files = [
            ("main.tf", BASE),
            ("override.tofu", OVER),
            ("main.override.tofu", OVER),
            ("x.tofu.override", OVER),
        ];
        assert!(paths(&files, Engine::Terraform).is_empty());
        assert_eq!(paths(&files, Engine::OpenTofu), ["m/main.override.tofu", "m/x.tofu.override"]);
    }

    #[test]
    fn names_not_read_say_what_the_engine_does() {
        let files = [
            ("main.tf", BASE),
            ("main_override.tf.txt", OVER),
            ("x.tf.override", OVER),
            ("x_override.tfvars", "a = 1\n"),
            ("override.tftest.hcl", "run \"a\" {}\n"),
            ("OVERRIDE.TF", OVER),
        ];
        let got = findings(&files, Engine::Terraform);
        let said: Vec<(&str, &str)> = got
            .iter()
            .map(|f| (f.primary.path.as_str(), f.help.as_deref().unwrap_or("")))
            .collect();
        assert_eq!(said.len(), 5, "{said:?}");
        let help = |p: &str| said.iter().find(|(x, _)| *x == p).map(|(_, h)| *h).unwrap_or("");
        assert!(help("m/main_override.tf.txt").starts_with("name it main_override.tf:"));
        assert!(help("m/x.tf.override").starts_with("name it x_override.tf:"));
        assert!(help("m/x_override.tfvars").starts_with("name it x_override.auto.tfvars"));
        assert!(help("m/override.tftest.hcl").contains("name it override.tf;"));
        assert!(help("m/OVERRIDE.TF").starts_with("name it override.tf:"));
        let test = got.iter().find(|f| f.primary.path.ends_with("tftest.hcl")).map(|f| &f.message);
        assert!(test.is_some_and(|m| m.contains("`terraform test`")), "{test:?}");
        let tofu = findings(&files, Engine::OpenTofu);
        assert!(tofu.iter().any(|f| f.message.contains("`tofu test`")));
    }

    /// A file read as an ordinary file takes an inline suppression above the block the
    /// finding points at, as any other.
    #[test]
    fn a_file_that_is_read_can_suppress_its_finding() {
        use crate::policy::{Coverage, Date, Subject, evaluate};
        let run = |over: &str| {
            let m = load_texts("m", &[("main.tf", BASE), ("main.override.tf", over)], None);
            let policy = crate::policy::Policy::builtin();
            let s = Subject { module: &m, other: None, tfvars: &[], var_uses: &[] };
            let found = evaluate(
                &policy,
                &[s],
                &Default::default(),
                Date::from_days(0),
                &Coverage::whole(),
            );
            found.iter().map(|f| f.rule.as_str()).collect::<Vec<_>>()
        };
        assert_eq!(run(OVER), ["merge-error", "misnamed-override"]);
        let kept = format!(
            "# override-guard:ignore[misnamed-override] a second instance, on purpose\n{OVER}"
        );
        assert_eq!(run(&kept), ["merge-error"]);
    }

    #[test]
    fn a_taken_name_means_moving_the_content() {
        let ami = "resource \"aws_instance\" \"web\" {\n  ami = \"ami-1\"\n}\n";
        let got = findings(
            &[("main.tf", BASE), ("override.tf", OVER), ("Override.tf", ami)],
            Engine::Terraform,
        );
        assert_eq!(got.len(), 1);
        assert!(
            got[0]
                .help
                .as_deref()
                .is_some_and(|h| h.starts_with("move its content into override.tf")),
            "{:?}",
            got[0].help
        );
        // A local value no original declares would not merge there either: no advice.
        let got = findings(
            &[("main.tf", BASE), ("override.tf", OVER), ("Override.tf", "locals {\n  a = 1\n}\n")],
            Engine::Terraform,
        );
        assert_eq!(got.len(), 1);
        let help = got[0].help.as_deref().unwrap_or_default();
        assert!(!help.contains("move its content"), "{help}");
        assert!(help.contains("Missing base local value definition to override"), "{help}");
    }

    /// `provider-dev-override.tf` alone in its module (the CLI's `dev_overrides`, as in
    /// Terraform's and OpenTofu's own tests): renamed `provider-dev_override.tf`, its
    /// data source would have no original, which Terraform rejects. Both confirmed on
    /// Terraform 1.15.5: the module loads as it is, and renamed it fails with "Missing data
    /// resource to override". The rename is not advised; where every block has an
    /// original (`web-override.tf` repeating main.tf's resource), it is.
    #[test]
    fn a_rename_is_advised_only_where_the_file_would_merge() {
        let dev = "terraform {\n  required_providers {\n    probe = {\n      source = \"registry.acme.example/platform/probe\"\n    }\n  }\n}\n\ndata \"probe_endpoint\" \"health\" {\n}\n";
        let got = findings(&[("provider-dev-override.tf", dev)], Engine::Terraform);
        assert_eq!(got.len(), 1);
        assert!(got[0].message.contains("reads it as an ordinary file"), "{}", got[0].message);
        let help = got[0].help.as_deref().unwrap_or_default();
        assert!(!help.contains("name it"), "{help}");
        assert!(
            help.starts_with(
                "Terraform loads it as an ordinary file; named provider-dev_override.tf, an override file, it would not: Missing data resource to override."
            ),
            "{help}"
        );
        for engine in [Engine::Terraform, Engine::OpenTofu] {
            let got = findings(&[("main.tf", BASE), ("web-override.tf", OVER)], engine);
            let help = got[0].help.as_deref().unwrap_or_default();
            assert!(help.starts_with("name it web_override.tf:"), "{help}");
        }
        // Part of it merging is not enough: the rest would be rejected.
        let mixed = format!("{OVER}\ndata \"probe_endpoint\" \"health\" {{\n}}\n");
        let got = findings(&[("main.tf", BASE), ("web-override.tf", &mixed)], Engine::Terraform);
        let help = got[0].help.as_deref().unwrap_or_default();
        assert!(help.contains("it would not load either: Missing data resource"), "{help}");
    }

    #[test]
    fn a_span_of_the_file_is_in_the_file() {
        // The site of a name read as a primary points into its own text.
        let got = findings(&[("main.tf", BASE), ("main-override.tf", OVER)], Engine::Terraform);
        assert_eq!(got[0].primary.path, "m/main-override.tf");
        let site = &got[0].primary;
        assert_eq!(&site.source[site.start..site.end], "resource \"aws_instance\" \"web\"");
    }
}
