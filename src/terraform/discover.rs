//! Which files of a directory Terraform or OpenTofu load, in which order, and which of them
//! are override files (spec §1). Pure: works on names only.

use super::{FileClass, Syntax};

/// The engine whose rules apply.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Engine {
    Terraform,
    #[serde(rename = "opentofu")]
    OpenTofu,
}

impl Engine {
    pub fn name(self) -> &'static str {
        match self {
            Engine::Terraform => "Terraform",
            Engine::OpenTofu => "OpenTofu",
        }
    }

    /// The other one (for comparing the two).
    pub fn other(self) -> Engine {
        match self {
            Engine::Terraform => Engine::OpenTofu,
            Engine::OpenTofu => Engine::Terraform,
        }
    }
}

/// Why a file in the directory is not loaded.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case", tag = "reason")]
pub enum Skip {
    /// Editor and hidden files: `.x`, `x~`, `#x#`.
    Ignored,
    /// A `.tofu` twin of the same list replaces it (OpenTofu).
    Shadowed { by: String },
    /// `.tofu` files are not read by Terraform.
    TofuFile,
}

/// A file to load.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Candidate {
    pub name: String,
    pub class: FileClass,
    pub syntax: Syntax,
}

/// The outcome of discovery for one directory.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Discovery {
    /// Primary files then override files, each in byte-wise name order: the merge order.
    pub files: Vec<Candidate>,
    pub skipped: Vec<(String, Skip)>,
}

/// Terraform's `IsIgnoredFile`.
pub fn is_ignored(name: &str) -> bool {
    name.starts_with('.') || name.ends_with('~') || (name.starts_with('#') && name.ends_with('#'))
}

const TEST_EXTS: [&str; 4] = [".tftest.hcl", ".tftest.json", ".tofutest.hcl", ".tofutest.json"];

/// The configuration extension of a file name for an engine, if it has one.
pub fn config_ext(name: &str, engine: Engine) -> Option<&'static str> {
    if TEST_EXTS.iter().any(|e| name.ends_with(e)) {
        return None;
    }
    let exts: &[&'static str] = match engine {
        Engine::Terraform => &[".tf.json", ".tf"],
        Engine::OpenTofu => &[".tofu.json", ".tf.json", ".tofu", ".tf"],
    };
    exts.iter().copied().find(|e| name.ends_with(e))
}

/// A variables file Terraform loads by itself from a root module's directory:
/// `terraform.tfvars(.json)` and `*.auto.tfvars(.json)`.
pub fn is_auto_tfvars(name: &str) -> bool {
    name == "terraform.tfvars"
        || name == "terraform.tfvars.json"
        || name.ends_with(".auto.tfvars")
        || name.ends_with(".auto.tfvars.json")
}

/// The files a module listing holds: configuration (any engine's) and the variables files
/// Terraform loads by itself.
pub fn is_module_file(name: &str) -> bool {
    config_ext(name, Engine::OpenTofu).is_some() || is_auto_tfvars(name)
}

/// Is this the name of an override file (stem `override` or ending in `_override`)?
pub fn is_override(name: &str, ext: &str) -> bool {
    let stem = &name[..name.len() - ext.len()];
    stem == "override" || stem.ends_with("_override")
}

/// The engine to use when the user did not choose: OpenTofu when the module has `.tofu` files.
pub fn default_engine<'a>(names: impl IntoIterator<Item = &'a str>) -> Engine {
    let tofu = names
        .into_iter()
        .any(|n| !is_ignored(n) && (n.ends_with(".tofu") || n.ends_with(".tofu.json")));
    if tofu { Engine::OpenTofu } else { Engine::Terraform }
}

/// Classifies and orders the files of one directory (names only, no sub-directories).
pub fn discover<'a>(names: impl IntoIterator<Item = &'a str>, engine: Engine) -> Discovery {
    let mut names: Vec<&str> = names.into_iter().collect();
    names.sort_unstable(); // byte-wise, as Go sorts strings
    names.dedup();
    let mut out = Discovery::default();
    let (mut primary, mut overrides) = (Vec::new(), Vec::new());
    for name in names {
        if is_ignored(name) {
            if config_ext(
                name.trim_start_matches(['.', '#']).trim_end_matches(['~', '#']),
                Engine::OpenTofu,
            )
            .is_some()
            {
                out.skipped.push((name.to_string(), Skip::Ignored));
            }
            continue;
        }
        let Some(ext) = config_ext(name, engine) else {
            if config_ext(name, Engine::OpenTofu).is_some() {
                out.skipped.push((name.to_string(), Skip::TofuFile));
            }
            continue;
        };
        let syntax = if ext.ends_with(".json") { Syntax::Json } else { Syntax::Hcl };
        let class = if is_override(name, ext) { FileClass::Override } else { FileClass::Primary };
        let c = Candidate { name: name.to_string(), class, syntax };
        match class {
            FileClass::Primary => primary.push(c),
            FileClass::Override => overrides.push(c),
        }
    }
    if engine == Engine::OpenTofu {
        shadow(&mut primary, &mut out.skipped);
        shadow(&mut overrides, &mut out.skipped);
    }
    out.files = primary;
    out.files.extend(overrides);
    out
}

/// OpenTofu: drop `x.tf` when the same list has `x.tofu` (and `x.tf.json` for `x.tofu.json`).
fn shadow(list: &mut Vec<Candidate>, skipped: &mut Vec<(String, Skip)>) {
    let twin = |n: &str| -> Option<String> {
        if let Some(stem) = n.strip_suffix(".tf.json") {
            Some(format!("{stem}.tofu.json"))
        } else {
            n.strip_suffix(".tf").map(|stem| format!("{stem}.tofu"))
        }
    };
    let names: Vec<String> = list.iter().map(|c| c.name.clone()).collect();
    list.retain(|c| match twin(&c.name) {
        Some(t) if names.contains(&t) => {
            skipped.push((c.name.clone(), Skip::Shadowed { by: t }));
            false
        }
        _ => true,
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn order(names: &[&str], engine: Engine) -> Vec<String> {
        discover(names.iter().copied(), engine).files.into_iter().map(|c| c.name).collect()
    }

    #[test]
    fn ignored_names() {
        assert!(is_ignored(".x.tf") && is_ignored("main.tf~") && is_ignored("#main.tf#"));
        assert!(!is_ignored("#main.tf"));
        let d = discover(
            ["#main.tf", "#a.tf#", ".b.tf", "c.tf~", "main.TF", "x.tfvars"],
            Engine::Terraform,
        );
        assert_eq!(d.files.len(), 1);
        assert_eq!(d.skipped.len(), 3);
    }

    #[test]
    fn override_stems() {
        for n in ["override.tf", "main_override.tf", "_override.tf", "a_override.tf.json"] {
            assert!(is_override(n, config_ext(n, Engine::Terraform).expect("ext")), "{n}");
        }
        for n in [
            "override_main.tf",
            "main-override.tf",
            "mainoverride.tf",
            "main.override.tf",
            "main_OVERRIDE.tf",
            "Override.tf",
        ] {
            assert!(!is_override(n, config_ext(n, Engine::Terraform).expect("ext")), "{n}");
        }
        assert_eq!(config_ext("x_override.tftest.hcl", Engine::OpenTofu), None);
    }

    #[test]
    fn byte_wise_order_primaries_first_json_twin_after() {
        let got = order(
            &[
                "z_override.tf",
                "override.tf",
                "a_override.tf.json",
                "main.tf",
                "Z_override.tf",
                "_override.tf",
                "a_override.tf",
                "B.tf",
            ],
            Engine::Terraform,
        );
        assert_eq!(
            got,
            [
                "B.tf",
                "main.tf",
                "Z_override.tf",
                "_override.tf",
                "a_override.tf",
                "a_override.tf.json",
                "override.tf",
                "z_override.tf"
            ]
        );
    }

    #[test]
    fn tofu_twins_shadow_per_list() {
        let names = [
            "main.tf",
            "main.tofu",
            "main.tf.json",
            "foo.tofu",
            "foo_override.tf",
            "v_override.tf",
            "v_override.tofu",
        ];
        assert_eq!(
            order(&names, Engine::OpenTofu),
            ["foo.tofu", "main.tf.json", "main.tofu", "foo_override.tf", "v_override.tofu"]
        );
        assert_eq!(
            order(&names, Engine::Terraform),
            ["main.tf", "main.tf.json", "foo_override.tf", "v_override.tf"]
        );
        assert_eq!(default_engine(names), Engine::OpenTofu);
        assert_eq!(default_engine(["main.tf"]), Engine::Terraform);
    }
}
