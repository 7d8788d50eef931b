#!/usr/bin/env bash
# Run claude-code-best's own tests of its tool index, tokenizer and two tools against this
# package. Usage: scripts/ccb-check.sh <a ccb checkout with its dependencies installed>
#
# It changes that checkout (never this repository): the package is linked into its node_modules;
# src/services/searchExtraTools/toolIndex.ts re-exports the package's `./ccb` module; the
# tokenizer of src/services/skillSearch/localSearch.ts comes from the package; and ccb's
# SearchExtraToolsTool.ts / ExecuteTool.ts are replaced by examples/ccb/*.
set -euo pipefail
ccb=${1:?usage: scripts/ccb-check.sh <ccb checkout>}
ccb=$(cd "$ccb" && pwd)
pkg=$(cd "$(dirname "$0")/.." && pwd)
[ -f "$pkg/dist/ccb-dropin.js" ] || { echo "build the package first (npm run build)" >&2; exit 2; }
tools="$ccb/packages/builtin-tools/src/tools"

mkdir -p "$ccb/node_modules/@ccb"
ln -sfn "$pkg" "$ccb/node_modules/@ccb/tool-index-native"

cat > "$ccb/src/services/searchExtraTools/toolIndex.ts" <<'TS'
export * from '@ccb/tool-index-native/ccb'
TS

# localSearch.ts: its own tokenize/tokenizeAndStem are renamed away and the package's take their
# place (for its exports and for its own callers).
ls_file="$ccb/src/services/skillSearch/localSearch.ts"
if ! grep -q "@ccb/tool-index-native" "$ls_file"; then
  sed -i 's/^export function tokenize(/function replacedTokenize(/; s/^export function tokenizeAndStem(/function replacedTokenizeAndStem(/' "$ls_file"
  printf "import { tokenize, tokenizeAndStem } from '@ccb/tool-index-native'\nexport { tokenize, tokenizeAndStem }\n" | cat - "$ls_file" > "$ls_file.new"
  mv "$ls_file.new" "$ls_file"
fi

cp "$pkg/examples/ccb/SearchExtraToolsTool.ts" "$tools/SearchExtraToolsTool/SearchExtraToolsTool.ts"
cp "$pkg/examples/ccb/ExecuteExtraTool.ts" "$tools/ExecuteTool/ExecuteTool.ts"

cd "$ccb"
command -v bun >/dev/null || export PATH="$pkg/node_modules/.bin:$PATH"
bun="${BUN:-bun}"
status=0
for t in \
  src/services/searchExtraTools/__tests__/toolIndex.test.ts \
  src/services/skillSearch/__tests__/localSearch.test.ts \
  packages/builtin-tools/src/tools/SearchExtraToolsTool/__tests__/SearchExtraToolsTool.test.ts \
  packages/builtin-tools/src/tools/ExecuteTool/__tests__/ExecuteTool.test.ts; do
  echo "== $t"
  "$bun" test "./$t" 2>&1 | grep -E '^\(fail\)|^ *[0-9]+ (pass|fail)|error:' || true
  "$bun" test "./$t" > /dev/null 2>&1 || status=1
done
exit $status
