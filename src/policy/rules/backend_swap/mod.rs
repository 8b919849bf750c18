//! `backend-swap`: an override that replaces where state lives. See [`RULE`].

mod settings;

use super::rule::Rule;
use crate::finding::{Finding, Level};
use crate::policy::context::Context;
use crate::terraform::{Block, Item};

pub(super) static RULE: Rule = Rule {
    id: super::RuleId::BackendSwap,
    level: Level::Deny,
    summary: "an override file replaces the backend or cloud block",
    doc: "\
What it checks
  The state configuration Terraform applies, where an override file's `backend` or
  `cloud` block set it: the last in Terraform's order of the files, and of one file's
  blocks the one Terraform applies (a `cloud` after a `backend`; two of a kind are a
  `merge-error`, and none of them applies). A later override file that restores the
  original's leaves nothing to report. Terraform replaces the whole state configuration
  with the override's, so this flags a different backend type, a `backend` <-> `cloud`
  swap, a backend where the originals keep state locally, and the same type with
  arguments silently dropped, set to other values, or added where they move or
  re-authorise the state: another bucket or key is another state, an `endpoint` another
  server (`endpoint = \"http://localhost:4566\"` is LocalStack), a `profile`, `role_arn`
  or `access_key` other credentials. Those arguments are listed per backend Terraform
  1.15 has (s3, azurerm, gcs, local's `path` and `workspace_dir`, consul, cos, http,
  kubernetes, oci, oss, pg, remote) and for `cloud` (`organization`, `workspaces`,
  `hostname`, `token`); one added that leaves the state where it is
  (`skip_credentials_validation`) is not a swap. The finding names the arguments, says
  what they decide, and shows the state configuration before and after.
  Not a swap: `backend \"local\" {}` without `path` or `workspace_dir` in a module with
  no backend. The state stays in `./terraform.tfstate` (confirmed on Terraform 1.15.5);
  `terraform init` records the explicit backend in `.terraform/`, and `plan` asks for
  that `init` first, as it does for any change of backend.

Why
  Where state lives decides what Terraform believes exists. An override that points a
  module at another bucket, or drops `dynamodb_table` locking, is invisible in `main.tf`
  and can lead to a plan that recreates everything, or to two runs writing one state.

Example
  # main.tf                               # override.tf
  terraform {                             terraform {
    backend \"s3\" {                          backend \"s3\" {
      bucket         = \"tf-state\"             bucket = \"tf-state-dev\"
      dynamodb_table = \"tf-lock\"            }
    }                                     }
  }                                       → `dynamodb_table` is dropped; `bucket` differs
",
    options: &[],
    configure: None,
    check: Some(check),
    inline: true,
};

/// Judges the state configuration Terraform applies, against the original's: a backend
/// block Terraform does not apply (one of two in an override file, or replaced by a later
/// `cloud` or a later override file) moves nothing, and a later override file that
/// restores the original leaves the state where it was.
fn check(cx: &Context<'_>, out: &mut Vec<Finding>) {
    let s = &cx.m.settings;
    let Some(over) = s.backend.as_ref().or(s.cloud.as_ref()).or(s.state_store.as_ref()) else {
        return;
    };
    if !cx.m.from_override(over.span) {
        return;
    }
    let base = cx.originals.state;
    let file = cx.name(over.span.file);
    let (message, named) = match base {
        // `backend "local" {}` where no backend is: the default, said out loud. The
        // state stays in ./terraform.tfstate (confirmed on Terraform 1.15.5 with
        // `init` and `apply`); only `init` notices, and records the explicit backend.
        None if stays_local(over) => return,
        // The local backend is the default's own type: what differs is its arguments.
        None if backend(over) == "local" && over.kind == "backend" => {
            let set = Diff { added: listed(over), dropped: vec![], changed: vec![] };
            let list: Vec<String> = set.added.iter().map(|n| format!("`{n}`")).collect();
            let message = format!(
                "{file} moves state from the local default (./terraform.tfstate) to {}: {} {}",
                name(over),
                list.join(", "),
                if list.len() == 1 { "is set" } else { "are set" }
            );
            (message, set.named(over))
        }
        None => (format!("{file} moves state from the local default to {}", name(over)), vec![]),
        Some(b) if b.kind != over.kind || b.labels != over.labels => {
            (format!("{file} replaces {} with {}", name(b), name(over)), vec![])
        }
        Some(b) => {
            let diff = Diff::of(b, over);
            if diff.is_empty() {
                return;
            }
            (diff.message(file, b), diff.named(over))
        }
    };
    let was = base.map_or("local state (no backend)".to_string(), |b| describe(cx, b));
    let mut help = roles(&named);
    help.push_str(&format!("was:     {was}\nbecomes: {}", describe(cx, over)));
    let mut f = Finding::new(RULE.id, message, cx.site(over.def_span, "new state configuration"))
        .address(format!("terraform.{}", over.kind))
        .help(help);
    if let Some(b) = base {
        f = f.related(cx.site(b.def_span, "original state configuration"));
    }
    out.push(f);
}

/// The backend a state configuration block is of, as [`settings`] names it.
fn backend(b: &Block) -> &str {
    match b.labels.first() {
        Some(l) if b.kind == "backend" => l,
        _ => &b.kind,
    }
}

/// Is this the local backend with its defaults (no argument that moves the state)?
fn stays_local(over: &Block) -> bool {
    over.kind == "backend" && backend(over) == "local" && listed(over).is_empty()
}

/// The arguments a state configuration sets that move or re-authorise its state.
fn listed(b: &Block) -> Vec<String> {
    let names = b.body.items.iter().map(Item::merge_name);
    names.filter(|n| settings::role(backend(b), n).is_some()).map(str::to_string).collect()
}

/// What an override of the same backend type changes in it, by argument name.
struct Diff {
    /// Set by the original, not by the replacement (any argument: the replacement is
    /// whole, so what it drops is gone).
    dropped: Vec<String>,
    /// Set by both, to different values.
    changed: Vec<String>,
    /// Set by the replacement alone, of the arguments that move or re-authorise state.
    added: Vec<String>,
}

impl Diff {
    fn of(base: &Block, over: &Block) -> Diff {
        let find = |body: &[Item], n: &str| body.iter().find(|i| i.merge_name() == n).cloned();
        let (b, o) = (&base.body.items, &over.body.items);
        let mut d = Diff { dropped: Vec::new(), changed: Vec::new(), added: Vec::new() };
        for i in b.iter() {
            match find(o, i.merge_name()) {
                None => d.dropped.push(i.merge_name().to_string()),
                Some(x) if !same(i, &x) => d.changed.push(i.merge_name().to_string()),
                Some(_) => {}
            }
        }
        for i in o.iter() {
            let n = i.merge_name();
            if find(b, n).is_none() && settings::role(backend(over), n).is_some() {
                d.added.push(n.to_string());
            }
        }
        d
    }

    fn is_empty(&self) -> bool {
        self.dropped.is_empty() && self.changed.is_empty() && self.added.is_empty()
    }

    /// `override.tf changes backend "s3": `endpoint` is added`, or with something
    /// dropped, `replaces backend "s3" whole: …`.
    fn message(&self, file: &str, base: &Block) -> String {
        let mut parts = Vec::new();
        let both = |n: &[String], one: &str, many: &str| {
            let list: Vec<String> = n.iter().map(|n| format!("`{n}`")).collect();
            format!("{} {}", list.join(", "), if n.len() == 1 { one } else { many })
        };
        if !self.dropped.is_empty() {
            parts.push(both(&self.dropped, "is dropped", "are dropped"));
        }
        if !self.changed.is_empty() {
            parts.push(both(&self.changed, "differs", "differ"));
        }
        if !self.added.is_empty() {
            parts.push(both(&self.added, "is added", "are added"));
        }
        let how = if self.dropped.is_empty() { "changes" } else { "replaces" };
        let whole = if self.dropped.is_empty() { "" } else { " whole" };
        format!("{file} {how} {}{whole}: {}", name(base), parts.join("; "))
    }

    /// The arguments named, each with what it decides (when it is one that matters).
    fn named(&self, over: &Block) -> Vec<(String, settings::Role)> {
        let all = self.dropped.iter().chain(&self.changed).chain(&self.added);
        all.filter_map(|n| Some((n.clone(), settings::role(backend(over), n).flatten()?))).collect()
    }
}

/// One line on what the named arguments decide, before the before-and-after lines.
fn roles(named: &[(String, settings::Role)]) -> String {
    let of = |role: settings::Role| -> Vec<String> {
        named.iter().filter(|(_, r)| *r == role).map(|(n, _)| format!("`{n}`")).collect()
    };
    let (place, access) = (of(settings::Role::Place), of(settings::Role::Access));
    let decide = |n: &[String]| if n.len() == 1 { "decides" } else { "decide" };
    let mut said = Vec::new();
    if !place.is_empty() {
        said.push(format!("{} {} where the state is kept", place.join(", "), decide(&place)));
    }
    if !access.is_empty() {
        said.push(format!(
            "{} {} with which credentials it is reached",
            access.join(", "),
            decide(&access)
        ));
    }
    if said.is_empty() { String::new() } else { format!("{}\n", said.join("; ")) }
}

/// Do two items of a state configuration mean the same (wherever they were written)?
fn same(a: &Item, b: &Item) -> bool {
    match (a, b) {
        (Item::Attr(x), Item::Attr(y)) => x.expr == y.expr,
        (Item::Block(x), Item::Block(y)) => {
            x.kind == y.kind
                && x.labels == y.labels
                && x.body.items.len() == y.body.items.len()
                && x.body.items.iter().all(|i| {
                    y.body.items.iter().any(|j| i.merge_name() == j.merge_name() && same(i, j))
                })
        }
        (Item::Json(x), Item::Json(y)) => x.value.to_json() == y.value.to_json(),
        _ => false,
    }
}

fn name(b: &Block) -> String {
    match b.labels.first() {
        Some(l) => format!("{} \"{l}\"", b.kind),
        None => b.kind.clone(),
    }
}

/// `backend "s3" { bucket = "x", key = "y" }` on one line.
fn describe(cx: &Context<'_>, b: &Block) -> String {
    let parts: Vec<String> = b
        .body
        .items
        .iter()
        .map(|i| match i {
            Item::Attr(a) => format!("{} = {}", a.name, one_line(&a.expr.to_hcl())),
            Item::Block(n) => describe(cx, n),
            Item::Json(j) => format!("{} = {}", j.name, one_line(cx.m.files.text(j.value.span))),
        })
        .collect();
    if parts.is_empty() {
        format!("{} {{}}", name(b))
    } else {
        format!("{} {{ {} }}", name(b), parts.join(", "))
    }
}

fn one_line(s: &str) -> String {
    let s = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if s.chars().count() > 60 {
        format!("{}…", s.chars().take(59).collect::<String>())
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::merge::load_texts;

    const MAIN: &str = "terraform {\n  backend \"s3\" {\n    bucket = \"state\"\n    key    = \"app.tfstate\"\n    region = \"eu-central-1\"\n  }\n}\n";

    fn messages(files: &[(&str, &str)]) -> Vec<String> {
        let m = load_texts("m", files, None);
        assert!(!m.has_errors(), "{:?}", m.diagnostics);
        let policy = crate::policy::Policy::builtin();
        let cx = Context::new(&m, None, &policy.options, &Default::default(), &[]);
        let mut out = Vec::new();
        check(&cx, &mut out);
        out.into_iter().map(|f| f.message).collect()
    }

    /// Terraform applies an override file's backend, then its cloud, which replaces it:
    /// the backend moves nothing, and a later file that restores the original's leaves
    /// nothing to say.
    #[test]
    fn only_the_state_configuration_terraform_applies_is_judged() {
        let both = "terraform {\n  backend \"gcs\" {\n    bucket = \"dev\"\n  }\n  cloud {\n    organization = \"acme\"\n  }\n}\n";
        assert_eq!(
            messages(&[("main.tf", MAIN), ("override.tf", both)]),
            ["override.tf replaces backend \"s3\" with cloud"]
        );
        assert!(
            messages(&[("main.tf", MAIN), ("a_override.tf", both), ("b_override.tf", MAIN)])
                .is_empty()
        );
    }

    #[test]
    fn an_argument_added_in_json_is_named_too() {
        let over = r#"{"terraform": {"backend": {"s3": {"bucket": "state", "key": "app.tfstate", "region": "eu-central-1", "profile": "sandbox", "skip_region_validation": true}}}}"#;
        assert_eq!(
            messages(&[("main.tf", MAIN), ("override.tf.json", over)]),
            ["override.tf.json changes backend \"s3\": `profile` is added"]
        );
    }

    #[test]
    fn arguments_that_leave_the_state_where_it_is_are_no_swap_when_added() {
        let over = MAIN.replace(
            "region = \"eu-central-1\"",
            "region = \"eu-central-1\"\n    encrypt = true\n    skip_credentials_validation = true",
        );
        assert!(messages(&[("main.tf", MAIN), ("override.tf", &over)]).is_empty());
        // Changed, they are: the original said otherwise.
        let main = MAIN
            .replace("region = \"eu-central-1\"", "region = \"eu-central-1\"\n    encrypt = true");
        let over = main.replace("encrypt = true", "encrypt = false");
        assert_eq!(
            messages(&[("main.tf", &main), ("override.tf", &over)]),
            ["override.tf changes backend \"s3\": `encrypt` differs"]
        );
    }

    #[test]
    fn a_backend_terraform_does_not_have_counts_every_argument() {
        let main = "terraform {\n  backend \"etcdv3\" {\n    prefix = \"app\"\n  }\n}\n";
        let over = "terraform {\n  backend \"etcdv3\" {\n    prefix = \"app\"\n    endpoints = [\"http://127.0.0.1:2379\"]\n  }\n}\n";
        assert_eq!(
            messages(&[("main.tf", main), ("override.tf", over)]),
            ["override.tf changes backend \"etcdv3\": `endpoints` is added"]
        );
    }

    #[test]
    fn nested_blocks_compare_by_content_not_place() {
        let main = "terraform {\n  cloud {\n    organization = \"acme\"\n    workspaces {\n      tags    = [\"app\"]\n      project = \"web\"\n    }\n  }\n}\n";
        let same = "terraform {\n  cloud {\n    workspaces {\n      project = \"web\"\n      tags = [\"app\"]\n    }\n    organization = \"acme\"\n  }\n}\n";
        assert!(messages(&[("main.tf", main), ("override.tf", same)]).is_empty());
        let token =
            same.replace("organization = \"acme\"", "organization = \"acme\"\n    token = \"x\"");
        assert_eq!(
            messages(&[("main.tf", main), ("override.tf", &token)]),
            ["override.tf changes cloud: `token` is added"]
        );
    }
}
