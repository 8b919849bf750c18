//! Audit speed over a generated repository (1,000 modules, ~6,000 files by default):
//! hcl-edit's raw `parse_body`, override-guard's parse-only time, and a full `audit`
//! load, each reported as the median of several runs. `cargo bench --bench audit [-- N]`.

use std::path::Path;
use std::time::{Duration, Instant};

use override_guard::app::{Progress, load_all, load_subjects};
use override_guard::policy::{Date, Policy};
use override_guard::report::findings;

const TODAY: Date = Date { year: 2026, month: 11, day: 22 };
use override_guard::source::{Source, WorktreeSource};
use override_guard::terraform::{FileClass, SourceText, Syntax, hcl, json};

/// A small deterministic PRNG (xorshift), so the corpus is the same on every run.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn pick(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn resource(r: &mut Rng, i: usize) -> String {
    let ingress: String = (0..1 + r.pick(3))
        .map(|k| format!("  ingress {{\n    from_port   = {p}\n    to_port     = {p}\n    protocol    = \"tcp\"\n    cidr_blocks = [\"10.{k}.0.0/16\"]\n  }}\n\n", p = 1000 + k))
        .collect();
    format!(
        "resource \"aws_security_group\" \"sg{i}\" {{\n  name   = \"sg-{i}-${{var.env}}\"\n  vpc_id = var.vpc_id\n\n{ingress}  dynamic \"egress\" {{\n    for_each = var.egress\n    content {{\n      from_port = egress.value\n      to_port   = egress.value\n    }}\n  }}\n\n  tags = merge(local.tags, {{ Name = \"sg{i}\" }})\n}}\n\nresource \"aws_instance\" \"web{i}\" {{\n  ami           = data.aws_ami.ubuntu.id\n  instance_type = var.size == \"big\" ? \"m5.large\" : \"t3.micro\"\n  user_data     = <<-EOT\n    #!/bin/sh\n    echo ${{var.env}} > /etc/env\n  EOT\n\n  lifecycle {{\n    create_before_destroy = true\n  }}\n}}\n\n"
    )
}

fn write_module(dir: &Path, r: &mut Rng) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let main: String = (0..2 + r.pick(3) as usize).map(|i| resource(r, i)).collect();
    std::fs::write(dir.join("main.tf"), main)?;
    std::fs::write(
        dir.join("variables.tf"),
        "variable \"env\" {\n  type    = string\n  default = \"dev\"\n}\n\nvariable \"vpc_id\" {\n  type = string\n}\n\nvariable \"size\" {\n  type    = string\n  default = \"small\"\n}\n\nvariable \"egress\" {\n  type    = list(number)\n  default = [443, 80]\n}\n",
    )?;
    std::fs::write(
        dir.join("outputs.tf"),
        "output \"sg_ids\" {\n  value = [aws_security_group.sg0.id, aws_security_group.sg1.id]\n}\n\nlocals {\n  tags = { Team = \"platform\", Env = var.env }\n}\n\ndata \"aws_ami\" \"ubuntu\" {\n  most_recent = true\n  owners      = [\"099720109477\"]\n}\n",
    )?;
    std::fs::write(
        dir.join("versions.tf"),
        "terraform {\n  required_version = \">= 1.5\"\n  required_providers {\n    aws = {\n      source  = \"hashicorp/aws\"\n      version = \"~> 5.0\"\n    }\n  }\n  backend \"s3\" {\n    bucket = \"state\"\n    key    = \"x.tfstate\"\n  }\n}\n",
    )?;
    std::fs::write(
        dir.join("override.tf"),
        "resource \"aws_instance\" \"web0\" {\n  instance_type = \"m5.xlarge\"\n  lifecycle {\n    prevent_destroy = true\n  }\n}\n\nlocals {\n  tags = { Team = \"sre\" }\n}\n",
    )?;
    std::fs::write(
        dir.join("generated_override.tf.json"),
        "{\n  \"//\": \"generated\",\n  \"resource\": {\n    \"aws_security_group\": {\n      \"sg1\": {\n        \"ingress\": [{\"from_port\": 22, \"to_port\": 22, \"protocol\": \"tcp\", \"cidr_blocks\": [\"${var.vpn}\"]}],\n        \"tags\": {\"Managed\": \"sync\"}\n      }\n    }\n  },\n  \"variable\": {\"size\": {\"default\": \"big\"}}\n}\n",
    )
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() -> std::io::Result<()> {
    let modules: usize = std::env::args().skip(1).find_map(|a| a.parse().ok()).unwrap_or(1000);
    let runs = 7;
    let tmp = tempfile::tempdir()?;
    let mut rng = Rng(0x5eed_1234_abcd_0001);
    for i in 0..modules {
        write_module(&tmp.path().join(format!("team{}/svc{i}", i % 37)), &mut rng)?;
    }
    let src = WorktreeSource::tree(tmp.path());
    let dirs = src.modules().map_err(std::io::Error::other)?;
    let mut files: Vec<(String, String)> = Vec::new();
    for (dir, names) in &dirs {
        for n in names {
            let p = override_guard::source::join(dir, n);
            let bytes = src.read(&p).map_err(std::io::Error::other)?;
            files.push((p, String::from_utf8_lossy(&bytes).into_owned()));
        }
    }
    let bytes: usize = files.iter().map(|(_, t)| t.len()).sum();
    println!(
        "corpus: {modules} modules, {} files, {:.1} MiB",
        files.len(),
        bytes as f64 / 1048576.0
    );

    let time = |f: &dyn Fn()| -> Duration {
        median(
            (0..runs)
                .map(|_| {
                    let t = Instant::now();
                    f();
                    t.elapsed()
                })
                .collect(),
        )
    };
    let raw = time(&|| {
        for (p, t) in &files {
            if p.ends_with(".tf") {
                let _ = hcl_edit::parser::parse_body(t);
            }
        }
    });
    let ours_hcl = time(&|| {
        for (id, (p, t)) in files.iter().enumerate() {
            if p.ends_with(".tf") {
                let _ = hcl::parse(id, t);
            }
        }
    });
    let parse_only = time(&|| {
        for (id, (p, t)) in files.iter().enumerate() {
            if p.ends_with(".json") {
                let s =
                    SourceText::new(p.clone(), FileClass::Primary, Syntax::Json, t.as_str().into());
                let _ = json::parse(id, &s);
            } else {
                let _ = hcl::parse(id, t);
            }
        }
    });
    let merge = time(&|| {
        let _ = load_all(&src, None);
    });
    let policy = Policy::builtin();
    let audit = time(&|| {
        let loaded = load_subjects(&src, None, &Progress::none()).unwrap_or_default();
        let (findings, summary) = override_guard::audit::run(
            &policy,
            &loaded,
            "",
            TODAY,
            override_guard::policy::Scope::Whole,
        );
        let _ = findings::compact(&findings, &summary);
    });
    let threads = rayon::current_num_threads();
    println!("hcl-edit parse_body, .tf files (1 thread):     {:>8.1} ms", raw.as_secs_f64() * 1e3);
    println!(
        "override-guard parse, .tf files (1 thread):    {:>8.1} ms  ({:.2}x hcl-edit)",
        ours_hcl.as_secs_f64() * 1e3,
        ours_hcl.as_secs_f64() / raw.as_secs_f64()
    );
    println!(
        "override-guard parse-only, all files (1 thread): {:>6.1} ms",
        parse_only.as_secs_f64() * 1e3
    );
    println!(
        "merge: walk + read + parse + merge ({threads} threads):          {:>6.1} ms  ({:.2}x parse-only)",
        merge.as_secs_f64() * 1e3,
        merge.as_secs_f64() / parse_only.as_secs_f64()
    );
    println!(
        "audit: merge + other engine + policy + report ({threads} threads): {:>6.1} ms  ({:+.1}% over merge)",
        audit.as_secs_f64() * 1e3,
        (audit.as_secs_f64() / merge.as_secs_f64() - 1.0) * 100.0
    );
    println!("medians of {runs} runs");
    Ok(())
}
