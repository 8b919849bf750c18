//! The HCL crate's own benchmark: the parser, the formatter and the JSON checker over a
//! generated corpus, in memory and on one thread, so the figures are the crate's alone (no
//! file system, no thread pool). The corpus is made of the modules the tool's benchmark
//! writes (`benches/corpus/` at the repository's root), the same on every run (seeded).
//! Medians of several runs.
//!
//! `cargo bench -p override-guard-hcl --bench parse [-- [MODULES] [--runs N]]`
//! (default: 1000 modules, 7 runs).
// A test binary has no surface: its `pub` items are shared between its own files.
#![allow(unreachable_pub)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout, clippy::print_stderr)]

use std::hint::black_box;
use std::time::{Duration, Instant};

use override_guard_hcl::{fmt, json, parse_config};

/// A small deterministic PRNG (xorshift), so the corpus is the same on every run.
struct Rng(u64);

impl Rng {
    fn pick(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

fn resource(r: &mut Rng, i: usize) -> String {
    let ingress: String = (0..1 + r.pick(3))
        .map(|k| format!("  ingress {{\n    from_port   = {p}\n    to_port     = {p}\n    protocol    = \"tcp\"\n    cidr_blocks = [\"10.{k}.0.0/16\"]\n  }}\n\n", p = 1000 + k))
        .collect();
    format!(
        "resource \"aws_security_group\" \"sg{i}\" {{\n  name   = \"sg-{i}-${{var.env}}\"\n  vpc_id = var.vpc_id\n\n{ingress}  dynamic \"egress\" {{\n    for_each = var.egress\n    content {{\n      from_port = egress.value\n      to_port   = egress.value\n    }}\n  }}\n\n  tags = merge(local.tags, {{ Name = \"sg{i}\" }})\n}}\n\n# The web tier: one instance per security group.\nresource \"aws_instance\" \"web{i}\" {{\n  ami           = data.aws_ami.ubuntu.id\n  instance_type = var.size == \"big\" ? \"m5.large\" : \"t3.micro\"\n  user_data     = <<-EOT\n    #!/bin/sh\n    echo ${{var.env}} > /etc/env\n    %{{ for p in var.egress ~}}\n    echo ${{p}} >> /etc/ports\n    %{{ endfor ~}}\n  EOT\n\n  vpc_security_group_ids = [aws_security_group.sg{i}.id]\n\n  lifecycle {{\n    create_before_destroy = true\n    ignore_changes        = [tags]\n  }}\n}}\n\n"
    )
}

const VARIABLES: &str = "variable \"env\" {\n  type    = string\n  default = \"dev\"\n}\n\nvariable \"size\" {\n  type    = string\n  default = \"small\"\n\n  validation {\n    condition     = contains([\"small\", \"big\"], var.size)\n    error_message = \"size is small or big.\"\n  }\n}\n\nvariable \"settings\" {\n  type = object({\n    retention = optional(number, 30)\n    tier      = optional(string)\n  })\n  default = {}\n}\n";

const OUTPUTS: &str = "output \"sg_ids\" {\n  value = [for sg in aws_security_group.sg : sg.id if sg.name != \"\"]\n}\n\nlocals {\n  tags  = { Team = \"platform\", Env = var.env }\n  ports = { for k, v in var.egress : k => v * 2 }\n  all   = aws_instance.web[*].id\n}\n";

const JSON: &str = "{\n  \"//\": \"generated\",\n  \"resource\": {\n    \"aws_security_group\": {\n      \"sg1\": {\n        \"ingress\": [{\"from_port\": 22, \"to_port\": 22, \"protocol\": \"tcp\", \"cidr_blocks\": [\"${var.vpn}\"]}],\n        \"tags\": {\"Managed\": \"sync\"}\n      }\n    }\n  },\n  \"variable\": {\"size\": {\"default\": \"big\"}}\n}\n";

/// The native files and the JSON files of `modules` modules.
fn corpus(modules: usize) -> (Vec<String>, Vec<String>) {
    let mut r = Rng(0x9e37_79b9_7f4a_7c15);
    let mut native = Vec::new();
    let mut jsons = Vec::new();
    for _ in 0..modules {
        native.push((0..2 + r.pick(3) as usize).map(|k| resource(&mut r, k)).collect());
        native.push(VARIABLES.to_string());
        native.push(OUTPUTS.to_string());
        if r.pick(100) < 40 {
            jsons.push(JSON.to_string());
        }
    }
    (native, jsons)
}

fn time(runs: usize, f: impl Fn()) -> Duration {
    let mut v: Vec<Duration> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .collect();
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let mut modules = 1000;
    let mut runs = 7;
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--runs" => runs = it.next().and_then(|v| v.parse().ok()).unwrap_or(runs).max(1),
            // `cargo bench` passes `--bench`; anything else that is no number is ignored too.
            _ => modules = a.parse().unwrap_or(modules),
        }
    }
    let (native, jsons) = corpus(modules);
    let mib = |files: &[String]| files.iter().map(String::len).sum::<usize>() as f64 / 1048576.0;
    let (n_mib, j_mib) = (mib(&native), mib(&jsons));
    for f in &native {
        let (_, errors) = parse_config(f);
        assert!(errors.is_empty(), "the corpus must parse: {errors:?}");
    }
    println!(
        "{modules} modules: {} native files ({n_mib:.1} MiB), {} JSON files ({j_mib:.2} MiB); medians of {runs} runs, one thread",
        native.len(),
        jsons.len()
    );
    let report = |what: &str, d: Duration, mib: f64| {
        println!(
            "{what:<24} {:>9.1} ms  {:>7.1} MiB/s",
            d.as_secs_f64() * 1e3,
            mib / d.as_secs_f64()
        );
    };
    let parse = time(runs, || native.iter().for_each(|f| drop(black_box(parse_config(f)))));
    report("parse_config", parse, n_mib);
    let format = time(runs, || native.iter().for_each(|f| drop(black_box(fmt::format(f)))));
    report("fmt::format", format, n_mib);
    let check = time(runs, || jsons.iter().for_each(|f| drop(black_box(json::check(f)))));
    report("json::check", check, j_mib);
}
