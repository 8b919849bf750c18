//! Terraform's `decodeCheckBlock` (`checks.go`).

use crate::terraform::{Block, Span};

use super::decoder::Decoder;
use super::names::{BAD_IDENTIFIER, valid_identifier};
use super::schema::CHECK;

impl Decoder<'_> {
    pub(super) fn check(&mut self, b: &Block) {
        if self.over {
            self.err(
                "Can't override check blocks",
                "Override files cannot override check blocks.",
                self.decl(b),
            );
            return;
        }
        let inner = self.content(&b.body, self.missing(b), &CHECK, false, true);
        if !valid_identifier(b.labels.first().map_or("", String::as_str)) {
            let at = b.label_spans.first().copied().unwrap_or(self.decl(b));
            self.err("Invalid check block name", BAD_IDENTIFIER, at);
        }
        let mut data: Option<Span> = None;
        let mut asserts = 0;
        for c in inner {
            if c.kind == "data" {
                if self.again(data, c, "Multiple data resource blocks", |at| {
                    format!("This check block already has a data resource defined at {at}.")
                }) {
                    continue;
                }
                if !self.data(c, true) {
                    data = Some(self.decl(c));
                }
            } else {
                let mark = self.out.len();
                self.check_rule(c);
                if !self.has_errors_since(mark) {
                    asserts += 1;
                }
            }
        }
        if asserts == 0 {
            self.err(
                "Zero assert blocks",
                "Check blocks must have at least one assert block.",
                self.decl(b),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::decoder::one_file;
    use super::*;
    use crate::terraform::discover::Engine;

    /// What decoding the file's check blocks reports.
    fn diags(text: &str, over: bool) -> Vec<(String, String)> {
        let (files, f) = one_file(text);
        let mut d = Decoder::new(
            &files,
            0,
            crate::terraform::release::Release::newest(Engine::Terraform),
            over,
        );
        for b in f.body.blocks_of("check") {
            d.check(b);
        }
        d.out.into_iter().map(|d| (d.summary, d.detail)).collect()
    }

    #[test]
    fn a_second_data_block_in_a_check_is_refused_once_the_first_decoded() {
        // Terraform's loader cannot be recorded on this one (its dump of a check with a
        // data block is cyclic); `terraform validate` reports it at the second header.
        let text = "check \"c\" {\n  data \"http\" \"a\" {\n  }\n  data \"http\" \"b\" {\n  }\n  assert {\n    condition     = data.http.a.ok\n    error_message = \"x\"\n  }\n}\n";
        let d = diags(text, false);
        assert_eq!(
            d,
            [(
                "Multiple data resource blocks".to_string(),
                "This check block already has a data resource defined at main.tf:2,3-18."
                    .to_string()
            )]
        );
        // An override file may not hold a check block at all.
        assert_eq!(diags(text, true)[0].0, "Can't override check blocks");
    }
}
