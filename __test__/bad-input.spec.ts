/**
 * Bad input through the public JS API: a table of cases, each with the error `code` it must
 * throw (or reject with) or the clamp it must apply. Every case runs as its own test; cases
 * marked `regression` found a bug (fixed since; see RELIABILITY.md, Findings).
 *
 * `BAD_INPUT_1M=1` adds the 1,000,000-tool catalog (≈16 s and ≈2 GB RSS on the CI machine);
 * by default the big-catalog case uses 200,000 tools. `BAD_INPUT_TABLE=1` prints the table
 * as Markdown.
 */
import { describe, expect, test } from 'bun:test'
import {
  CORE_TOOLS,
  LIMITS,
  ToolIndex,
  ToolIndexError,
  ToolSearchSession,
  buildToolIndex,
  clearToolIndexCache,
  executeTool,
  formatToolSearchResult,
  getToolIndex,
  isDeferredTool,
  nativeBinding,
  parseToolName,
  searchTools,
  tokenize,
  tokenizeAndStem,
  toolSearch,
  type ToolIndexErrorCode,
} from '../dist/index.js'

type Code = ToolIndexErrorCode
interface Case {
  /** What is passed. */
  name: string
  run: () => unknown
  /** The error code it must throw / reject with. */
  code?: Code
  /** Raw-binding cases: the `code` property of the plain Error the addon throws. */
  nativeCode?: string
  /** Otherwise: the documented clamp, and a check of the value returned. */
  clamp?: string
  check?: (value: any) => void
  /** A bug this case found (fixed since): what it was, so a regression is recognisable. */
  regression?: string
  timeout?: number
}

// Loosely typed handles, so wrong types can be passed.
const any = (v: unknown): any => v
const ToolIndexAny = ToolIndex as any
const MiB = 1024 * 1024

const ENTRIES = [
  { name: 'mcp__github__create_issue', description: 'Create a new issue in a GitHub repository' },
  { name: 'CronCreate', description: 'Schedule a prompt on a cron schedule', searchHint: 'schedule a recurring prompt' },
  { name: 'ls', description: 'List files in a directory' },
  { name: 'PdfParse', description: '解析PDF文件并提取文本' },
]
const idx = () => ToolIndex.fromEntries(ENTRIES)
const enh = () => ToolIndex.fromEntries(ENTRIES, { scoring: 'enhanced' })
const tool = (name: string, description = `the ${name} tool`, extra: object = {}) => ({ name, prompt: async () => description, ...extra })
const TOOLS = ENTRIES.map((e) => tool(e.name, e.description))
const throwing = (key: string, base: object = { name: 'x' }) =>
  Object.defineProperty({ ...base }, key, {
    get() {
      throw new Error(`getter ${key} throws`)
    },
    enumerable: true,
  })
const never = () => new Promise<string>(() => {})
const names = (rs: { name: string }[]) => rs.map((r) => r.name)

function bigCatalog(n: number) {
  const words = ['create', 'issue', 'send', 'message', 'list', 'files', 'search', 'schedule', 'cron', 'image', 'database', 'query']
  return Array.from({ length: n }, (_, i) => ({ name: `mcp__srv${i % 1000}__tool_${i}`, description: `${words[i % 12]} ${words[(i * 7) % 12]} item ${i}` }))
}
const BIG = process.env.BAD_INPUT_1M === '1' ? 1_000_000 : 200_000

/** A query of `chars` characters made of `distinct` different words (repeated). */
function longQuery(chars: number, distinct: number): string {
  const words = Array.from({ length: distinct }, (_, i) => `w${i.toString(36)}`)
  let s = ''
  for (let i = 0; s.length < chars; i++) s += words[i % distinct] + ' '
  return s.slice(0, chars)
}

const cases: Case[] = []
const add = (group: string, list: Case[]) => cases.push(...list.map((c) => ({ ...c, name: `${group}: ${c.name}` })))

// --- module functions -------------------------------------------------------------------------
for (const [label, v] of [['undefined', undefined], ['null', null], ['number', 1], ['object', {}], ['array', []], ['String object', new String('x')], ['symbol', Symbol('s')]] as const) {
  add('parseToolName', [{ name: label, run: () => parseToolName(any(v)), code: 'E_INVALID_ARG' }])
  add('tokenize', [{ name: label, run: () => tokenize(any(v)), code: 'E_INVALID_ARG' }])
  add('tokenizeAndStem', [{ name: label, run: () => tokenizeAndStem(any(v)), code: 'E_INVALID_ARG' }])
}
add('tokenize', [
  { name: `text of ${LIMITS.textLength + 1} chars`, run: () => tokenize('a'.repeat(LIMITS.textLength + 1)), code: 'E_TOO_LARGE' },
  { name: 'control characters', run: () => tokenize('\u0000x\u0007b\u001bc\u007f d\r\n'), clamp: 'skipped as separators', check: (v) => expect(v).toEqual(['x', 'b', 'c', 'd']) },
  { name: 'lone surrogates', run: () => tokenize('x\ud800b\udfffc'), clamp: 'separators', check: (v) => expect(v).toEqual(['x', 'b', 'c']) },
])
add('parseToolName', [
  { name: 'control characters', run: () => parseToolName('mcp__s\u0000__t\u0007'), clamp: 'kept in parts', check: (v) => expect(v.parts).toEqual(['s\u0000', 't\u0007']) },
  { name: '__proto__', run: () => parseToolName('__proto__'), clamp: 'plain parts', check: (v) => expect(v).toEqual({ parts: ['proto'], full: 'proto', isMcp: false }) },
])
add('isDeferredTool', [
  { name: 'tool null', run: () => isDeferredTool(any(null)), code: 'E_INVALID_ARG' },
  { name: 'tool string', run: () => isDeferredTool(any('Bash')), code: 'E_INVALID_ARG' },
  { name: 'tool without name', run: () => isDeferredTool(any({})), code: 'E_INVALID_ARG' },
  { name: 'name number', run: () => isDeferredTool(any({ name: 1 })), code: 'E_INVALID_ARG' },
  { name: 'name getter throws', run: () => isDeferredTool(any(throwing('name'))), code: 'E_INVALID_ARG' },
  { name: 'alwaysLoad getter throws', run: () => isDeferredTool(any(throwing('alwaysLoad'))), code: 'E_INVALID_ARG' },
  { name: 'coreTools a string', run: () => isDeferredTool({ name: 'x' }, any({ coreTools: 'Bash' })), code: 'E_INVALID_ARG' },
  { name: 'coreTools [1]', run: () => isDeferredTool({ name: 'x' }, any({ coreTools: [1] })), code: 'E_INVALID_ARG' },
  { name: 'coreTools null', run: () => isDeferredTool({ name: 'x' }, any({ coreTools: null })), code: 'E_INVALID_ARG' },
  { name: 'options null', run: () => isDeferredTool({ name: 'Bash' }, any(null)), clamp: 'default core set', check: (v) => expect(v).toBe(false) },
  { name: 'alwaysLoad "yes"', run: () => isDeferredTool(any({ name: 'x', alwaysLoad: 'yes' })), clamp: 'only true counts', check: (v) => expect(v).toBe(true) },
  { name: 'name toString', run: () => isDeferredTool({ name: 'toString' }), clamp: 'not core', check: (v) => expect(v).toBe(true) },
])

// --- ToolIndex.fromEntries -----------------------------------------------------------------
add('ToolIndex.fromEntries', [
  ...([['null', null], ['undefined', undefined], ['string', 'x'], ['object', {}], ['Set', new Set()]] as const).map(([l, v]) => ({ name: `entries ${l}`, run: () => ToolIndex.fromEntries(any(v)), code: 'E_INVALID_ARG' as Code })),
  { name: '[null]', run: () => ToolIndex.fromEntries(any([null])), code: 'E_INVALID_ARG' },
  { name: '[1]', run: () => ToolIndex.fromEntries(any([1])), code: 'E_INVALID_ARG' },
  { name: '[{}] (no name)', run: () => ToolIndex.fromEntries(any([{}])), code: 'E_INVALID_ARG' },
  { name: 'name null', run: () => ToolIndex.fromEntries(any([{ name: null }])), code: 'E_INVALID_ARG' },
  { name: 'name number', run: () => ToolIndex.fromEntries(any([{ name: 42 }])), code: 'E_INVALID_ARG' },
  { name: 'name ""', run: () => ToolIndex.fromEntries([{ name: '' }]), code: 'E_INVALID_ARG' },
  { name: 'description number', run: () => ToolIndex.fromEntries(any([{ name: 'a', description: 1 }])), code: 'E_INVALID_ARG' },
  { name: 'description object', run: () => ToolIndex.fromEntries(any([{ name: 'a', description: { toString: () => 'x' } }])), code: 'E_INVALID_ARG' },
  { name: 'searchHint number', run: () => ToolIndex.fromEntries(any([{ name: 'a', searchHint: 1 }])), code: 'E_INVALID_ARG' },
  { name: 'isMcp "yes"', run: () => ToolIndex.fromEntries(any([{ name: 'a', isMcp: 'yes' }])), code: 'E_INVALID_ARG' },
  { name: 'server number', run: () => ToolIndex.fromEntries(any([{ name: 'a', server: 1 }])), code: 'E_INVALID_ARG' },
  { name: 'description null', run: () => ToolIndex.fromEntries([{ name: 'a', description: null }]), clamp: '""', check: (v) => expect(v.get('a').description).toBe('') },
  { name: 'searchHint null', run: () => ToolIndex.fromEntries([{ name: 'a', searchHint: null }]), clamp: 'undefined', check: (v) => expect(v.get('a').searchHint).toBeUndefined() },
  { name: 'inputSchema "x"', run: () => ToolIndex.fromEntries(any([{ name: 'a', inputSchema: 'x' }])), clamp: 'ignored (undefined)', check: (v) => expect(v.get('a').inputSchema).toBeUndefined() },
  { name: 'name getter throws', run: () => ToolIndex.fromEntries(any([throwing('name', {})])), code: 'E_INVALID_ARG' },
  { name: 'description getter throws', run: () => ToolIndex.fromEntries(any([throwing('description')])), code: 'E_INVALID_ARG' },
  { name: 'searchHint getter throws', run: () => ToolIndex.fromEntries(any([throwing('searchHint')])), code: 'E_INVALID_ARG' },
  { name: 'inputSchema getter throws', run: () => ToolIndex.fromEntries(any([throwing('inputSchema')])), code: 'E_INVALID_ARG' },
  {
    name: 'Proxy entry whose every get throws',
    run: () =>
      ToolIndex.fromEntries(any([new Proxy({}, { get() { throw new Error('trap') } })])),
    code: 'E_INVALID_ARG',
  },
  {
    name: 'array element getter throws',
    run: () => ToolIndex.fromEntries(any(Object.defineProperty([], 0, { get() { throw new Error('element') }, enumerable: true }))),
    code: 'E_INVALID_ARG',
    regression: 'ts/index.ts fromEntries: `entries.map(checkEntry)` reads elements outside readField, so the getter error escapes raw (Error "element", no code)',
  },
  { name: 'duplicate names', run: () => ToolIndex.fromEntries([{ name: 'a' }, { name: 'b' }, { name: 'a' }]), code: 'E_DUPLICATE_NAME' },
  { name: 'names equal but for lone surrogates', run: () => ToolIndex.fromEntries([{ name: 'a\ud800' }, { name: 'a\udbff' }]), code: 'E_DUPLICATE_NAME' },
  { name: `name of ${LIMITS.nameLength + 1} chars`, run: () => ToolIndex.fromEntries([{ name: 'n'.repeat(LIMITS.nameLength + 1) }]), code: 'E_TOO_LARGE' },
  { name: `name of ${LIMITS.nameLength} chars`, run: () => ToolIndex.fromEntries([{ name: 'n'.repeat(LIMITS.nameLength) }]), clamp: 'accepted', check: (v) => expect(v.length).toBe(1) },
  { name: `description of 16 Mi + 1 chars`, run: () => ToolIndex.fromEntries([{ name: 'a', description: 'd'.repeat(LIMITS.textLength + 1) }]), code: 'E_TOO_LARGE' },
  { name: `searchHint of 16 Mi + 1 chars`, run: () => ToolIndex.fromEntries([{ name: 'a', searchHint: 'd'.repeat(LIMITS.textLength + 1) }]), code: 'E_TOO_LARGE' },
  {
    name: '10 MB descriptions (3 tools)',
    run: () => {
      const big = 'lorem ipsum dolor sit amet '.repeat(Math.ceil((10 * MiB) / 27)).slice(0, 10 * MiB)
      const index = ToolIndex.fromEntries([{ name: 'big1', description: big, searchHint: 'needle' }, { name: 'big2', description: big }, { name: 'small', description: 'haystack' }])
      return index.search('needle', 5)
    },
    clamp: 'indexed and searchable',
    check: (v) => expect(names(v)).toEqual(['big1']),
    timeout: 60_000,
  },
  {
    name: `${BIG.toLocaleString('en')}-tool catalog (plain entries)`,
    run: () => {
      const t = performance.now()
      const index = ToolIndex.fromEntries(bigCatalog(BIG))
      const ms = performance.now() - t
      console.log(`  big catalog: ${BIG} tools built in ${Math.round(ms)} ms, rss ${Math.round(process.memoryUsage().rss / MiB)} MiB`)
      return { len: index.length, hits: index.search('create issue 12345', 3) }
    },
    clamp: 'built; searchable',
    check: (v) => {
      expect(v.len).toBe(BIG)
      expect(v.hits[0].name).toBe('mcp__srv345__tool_12345')
    },
    timeout: 300_000,
  },
  { name: 'control characters in names and texts', run: () => ToolIndex.fromEntries([{ name: 'a\u0000b\u0007', description: 'x\u001b[31mred\u0000' }]), clamp: 'kept verbatim', check: (v) => expect(v.names()).toEqual(['a\u0000b\u0007']) },
  ...['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'prototype'].map((n) => ({
    name: `name ${n}`,
    run: () => {
      const index = ToolIndex.fromEntries([{ name: n, description: `special ${n} tool` }, { name: 'other', description: 'plain' }])
      return { index, hits: index.search(`special ${n}`, 5), missing: ToolIndex.fromEntries([{ name: 'x' }]) }
    },
    clamp: 'an ordinary name',
    check: (v: any) => {
      expect(v.hits[0].name).toBe(n)
      expect(v.index.has(n)).toBe(true)
      expect(v.index.get(n).name).toBe(n)
      expect(v.missing.has(n)).toBe(false)
      expect(v.missing.get(n)).toBeUndefined()
      expect(({} as any).special).toBeUndefined()
    },
  })),
  { name: 'options null', run: () => ToolIndex.fromEntries([{ name: 'a' }], any(null)), clamp: 'defaults (compat)', check: (v) => expect(v.scoring).toBe('compat') },
  { name: 'scoring "bm25"', run: () => ToolIndex.fromEntries([{ name: 'a' }], any({ scoring: 'bm25' })), code: 'E_INVALID_SCORING' },
  { name: 'scoring null', run: () => ToolIndex.fromEntries([{ name: 'a' }], any({ scoring: null })), code: 'E_INVALID_SCORING' },
  { name: 'scoring 1', run: () => ToolIndex.fromEntries([{ name: 'a' }], any({ scoring: 1 })), code: 'E_INVALID_SCORING' },
  {
    name: 'options.scoring getter throws',
    run: () => ToolIndex.fromEntries([{ name: 'a' }], any(throwing('scoring', {}))),
    code: 'E_INVALID_ARG',
    regression: 'ts/index.ts fromEntries: `options?.scoring` is read outside readField; the getter error escapes raw',
  },
  { name: 'tuning.k1 NaN', run: () => ToolIndex.fromEntries([{ name: 'a' }], { scoring: 'enhanced', tuning: { k1: NaN } }), code: 'E_INVALID_NUMBER' },
  { name: 'tuning.crowdGap NaN', run: () => ToolIndex.fromEntries([{ name: 'a' }], { scoring: 'enhanced', tuning: { crowdGap: NaN } }), code: 'E_INVALID_NUMBER' },
  { name: 'tuning.crowdWeight -Infinity', run: () => ToolIndex.fromEntries([{ name: 'a' }], { scoring: 'enhanced', tuning: { crowdWeight: -Infinity } }), code: 'E_INVALID_NUMBER' },
  { name: 'tuning.crowdConfidence "x"', run: () => ToolIndex.fromEntries([{ name: 'a' }], any({ scoring: 'enhanced', tuning: { crowdConfidence: 'x' } })), code: 'E_INVALID_ARG' },
  { name: 'tuning.crowdCoverage Infinity', run: () => ToolIndex.fromEntries([{ name: 'a' }], { scoring: 'enhanced', tuning: { crowdCoverage: Infinity } }), code: 'E_INVALID_NUMBER' },
  { name: 'tuning.k1 Infinity', run: () => ToolIndex.fromEntries([{ name: 'a' }], { scoring: 'enhanced', tuning: { k1: Infinity } }), code: 'E_INVALID_NUMBER' },
  { name: 'tuning.k1 "x"', run: () => ToolIndex.fromEntries([{ name: 'a' }], any({ scoring: 'enhanced', tuning: { k1: 'x' } })), code: 'E_INVALID_ARG' },
  { name: 'tuning.weights of 2', run: () => ToolIndex.fromEntries([{ name: 'a' }], any({ scoring: 'enhanced', tuning: { weights: [1, 2] } })), code: 'E_INVALID_NUMBER' },
  { name: 'tuning.weights negative', run: () => ToolIndex.fromEntries([{ name: 'a' }], { scoring: 'enhanced', tuning: { weights: [1, 1, 1, 1, -1] } }), code: 'E_INVALID_NUMBER' },
  { name: 'tuning.b NaN', run: () => ToolIndex.fromEntries([{ name: 'a' }], { scoring: 'enhanced', tuning: { b: [0, 0, NaN, 0, 0] } }), code: 'E_INVALID_NUMBER' },
  { name: 'tuning.abstainCoverage -Infinity', run: () => ToolIndex.fromEntries([{ name: 'a' }], { scoring: 'enhanced', tuning: { abstainCoverage: -Infinity } }), code: 'E_INVALID_NUMBER' },
  { name: 'tuning null', run: () => ToolIndex.fromEntries([{ name: 'a' }], any({ scoring: 'enhanced', tuning: null })), clamp: 'defaults', check: (v) => expect(v.length).toBe(1) },
  {
    name: 'tuning k1 0, weights all 0 (degenerate but finite)',
    run: () => ToolIndex.fromEntries([{ name: 'a', description: 'alpha x' }, { name: 'b' }], { scoring: 'enhanced', tuning: { k1: 0, weights: [0, 0, 0, 0, 0] } }).search('alpha'),
    clamp: 'accepted; scores finite in [0, 4)',
    check: (v) => v.forEach((r: any) => expect(r.score >= 0 && r.score < 4).toBe(true)),
  },
])

// --- ToolIndex methods ---------------------------------------------------------------------------
for (const [mode, make] of [['compat', idx], ['enhanced', enh]] as const) {
  add(`ToolIndex#search (${mode})`, [
    ...([['undefined', undefined], ['null', null], ['number', 1], ['object', {}], ['array', ['a']]] as const).map(([l, v]) => ({ name: `query ${l}`, run: () => make().search(any(v)), code: 'E_INVALID_ARG' as Code })),
    { name: 'limit NaN', run: () => make().search('issue', NaN), code: 'E_INVALID_LIMIT' },
    { name: 'limit -1', run: () => make().search('issue', -1), code: 'E_INVALID_LIMIT' },
    { name: 'limit -Infinity', run: () => make().search('issue', -Infinity), code: 'E_INVALID_LIMIT' },
    { name: 'limit "5"', run: () => make().search('issue', any('5')), code: 'E_INVALID_LIMIT' },
    { name: 'limit null', run: () => make().search('issue', any(null)), code: 'E_INVALID_LIMIT' },
    { name: 'limit 10n', run: () => make().search('issue', any(10n)), code: 'E_INVALID_LIMIT' },
    { name: 'limit undefined', run: () => make().search('create issue', undefined), clamp: 'default 5', check: (v) => expect(v.length).toBeLessThanOrEqual(5) },
    { name: 'limit 0', run: () => make().search('create issue', 0), clamp: '[]', check: (v) => expect(v).toEqual([]) },
    { name: 'limit -0', run: () => make().search('create issue', -0), clamp: '[] (as 0)', check: (v) => expect(v).toEqual([]) },
    { name: 'limit 0.9', run: () => make().search('create issue', 0.9), clamp: 'truncated to 0', check: (v) => expect(v).toEqual([]) },
    { name: 'limit 1.9', run: () => make().search('create a github issue', 1.9), clamp: 'truncated to 1', check: (v) => expect(v.length).toBe(1) },
    { name: 'limit Infinity', run: () => make().search('list files create', Infinity), clamp: 'all', check: (v) => expect(v.length).toBeGreaterThanOrEqual(1) },
    { name: 'limit 1e300', run: () => make().search('list files create', 1e300), clamp: 'all', check: (v) => expect(v.length).toBeGreaterThanOrEqual(1) },
    { name: 'limit 2^53', run: () => make().search('list files create', 2 ** 53), clamp: 'all', check: (v) => expect(v.length).toBeGreaterThanOrEqual(1) },
    { name: 'query ""', run: () => make().search(''), clamp: '[]', check: (v) => expect(v).toEqual([]) },
    { name: 'query of control characters', run: () => make().search('\u0000\u0001\u0007\u001b\u007f'), clamp: '[]', check: (v) => expect(v).toEqual([]) },
    { name: 'query with lone surrogates', run: () => make().search('\ud800issue\udfff'), clamp: 'separators', check: (v) => expect(Array.isArray(v)).toBe(true) },
    { name: 'query __proto__ / constructor', run: () => make().search('__proto__ constructor toString hasOwnProperty'), clamp: 'ordinary words', check: (v) => expect(Array.isArray(v)).toBe(true) },
    { name: `query of ${LIMITS.queryLength + 1} chars`, run: () => make().search('q'.repeat(LIMITS.queryLength + 1)), code: 'E_TOO_LARGE' },
    { name: 'query of 1 MB (few distinct words)', run: () => make().search(longQuery(MiB, 50) + ' issue'), clamp: 'answered', check: (v) => expect(Array.isArray(v)).toBe(true), timeout: 30_000 },
    {
      name: 'query of 1 MB (all words distinct) within 5 s',
      run: () => {
        const q = longQuery(MiB, 200_000)
        const t = performance.now()
        make().search(q)
        return performance.now() - t
      },
      clamp: 'answered in < 5 s',
      check: (ms) => expect(ms).toBeLessThan(5000),
      regression: 'quadratic query-term dedup (linear `find` per token) in crates/core/src/index.rs score_all, keyword.rs parse_query and enhanced/mod.rs parse_query: 20k distinct words take ~0.7 s, 1 MB (~150k) takes minutes',
      timeout: 600_000,
    },
  ])
}
add('ToolIndex#rankToolSearch', [
  { name: 'query null', run: () => idx().rankToolSearch(any(null)), code: 'E_INVALID_ARG' },
  { name: 'maxResults NaN', run: () => idx().rankToolSearch('issue', NaN), code: 'E_INVALID_LIMIT' },
  { name: 'maxResults -3', run: () => idx().rankToolSearch('issue', -3), code: 'E_INVALID_LIMIT' },
  { name: 'maxResults "3"', run: () => idx().rankToolSearch('issue', any('3')), code: 'E_INVALID_LIMIT' },
  { name: 'maxResults 2.5', run: () => idx().rankToolSearch('create list files issue', 2.5), clamp: 'truncated to 2', check: (v) => expect(v.length).toBeLessThanOrEqual(2) },
  { name: 'weights.keyword NaN', run: () => idx().rankToolSearch('issue', 5, { keyword: NaN, tfidf: 0.6 }), code: 'E_INVALID_NUMBER' },
  { name: 'weights.tfidf Infinity', run: () => idx().rankToolSearch('issue', 5, { keyword: 0.4, tfidf: Infinity }), code: 'E_INVALID_NUMBER' },
  { name: 'weights.keyword "x"', run: () => idx().rankToolSearch('issue', 5, any({ keyword: 'x', tfidf: 0.6 })), code: 'E_INVALID_ARG' },
  { name: 'weights {}', run: () => idx().rankToolSearch('issue', 5, any({})), clamp: 'default weights', check: (v) => expect(v[0].name).toBe('mcp__github__create_issue') },
  {
    name: 'weights null',
    run: () => idx().rankToolSearch('issue', 5, any(null)),
    code: 'E_INVALID_ARG',
    regression: 'ts/index.ts rankToolSearch: `weights.keyword` is read inside native(), so the TypeError becomes E_INTERNAL ("a bug") instead of E_INVALID_ARG',
  },
  { name: 'exactOutside 1', run: () => idx().rankToolSearch('issue', 5, undefined, any(1)), code: 'E_INVALID_ARG' },
  { name: `query of ${LIMITS.queryLength + 1} chars`, run: () => idx().rankToolSearch('q'.repeat(LIMITS.queryLength + 1)), code: 'E_TOO_LARGE' },
  { name: 'keywordList "ls" (a string)', run: () => idx().rankToolSearch('issue', 5, undefined, undefined, any('ls')), code: 'E_INVALID_ARG' },
  { name: 'keywordList [1]', run: () => idx().rankToolSearch('issue', 5, undefined, undefined, any([1])), code: 'E_INVALID_ARG' },
  { name: 'keywordList sparse [, "ls"]', run: () => idx().rankToolSearch('issue', 5, undefined, undefined, any([, 'ls'])), code: 'E_INVALID_ARG' },
  {
    name: 'keywordList a Proxy whose traps throw',
    run: () =>
      idx().rankToolSearch('issue', 5, undefined, undefined, any(new Proxy([], { get() { throw new Error('trap') } }))),
    code: 'E_INVALID_ARG',
  },
  {
    name: 'keywordList an endless generator',
    run: () =>
      idx().rankToolSearch('issue', 5, undefined, undefined, any((function* () { for (;;) yield 'ls' })())),
    code: 'E_TOO_LARGE',
  },
  { name: 'keywordList with maxResults NaN', run: () => idx().rankToolSearch('issue', NaN, undefined, undefined, ['ls']), code: 'E_INVALID_LIMIT' },
  {
    name: 'keywordList names repeated, unknown, and cut to maxResults',
    run: () => idx().rankToolSearch('schedule', 2, undefined, undefined, ['Ghost', 'Ghost', 'CronCreate', 'ls']),
    clamp: 'each name once, the first maxResults',
    check: (v) => {
      expect(v.map((r: any) => [r.name, r.keywordRank])).toEqual([['CronCreate', 1], ['Ghost', 0]])
    },
  },
  {
    name: 'keywordList name with a lone surrogate beside a tool named with U+FFFD',
    run: () => {
      const i = ToolIndex.fromEntries([...ENTRIES, { name: 'tool\ufffd', description: 'replacement character tool' }])
      return i.rankToolSearch('replacement', 5, undefined, undefined, ['tool\ud800'])
    },
    clamp: 'the list name stays outside the index; the tool keeps its own TF-IDF place',
    check: (v) => {
      expect(v.map((r: any) => [r.name, r.keywordRank])).toEqual([['tool\ud800', 0], ['tool\ufffd', undefined]])
    },
    regression: 'the native side read the list name as U+FFFD and took it for the other tool: the tool got the keyword share and the name it was not given',
  },
])
add('ToolIndex#keywordRank', [
  { name: 'query 1', run: () => idx().keywordRank(any(1)), code: 'E_INVALID_ARG' },
  { name: 'maxResults NaN', run: () => idx().keywordRank('issue', NaN), code: 'E_INVALID_LIMIT' },
  { name: 'maxResults -1', run: () => idx().keywordRank('issue', -1), code: 'E_INVALID_LIMIT' },
  { name: 'maxResults "5"', run: () => idx().keywordRank('issue', any('5')), code: 'E_INVALID_LIMIT' },
  {
    name: 'termsOnly "yes"',
    run: () => idx().keywordRank('mcp__github', 5, any('yes')),
    code: 'E_INVALID_ARG',
    regression: 'a truthy non-boolean termsOnly was read as false (the prefix path answered)',
  },
  { name: 'maxResults Infinity', run: () => idx().keywordRank('issue', Infinity), clamp: 'every hit', check: (v) => expect(v).toEqual({ path: 'terms', hits: [{ name: 'mcp__github__create_issue', score: expect.any(Number) }] }) },
  { name: 'mcp__ prefix, termsOnly', run: () => idx().keywordRank('mcp__github', 5, true), clamp: 'scored as words', check: (v) => expect(v.path).toBe('terms') },
  { name: `query of ${LIMITS.queryLength + 1} chars`, run: () => idx().keywordRank('q'.repeat(LIMITS.queryLength + 1)), code: 'E_TOO_LARGE' },
])
add('new ToolIndex', [
  {
    name: 'entries (an array)',
    run: () => new ToolIndexAny(ENTRIES),
    code: 'E_INVALID_ARG',
    regression: 'the constructor took anything; the first search then failed with E_INTERNAL ("Cannot read properties of undefined")',
  },
  { name: 'a look-alike state object', run: () => new ToolIndexAny({ native: {}, byId: [], byName: new Map() }), code: 'E_INVALID_ARG' },
  { name: 'nothing', run: () => new ToolIndexAny(), code: 'E_INVALID_ARG' },
])
add('ToolIndex#keywordSearch', [
  { name: 'query 1', run: () => idx().keywordSearch(any(1)), code: 'E_INVALID_ARG' },
  { name: 'maxResults NaN', run: () => idx().keywordSearch('issue', NaN), code: 'E_INVALID_LIMIT' },
  { name: 'maxResults -1', run: () => idx().keywordSearch('issue', -1), code: 'E_INVALID_LIMIT' },
  { name: 'maxResults null', run: () => idx().keywordSearch('issue', any(null)), code: 'E_INVALID_LIMIT' },
  { name: 'exact name with maxResults 0', run: () => idx().keywordSearch('ls', 0), clamp: 'the exact hit (reference quirk)', check: (v) => expect(names(v)).toEqual(['ls']) },
  { name: '"+" / "+ +" / "select:" / "discover:" / "mcp__"', run: () => ['+', '+ +', 'select:', 'discover:', 'mcp__', '+mcp__', 'server:'].map((q) => idx().keywordSearch(q, 5)), clamp: 'no error', check: (v) => expect(v.length).toBe(7) },
])
add('ToolIndex#explain', [
  { name: 'query null', run: () => idx().explain(any(null), 'ls'), code: 'E_INVALID_ARG' },
  { name: 'name null', run: () => idx().explain('list', any(null)), code: 'E_INVALID_ARG' },
  { name: 'unknown name', run: () => idx().explain('list', 'nope'), clamp: 'undefined', check: (v) => expect(v).toBeUndefined() },
  { name: 'name __proto__', run: () => idx().explain('list', '__proto__'), clamp: 'undefined', check: (v) => expect(v).toBeUndefined() },
])
add('ToolIndex#upsert', [
  { name: '[{ name: 1 }]', run: () => idx().upsert(any([{ name: 1 }])), code: 'E_INVALID_ARG' },
  { name: '[null]', run: () => idx().upsert(any([null])), code: 'E_INVALID_ARG' },
  { name: 'duplicates in the batch', run: () => idx().upsert([{ name: 'n' }, { name: 'n' }]), code: 'E_DUPLICATE_NAME' },
  {
    name: 'a failed upsert changes nothing',
    run: () => {
      const index = idx()
      try {
        index.upsert([{ name: 'new1' }, { name: 'ls', description: 'changed' }, { name: 'new1' }])
      } catch {}
      try {
        index.upsert(any([{ name: 'new2' }, { name: 5 }]))
      } catch {}
      return index
    },
    clamp: 'nothing half-applied',
    check: (v) => {
      expect(v.names()).toEqual(ENTRIES.map((e) => e.name))
      expect(v.get('ls').description).toBe('List files in a directory')
    },
  },
  { name: 'entries null', run: () => idx().upsert(any(null)), code: 'E_INVALID_ARG', regression: 'ts/index.ts upsert: `entries.map` on a non-array throws a raw TypeError' },
  { name: 'entries "x"', run: () => idx().upsert(any('x')), code: 'E_INVALID_ARG', regression: 'ts/index.ts upsert: `entries.map` on a non-array throws a raw TypeError' },
  { name: '[] (empty)', run: () => { const i = idx(); i.upsert([]); return i }, clamp: 'no change', check: (v) => expect(v.length).toBe(ENTRIES.length) },
])
add('ToolIndex#remove', [
  { name: 'null', run: () => idx().remove(any(null)), code: 'E_INVALID_ARG' },
  { name: 'a string', run: () => idx().remove(any('ls')), code: 'E_INVALID_ARG' },
  { name: '[1]', run: () => idx().remove(any([1])), code: 'E_INVALID_ARG' },
  { name: 'unknown and repeated names', run: () => idx().remove(['nope', 'ls', 'ls', '__proto__']), clamp: 'count of present', check: (v) => expect(v).toBe(1) },
  { name: 'a Set', run: () => idx().remove(new Set(['ls', 'CronCreate'])), clamp: 'any iterable', check: (v) => expect(v).toBe(2) },
])
add('ToolIndex accessors', [
  { name: 'has(1) / has(null)', run: () => [idx().has(any(1)), idx().has(any(null))], clamp: 'false', check: (v) => expect(v).toEqual([false, false]) },
  { name: 'get(undefined)', run: () => idx().get(any(undefined)), clamp: 'undefined', check: (v) => expect(v).toBeUndefined() },
  { name: 'at(NaN) / at("x") / at(Infinity) / at(-Infinity)', run: () => [NaN, 'x', Infinity, -Infinity].map((i) => idx().at(any(i))?.name), clamp: 'as Array.prototype.at: NaN is 0, ±Infinity is out of range', check: (v) => expect(v).toEqual([idx().at(0)?.name, idx().at(0)?.name, undefined, undefined]) },
  { name: 'at(-1.5)', run: () => idx().at(-1.5)?.name, clamp: 'truncated: last', check: (v) => expect(v).toBe('PdfParse') },
  {
    name: 'map(null) / forEach(null) / filter(1) / find("x")',
    run: () => idx().map(any(null)),
    code: 'E_INVALID_ARG',
    regression: 'ts/index.ts ToolIndex.map/forEach/filter/find/some: a non-function callback throws a raw TypeError, not a ToolIndexError',
  },
])

// --- searchTools, buildToolIndex, getToolIndex ---------------------------------------------------------
add('searchTools', [
  { name: 'index null', run: () => searchTools('x', any(null)), code: 'E_INVALID_ARG' },
  { name: 'index {}', run: () => searchTools('x', any({})), code: 'E_INVALID_ARG' },
  { name: 'index "x"', run: () => searchTools('x', any('x')), code: 'E_INVALID_ARG' },
  { name: 'index [null]', run: () => searchTools('x', any([null])), code: 'E_INVALID_ARG' },
  { name: 'index []', run: () => searchTools('x', []), clamp: '[]', check: (v) => expect(v).toEqual([]) },
  { name: 'query null', run: () => searchTools(any(null), idx()), code: 'E_INVALID_ARG' },
  { name: 'limit NaN', run: () => searchTools('issue', idx(), NaN), code: 'E_INVALID_LIMIT' },
  { name: 'limit -2', run: () => searchTools('issue', idx(), -2), code: 'E_INVALID_LIMIT' },
  { name: 'limit 3.99', run: () => searchTools('create list files issue cron', idx(), 3.99), clamp: 'truncated to 3', check: (v) => expect(v.length).toBeLessThanOrEqual(3) },
])
add('buildToolIndex', [
  { name: 'tools null', run: () => buildToolIndex(any(null)), code: 'E_INVALID_ARG' },
  { name: 'tools {}', run: () => buildToolIndex(any({})), code: 'E_INVALID_ARG' },
  { name: 'tools [null]', run: () => buildToolIndex(any([null])), code: 'E_INVALID_ARG' },
  { name: 'tools ["Bash"]', run: () => buildToolIndex(any(['Bash'])), code: 'E_INVALID_ARG' },
  { name: 'tool without name', run: () => buildToolIndex(any([{ prompt: async () => 'x' }])), code: 'E_INVALID_ARG' },
  { name: 'name ""', run: () => buildToolIndex([tool('')]), clamp: 'left out and reported', check: (v) => expect(v.skipped.map((x: any) => x.reason)).toEqual(['empty_name']) },
  { name: `name of ${LIMITS.nameLength + 1} chars`, run: () => buildToolIndex([tool('n'.repeat(LIMITS.nameLength + 1)), tool('ok')]), clamp: 'left out and reported; the rest indexed', check: (v) => { expect(v.names()).toEqual(['ok']); expect(v.skipped.map((x: any) => x.reason)).toEqual(['name_too_long']) } },
  { name: 'name getter throws', run: () => buildToolIndex(any([throwing('name', {})])), code: 'E_INVALID_ARG' },
  { name: 'alwaysLoad getter throws', run: () => buildToolIndex(any([throwing('alwaysLoad')])), code: 'E_INVALID_ARG' },
  { name: 'searchHint getter throws', run: () => buildToolIndex(any([throwing('searchHint')])), code: 'E_INVALID_ARG' },
  { name: 'isMcp getter throws', run: () => buildToolIndex(any([throwing('isMcp')])), code: 'E_INVALID_ARG' },
  { name: 'server getter throws', run: () => buildToolIndex(any([throwing('server')])), code: 'E_INVALID_ARG' },
  { name: 'prompt getter throws', run: () => buildToolIndex(any([throwing('prompt')])), clamp: 'description ""', check: (v) => expect(v.get('x').description).toBe('') },
  { name: 'inputJSONSchema getter throws', run: () => buildToolIndex(any([throwing('inputJSONSchema')])), clamp: 'no schema', check: (v) => expect(v.get('x').inputSchema).toBeUndefined() },
  { name: 'prompt() throws', run: () => buildToolIndex([{ name: 'x', prompt: () => { throw new Error('p') } }]), clamp: 'description ""', check: (v) => expect(v.get('x').description).toBe('') },
  { name: 'prompt() rejects', run: () => buildToolIndex([{ name: 'x', prompt: () => Promise.reject(new Error('p')) }]), clamp: 'description ""', check: (v) => expect(v.get('x').description).toBe('') },
  { name: 'prompt() returns 42', run: () => buildToolIndex(any([{ name: 'x', prompt: async () => 42 }])), clamp: 'description ""', check: (v) => expect(v.get('x').description).toBe('') },
  { name: 'prompt() returns null', run: () => buildToolIndex(any([{ name: 'x', prompt: () => null }])), clamp: 'description ""', check: (v) => expect(v.get('x').description).toBe('') },
  {
    name: 'prompt() never settles, promptTimeoutMs 50',
    run: async () => {
      const t = performance.now()
      const index = await buildToolIndex([{ name: 'x', prompt: never }, tool('y', 'fine')], { promptTimeoutMs: 50 })
      return { index, ms: performance.now() - t }
    },
    clamp: 'description "" after the timeout',
    check: (v) => {
      expect(v.index.get('x').description).toBe('')
      expect(v.index.get('y').description).toBe('fine')
      expect(v.ms).toBeLessThan(2000)
    },
  },
  { name: 'promptTimeoutMs NaN', run: () => buildToolIndex(TOOLS, { promptTimeoutMs: NaN }), code: 'E_INVALID_NUMBER' },
  { name: 'promptTimeoutMs -1', run: () => buildToolIndex(TOOLS, { promptTimeoutMs: -1 }), code: 'E_INVALID_NUMBER' },
  { name: 'promptTimeoutMs "10"', run: () => buildToolIndex(TOOLS, any({ promptTimeoutMs: '10' })), code: 'E_INVALID_NUMBER' },
  {
    name: 'promptTimeoutMs Infinity',
    run: () => buildToolIndex(TOOLS, { promptTimeoutMs: Infinity }),
    code: 'E_INVALID_NUMBER',
    regression: 'README ("E_INVALID_NUMBER: a ... timeout ... that is not finite") vs ts/index.ts collect(), which accepts Infinity as "no limit" (a never-settling prompt() then hangs the build); one of the two must change',
  },
  { name: 'promptTimeoutMs 0.5', run: () => buildToolIndex([tool('x', 'quick')], { promptTimeoutMs: 0.5 }), clamp: 'accepted (ms)', check: (v) => expect(v.length).toBe(1) },
  { name: 'duplicate names', run: () => buildToolIndex([tool('a'), tool('b'), tool('a')]), clamp: 'the first is kept, the rest reported', check: (v) => { expect(v.names()).toEqual(['a', 'b']); expect(v.skipped.map((x: any) => x.reason)).toEqual(['duplicate_name']) } },
  { name: 'duplicate only among core tools', run: () => buildToolIndex([tool('Bash'), tool('Bash'), tool('x')]), clamp: 'core tools are not indexed: ok', check: (v) => expect(v.names()).toEqual(['x']) },
  { name: 'prompt() of 16 Mi + 1 chars', run: () => buildToolIndex([tool('x', 'p'.repeat(LIMITS.textLength + 1))]), code: 'E_TOO_LARGE' },
  { name: 'options null', run: () => buildToolIndex(TOOLS, any(null)), code: 'E_INVALID_ARG' },
  { name: 'options "x"', run: () => buildToolIndex(TOOLS, any('x')), code: 'E_INVALID_ARG' },
  { name: 'coreTools "Bash"', run: () => buildToolIndex(TOOLS, any({ coreTools: 'Bash' })), code: 'E_INVALID_ARG' },
  { name: 'coreTools [null]', run: () => buildToolIndex(TOOLS, any({ coreTools: [null] })), code: 'E_INVALID_ARG' },
  { name: 'exclude 5', run: () => buildToolIndex(TOOLS, any({ exclude: 5 })), code: 'E_INVALID_ARG' },
  { name: 'includeForce [1]', run: () => buildToolIndex(TOOLS, any({ includeForce: [1] })), code: 'E_INVALID_ARG' },
  { name: 'scoring "fast"', run: () => buildToolIndex(TOOLS, any({ scoring: 'fast' })), code: 'E_INVALID_SCORING' },
  {
    name: 'options.tuning getter throws',
    run: () => buildToolIndex(TOOLS, any(throwing('tuning', { scoring: 'enhanced' }))),
    code: 'E_INVALID_ARG',
    regression: 'ts/build.ts: `options.tuning` was read outside readingInput; the getter error escaped raw (plain Error, no code)',
  },
  {
    name: 'options.promptContext getter throws',
    run: () => buildToolIndex(TOOLS, any(throwing('promptContext', {}))),
    code: 'E_INVALID_ARG',
    regression: 'ts/build.ts collect(): `options.promptContext` was read outside readingInput; the getter error escaped raw',
  },
  {
    name: 'options.tuning.k1 getter throws',
    run: () => buildToolIndex(TOOLS, any({ scoring: 'enhanced', tuning: throwing('k1', {}) })),
    code: 'E_INVALID_ARG',
    regression: 'the tuning object went to the addon as given; the getter threw inside the native call, which reported E_INTERNAL ("a bug")',
  },
  { name: 'options.tuning "fast"', run: () => buildToolIndex(TOOLS, any({ scoring: 'enhanced', tuning: 'fast' })), code: 'E_INVALID_ARG' },
  { name: 'options.tuning.weights of 1e6 numbers', run: () => buildToolIndex(TOOLS, any({ scoring: 'enhanced', tuning: { weights: new Array(1e6).fill(1) } })), code: 'E_INVALID_ARG' },
  {
    name: 'a name getter that answers differently on its second read',
    run: () => {
      let reads = 0
      const flip = { get name() { return reads++ === 0 ? 'first' : 'second' }, prompt: async () => 'flips' }
      return buildToolIndex(any([flip, tool('second', 'the real one')]))
    },
    clamp: 'the name read once is the one indexed',
    check: (v) => {
      expect(v.names()).toEqual(['first', 'second'])
      expect(v.get('second').description).toBe('the real one')
    },
    regression: 'ts/build.ts collect() read `tool.name` again after the duplicate check: the index took the second answer, and a name could slip past the check (E_DUPLICATE_NAME from the addon, or a raw TypeError when the second answer was not a string)',
  },
  {
    name: 'coreTools / exclude a Proxy whose iterator look-up throws, or a revoked Proxy',
    run: async () => {
      const trap = () => new Proxy([], { get: (t, k) => { if (k === Symbol.iterator) throw new Error('iterator trap'); return Reflect.get(t, k) } })
      const revoked = () => { const r = Proxy.revocable([], {}); r.revoke(); return r.proxy }
      const codes: unknown[] = []
      for (const make of [trap, revoked]) {
        for (const options of [{ coreTools: make() }, { exclude: make() }]) codes.push(await buildToolIndex(TOOLS, any(options)).catch((e) => e.code))
        codes.push(await toolSearch({ query: 'x' }, any({ tools: TOOLS, coreTools: make() })).catch((e) => e.code))
      }
      return codes
    },
    clamp: 'E_INVALID_ARG each time',
    check: (v) => expect(v).toEqual(new Array(6).fill('E_INVALID_ARG')),
    regression: 'ts/input.ts stringList read `v[Symbol.iterator]` outside readingInput: a raw TypeError once the options snapshot called it directly',
  },
  {
    name: 'a coreTools generator is walked once',
    run: () => getToolIndex(TOOLS, { coreTools: (function* () { yield 'ls' })() }),
    clamp: 'the core set holds what it yielded',
    check: (v) => expect(v.names()).not.toContain('ls'),
    regression: 'ts/cache.ts: the cache key walked the generator, so the build saw an empty core set and indexed "ls"',
  },
  {
    name: 'Object.prototype.scoring / promptTimeoutMs / prompt polluted',
    run: async () => {
      const proto = Object.prototype as any
      proto.scoring = 'fast'
      proto.promptTimeoutMs = -1
      proto.prompt = async () => 'from the prototype'
      try {
        return await buildToolIndex([{ name: 'bare', description: 'own words' } as any, tool('x', 'y')])
      } finally {
        delete proto.scoring
        delete proto.promptTimeoutMs
        delete proto.prompt
      }
    },
    clamp: 'no field is read through Object.prototype',
    check: (v) => expect(v.get('bare').description).toBe('own words'),
    regression: 'build options and a tool\'s prompt were read through Object.prototype (E_INVALID_SCORING from a polluted `scoring`; every tool without its own prompt got the polluted one)',
  },
  {
    name: 'Object.prototype.scoring / tuning polluted, ToolIndex.fromEntries without options',
    run: () => {
      const proto = Object.prototype as any
      proto.scoring = 'enhanced'
      proto.tuning = { k1: 'x' }
      try {
        return ToolIndex.fromEntries([{ name: 'bare', description: 'own words' }])
      } finally {
        delete proto.scoring
        delete proto.tuning
      }
    },
    clamp: 'the options left out are the defaults',
    check: (v) => expect(v.scoring).toBe('compat'),
    regression: 'ts/toolIndex.ts fromEntries read a missing options object as a plain {}, so `scoring` came from Object.prototype',
  },
  {
    // The list is copied once by index (no array method is called on it): the trap is on an element.
    name: 'tools array whose element getter throws (Proxy)',
    run: () => buildToolIndex(any(new Proxy([tool('a')], { get: (t, k) => { if (k === '0') throw new Error('trap'); return (t as any)[k] } }))),
    code: 'E_INVALID_ARG',
    regression: 'ts/index.ts planBuild: array methods are called outside readField, so a throwing Proxy trap escapes raw (Error "trap")',
  },
])
add('getToolIndex', [
  { name: 'tools null', run: async () => getToolIndex(any(null)), code: 'E_INVALID_ARG' },
  { name: 'tools [null]', run: async () => getToolIndex(any([null]), { promptTimeoutMs: 1 }), code: 'E_INVALID_ARG' },
  { name: 'options null', run: async () => getToolIndex(TOOLS, any(null)), code: 'E_INVALID_ARG' },
  { name: 'duplicate names', run: async () => getToolIndex([tool('d'), tool('d')], { coreTools: [] }), clamp: 'the first is kept, the rest reported', check: (v) => { expect(v.names()).toEqual(['d']); expect(v.skipped).toHaveLength(1) } },
  {
    name: 'after a failed build, the next call builds',
    run: async () => {
      clearToolIndexCache()
      await getToolIndex([tool('d'), tool('d')], { coreTools: [] }).catch(() => {})
      return getToolIndex([tool('d'), tool('e')], { coreTools: [] })
    },
    clamp: 'the failure is not cached',
    check: (v) => expect(v.names()).toEqual(['d', 'e']),
  },
  {
    name: 'options.coreTools getter throws',
    run: async () => getToolIndex(TOOLS, any(throwing('coreTools', {}))),
    code: 'E_INVALID_ARG',
    regression: 'ts/index.ts optionsKeyOf: option getters are read outside readField; the getter error escapes raw',
  },
])

// --- toolSearch, formatToolSearchResult, executeTool -----------------------------------------------------
const ctx = (extra: object = {}) => ({ tools: TOOLS, ...extra })
add('toolSearch', [
  { name: 'input null', run: () => toolSearch(any(null), ctx()), code: 'E_INVALID_ARG' },
  { name: 'input "q"', run: () => toolSearch(any('q'), ctx()), code: 'E_INVALID_ARG' },
  { name: 'query undefined', run: () => toolSearch(any({}), ctx()), code: 'E_INVALID_ARG' },
  { name: 'query 5', run: () => toolSearch(any({ query: 5 }), ctx()), code: 'E_INVALID_ARG' },
  { name: 'ctx null', run: () => toolSearch({ query: 'x' }, any(null)), code: 'E_INVALID_ARG' },
  { name: 'ctx.tools null', run: () => toolSearch({ query: 'x' }, any({ tools: null })), code: 'E_INVALID_ARG' },
  { name: 'ctx.tools [null]', run: () => toolSearch({ query: 'x' }, any({ tools: [null] })), code: 'E_INVALID_ARG' },
  { name: 'ctx.scoring "x"', run: () => toolSearch({ query: 'issue' }, any(ctx({ scoring: 'x' }))), code: 'E_INVALID_SCORING' },
  { name: 'max_results NaN', run: () => toolSearch({ query: 'x', max_results: NaN }, ctx()), code: 'E_INVALID_LIMIT' },
  { name: 'max_results -1', run: () => toolSearch({ query: 'x', max_results: -1 }, ctx()), code: 'E_INVALID_LIMIT' },
  { name: 'max_results "3"', run: () => toolSearch(any({ query: 'x', max_results: '3' }), ctx()), code: 'E_INVALID_LIMIT' },
  { name: 'max_results null', run: () => toolSearch(any({ query: 'create issue', max_results: null }), ctx()), clamp: 'default 5', check: (v) => expect(v.matches.length).toBeLessThanOrEqual(5) },
  { name: 'max_results 1.7', run: () => toolSearch({ query: 'create list files issue', max_results: 1.7 }, ctx()), clamp: 'truncated to 1', check: (v) => expect(v.matches.length).toBeLessThanOrEqual(1) },
  { name: 'max_results Infinity', run: () => toolSearch({ query: 'create list files issue', max_results: Infinity }, ctx()), clamp: 'all', check: (v) => expect(v.matches.length).toBeGreaterThanOrEqual(2) },
  { name: 'max_results 1e308', run: () => toolSearch({ query: 'create list files issue', max_results: 1e308 }, ctx()), clamp: 'all', check: (v) => expect(v.matches.length).toBeGreaterThanOrEqual(2) },
  { name: 'query "select:"', run: () => toolSearch({ query: 'select:' }, ctx()), clamp: 'keyword path, no error', check: (v) => expect(Array.isArray(v.matches)).toBe(true) },
  { name: 'query "select:,,,"', run: () => toolSearch({ query: 'select:,,,' }, ctx()), clamp: '[]', check: (v) => expect(v.matches).toEqual([]) },
  { name: 'query "select:__proto__,constructor,toString"', run: () => toolSearch({ query: 'select:__proto__,constructor,toString' }, ctx()), clamp: '[] (no such tools)', check: (v) => expect(v.matches).toEqual([]) },
  { name: 'query "discover:"', run: () => toolSearch({ query: 'discover:' }, ctx()), clamp: '[] with text', check: (v) => expect(v.matches).toEqual([]) },
  { name: 'query "+" / "+ +"', run: async () => [await toolSearch({ query: '+' }, ctx()), await toolSearch({ query: '+ +' }, ctx())], clamp: 'no error', check: (v) => expect(v.length).toBe(2) },
  { name: 'query of control characters', run: () => toolSearch({ query: '\u0000\u0007\u001b' }, ctx()), clamp: '[]', check: (v) => expect(v.matches).toEqual([]) },
  { name: 'query of 1 MB (few distinct words)', run: () => toolSearch({ query: longQuery(MiB, 50) }, ctx()), clamp: 'answered', check: (v) => expect(Array.isArray(v.matches)).toBe(true), timeout: 30_000 },
  { name: `query of ${LIMITS.queryLength + 1} chars`, run: () => toolSearch({ query: 'q'.repeat(LIMITS.queryLength + 1) }, ctx()), code: 'E_TOO_LARGE' },
  {
    name: `"select:" query of ${LIMITS.queryLength + 1} chars`,
    run: () => toolSearch({ query: 'select:' + 'q'.repeat(LIMITS.queryLength) }, ctx()),
    code: 'E_TOO_LARGE',
    regression: 'ts/toolSearch.ts: the select: path skips the query cap that the other paths apply (README: a query over 4 Mi is E_TOO_LARGE)',
  },
  {
    name: 'ctx.coreTools "Bash" (a string)',
    run: () => toolSearch({ query: 'select:Bash' }, any(ctx({ coreTools: 'Bash' }))),
    code: 'E_INVALID_ARG',
    regression: 'ts/toolSearch.ts: `[...ctx.coreTools]` spreads a string into characters (core = B, a, s, h) instead of rejecting it like buildToolIndex does',
  },
  {
    name: 'ctx.coreTools 5',
    run: () => toolSearch({ query: 'x' }, any(ctx({ coreTools: 5 }))),
    code: 'E_INVALID_ARG',
    regression: 'ts/toolSearch.ts: `[...ctx.coreTools]` on a non-iterable throws a raw TypeError',
  },
  { name: 'ctx.scoring getter throws', run: () => toolSearch({ query: 'x' }, any(throwing('scoring', ctx()))), code: 'E_INVALID_ARG', regression: 'ts/toolSearch.ts: `ctx.scoring` was read outside readingInput; the getter error escaped raw' },
  { name: 'ctx.buildOptions getter throws', run: () => toolSearch({ query: 'x' }, any(throwing('buildOptions', ctx()))), code: 'E_INVALID_ARG', regression: 'ts/toolSearch.ts: `ctx.buildOptions` was spread outside readingInput; the getter error escaped raw' },
  { name: 'ctx.buildOptions.tuning getter throws', run: () => toolSearch({ query: 'x' }, any(ctx({ scoring: 'enhanced', buildOptions: throwing('tuning', {}) }))), code: 'E_INVALID_ARG' },
  {
    name: 'Object.prototype.max_results / coreTools / scoring polluted',
    run: async () => {
      const proto = Object.prototype as any
      proto.max_results = 0
      proto.coreTools = ['mcp__github__create_issue']
      proto.scoring = 'fast'
      try {
        return await toolSearch({ query: 'create issue' }, { tools: TOOLS })
      } finally {
        delete proto.max_results
        delete proto.coreTools
        delete proto.scoring
      }
    },
    clamp: 'ToolSearch reads its own input and context only',
    check: (v) => expect(v.matches).toContain('mcp__github__create_issue'),
    regression: 'ts/toolSearch.ts read `input.max_results`, `ctx.coreTools` and `ctx.scoring` through Object.prototype (a polluted `max_results: 0` emptied every search)',
  },
  {
    name: 'ctx.session {} (not a ToolSearchSession)',
    run: () => toolSearch({ query: 'select:ls' }, any(ctx({ session: {} }))),
    code: 'E_INVALID_ARG',
    regression: 'ts/toolSearch.ts finish(): `ctx.session?.record(...)` on a non-session throws a raw TypeError after the search ran',
  },
])
add('formatToolSearchResult', [
  { name: 'no matches', run: () => formatToolSearchResult({ matches: [], query: 'x', total_deferred_tools: 0 }, 'id', { supportsToolReference: true }), clamp: 'text block', check: (v) => expect(typeof v.content).toBe('string') },
  { name: 'unknown names, no tools', run: () => formatToolSearchResult({ matches: ['__proto__', 'nope'], query: 'x', total_deferred_tools: 0 }, 'id', { supportsToolReference: false }), clamp: 'text naming them', check: (v) => expect(v.content).toContain('__proto__') },
  { name: 'output null', run: () => formatToolSearchResult(any(null), 'id', { supportsToolReference: true }), code: 'E_INVALID_ARG', regression: 'ts/toolSearch.ts formatToolSearchResult: no argument checks; null output throws a raw TypeError' },
  { name: 'options null', run: () => formatToolSearchResult({ matches: ['ls'], query: 'x', total_deferred_tools: 1 }, 'id', any(null)), code: 'E_INVALID_ARG', regression: 'ts/toolSearch.ts formatToolSearchResult: null options throw a raw TypeError' },
])
add('executeTool', [
  { name: 'input null', run: () => executeTool(any(null), { options: { tools: [] } }), code: 'E_INVALID_ARG' },
  { name: 'tool_name 1', run: () => executeTool(any({ tool_name: 1 }), { options: { tools: [] } }), code: 'E_INVALID_ARG' },
  { name: 'context null', run: () => executeTool({ tool_name: 'x' }, any(null)), code: 'E_INVALID_ARG' },
  { name: 'context.options.tools "x"', run: () => executeTool({ tool_name: 'x' }, any({ options: { tools: 'x' } })), code: 'E_INVALID_ARG' },
  { name: 'tools [null] and unknown name', run: () => executeTool({ tool_name: 'zz' }, any({ options: { tools: [null] } })), clamp: 'refused: not_found', check: (v) => expect(v.refused).toBe('not_found') },
  { name: 'tool_name ""', run: () => executeTool({ tool_name: '' }, { options: { tools: [] } }), clamp: 'refused: not_found', check: (v) => expect(v.refused).toBe('not_found') },
  {
    name: 'options null',
    run: () => executeTool({ tool_name: 'a' }, { options: { tools: [any({ name: 'a', call: () => 1 })] } }, undefined, undefined, undefined, any(null)),
    code: 'E_INVALID_ARG',
    regression: 'ts/executeTool.ts: `options.requireDiscovered` on null options throws a raw TypeError (the default applies only to undefined)',
  },
])

// --- the raw binding (`/native`): plain Errors, never a crash ----------------------------------------------
add('native binding', [
  { name: 'tokenize(null)', run: () => nativeBinding.tokenize(any(null)), nativeCode: 'StringExpected' },
  { name: 'new ToolIndex(null)', run: () => new nativeBinding.ToolIndex(any(null)), nativeCode: 'ArrayExpected' },
  { name: 'new ToolIndex(dup)', run: () => new nativeBinding.ToolIndex([{ name: 'a' }, { name: 'a' }]), nativeCode: 'E_DUPLICATE_NAME' },
  { name: 'new ToolIndex(scoring x)', run: () => new nativeBinding.ToolIndex([{ name: 'a' }], any({ scoring: 'x' })), nativeCode: 'E_INVALID_SCORING' },
  { name: 'new ToolIndex(minScore NaN)', run: () => new nativeBinding.ToolIndex([{ name: 'a' }], { minScore: NaN }), nativeCode: 'E_INVALID_NUMBER' },
  { name: 'searchIds(limit NaN)', run: () => new nativeBinding.ToolIndex([{ name: 'a' }]).searchIds('a', NaN, 0.1), nativeCode: 'E_INVALID_LIMIT' },
  { name: 'search(minScore Infinity)', run: () => new nativeBinding.ToolIndex([{ name: 'a' }]).search('a', 5, Infinity), nativeCode: 'E_INVALID_NUMBER' },
  { name: 'entryTerms(4294967295)', run: () => new nativeBinding.ToolIndex([{ name: 'a' }]).entryTerms(4294967295), clamp: 'null', check: (v) => expect(v).toBeNull() },
  { name: 'entryTerms(-1)', run: () => new nativeBinding.ToolIndex([{ name: 'a' }]).entryTerms(-1), clamp: 'null or an Error, no crash', check: () => {} },
  { name: 'parallelThreshold 0', run: () => new nativeBinding.ToolIndex([{ name: 'a', description: 'x' }, { name: 'b' }], { parallelThreshold: 0 }).search('x', 5), clamp: 'accepted', check: (v) => expect(Array.isArray(v)).toBe(true) },
])

// -------------------------------------------------------------------------------------------
async function outcome(run: () => unknown): Promise<{ value?: unknown; error?: unknown; threw: boolean }> {
  try {
    return { value: await run(), threw: false }
  } catch (error) {
    return { error, threw: true }
  }
}

describe('bad input', () => {
  for (const c of cases) {
    const label = `${c.name} → ${c.code ?? c.nativeCode ?? `clamp: ${c.clamp}`}`
    const body = async () => {
      const o = await outcome(c.run)
      if (c.code) {
        if (!o.threw) throw new Error(`expected ${c.code}, got a value: ${String(o.value).slice(0, 80)}`)
        expect(o.error).toBeInstanceOf(ToolIndexError)
        expect((o.error as ToolIndexError).code).toBe(c.code)
      } else if (c.nativeCode) {
        expect(o.threw).toBe(true)
        expect(o.error).toBeInstanceOf(Error)
        expect((o.error as { code?: string }).code).toBe(c.nativeCode)
      } else {
        if (o.threw && c.clamp !== 'null or an Error, no crash') throw o.error
        c.check?.(o.value)
      }
    }
    test(c.regression ? `${label} [regression]` : label, body, c.timeout ?? 20_000)
  }

  test('CORE_TOOLS is read-only → TypeError (documented), unchanged', () => {
    expect(() => (CORE_TOOLS as Set<string>).add('x')).toThrow(TypeError)
    expect(() => (CORE_TOOLS as Set<string>).delete('Bash')).toThrow(TypeError)
    // With the package's stable code [regression: no code].
    for (const change of [() => (CORE_TOOLS as Set<string>).add('x'), () => (CORE_TOOLS as Set<string>).delete('Bash'), () => (CORE_TOOLS as Set<string>).clear()]) {
      expect(change).toThrow(expect.objectContaining({ code: 'E_READ_ONLY' }))
    }
    expect(CORE_TOOLS.has('Bash')).toBe(true)
    expect(CORE_TOOLS.has('x')).toBe(false)
  })

  test('Object.prototype is never polluted by any case', () => {
    for (const k of ['special', 'polluted', 'description', 'name', 'x']) expect(Object.prototype.hasOwnProperty.call(Object.prototype, k)).toBe(false)
    expect(({} as any).name).toBeUndefined()
  })

  test('case count', () => {
    const regressions = cases.filter((c) => c.regression).length
    console.log(`bad-input cases: ${cases.length + 1} (${regressions} of them found bugs, since fixed)`)
    if (process.env.BAD_INPUT_TABLE === '1') {
      const rows = [...cases, { name: 'CORE_TOOLS: add()/delete()', clamp: 'TypeError (read-only)' } as Case]
      console.log(['| case | expected |', '|---|---|', ...rows.map((c) => `| ${c.name.replace(/\|/g, '\\|')} | ${c.code ? `\`${c.code}\`` : c.nativeCode ? `Error code \`${c.nativeCode}\` (raw binding)` : c.clamp}${c.regression ? ' (found a bug, fixed)' : ''} |`)].join('\n'))
    }
    expect(cases.length).toBeGreaterThan(100)
  })
})
