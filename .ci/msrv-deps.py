"""The MSRV check that needs no second toolchain: no crate a user compiles (our normal
and build dependencies, transitively) may declare a rust-version newer than ours.
Together with clippy's incompatible_msrv lint (std APIs newer than rust-version) it
catches most MSRV breaks where `cargo +MSRV check` cannot run."""

import json
import subprocess
import sys


def version(v):
    parts = [int(x) for x in v.split(".")]
    return tuple(parts + [0] * (3 - len(parts)))


meta = json.loads(
    subprocess.check_output(["cargo", "metadata", "--format-version", "1", "--locked"])
)
packages = {p["id"]: p for p in meta["packages"]}
nodes = {n["id"]: n for n in meta["resolve"]["nodes"]}
ours = next(p for p in meta["packages"] if p["name"] == "override-guard")
msrv = version(ours["rust_version"])

seen, stack = set(), [ours["id"]]
while stack:
    pid = stack.pop()
    if pid in seen:
        continue
    seen.add(pid)
    for dep in nodes[pid]["deps"]:
        if any(k["kind"] in (None, "build") for k in dep["dep_kinds"]):
            stack.append(dep["pkg"])

newer = sorted(
    f"{packages[p]['name']} {packages[p]['version']} needs Rust {packages[p]['rust_version']}"
    for p in seen
    if packages[p].get("rust_version") and version(packages[p]["rust_version"]) > msrv
)
declared = sum(1 for p in seen if packages[p].get("rust_version"))
if newer:
    print(f"rust-version is {ours['rust_version']}, but:", *newer, sep="\n  ", file=sys.stderr)
    sys.exit(1)
print(
    f"{len(seen) - 1} crates compiled for users; {declared - 1} declare a rust-version, "
    f"none newer than {ours['rust_version']}"
)
