#!/usr/bin/env bash
# Takes docs/review.png: the Markdown review of a commit that adds an override file to the
# bundled examples (tests/machine/review.rs makes it, renders it with cmark-gfm and leaves
# the page in target/review/review.html), photographed by headless Chromium.
#   docs/screenshot/review.sh PYTHON      (a Python with cmarkgfm installed)
# Needs chromium (Debian's package) and the Noto colour emoji font.
set -euo pipefail
cd "$(dirname "$0")/../.."
OVERRIDE_GUARD_GFM_PYTHON="$1" cargo test --quiet --test machine -- --include-ignored \
  review/cmark_gfm_renders_the_review >/dev/null
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1220,600 \
  --screenshot="$PWD/docs/review.png" "file://$PWD/target/review/review.html" 2>/dev/null
echo "wrote docs/review.png"
