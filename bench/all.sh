#!/usr/bin/env bash
# Run the benchmark under Bun, then under Node, and print both plus a Bun-vs-Node comparison.
# Extra arguments go to bench/run.mjs (e.g. --quick, --sizes 1k,10k, --json out.json).
set -euo pipefail
cd "$(dirname "$0")/.."
exec node bench/run.mjs --runtime both "$@"
