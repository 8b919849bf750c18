#!/usr/bin/env bash
# Fuzz smoke run, for CI: every fuzz target runs for a short time from the fixture seeds,
# and the run fails when one crashes (panics, overflows, hangs or runs out of memory).
#
#   fuzz/smoke.sh [SECONDS_PER_TARGET] [TARGET...]     (default: 30 s; hcl linear json merge policy pipeline)
#
# Needs only a stable Rust toolchain, a C++ compiler (libFuzzer is built from source by
# libfuzzer-sys), bash and Python 3. cargo-fuzz is installed when missing (pinned version).
# It runs with `--sanitizer none`: every other sanitizer needs the nightly `-Zsanitizer`,
# and this crate has no unsafe code of its own, so a panic is what there is to find.
# Coverage instrumentation (`-Cpasses=sancov-module`, `-Cllvm-args=...`) works on stable.
#
# A crashing input is kept in fuzz/artifacts/<target>/ and its path printed; reproduce with
#   cd fuzz && cargo fuzz run --sanitizer none <target> <path>
# and minimise with `cargo fuzz tmin --sanitizer none <target> <path>`.
set -euo pipefail
cd "$(dirname "$0")"

cargo_fuzz_version=0.13.2
secs=${1:-30}
[ $# -gt 0 ] && shift
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(hcl linear json merge policy pipeline)

if [ "$(cargo fuzz --version 2>/dev/null)" != "cargo-fuzz $cargo_fuzz_version" ]; then
  echo "== cargo install cargo-fuzz $cargo_fuzz_version"
  cargo install --locked --quiet cargo-fuzz --version "$cargo_fuzz_version"
fi

echo "== seed corpus from tests/fixtures"
./seed.sh

# The same flags for build and run, so `run` finds everything built. Debug assertions and
# overflow checks are on (cargo-fuzz's default).
flags=(--sanitizer none)

echo "== cargo fuzz build"
start=$SECONDS
cargo fuzz build "${flags[@]}"
echo "built in $((SECONDS - start)) s"

failed=()
for t in "${targets[@]}"; do
  echo "== fuzz $t for $secs s"
  mkdir -p "artifacts/$t"
  before=$(ls "artifacts/$t")
  set +e
  # One worker (no -jobs/-fork): CI machines have 2 cores. -timeout makes a hang a crash.
  RUST_BACKTRACE=1 cargo fuzz run "${flags[@]}" "$t" "corpus/$t" -- \
    -dict="dict/$t.dict" -max_total_time="$secs" -timeout=20 -rss_limit_mb=2048 \
    -print_final_stats=1 >"artifacts/$t.log" 2>&1
  code=$?
  set -e
  grep -E '^#[0-9]+ +DONE|^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)' \
    "artifacts/$t.log" || true
  new=$(comm -13 <(echo "$before") <(ls "artifacts/$t") | grep -v '^slow-unit-' || true)
  # An input slower than libFuzzer's 10 s report threshold but under the 20 s timeout is
  # worth a look, not a failure: shown, kept in fuzz/artifacts/, and the run goes on.
  for a in $(comm -13 <(echo "$before") <(ls "artifacts/$t") | grep '^slow-unit-' || true); do
    echo "warning: $t: slow input (over 10 s): fuzz/artifacts/$t/$a" >&2
  done
  if [ "$code" -ne 0 ] || [ -n "$new" ]; then
    failed+=("$t")
    echo "!! $t: the fuzzer exited $code; from fuzz/artifacts/$t.log:" >&2
    # From the first sign of trouble: the panic message and backtrace, or libFuzzer's report.
    awk '/panicked at|ALARM:|ERROR: libFuzzer|out-of-memory|^error/ {on = 1} on' \
      "artifacts/$t.log" | grep -v -E '^#[0-9]+ +(NEW|REDUCE|pulse|RELOAD)' | head -60 >&2
    for a in $new; do
      echo "!! crashing input: fuzz/artifacts/$t/$a" >&2
      echo "   reproduce: cd fuzz && cargo fuzz run --sanitizer none $t artifacts/$t/$a" >&2
    done
  fi
done

if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz smoke run failed: ${failed[*]}" >&2
  exit 1
fi
echo "fuzz smoke run: ${targets[*]}: no crash in $secs s each"
