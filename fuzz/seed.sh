#!/usr/bin/env bash
# Builds the seed corpus of every fuzz target from the project's own fixtures, into
# fuzz/corpus/<target>/ (not committed: made afresh at run time). Needs bash and Python 3.
#
#   hcl     every native-syntax file: *.tf, *.tofu, *.tfvars, *.hcl (and editor twins)
#   json    every JSON-syntax file: *.tf.json, *.tofu.json, *.tfvars.json
#   merge   every directory holding configuration files, packed into the merge target's
#           input format (see fuzz_targets/merge.rs), with the engine its case.toml names
#   policy  every policy file: tests/fixtures/policy/**/*.toml, policies/, examples/
#   pipeline the merge seeds, with the policy file of a policy fixture as its module's
#           `.override-guard.toml` chunk
#
# tests/fixtures/fuzz/<target>-<name>.<ext> (inputs that once crashed a target) go to their
# target as they are; the hcl and json ones also to merge, as a one-file module.
#
# Existing corpus entries (what earlier runs found) are kept; seeds are named by their
# SHA-1, as libFuzzer names its own, so running this twice adds nothing.
set -euo pipefail
cd "$(dirname "$0")/.."

python3 - <<'EOF'
import hashlib
import os
import re
from pathlib import Path

SOURCES = [Path("tests/fixtures"), Path("examples"), Path("policies")]
CORPUS = Path("fuzz/corpus")

def files():
    for root in SOURCES:
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames.sort()
            for name in sorted(filenames):
                yield Path(dirpath) / name

def add(target, data):
    d = CORPUS / target
    d.mkdir(parents=True, exist_ok=True)
    p = d / hashlib.sha1(data).hexdigest()
    if not p.exists():
        p.write_bytes(data)
        return 1
    return 0

HCL = re.compile(r"\.(tf|tofu|tfvars|hcl)([~#]|\.bak)?$", re.I)
JSON = re.compile(r"\.(tf|tofu|tfvars)\.json$", re.I)
CONFIG = re.compile(r"\.(tf|tofu)(\.json)?$")

counts = {"hcl": 0, "json": 0, "merge": 0, "policy": 0, "linear": 0, "pipeline": 0}
# The linear target repeats its input: short units, the openers of every construct.
for unit in [b"(", b"[", b"{", b"a = (", b"\"${", b"\"%{if a}", b"<<EOT\n", b"<<-EOT\n${",
             b"/*", b"#\n", b"a.0.", b"a[*].", b"a ? b : ", b"x = [for a in b : ",
             b"{ for k, v in m : k => ", b"f(", b"-", b"!", b"b \"l\" {\n", b"a = 1 +\n",
             b"\"a\\", b"$${", b"~}", b"\r\n", b"\xef\xbb\xbf"]:
    counts["linear"] += add("linear", unit)
FUZZ = Path("tests/fixtures/fuzz")
dirs = {}
for p in files():
    name = p.name
    if p.parent == FUZZ:
        target = name.split("-", 1)[0]
        if target in counts:
            counts[target] += add(target, p.read_bytes())
        if target in ("hcl", "json"):
            as_name = b"main.tf" if target == "hcl" else b"main.tf.json"
            counts["merge"] += add("merge", b"\0" + as_name + b"\n" + p.read_bytes())
        continue
    if JSON.search(name):
        counts["json"] += add("json", p.read_bytes())
    elif HCL.search(name):
        counts["hcl"] += add("hcl", p.read_bytes())
        if p.stat().st_size <= 2048:
            counts["linear"] += add("linear", p.read_bytes())
    if name.endswith(".toml") and name != "case.toml" and (
        "policy" in p.parts or p.parent == Path("policies") or name == ".override-guard.toml"
    ):
        counts["policy"] += add("policy", p.read_bytes())
    if CONFIG.search(name) or name.endswith(("~", "#", ".bak", ".TF")):
        dirs.setdefault(p.parent, []).append(p)

def engine_of(d):
    # A fixture's case.toml sits beside its module/ directory.
    for c in (d / "case.toml", d.parent / "case.toml"):
        if c.exists():
            m = re.search(r'^engine\s*=\s*"(\w+)"', c.read_text(errors="replace"), re.M)
            if m:
                return m.group(1).encode()
    return b""

for d, ps in sorted(dirs.items()):
    if not any(CONFIG.search(p.name) for p in ps):
        continue
    # Merge input: engine chunk, then NUL-separated `NAME\nCONTENT` chunks.
    chunks = [engine_of(d)]
    for p in ps:
        data = p.read_bytes()
        if b"\0" in data:
            continue
        chunks.append(p.name.encode() + b"\n" + data)
    counts["merge"] += add("merge", b"\0".join(chunks))
    # The policy fixtures keep their policy beside module/.
    policy = d.parent / "policy.toml"
    if policy.exists() and b"\0" not in policy.read_bytes():
        chunks.append(b".override-guard.toml\n" + policy.read_bytes())
    counts["pipeline"] += add("pipeline", b"\0".join(chunks))

for t, n in counts.items():
    total = len(list((CORPUS / t).iterdir())) if (CORPUS / t).exists() else 0
    print(f"seed: {t}: {n} new, {total} in fuzz/corpus/{t}")
EOF
