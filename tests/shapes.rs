//! Hostile big inputs by shape, each written straight to disk, so that whoever writes them
//! stays small (a test process's own peak would mask its child's: see
//! `Measured::inherited_kib`). Shared by the tests that bound their memory
//! (`tests/big_inputs.rs`, `tests/machine/big.rs`) and the benchmark that measures it
//! (`benches/big_inputs.rs`).
#![allow(dead_code)] // each user takes the shapes it needs

use std::io::{self, BufWriter, Write};
use std::path::Path;

/// One shape: its name, what it is, how to write `n` units of it into a directory
/// (returning the bytes of configuration and variables written), and the peak memory the
/// tests allow for reading it: bytes per byte of input over the process's own
/// (`measure.rs`, `assert_rss_multiple`), about twice what a debug build took.
pub struct Shape {
    pub name: &'static str,
    pub what: &'static str,
    pub write: fn(&Path, usize) -> io::Result<u64>,
    /// Units that make about a megabyte.
    pub per_mb: usize,
    pub budget: u64,
}

pub const VARIABLES_JSON: Shape = Shape {
    name: "variables-json",
    what: "terraform.tfvars.json: a list of small objects, for a variable of any type",
    write: variables_json,
    per_mb: 35_000,
    budget: 16,
};

pub const TYPED_VARIABLES_JSON: Shape = Shape {
    name: "typed-variables-json",
    what: "the same, for a variable of type list(object({...})): every object converted",
    write: typed_variables_json,
    per_mb: 35_000,
    budget: 28,
};

pub const NUMBERS: Shape = Shape {
    name: "numbers",
    what: "main.tf: a local holding a list of numbers",
    write: numbers,
    per_mb: 130_000,
    budget: 44,
};

pub const RESOURCES: Shape = Shape {
    name: "resources",
    what: "main.tf: resource blocks of 12 lines (tags, a lifecycle block)",
    write: resources,
    per_mb: 4_800,
    budget: 32,
};

pub const JSON_LOCALS: Shape = Shape {
    name: "json-locals",
    what: "main.tf.json: a local holding a list of small objects",
    write: json_locals,
    per_mb: 35_000,
    budget: 48,
};

pub const JSON_ATTRIBUTES: Shape = Shape {
    name: "json-attributes",
    what: "main.tf.json: a locals object of many attributes",
    write: json_attributes,
    per_mb: 55_000,
    budget: 64,
};

pub const VARIABLES_NATIVE: Shape = Shape {
    name: "variables-native",
    what: "terraform.tfvars: the list of small objects in native syntax",
    write: variables_native,
    per_mb: 35_000,
    budget: 64,
};

pub const DEFAULT: Shape = Shape {
    name: "default",
    what: "main.tf: the list of small objects as a variable's default",
    write: default,
    per_mb: 35_000,
    budget: 64,
};

/// Every shape.
pub const ALL: &[&Shape] = &[
    &VARIABLES_JSON,
    &TYPED_VARIABLES_JSON,
    &VARIABLES_NATIVE,
    &DEFAULT,
    &NUMBERS,
    &RESOURCES,
    &JSON_LOCALS,
    &JSON_ATTRIBUTES,
];

/// A file written through a buffer, counting its bytes.
struct Counted {
    out: BufWriter<std::fs::File>,
    bytes: u64,
}

impl Counted {
    fn create(path: &Path) -> io::Result<Counted> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        Ok(Counted { out: BufWriter::new(std::fs::File::create(path)?), bytes: 0 })
    }

    fn put(&mut self, s: &str) -> io::Result<()> {
        self.bytes += s.len() as u64;
        self.out.write_all(s.as_bytes())
    }

    fn done(mut self) -> io::Result<u64> {
        self.out.flush()?;
        Ok(self.bytes)
    }
}

fn file(path: &Path, text: &str) -> io::Result<u64> {
    let mut f = Counted::create(path)?;
    f.put(text)?;
    f.done()
}

/// `[{"name":"n0","v":0}, …]`: `n` objects.
fn objects(f: &mut Counted, n: usize) -> io::Result<()> {
    f.put("[")?;
    for i in 0..n {
        f.put(&format!("{}{{\"name\":\"n{i}\",\"v\":{i}}}", if i > 0 { ", " } else { "" }))?;
    }
    f.put("]")
}

/// `variable "items" {}` and a `terraform.tfvars.json` setting it to `n` small objects.
pub fn variables_json(dir: &Path, n: usize) -> io::Result<u64> {
    let mut bytes = file(&dir.join("main.tf"), "variable \"items\" {}\n")?;
    let mut f = Counted::create(&dir.join("terraform.tfvars.json"))?;
    f.put("{\"items\": ")?;
    objects(&mut f, n)?;
    f.put("}\n")?;
    bytes += f.done()?;
    Ok(bytes)
}

/// [`variables_json`] for a typed variable: every object is converted.
pub fn typed_variables_json(dir: &Path, n: usize) -> io::Result<u64> {
    variables_json(dir, n)?;
    let main = "variable \"items\" {\n  type = list(object({ name = string, v = number }))\n}\n";
    let vars = std::fs::metadata(dir.join("terraform.tfvars.json"))?.len();
    Ok(file(&dir.join("main.tf"), main)? + vars)
}

/// `[{ name = "n0", v = 0 }, …]`: `n` objects in native syntax.
fn native_objects(f: &mut Counted, n: usize) -> io::Result<()> {
    f.put("[")?;
    for i in 0..n {
        f.put(&format!("{}{{ name = \"n{i}\", v = {i} }}", if i > 0 { ", " } else { "" }))?;
    }
    f.put("]")
}

/// `variable "items" {}` and a `terraform.tfvars` setting it to `n` small objects.
pub fn variables_native(dir: &Path, n: usize) -> io::Result<u64> {
    let mut bytes = file(&dir.join("main.tf"), "variable \"items\" {}\n")?;
    let mut f = Counted::create(&dir.join("terraform.tfvars"))?;
    f.put("items = ")?;
    native_objects(&mut f, n)?;
    f.put("\n")?;
    bytes += f.done()?;
    Ok(bytes)
}

/// `variable "items" { default = [ n small objects ] }`.
pub fn default(dir: &Path, n: usize) -> io::Result<u64> {
    let mut f = Counted::create(&dir.join("main.tf"))?;
    f.put("variable \"items\" {\n  default = ")?;
    native_objects(&mut f, n)?;
    f.put("\n}\n")?;
    f.done()
}

/// `locals { xs = [0, 1, 2, …] }`: `n` numbers.
pub fn numbers(dir: &Path, n: usize) -> io::Result<u64> {
    let mut f = Counted::create(&dir.join("main.tf"))?;
    f.put("locals {\n  xs = [")?;
    for i in 0..n {
        f.put(&format!("{}{i}", if i > 0 { ", " } else { "" }))?;
    }
    f.put("]\n}\n")?;
    f.done()
}

/// The resource block of the 50 MB test (`tests/machine/big.rs`), `n` times.
pub fn resources(dir: &Path, n: usize) -> io::Result<u64> {
    let mut f = Counted::create(&dir.join("main.tf"))?;
    for i in 0..n {
        f.put(&resource(i))?;
    }
    f.done()
}

/// Resource block `n`: 12 lines, so block `n` starts at line `12n + 1`.
pub fn resource(n: usize) -> String {
    format!(
        "resource \"aws_instance\" \"r{n}\" {{\n  ami           = \"ami-0123456789abcdef0\"\n  instance_type = \"t3.micro\"\n  tags = {{\n    Name = \"instance-{n}\"\n    Team = \"platform\"\n  }}\n  lifecycle {{\n    prevent_destroy = true\n  }}\n}}\n\n"
    )
}

/// `{"locals": {"items": [ n small objects ]}}`.
pub fn json_locals(dir: &Path, n: usize) -> io::Result<u64> {
    let mut f = Counted::create(&dir.join("main.tf.json"))?;
    f.put("{\"locals\": {\"items\": ")?;
    objects(&mut f, n)?;
    f.put("}}\n")?;
    f.done()
}

/// `{"locals": {"a0": 0, "a1": 1, …}}`: `n` attributes in one body.
pub fn json_attributes(dir: &Path, n: usize) -> io::Result<u64> {
    let mut f = Counted::create(&dir.join("main.tf.json"))?;
    f.put("{\"locals\": {")?;
    for i in 0..n {
        f.put(&format!("{}\"a{i}\": {i}", if i > 0 { ", " } else { "" }))?;
    }
    f.put("}}\n")?;
    f.done()
}
