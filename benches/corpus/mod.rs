//! The generated corpus both benchmarks use: modules of realistic Terraform with an
//! override file and a JSON override each, the same on every run.

use std::path::Path;

/// A small deterministic PRNG (xorshift), so the corpus is the same on every run.
pub struct Rng(pub u64);
impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    pub fn pick(&mut self, n: u64) -> u64 {
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

pub fn write_module(dir: &Path, r: &mut Rng) -> std::io::Result<()> {
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

/// Writes `modules` modules under `root` (`teamN/svcI`, 37 teams).
pub fn write_corpus(root: &Path, modules: usize) -> std::io::Result<()> {
    let mut rng = Rng(0x5eed_1234_abcd_0001);
    for i in 0..modules {
        write_module(&root.join(format!("team{}/svc{i}", i % 37)), &mut rng)?;
    }
    Ok(())
}
