#!/usr/bin/env bash
# Fuzz smoke run: build every cargo-fuzz target once, then run each for FUZZ_SECONDS
# (default 20), FUZZ_JOBS at a time (default 2). Exits non-zero if any target crashes,
# panics, leaks, times out or runs out of memory; the reproducer is in
# fuzz/artifacts/<target>/ and the log is printed.
#
# Works on a machine with only stable Rust: cargo-fuzz is installed if missing, and the
# nightly-only flags it passes to rustc (-Zsanitizer=address, ...) are allowed through
# RUSTC_BOOTSTRAP=1. Seeds are read from fuzz/corpus/<target>/; inputs libFuzzer finds are
# written to fuzz/work/<target>/ (git-ignored), so the kept corpus stays small.
#
#   fuzz/smoke.sh                      # 4 targets x 20 s
#   FUZZ_SECONDS=300 fuzz/smoke.sh     # longer
#   fuzz/smoke.sh index_ops            # only some targets
set -euo pipefail
cd "$(dirname "$0")"

SECS="${FUZZ_SECONDS:-20}"
JOBS="${FUZZ_JOBS:-2}"
export RUSTC_BOOTSTRAP=1
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"

start=$(date +%s)
if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "fuzz smoke: installing cargo-fuzz"
  cargo install cargo-fuzz --locked
fi

if [ "$#" -gt 0 ]; then
  targets=("$@")
else
  mapfile -t targets < <(cargo fuzz list)
fi

echo "fuzz smoke: building ${#targets[@]} targets"
cargo fuzz build
built=$(date +%s)

mkdir -p logs
run_one() {
  local t="$1"
  mkdir -p "work/$t" "corpus/$t"
  # -timeout: one input taking longer than 10 s is a finding; -rss_limit_mb: so is 2 GB.
  cargo fuzz run "$t" "work/$t" "corpus/$t" -- \
    -max_total_time="$SECS" -max_len=4096 -len_control=0 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    >"logs/$t.log" 2>&1
}

failed=()
pids=()
names=()
wait_one() {
  local pid="${pids[0]}" t="${names[0]}"
  pids=("${pids[@]:1}")
  names=("${names[@]:1}")
  if wait "$pid"; then
    execs=$(grep -E '^stat::number_of_executed_units' "logs/$t.log" | awk '{print $2}')
    echo "fuzz smoke: $t ok (${execs:-?} executions in ${SECS} s)"
  else
    echo "fuzz smoke: $t FAILED; log follows"
    tail -n 60 "logs/$t.log"
    failed+=("$t")
  fi
}
for t in "${targets[@]}"; do
  while [ "${#pids[@]}" -ge "$JOBS" ]; do wait_one; done
  run_one "$t" &
  pids+=("$!")
  names+=("$t")
done
while [ "${#pids[@]}" -gt 0 ]; do wait_one; done

end=$(date +%s)
echo "fuzz smoke: build $((built - start)) s, runs $((end - built)) s, total $((end - start)) s"
if [ "${#failed[@]}" -gt 0 ]; then
  echo "fuzz smoke: FAILED: ${failed[*]} (reproducers in fuzz/artifacts/)"
  exit 1
fi
