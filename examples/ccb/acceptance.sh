#!/usr/bin/env bash
# Run claude-code-best's own tool-index, tokenizer and tool tests against this package.
#
#   examples/ccb/acceptance.sh <ccb-checkout>
#
# <ccb-checkout> is a checkout of github.com/claude-code-best/claude-code OUTSIDE this repository,
# with its dependencies installed (`bun install`). The script changes that checkout in place:
#   1. node_modules/@ccb/tool-index-native -> this package (build it first: npm run build);
#   2. src/services/searchExtraTools/toolIndex.ts re-exports the package's drop-in API
#      (with ccb's core set), and localSearch.ts takes tokenize / tokenizeAndStem from it;
#   3. its SearchExtraTools and ExecuteExtraTool files are replaced by examples/ccb/*.
# Then it runs ccb's four test files with bun and prints each one's result.
set -uo pipefail
CCB=${1:?usage: acceptance.sh <ccb-checkout>}
PKG=$(cd "$(dirname "$0")/../.." && pwd)
CCB=$(cd "$CCB" && pwd)
case "$CCB/" in "$PKG"/*) echo "refusing: $CCB is inside this repository" >&2; exit 2 ;; esac
[ -f "$PKG/dist/index.js" ] || { echo "build the package first (npm run build)" >&2; exit 2; }
export PATH="$PKG/node_modules/.bin:$PATH"   # ccb's ExecuteTool.test.ts spawns `bun`

mkdir -p "$CCB/node_modules/@ccb"
ln -sfn "$PKG" "$CCB/node_modules/@ccb/tool-index-native"

# 2. The import change: ccb's toolIndex module becomes the package (with ccb's 28 core tools).
cat > "$CCB/src/services/searchExtraTools/toolIndex.ts" <<'TS'
import {
  buildToolIndex as build,
  getToolIndex as get,
  type ToolLike,
} from '@ccb/tool-index-native'
import { CORE_TOOLS } from '../../constants/tools.js'

export {
  parseToolName,
  searchTools,
  clearToolIndexCache,
  type ToolIndexEntry,
  type ToolSearchResult as SearchExtraToolsResult,
} from '@ccb/tool-index-native'

export const buildToolIndex = (tools: readonly unknown[]) => build(tools as ToolLike[], { coreTools: CORE_TOOLS })
export const getToolIndex = (tools: readonly unknown[]) => get(tools as ToolLike[], { coreTools: CORE_TOOLS })
TS

# localSearch.ts: drop its own tokenize / tokenizeAndStem, take the package's.
python3 - "$CCB/src/services/skillSearch/localSearch.ts" <<'PY'
import re, sys
p = sys.argv[1]
s = open(p).read()
if '@ccb/tool-index-native' not in s:
    for fn in ('tokenize', 'tokenizeAndStem'):
        m = re.search(r'\nexport function %s\(text: string\): string\[\] \{\n' % fn, s)
        if not m: sys.exit('localSearch.ts: %s not found' % fn)
        end = s.index('\n}\n', m.end()) + 3
        s = s[:m.start()] + '\n' + s[end:]
    s = "import { tokenize, tokenizeAndStem } from '@ccb/tool-index-native'\nexport { tokenize, tokenizeAndStem }\n" + s
    open(p, 'w').write(s)
PY

# 3. The two tools.
cp "$PKG/examples/ccb/SearchExtraToolsTool.ts" "$CCB/packages/builtin-tools/src/tools/SearchExtraToolsTool/SearchExtraToolsTool.ts"
cp "$PKG/examples/ccb/ExecuteExtraTool.ts" "$CCB/packages/builtin-tools/src/tools/ExecuteTool/ExecuteTool.ts"

cd "$CCB"
status=0
for t in \
  src/services/searchExtraTools/__tests__/toolIndex.test.ts \
  src/services/skillSearch/__tests__/localSearch.test.ts \
  packages/builtin-tools/src/tools/SearchExtraToolsTool/__tests__/SearchExtraToolsTool.test.ts \
  packages/builtin-tools/src/tools/ExecuteTool/__tests__/ExecuteTool.runner.ts
do
  out=$(bun test "./$t" 2>&1); rc=$?
  pass=$(grep -Eo '^ *[0-9]+ pass' <<<"$out" | tr -dc 0-9); fail=$(grep -Eo '^ *[0-9]+ fail' <<<"$out" | tr -dc 0-9)
  echo "$t: ${pass:-0} pass, ${fail:-0} fail"
  [ $rc -eq 0 ] || { status=1; grep -E '^\(fail\)' <<<"$out" | sed 's/^/    /'; }
done
exit $status
