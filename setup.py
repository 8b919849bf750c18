"""The placeholder package a `language: python` pre-commit hook installs.

pre-commit installs a Python hook with `pip install .` of this repository. This package
has no code: its one dependency is the `override-guard` wheel of the same version, which
carries the prebuilt binary (built from python/pyproject.toml), so the hook installs in
seconds instead of compiling. The version is read from Cargo.toml, the one place it is set.
"""

import re
from pathlib import Path

from setuptools import setup

CARGO_TOML = Path(__file__).resolve().parent / "Cargo.toml"
VERSION = re.search(
    r'^version = "([^"]+)"', CARGO_TOML.read_text(encoding="utf-8"), re.MULTILINE
).group(1)

setup(
    name="pre_commit_placeholder_package",
    version="0.0.0",
    install_requires=[f"override-guard=={VERSION}"],
    # Nothing of this repository is Python: no package or module is discovered.
    packages=[],
    py_modules=[],
)
