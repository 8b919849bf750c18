//! Bytes → a policy file (`.override-guard.toml`): TOML parse and validation; errors are
//! drawn as the CLI draws them, a valid policy is queried as the rules query it.
#![no_main]

use libfuzzer_sys::fuzz_target;
use override_guard::policy::Policy;
use override_guard::policy::rules::RULES;
use override_guard::report::{self, Style};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    match Policy::parse(".override-guard.toml", &text) {
        Ok(p) => {
            for r in RULES {
                let _ = p.level_for(r.id, "envs/dev/override.tf");
                let _ = p.may_fire(r.id);
            }
            if let Some(m) = p.options.comment.matcher_for("override.tf") {
                let _ = m.is_match("# changed by override.tf");
            }
            let _ = p.options.protected.matches("resource.aws_s3_bucket.logs.acl");
        }
        Err(errors) => {
            for e in errors {
                let _ = e.line_col();
                let _ = report::policy_error(e, Style::plain());
            }
        }
    }
});
