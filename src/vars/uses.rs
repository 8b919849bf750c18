//! The variables that commands other than `plan` declare or read, from the files they load
//! with the module and its variables files: `terraform query` reads the module's query
//! files, whose `variable` blocks declare variables for that command only; `terraform test`
//! (`tofu test`) reads its test files, which declare variables (Terraform's `variable`
//! blocks) or refer to variables the module does not declare (`var.NAME`, in a `variables`
//! block), taking their values from the same variables files. A value for such a name is
//! used, though `plan` warns that it is not.

use crate::terraform::discover::{self, Engine};
use override_guard_hcl::{ast, scan};

/// A command other than `plan` that loads the module's variables files.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Command {
    Query,
    Test,
}

impl Command {
    /// The command as the user types it.
    pub fn name(self, engine: Engine) -> &'static str {
        match (self, engine) {
            (Command::Query, _) => "terraform query",
            (Command::Test, Engine::Terraform) => "terraform test",
            (Command::Test, Engine::OpenTofu) => "tofu test",
        }
    }
}

/// A variable name a query or test file declares or refers to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Use {
    pub name: String,
    pub command: Command,
    /// The file, as a path of the source.
    pub path: String,
}

/// Which command reads a file of this name under `engine`, if one does: OpenTofu has no
/// query command, and Terraform reads no `.tofutest` file.
pub(crate) fn command_of(name: &str, engine: Engine) -> Option<Command> {
    if discover::is_query_file(name) {
        return (engine == Engine::Terraform).then_some(Command::Query);
    }
    let tofu_only = name.ends_with(".tofutest.hcl") || name.ends_with(".tofutest.json");
    (discover::is_test_file(name) && (engine == Engine::OpenTofu || !tofu_only))
        .then_some(Command::Test)
}

/// The uses in one file at `path`, whose name says which command reads it: the names its
/// top-level `variable` blocks declare, and for a test file the names it refers to as
/// `var.NAME`. A file that does not parse gives what can be read of it (the command
/// reports its errors itself).
pub fn uses(path: &str, bytes: &[u8], engine: Engine) -> Vec<Use> {
    let Some(command) = command_of(crate::path::split(path).1, engine) else {
        return Vec::new();
    };
    let mut names = Vec::new();
    if path.ends_with(".json") {
        if let Ok(doc) = serde_json::from_slice::<serde_json::Value>(bytes) {
            if let Some(vars) = doc.get("variable").and_then(serde_json::Value::as_object) {
                names.extend(vars.keys().cloned());
            }
            if command == Command::Test {
                json_refs(&doc, &mut names);
            }
        }
    } else {
        let text = String::from_utf8_lossy(bytes);
        let (body, _) = override_guard_hcl::parse_config(&text);
        for item in &body.items {
            if let ast::Item::Block(b) = item
                && b.kind == "variable"
                && let [(name, _)] = b.labels.as_slice()
            {
                names.push(name.clone());
            }
        }
        if command == Command::Test {
            native_refs(text.as_bytes(), &mut names);
        }
    }
    names.sort();
    names.dedup();
    names.into_iter().map(|name| Use { name, command, path: path.to_string() }).collect()
}

/// `var.NAME` in native syntax: the tokens `var`, `.`, a name, where `var` is no
/// attribute of something else (`x.var.y`). Interpolations in strings are tokens too.
fn native_refs(src: &[u8], out: &mut Vec<String>) {
    let tokens = scan::scan(src, scan::Mode::Normal);
    for (i, w) in tokens.windows(3).enumerate() {
        let after_dot = i > 0 && tokens[i - 1].kind == scan::Kind::Dot;
        if let [var, dot, name] = w
            && !after_dot
            && var.kind == scan::Kind::Ident
            && var.text(src) == b"var"
            && dot.kind == scan::Kind::Dot
            && name.kind == scan::Kind::Ident
        {
            out.push(String::from_utf8_lossy(name.text(src)).into_owned());
        }
    }
}

/// `var.NAME` in the strings of a JSON document (its expressions are strings).
fn json_refs(v: &serde_json::Value, out: &mut Vec<String>) {
    match v {
        serde_json::Value::String(s) => {
            let ident = |c: char| c.is_alphanumeric() || c == '_' || c == '-';
            let mut rest = s.as_str();
            while let Some(at) = rest.find("var.") {
                let before = rest[..at].chars().next_back();
                let tail = &rest[at + 4..];
                let len = tail.find(|c: char| !ident(c)).unwrap_or(tail.len());
                if !before.is_some_and(|c| ident(c) || c == '.') && len > 0 {
                    out.push(tail[..len].to_string());
                }
                rest = tail;
            }
        }
        serde_json::Value::Array(a) => a.iter().for_each(|x| json_refs(x, out)),
        serde_json::Value::Object(o) => o.values().for_each(|x| json_refs(x, out)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(path: &str, text: &str, engine: Engine) -> Vec<(String, Command)> {
        uses(path, text.as_bytes(), engine).into_iter().map(|u| (u.name, u.command)).collect()
    }

    #[test]
    fn a_query_file_declares_variables_for_terraform_query_only() {
        let q = "variable \"environment\" {\n  type = string\n}\n\nlist \"aws_instance\" \"x\" {\n  provider = aws\n  config {\n    tags = var.other\n  }\n}\n";
        assert_eq!(
            names("query.tfquery.hcl", q, Engine::Terraform),
            [("environment".to_string(), Command::Query)]
        );
        assert_eq!(names("query.tfquery.hcl", q, Engine::OpenTofu), []);
        let json = r#"{"variable": {"environment": {"type": "string"}}}"#;
        assert_eq!(
            names("q.tfquery.json", json, Engine::Terraform),
            [("environment".to_string(), Command::Query)]
        );
    }

    /// As in hashicorp/terraform's `internal/command/testdata/test/global_var_ref_in_suite_var`:
    /// a test file's `variables` block refers to a variable only terraform.tfvars sets.
    #[test]
    fn a_test_file_declares_and_refers_to_variables() {
        let t = "variables {\n  input = {\n    organization_name = var.org_name\n    label = \"${var.prefix}-x\"\n  }\n}\n\nvariable \"region\" {}\n\nrun \"execute\" {\n  assert {\n    condition     = output.value.var.not_a_variable == \"my-org\"\n    error_message = \"bad\"\n  }\n}\n";
        let got: Vec<String> =
            names("tests/a.tftest.hcl", t, Engine::Terraform).into_iter().map(|(n, _)| n).collect();
        assert_eq!(got, ["org_name", "prefix", "region"]);
        let json = r#"{"variables": {"input": "${var.org_name}", "other": "xvar.no"}}"#;
        let got: Vec<String> =
            names("a.tftest.json", json, Engine::Terraform).into_iter().map(|(n, _)| n).collect();
        assert_eq!(got, ["org_name"]);
        assert_eq!(names("a.tofutest.hcl", t, Engine::Terraform), []);
        assert_eq!(names("a.tofutest.hcl", t, Engine::OpenTofu).len(), 3);
        assert_eq!(names("main.tf", t, Engine::Terraform), []);
    }
}
