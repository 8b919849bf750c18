//! The table of block kinds against the loader: every kind, in every modelled release of
//! both engines, is read, decoded, appended and overridden as its row says. A place that
//! still decides by a kind's name, and so misses a kind the table gained, fails here.

use crate::terraform::discover::Engine;
use crate::terraform::release::{Release, modelled};
use crate::terraform::schema::{KINDS, Kind, Overridden, Primary, fill};

/// A block of the kind that every release having it decodes without error.
fn sample(kind: &str) -> Option<&'static str> {
    Some(match kind {
        "terraform" => "terraform {}\n",
        "required_providers" => "required_providers {}\n",
        "provider" => "provider \"aws\" {}\n",
        "variable" => "variable \"a\" {}\n",
        "locals" => "locals {\n  a = 1\n}\n",
        "output" => "output \"a\" {\n  value = 1\n}\n",
        "module" => "module \"a\" {\n  source = \"./m\"\n}\n",
        "resource" => "resource \"t\" \"n\" {}\n",
        "data" => "data \"t\" \"n\" {}\n",
        "ephemeral" => "ephemeral \"t\" \"n\" {}\n",
        "action" => "action \"t\" \"n\" {}\n",
        "moved" => "moved {\n  from = t.a\n  to   = t.b\n}\n",
        "removed" => "removed {\n  from = t.a\n  lifecycle {\n    destroy = false\n  }\n}\n",
        "import" => "import {\n  to = t.a\n  id = \"x\"\n}\n",
        "check" => {
            "check \"a\" {\n  assert {\n    condition     = t.a.id == \"x\"\n    error_message = \"x\"\n  }\n}\n"
        }
        "language" => "language {}\n",
        _ => return None,
    })
}

/// The labels of a kind's sample, as the merge's messages put them in.
fn labels(k: &Kind) -> Vec<String> {
    match k.labels.len() {
        2 => vec!["t".into(), "n".into()],
        1 if k.name == "provider" => vec!["aws".into()],
        1 => vec!["a".into()],
        _ => Vec::new(),
    }
}

fn summaries(r: Release, files: &[(&str, &str)]) -> Vec<String> {
    let m = super::load_texts("", files, r);
    m.diagnostics.iter().map(|d| d.summary.clone()).collect()
}

fn releases() -> impl Iterator<Item = Release> {
    modelled(Engine::Terraform).chain(modelled(Engine::OpenTofu))
}

#[test]
fn every_kind_has_a_sample() {
    for k in KINDS {
        assert!(sample(k.name).is_some(), "no sample block of `{}` here", k.name);
    }
}

#[test]
fn the_schema_has_each_kind_its_row_gives_it() {
    for r in releases() {
        for k in KINDS {
            let text = sample(k.name).unwrap_or_default();
            let got = summaries(r, &[("main.tf", text)]);
            let unsupported = got.iter().any(|s| s == "Unsupported block type");
            assert_eq!(unsupported, !k.in_schema(r), "{r}: `{}` gave {got:?}", k.name);
            // A label too many is judged by the kind's own label list.
            if k.in_schema(r) && k.name != "required_providers" {
                let extra = text.replacen(" {", " \"x\" {", 1);
                let got = summaries(r, &[("main.tf", &extra)]);
                assert!(
                    got.iter().any(|s| s.starts_with("Extraneous label")),
                    "{r}: `{}` with a label too many gave {got:?}",
                    k.name
                );
            }
        }
    }
}

#[test]
fn a_second_declaration_is_judged_by_the_row() {
    for r in releases() {
        for k in KINDS.iter().filter(|k| k.in_schema(r) && k.decoded.is_none_or(|(f, _)| r.has(f)))
        {
            let Primary::Unique(u) = k.primary else { continue };
            let text = sample(k.name).unwrap_or_default();
            let got = summaries(r, &[("a.tf", text), ("b.tf", text)]);
            let tofu = r.engine == Engine::OpenTofu;
            let want = fill(u.tofu_summary.filter(|_| tofu).unwrap_or(u.summary), &labels(k), "");
            assert!(got.contains(&want), "{r}: two `{}` gave {got:?}, not {want:?}", k.name);
        }
    }
}

#[test]
fn an_override_does_what_its_row_says() {
    for r in releases() {
        // A kind the loader never keeps is reported where it stands, not merged.
        let merged = |k: &&Kind| k.in_schema(r) && !matches!(k.primary, Primary::Dropped);
        for k in KINDS.iter().filter(merged) {
            let text = sample(k.name).unwrap_or_default();
            // A base for the kinds that merge into one, none for those that need one.
            let base = match k.overridden {
                Overridden::Object { .. } | Overridden::Refused(..) => "",
                _ => text,
            };
            let m = super::load_texts("", &[("main.tf", base), ("override.tf", text)], r);
            let got: Vec<&str> = m.diagnostics.iter().map(|d| d.summary.as_str()).collect();
            let ignored: Vec<&str> = m.ignored.iter().map(|i| i.what.as_str()).collect();
            let dropped = k.decoded.filter(|(f, _)| !r.has(*f)).map(|(_, what)| what);
            let ignores = k.terraform_ignores.filter(|_| r.engine == Engine::Terraform);
            if let Some(what) = dropped.or(ignores) {
                assert!(ignored.contains(&what), "{r}: override `{}` gave {ignored:?}", k.name);
                continue;
            }
            match k.overridden {
                Overridden::Object { missing: (summary, _), .. } => {
                    assert!(got.contains(&summary), "{r}: override `{}` gave {got:?}", k.name)
                }
                Overridden::Refused(summary, _) => {
                    assert!(got.contains(&summary), "{r}: override `{}` gave {got:?}", k.name)
                }
                Overridden::Locals | Overridden::Provider | Overridden::Settings => {
                    assert!(got.is_empty(), "{r}: override `{}` gave {got:?}", k.name)
                }
                // The decoder's to judge (a check in an override file is its error).
                Overridden::Nothing => {}
            }
        }
    }
}
