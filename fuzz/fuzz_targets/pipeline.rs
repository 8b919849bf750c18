//! Bytes → a module (and maybe its policy file) in an in-memory source → the pipeline as
//! `audit` runs it, without the command line: policies found, module loaded, judged,
//! findings drawn in every format; then what the language server shows of the module
//! (hints, hovers, jumps) and the code actions it offers at every line.
//!
//! Input format: the merge target's (`module_input.rs`), where a chunk named
//! `.override-guard.toml` is the module's policy file.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "module_input.rs"]
mod module_input;
use override_guard::lsp::{actions, analysis::Analysis};
use override_guard::pipeline::audit::{Ask, Audit};
use override_guard::pipeline::policies::Trouble;
use override_guard::pipeline::Choice;
use override_guard::policy::Date;
use override_guard::report::{self, Style, findings};
use override_guard::source::{MemorySource, Source};

const NAMES: &[&str] = &[
    "main.tf",
    "override.tf",
    ".override-guard.toml",
    "a_override.tf.json",
    "x.tofu",
    "main.tf.json",
    "variables.tf",
    "terraform.tfvars",
    "main_override.tf",
    "x_override.tofu",
];

const TODAY: Date = Date { year: 2026, month: 11, day: 26 };

fuzz_target!(|data: &[u8]| {
    let (engine, files) = module_input::parse(data, NAMES, 12);
    let mut src = MemorySource::new();
    for (name, content) in files {
        src = src.with(&format!("m/{name}"), content);
    }
    let Ok(modules) = src.modules() else { return };
    let modules: Vec<(String, Vec<String>)> = modules.into_iter().collect();
    let ask = Ask { choice: &Choice::Nearest, levels: &[], engine: engine.into(), today: TODAY };
    let audit = match Audit::find(&src, &ask, ["m"]) {
        Ok(a) => a,
        Err(Trouble::Policy(errors)) => {
            for e in errors {
                let _ = report::policy_error(e, Style::plain());
            }
            return;
        }
        Err(Trouble::Source(_)) => return,
    };
    let audit = audit.covering(&["m".to_string()]);
    let Ok((found, summary)) = audit.run(&src, &modules, &()) else { return };
    let _ = findings::human(&found, &summary, Style::plain());
    let _ = findings::json(&found, &summary);
    let _ = findings::github(&found, &summary);
    let _ = report::sarif::render(&found, &summary);

    let Ok(judged) = audit.judge(&src, &modules) else { return };
    for (dir, j) in &judged {
        let m = &j.loaded.module;
        let here: Vec<_> =
            found.iter().filter(|f| f.primary.path.starts_with("m/")).cloned().collect();
        let a = Analysis::new(m, here);
        let (_, g) = audit.policies.of(dir);
        for f in &a.files {
            let len = f.text.len();
            for at in [0, len / 3, len / 2, len] {
                let _ = a.hover(&f.path, at);
                let _ = a.spot(&f.path, at);
            }
            for (i, _) in f.text.match_indices('\n').take(64) {
                let acts = actions::at(m, &a.findings, &g.policy, &g.base, TODAY, &f.path, i..i);
                for act in acts {
                    for c in act.changes {
                        if let Some(edits) = c.edits {
                            let before =
                                a.file(&c.path).map(|f| f.text.clone()).unwrap_or_default();
                            let _ = actions::apply(&before, &edits);
                        }
                    }
                }
            }
        }
    }
});
