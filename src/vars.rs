//! Where every input variable's value comes from (`override-guard vars`), following
//! Terraform's precedence, lowest first: the default, `TF_VAR_<name>` environment
//! variables, `terraform.tfvars`, `terraform.tfvars.json`, `*.auto.tfvars(.json)` in byte
//! order of their names, then `-var` / `-var-file` in command-line order. Only the winning
//! value is converted to the (effective, override-merged) type, as Terraform does; the
//! diagnostics carry Terraform's texts.
//!
//! Pure: the app reads the files and the environment and hands them in.

pub mod uses;

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use crate::cty::{self, Type, TypeSpec, Value};
use crate::diag::{Diagnostic, Severity};
use crate::merge::Module;
use crate::merge::variables::{type_spec, value_of};
use crate::terraform::json::Scalar;
use crate::terraform::{Block, FileClass, Files, SourceText, Span, Syntax};

/// A file of variable values, as read.
#[derive(Clone, Debug)]
pub struct VarFile {
    /// The path as shown to the user.
    pub path: String,
    pub text: Arc<str>,
    /// Why the file could not be read, as Terraform's "Failed to read variables file"
    /// says it (the text is then empty).
    pub failed: Option<String>,
    /// What makes the file look binary (it was not UTF-8), when it does: its errors are
    /// then reported as one, as a binary `.tf` file's are.
    pub binary: Option<crate::merge::Binary>,
    /// The bytes of a native-syntax file that is not UTF-8, which Terraform's scanner
    /// reads as they are ("Invalid character encoding"); `text` then holds one character
    /// for each broken byte, so that positions agree.
    pub raw: Option<Arc<[u8]>>,
}

impl VarFile {
    pub fn new(path: String, text: impl Into<Arc<str>>) -> VarFile {
        VarFile { path, text: text.into(), failed: None, binary: None, raw: None }
    }

    /// A file from its bytes, read as Terraform reads them: broken UTF-8 is an error in
    /// native syntax, and U+FFFD in JSON (whose reader replaces each broken byte).
    pub fn from_bytes(path: String, bytes: &[u8]) -> VarFile {
        let binary = crate::merge::binary_content(bytes);
        match std::str::from_utf8(bytes) {
            Ok(text) => VarFile { binary, ..VarFile::new(path, text) },
            Err(_) if path.ends_with(".json") => {
                VarFile { binary, ..VarFile::new(path, String::from_utf8_lossy(bytes)) }
            }
            Err(_) => VarFile {
                binary,
                raw: Some(Arc::from(bytes)),
                ..VarFile::new(path, crate::terraform::hcl::lossless_text(bytes))
            },
        }
    }

    /// A file that could not be read, named as Terraform (running in the module, or given
    /// the file as typed) names it.
    pub fn unreadable(path: String, name: &str, missing: bool, why: &str) -> VarFile {
        let detail = if missing {
            format!("Given variables file {name} does not exist.")
        } else {
            format!("Error while reading {name}: {why}.")
        };
        VarFile { path, text: Arc::from(""), failed: Some(detail), binary: None, raw: None }
    }
}

/// The variables files Terraform reads by itself, whose absence it does not mind: it
/// looks for them by name and skips one it cannot find (a dangling link included), while
/// it lists `*.auto.tfvars` and fails on one it cannot read.
pub(crate) fn optional_file(name: &str) -> bool {
    DEFAULT_FILES.contains(&name)
}

const DEFAULT_FILES: [&str; 2] = ["terraform.tfvars", "terraform.tfvars.json"];

/// One command-line argument that sets variables, in order.
#[derive(Clone, Debug)]
pub enum CliArg {
    /// `--var NAME=VALUE`.
    Var(String),
    /// `--var-file PATH`: the file, or the path that could not be read.
    File(Result<VarFile, String>),
}

/// Everything that may set a variable besides its default.
#[derive(Clone, Debug, Default)]
pub struct Inputs {
    /// The files Terraform loads by itself, in the order [`auto_files`] gives.
    pub auto: Vec<VarFile>,
    pub cli: Vec<CliArg>,
    /// `TF_VAR_*` environment variables (name with prefix, value).
    pub env: Vec<(String, String)>,
}

/// The names among a directory's files that Terraform loads by itself, in its order:
/// `terraform.tfvars`, `terraform.tfvars.json`, then `*.auto.tfvars` and
/// `*.auto.tfvars.json` by byte order of the name (hidden files included).
pub fn auto_files<'a>(names: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let names: BTreeSet<&str> = names.into_iter().collect();
    let mut out: Vec<String> =
        DEFAULT_FILES.into_iter().filter(|n| names.contains(n)).map(str::to_string).collect();
    out.extend(
        names
            .iter()
            .filter(|n| is_auto_file(n) && !DEFAULT_FILES.contains(*n))
            .map(|n| n.to_string()),
    );
    out
}

pub use crate::terraform::discover::is_auto_tfvars as is_auto_file;

/// Where a setting came from.
#[derive(Clone, Debug, PartialEq)]
pub enum From {
    /// `TF_VAR_<name>`.
    Env(String),
    /// A variables file: loaded by Terraform itself (`auto`) or given with `-var-file`.
    File { path: String, auto: bool },
    /// `-var NAME=VALUE`, the n-th variable argument (0-based).
    Var(usize),
}

impl From {
    /// How the source is named in reports.
    pub fn describe(&self) -> String {
        match self {
            From::Env(n) => format!("environment variable {n}"),
            From::File { path, .. } => path.clone(),
            From::Var(_) => "--var".to_string(),
        }
    }
}

/// One value given to a variable, before conversion.
#[derive(Clone, Debug)]
pub struct Setting {
    pub from: From,
    /// Shared with the outcome when converting it to the variable's type leaves it as it
    /// is (as for a variable of any type): a variables file's value is held once.
    pub value: Arc<Value>,
    /// Where the value is written (a file's attribute, or the pseudo file of a flag).
    pub at: Span,
}

/// What a variable ends up with.
#[derive(Clone, Debug)]
pub enum Outcome {
    /// The value and the index of the winning setting in `chain` (`None`: the default).
    Value(Arc<Value>, Option<usize>),
    /// No value and no default: Terraform would ask for it.
    Prompted,
    /// The winning value does not fit (see the diagnostics).
    Invalid,
}

/// One declared variable.
#[derive(Clone, Debug)]
pub struct Var {
    pub name: String,
    pub block: Block,
    pub spec: TypeSpec,
    pub default: Option<Value>,
    pub sensitive: bool,
    pub nullable: bool,
    /// Every value given, lowest precedence first (the last one wins).
    pub chain: Vec<Setting>,
    pub outcome: Outcome,
}

/// The result: variables in declaration order, the diagnostics, and the files spans
/// point into (the module's, then the variables files, then flag pseudo files).
pub struct Report {
    pub files: Files,
    pub vars: Vec<Var>,
    /// Values given for variables the module does not declare (the winning one per name).
    pub undeclared: Vec<(String, Setting)>,
    pub diagnostics: Vec<Diagnostic>,
}

impl Report {
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }

    /// The variables files that could not be read, as Terraform reports them.
    pub fn read_failures(&self) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostics.iter().filter(|d| d.summary == FAILED_TO_READ)
    }
}

/// Terraform's summary for a variables file it cannot read.
const FAILED_TO_READ: &str = "Failed to read variables file";

const UNDECLARED_FILE: &str = "If you meant to use this value, add a \"variable\" block to the configuration.\n\nTo silence these warnings, use TF_VAR_... environment variables to provide certain \"global\" settings to all configurations in your organization. To reduce the verbosity of these warnings, use the -compact-warnings option.";

/// The declared variables of a merged module, with their effective type and default.
fn declared(m: &Module) -> Vec<Var> {
    let mut out = Vec::new();
    for b in m.blocks.iter().filter(|b| b.kind == "variable") {
        let Some(name) = b.labels.first() else { continue };
        let ty = b.attr("type");
        let mut spec = match ty.map(type_spec) {
            Some(Ok(s)) => s,
            Some(Err(_)) => TypeSpec { ty: Type::Dynamic, defaults: None, literal: false },
            None => TypeSpec::unset(),
        };
        // The merge copies an override's type but not its optional-attribute defaults; a
        // default decoded in the same block as that type got them already.
        let own_defaults = spec.defaults.clone();
        if ty.is_some_and(|t| m.from_override(t.span)) {
            spec.defaults = None;
        }
        let default = b.attr("default").and_then(|d| {
            let raw = match crate::merge::variables::clean_in(m, d.expr.span.file) {
                true => crate::merge::variables::clean_value_of(&d.expr),
                false => value_of(&d.expr),
            }
            .ok()?;
            let same_file = ty.is_none_or(|t| t.span.file == d.span.file);
            let converted = if same_file {
                cty::convert_with_defaults(&raw, &spec.ty, own_defaults.as_ref())
            } else {
                cty::convert(&raw, &spec.ty)
            };
            Some(converted.unwrap_or(raw))
        });
        let flag = |n: &str, dflt: bool| b.attr(n).and_then(|a| a.expr.as_bool()).unwrap_or(dflt);
        out.push(Var {
            name: name.clone(),
            block: b.clone(),
            spec,
            default,
            sensitive: flag("sensitive", false),
            nullable: flag("nullable", true),
            chain: Vec::new(),
            outcome: Outcome::Prompted,
        });
    }
    out
}

struct Gathered {
    files: Files,
    diags: Vec<Diagnostic>,
    /// Settings by variable name, in precedence order (declared or not).
    settings: BTreeMap<String, Vec<Setting>>,
}

impl Gathered {
    fn add_file(&mut self, path: &str, text: Arc<str>, syntax: Syntax) -> usize {
        self.files.files.push(SourceText::new(path.to_string(), FileClass::Primary, syntax, text));
        self.files.files.len() - 1
    }

    fn set(&mut self, name: &str, s: Setting) {
        self.settings.entry(name.to_string()).or_default().push(s);
    }

    /// Reads one variables file; a file Terraform cannot read contributes nothing.
    fn file(&mut self, f: &VarFile, auto: bool) {
        let json = f.path.ends_with(".json");
        let id =
            self.add_file(&f.path, f.text.clone(), if json { Syntax::Json } else { Syntax::Hcl });
        if let Some(detail) = &f.failed {
            let at = Span::new(id, 0, 0);
            self.diags.push(Diagnostic::error(FAILED_TO_READ, detail, at));
            return;
        }
        let from = From::File { path: f.path.clone(), auto };
        if json {
            self.json_file(id, f, from);
        } else {
            self.hcl_file(id, f, from);
        }
    }

    fn hcl_file(&mut self, id: usize, f: &VarFile, from: From) {
        let (parsed, diags) = match &f.raw {
            Some(raw) => crate::terraform::hcl::parse_bytes(id, &f.path, raw, &f.text),
            None => crate::terraform::hcl::parse_named(id, &f.path, &f.text),
        };
        let diags = match f.binary {
            Some(what) => crate::merge::one_error_of_binary(diags, what),
            None => diags,
        };
        if diags.iter().any(Diagnostic::is_error) {
            self.diags.extend(diags);
            return;
        }
        for b in parsed.body.blocks() {
            let d = if b.kind == "variable" {
                Diagnostic::error(
                    "Variable declaration in .tfvars file",
                    format!(
                        "A .tfvars file is used to assign values to variables that have already been declared in .tf files, not to declare new variables. To declare variable \"{}\", place this block in one of your .tf files, such as variables.tf.\n\nTo set a value for this variable in {}, use the definition syntax instead:\n    {} = <value>",
                        b.labels.first().map(String::as_str).unwrap_or(""),
                        f.path,
                        b.labels.first().map(String::as_str).unwrap_or("")
                    ),
                    b.def_span,
                )
            } else {
                Diagnostic::error(
                    format!("Unexpected \"{}\" block", b.kind),
                    "Blocks are not allowed here.",
                    b.def_span,
                )
            };
            self.diags.push(d);
        }
        // Read without a syntax error (or returned above).
        for a in parsed.body.attrs() {
            match crate::merge::variables::clean_value_of(&a.expr) {
                Ok(v) => self.set(
                    &a.name,
                    Setting { from: from.clone(), value: Arc::new(v), at: a.expr.span },
                ),
                Err(e) => self.diags.push(Diagnostic::error(e.summary, e.detail, a.expr.span)),
            }
        }
    }

    fn json_file(&mut self, id: usize, f: &VarFile, from: From) {
        let mut b = JsonValues::default();
        if let Err(d) = crate::terraform::json::read_checked(id, &f.text, &mut b) {
            self.diags.extend(match f.binary {
                Some(holds) => crate::merge::one_error_of_binary(d, holds),
                None => d,
            });
            return;
        }
        let Some(props) = b.root else {
            self.diags.push(Diagnostic::error(
                "Incorrect JSON value type",
                "A JSON object is required here, setting the arguments for this block.",
                b.root_span,
            ));
            return;
        };
        for (name, at, value) in props {
            match value {
                Some(val) => {
                    self.set(&name, Setting { from: from.clone(), value: Arc::new(val), at })
                }
                None => self.diags.push(Diagnostic::error(
                    "Invalid number",
                    "The number is not valid.",
                    at,
                )),
            }
        }
    }

    /// A `-var` or `TF_VAR_` text, parsed as Terraform does for the variable's type: the
    /// raw string for primitive types and no type, an HCL expression otherwise.
    fn text_value(&mut self, name: &str, text: &str, literal: bool) -> Option<(Value, Span)> {
        let id = self.add_file(&format!("<value for var.{name}>"), Arc::from(text), Syntax::Hcl);
        let span = Span::new(id, 0, text.len());
        if literal {
            return Some((Value::String(text.to_string()), span));
        }
        match cty::eval_source(text) {
            Ok(v) => Some((v, span)),
            Err(e) => {
                let detail = if e.summary == "Invalid expression" && text.trim().is_empty() {
                    "Expected the start of an expression, but found the end of the file.".into()
                } else {
                    e.detail
                };
                self.diags.push(Diagnostic::error(e.summary, detail, Span::new(id, 0, 0)));
                None
            }
        }
    }
}

/// A JSON variables file read straight into values (strings are literal: no templates in
/// `.tfvars.json`). The root's properties are the settings, kept in order, a name given
/// twice kept twice; a value is `None` where a number in it is no valid number.
#[derive(Default)]
struct JsonValues {
    root: Option<Vec<(String, Span, Option<Value>)>>,
    root_span: Span,
}

impl<'t> crate::terraform::json::Build<'t> for JsonValues {
    type Out = Option<Value>;

    fn scalar(&mut self, depth: usize, s: Scalar<'t>, span: Span) -> Option<Value> {
        if depth == 0 {
            self.root_span = span;
        }
        Some(match s {
            Scalar::Null => Value::Null(Type::Dynamic),
            Scalar::Bool(b) => Value::Bool(b),
            Scalar::Number(n) => Value::Number(cty::Number::parse(n)?),
            Scalar::String(s) => Value::String(s.into_owned()),
        })
    }

    fn array(&mut self, depth: usize, items: Vec<Option<Value>>, span: Span) -> Option<Value> {
        if depth == 0 {
            self.root_span = span;
        }
        let mut items = items.into_iter().collect::<Option<Vec<_>>>()?;
        items.shrink_to_fit();
        Some(Value::Tuple(items))
    }

    fn property(
        &mut self,
        depth: usize,
        name: Cow<'t, str>,
        name_span: Span,
        value: Option<Value>,
        value_span: Span,
    ) -> Option<(Cow<'t, str>, Span, Option<Value>)> {
        if depth > 0 {
            return Some((name, name_span, value));
        }
        self.root.get_or_insert_default().push((name.into_owned(), value_span, value));
        None
    }

    fn object(
        &mut self,
        depth: usize,
        props: Vec<(Cow<'t, str>, Span, Option<Value>)>,
        span: Span,
    ) -> Option<Value> {
        if depth == 0 {
            self.root_span = span;
            self.root.get_or_insert_default();
            return None;
        }
        // The last of a name given twice wins.
        props
            .into_iter()
            .map(|(k, _, v)| v.map(|v| (k.into_owned(), v)))
            .collect::<Option<cty::Attrs<Value>>>()
            .map(Value::Object)
    }
}

/// Collects every value given to the module's variables and decides each one.
pub fn collect(m: &Module, inputs: &Inputs) -> Report {
    let mut vars = declared(m);
    let index: BTreeMap<String, usize> =
        vars.iter().enumerate().map(|(i, v)| (v.name.clone(), i)).collect();
    let mut cx = Gathered { files: m.files.clone(), diags: Vec::new(), settings: BTreeMap::new() };

    // Environment: only exact names of declared variables; anything else is ignored.
    let mut env = inputs.env.clone();
    env.sort();
    for (key, text) in &env {
        let Some(name) = key.strip_prefix("TF_VAR_") else { continue };
        let Some(&i) = index.get(name) else { continue };
        let literal = vars[i].spec.literal;
        if let Some((value, at)) = cx.text_value(name, text, literal) {
            cx.set(name, Setting { from: From::Env(key.clone()), value: Arc::new(value), at });
        }
    }
    for f in &inputs.auto {
        cx.file(f, true);
    }
    let mut flag_no = 0;
    for arg in &inputs.cli {
        match arg {
            CliArg::File(Ok(f)) => cx.file(f, false),
            CliArg::File(Err(path)) => cx.diags.push(Diagnostic {
                severity: Severity::Error,
                summary: FAILED_TO_READ.into(),
                detail: format!("Given variables file {path} does not exist."),
                subject: None,
                related: Vec::new(),
                cause: None,
            }),
            CliArg::Var(raw) => {
                let n = flag_no;
                flag_no += 1;
                let Some((name, text)) = raw.split_once('=') else {
                    cx.diags.push(Diagnostic {
                        severity: Severity::Error,
                        summary: "Invalid -var option".into(),
                        detail: format!("The given -var option \"{raw}\" is not correctly specified. Must be a variable name and value separated by an equals sign, like -var=\"key=value\"."),
                        subject: None,
                        related: Vec::new(),
                        cause: None,
                    });
                    continue;
                };
                let literal = index.get(name).is_none_or(|&i| vars[i].spec.literal);
                if let Some((value, at)) = cx.text_value(name, text, literal) {
                    cx.set(name, Setting { from: From::Var(n), value: Arc::new(value), at });
                }
            }
        }
    }

    // Values for undeclared names: the winning one per name decides what Terraform says.
    let mut undeclared = Vec::new();
    let mut file_warnings = Vec::new();
    for (name, chain) in &cx.settings {
        if index.contains_key(name) {
            continue;
        }
        let Some(last) = chain.last() else { continue };
        match &last.from {
            From::Var(_) => cx.diags.push(Diagnostic {
                severity: Severity::Error,
                summary: "Value for undeclared variable".into(),
                detail: format!("A variable named \"{name}\" was assigned on the command line, but the root module does not declare a variable of that name. To use this value, add a \"variable\" block to the configuration."),
                subject: None,
                related: Vec::new(),
                cause: None,
            }),
            From::File { path, .. } => file_warnings.push(Diagnostic::warning(
                "Value for undeclared variable",
                format!("The root module does not declare a variable named \"{name}\" but a value was found in file \"{path}\". {UNDECLARED_FILE}"),
                last.at,
            )),
            From::Env(_) => {}
        }
        undeclared.push((name.clone(), last.clone()));
    }
    // Terraform shows two of these, then one line counting the rest.
    let extra = file_warnings.len().saturating_sub(2);
    cx.diags.extend(file_warnings.into_iter().take(2));
    if extra > 0 {
        cx.diags.push(Diagnostic {
            severity: Severity::Warning,
            summary: "Values for undeclared variables".into(),
            detail: format!("In addition to the other similar warnings shown, {extra} other variable(s) defined without being declared."),
            subject: None,
            related: Vec::new(),
            cause: None,
        });
    }

    for v in &mut vars {
        v.chain = cx.settings.remove(&v.name).unwrap_or_default();
        v.outcome = decide(v, &cx.files, &mut cx.diags);
    }
    Report { files: cx.files, vars, undeclared, diagnostics: cx.diags }
}

/// The winning value converted to the variable's type, with Terraform's errors.
fn decide(v: &Var, files: &Files, diags: &mut Vec<Diagnostic>) -> Outcome {
    let decl = files.range_string(v.block.def_span);
    let Some((i, s)) = v.chain.iter().enumerate().next_back() else {
        return match &v.default {
            // The type's optional-attribute defaults apply to the default too, when the
            // merge kept them (not for a type an override file set).
            Some(d) => Outcome::Value(
                Arc::new(match &v.spec.defaults {
                    Some(defaults) => defaults.apply(d),
                    None => d.clone(),
                }),
                None,
            ),
            None => Outcome::Prompted,
        };
    };
    let converted = if cty::converts_to_itself(&s.value, &v.spec.ty, v.spec.defaults.as_ref()) {
        Ok(s.value.clone())
    } else {
        cty::convert_error_with_defaults(&s.value, &v.spec.ty, v.spec.defaults.as_ref())
            .map(Arc::new)
    };
    let value = match converted {
        Ok(val) => val,
        // Terraform prints these without the cty path.
        Err((_, err)) => {
            let (detail, at) = match &s.from {
                From::File { .. } => (
                    format!(
                        "The given value is not suitable for var.{} declared at {decl}: {err}.",
                        v.name
                    ),
                    s.at,
                ),
                From::Var(_) => (
                    format!(
                        "Unsuitable value for var.{} set using -var=\"{}=...\": {err}.",
                        v.name, v.name
                    ),
                    v.block.def_span,
                ),
                From::Env(key) => (
                    format!(
                        "Unsuitable value for var.{} set using the {key} environment variable: {err}.",
                        v.name
                    ),
                    v.block.def_span,
                ),
            };
            diags.push(Diagnostic::error("Invalid value for input variable", detail, at));
            return Outcome::Invalid;
        }
    };
    if value.is_null() && !v.nullable {
        return match &v.default {
            Some(d) => Outcome::Value(Arc::new(d.clone()), None),
            None => {
                diags.push(Diagnostic::error(
                    "Required variable not set",
                    format!(
                        "The given value is not suitable for var.{} defined at {decl}: required variable may not be set to null.",
                        v.name
                    ),
                    s.at,
                ));
                Outcome::Invalid
            }
        };
    }
    Outcome::Value(value, Some(i))
}
