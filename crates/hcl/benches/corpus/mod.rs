//! The modules the benchmarks read, generated in memory: realistic Terraform modules, the
//! same on every run (seeded). Every module has the usual four files; about half carry an
//! `override.tf`, some a JSON override, a JSON primary file, a `terraform.tfvars` or a
//! `.tofu` file, so every path (HCL and JSON, heredocs, dynamic blocks, both engines,
//! variables files) is exercised in proportions a real repository might show. The HCL
//! crate's benchmark parses them; the tool's (`benches/corpus/` at the repository's root)
//! writes them to disk and includes this file, the lower of the two crates.

/// A small deterministic PRNG (xorshift), so the corpus is the same on every run.
pub struct Rng(pub u64);
impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    pub fn pick(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }
    /// True with probability `percent` / 100.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.pick(100) < percent
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

const VARIABLES: &str = "variable \"env\" {\n  type    = string\n  default = \"dev\"\n}\n\nvariable \"vpc_id\" {\n  type = string\n}\n\nvariable \"size\" {\n  type    = string\n  default = \"small\"\n\n  validation {\n    condition     = contains([\"small\", \"big\"], var.size)\n    error_message = \"size is small or big.\"\n  }\n}\n\nvariable \"egress\" {\n  type    = list(number)\n  default = [443, 80]\n}\n\nvariable \"settings\" {\n  type = object({\n    retention = optional(number, 30)\n    tier      = optional(string)\n  })\n  default = {}\n}\n";

const OUTPUTS: &str = "output \"sg_ids\" {\n  value = [aws_security_group.sg0.id, aws_security_group.sg1.id]\n}\n\noutput \"endpoint\" {\n  value     = module.db.endpoint\n  sensitive = true\n}\n\nlocals {\n  tags = { Team = \"platform\", Env = var.env }\n}\n";

const DATA: &str = "data \"aws_ami\" \"ubuntu\" {\n  most_recent = true\n  owners      = [\"099720109477\"]\n\n  filter {\n    name   = \"name\"\n    values = [\"ubuntu/images/hvm-ssd/ubuntu-jammy-22.04-amd64-server-*\"]\n  }\n}\n\nmodule \"db\" {\n  source  = \"terraform-aws-modules/rds/aws\"\n  version = \"~> 6.0\"\n\n  identifier          = \"db-${var.env}\"\n  deletion_protection = true\n}\n";

fn versions(i: usize) -> String {
    format!(
        "terraform {{\n  required_version = \">= 1.5\"\n  required_providers {{\n    aws = {{\n      source  = \"hashicorp/aws\"\n      version = \"~> 5.0\"\n    }}\n  }}\n  backend \"s3\" {{\n    bucket = \"state\"\n    key    = \"svc{i}.tfstate\"\n    region = \"eu-west-1\"\n  }}\n}}\n\nprovider \"aws\" {{\n  region = \"eu-west-1\"\n}}\n"
    )
}

const OVERRIDE: &str = "# Local testing: bigger instances, never destroyed.\nresource \"aws_instance\" \"web0\" {\n  instance_type = \"m5.xlarge\"\n  lifecycle {\n    prevent_destroy = true\n  }\n}\n\nlocals {\n  tags = { Team = \"sre\" }\n}\n";

const JSON_OVERRIDE: &str = "{\n  \"//\": \"generated\",\n  \"resource\": {\n    \"aws_security_group\": {\n      \"sg1\": {\n        \"ingress\": [{\"from_port\": 22, \"to_port\": 22, \"protocol\": \"tcp\", \"cidr_blocks\": [\"${var.vpn}\"]}],\n        \"tags\": {\"Managed\": \"sync\"}\n      }\n    }\n  },\n  \"variable\": {\"size\": {\"default\": \"big\"}}\n}\n";

const JSON_PRIMARY: &str = "{\n  \"resource\": {\n    \"aws_s3_bucket\": {\n      \"logs\": {\n        \"bucket\": \"logs-${var.env}\",\n        \"force_destroy\": false,\n        \"lifecycle\": [{\"prevent_destroy\": true}]\n      }\n    }\n  },\n  \"output\": {\"logs_arn\": {\"value\": \"${aws_s3_bucket.logs.arn}\"}}\n}\n";

const TOFU: &str =
    "resource \"aws_s3_bucket\" \"tofu_only\" {\n  bucket = \"tofu-${var.env}\"\n}\n";

const TFVARS: &str = "env    = \"prod\"\nvpc_id = \"vpc-0123456789\"\negress = [443]\n";

/// The files of module `i`, by name, in a fixed order.
pub fn module_files(i: usize, r: &mut Rng) -> Vec<(&'static str, String)> {
    let main: String = (0..2 + r.pick(3) as usize).map(|k| resource(r, k)).collect();
    let mut files = vec![
        ("main.tf", main),
        ("variables.tf", VARIABLES.to_string()),
        ("outputs.tf", OUTPUTS.to_string()),
        ("versions.tf", versions(i)),
    ];
    let optional: [(u64, &str, &str); 6] = [
        (70, "data.tf", DATA),
        (50, "override.tf", OVERRIDE),
        (40, "generated_override.tf.json", JSON_OVERRIDE),
        (20, "generated.tf.json", JSON_PRIMARY),
        (15, "terraform.tfvars", TFVARS),
        (5, "extra.tofu", TOFU),
    ];
    for (percent, name, text) in optional {
        if r.chance(percent) {
            files.push((name, text.to_string()));
        }
    }
    files
}

/// The seed of the corpus.
pub const SEED: u64 = 0x5eed_1234_abcd_0001;
