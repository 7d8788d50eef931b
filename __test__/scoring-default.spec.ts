// The drop-in functions stay on the reference's compat scoring unless the host opts in, by
// option or by TOOL_INDEX_SCORING / SEARCH_EXTRA_TOOLS_SCORING.
import { afterEach, describe, expect, test } from 'bun:test'
import { CROWD_ABSTAIN, LOW_CONFIDENCE, ToolIndex, ToolIndexCache, buildToolIndex, clearToolIndexCache, dropInScoring, getToolIndex, searchTools, toolSearch, type Scoring } from '../dist/index.js'
import * as ccb from '../dist/ccb-dropin.js'

const tools = [
  { name: 'mcp__files__rename_file', description: 'Rename a file', isMcp: true },
  { name: 'mcp__files__list_directory', description: 'List the entries of a directory', isMcp: true },
]
const VARS = ['TOOL_INDEX_SCORING', 'SEARCH_EXTRA_TOOLS_SCORING']
const ABSTAIN_VARS = ['TOOL_INDEX_ABSTAIN', 'SEARCH_EXTRA_TOOLS_ABSTAIN']

afterEach(() => {
  for (const v of [...VARS, ...ABSTAIN_VARS]) delete process.env[v]
  clearToolIndexCache()
})

describe('drop-in scoring', () => {
  test('compat unless opted in', async () => {
    expect(dropInScoring()).toBe('compat')
    expect((await buildToolIndex(tools)).scoring).toBe('compat')
    expect((await getToolIndex(tools)).scoring).toBe('compat')
    expect((await ccb.getToolIndex(tools)).scoring).toBe('compat')
  })
  test('the option opts in', async () => {
    expect((await buildToolIndex(tools, { scoring: 'enhanced' })).scoring).toBe('enhanced')
    expect((await getToolIndex(tools, { scoring: 'enhanced' })).scoring).toBe('enhanced')
  })
  for (const v of VARS) {
    test(`${v}=enhanced opts in; the option still wins`, async () => {
      process.env[v] = 'enhanced'
      expect(dropInScoring()).toBe('enhanced')
      expect((await buildToolIndex(tools)).scoring).toBe('enhanced')
      expect((await ccb.getToolIndex(tools)).scoring).toBe('enhanced')
      expect((await buildToolIndex(tools, { scoring: 'compat' })).scoring).toBe('compat')
      expect(searchTools('rename a file', await buildToolIndex(tools), 3)[0]?.name).toBe('mcp__files__rename_file')
    })
  }
  test('other values keep compat', async () => {
    process.env.TOOL_INDEX_SCORING = 'bm25'
    expect(dropInScoring()).toBe('compat')
    expect((await buildToolIndex(tools)).scoring).toBe('compat')
  })
  // The scoring toolSearch asks its index cache for: [variable, value, ctx.scoring, wanted].
  const SEARCH_CASES: [string | undefined, string, Scoring | undefined, Scoring][] = [
    [undefined, '', undefined, 'compat'],
    ['TOOL_INDEX_SCORING', 'enhanced', undefined, 'enhanced'],
    ['SEARCH_EXTRA_TOOLS_SCORING', ' Enhanced ', undefined, 'enhanced'],
    ['TOOL_INDEX_SCORING', 'compat', undefined, 'compat'],
    ['TOOL_INDEX_SCORING', 'bm25', undefined, 'compat'],
    ['TOOL_INDEX_SCORING', 'enhanced', 'compat', 'compat'],
    ['TOOL_INDEX_SCORING', 'compat', 'enhanced', 'enhanced'],
  ]
  for (const [name, value, given, want] of SEARCH_CASES) {
    test(`toolSearch with ${name ?? 'no variable'}${name ? `=${JSON.stringify(value)}` : ''} and ctx.scoring ${given ?? 'left out'}: ${want}`, async () => {
      if (name) process.env[name] = value
      const asked: unknown[] = []
      class Spy extends ToolIndexCache {
        override get(list: Parameters<ToolIndexCache['get']>[0], options: Parameters<ToolIndexCache['get']>[1] = {}) {
          asked.push(options.scoring)
          return super.get(list, options)
        }
      }
      const out = await toolSearch({ query: 'rename a file' }, { tools, cache: new Spy(), ...(given ? { scoring: given } : {}) })
      expect(asked).toEqual([want])
      expect(out.matches[0]).toBe('mcp__files__rename_file')
    })
  }
  test('the variable, read at each call, switches toolSearch and the drop-in together', async () => {
    const cache = new ToolIndexCache()
    // A CamelCase request: the reference's TF-IDF finds nothing for it, the enhanced ranking
    // splits it into its words.
    const query = 'RenameFile'
    const compat = await toolSearch({ query }, { tools, cache })
    process.env.SEARCH_EXTRA_TOOLS_SCORING = 'enhanced'
    const enhanced = await toolSearch({ query }, { tools, cache })
    expect(enhanced.matches[0]).toBe('mcp__files__rename_file')
    expect(searchTools(query, await ccb.getToolIndex(tools), 3)[0]?.name).toBe('mcp__files__rename_file')
    expect(compat.matches).not.toEqual(enhanced.matches)
  })
  test('the documented low-confidence cut is a confidence', () => {
    expect(LOW_CONFIDENCE).toBeGreaterThan(0)
    expect(LOW_CONFIDENCE).toBeLessThan(1)
  })
})

describe('the crowd rule (opt-in)', () => {
  // 40 look-alike tools (a crowd), a few distinct ones, and 200 that share no word with them.
  const crowd = [
    ...Array.from({ length: 40 }, (_, i) => ({ name: `widget_tool_${i}`, description: `Manage widget number ${i}: list, count and archive widgets` })),
    { name: 'mcp__files__rename_file', description: 'Rename a file' },
    { name: 'PdfParse', description: 'Parse PDF files and extract their text' },
    ...Array.from({ length: 200 }, (_, i) => ({ name: `filler_${i}`, description: `Handle item${i} records in store${i % 7}` })),
  ]
  const on = ToolIndex.fromEntries(crowd, { scoring: 'enhanced', tuning: { ...CROWD_ABSTAIN } })
  const off = ToolIndex.fromEntries(crowd, { scoring: 'enhanced' })
  // A crowd whose best tool matches little of the request (unknown words), and one whose best
  // matches all of it.
  const LITTLE = 'count the widgets in the lunar greenhouse ledger'
  const ALL = 'count the widgets please'
  const cases: [string, boolean][] = [
    [LITTLE, true],
    [ALL, false],
    ['widget_tool_7', false],
    ['parse a pdf', false],
    ['rename a file', false],
  ]
  for (const [q, abstains] of cases) {
    test(`${JSON.stringify(q)}: ${abstains ? 'nothing' : 'the same results as without the rule'}`, () => {
      expect(off.search(q, 5).length).toBeGreaterThan(0)
      if (abstains) expect(on.search(q, 5)).toEqual([])
      else expect(on.search(q, 5)).toEqual(off.search(q, 5))
    })
  }
  // [variable, value, answered with nothing]
  const ENV_CASES: [string, string, boolean][] = [
    ['TOOL_INDEX_ABSTAIN', 'crowd', true],
    ['TOOL_INDEX_ABSTAIN', ' CROWD ', true],
    ['SEARCH_EXTRA_TOOLS_ABSTAIN', 'crowd', true],
    ['TOOL_INDEX_ABSTAIN', 'on', false],
    ['TOOL_INDEX_ABSTAIN', '', false],
  ]
  for (const [name, value, empty] of ENV_CASES) {
    test(`${name}=${JSON.stringify(value)}: ${empty ? 'the rule' : 'no rule'}`, async () => {
      process.env[name] = value
      const idx = await buildToolIndex(crowd, { scoring: 'enhanced' })
      expect(searchTools(LITTLE, idx, 3).length === 0).toBe(empty)
      // A name is never abstained on; explicit tuning wins over the variable.
      expect(searchTools('widget_tool_7', idx, 3)[0]?.name).toBe('widget_tool_7')
      const own = await buildToolIndex(crowd, { scoring: 'enhanced', tuning: { crowdGap: 0 } })
      expect(searchTools(LITTLE, own, 3).length).toBeGreaterThan(0)
    })
  }
  test('an explicit tuning without the crowd fields keeps the rule the variable set (only the fields given win)', async () => {
    process.env.TOOL_INDEX_ABSTAIN = 'crowd'
    for (const tuning of [{}, { typoWeight: 0.5 }, { crowdGap: undefined }]) {
      const idx = await buildToolIndex(crowd, { scoring: 'enhanced', tuning })
      expect(searchTools(LITTLE, idx, 3)).toEqual([])
      expect(ToolIndex.fromEntries(crowd.map((t) => ({ name: t.name, description: t.description })), { scoring: 'enhanced', tuning }).search(LITTLE, 3)).toEqual([])
    }
  })
  test('a tuning object that throws while the variable is set is a coded error', async () => {
    process.env.TOOL_INDEX_ABSTAIN = 'crowd'
    // Each field is read once through its descriptor: a trap that throws there is the hostile case.
    const hostile = new Proxy({}, { getOwnPropertyDescriptor: () => { throw new Error('no fields') } })
    await expect(buildToolIndex(crowd, { scoring: 'enhanced', tuning: hostile })).rejects.toMatchObject({ code: 'E_INVALID_ARG' })
  })
  test('the values are the documented ones, read-only, off by default', () => {
    expect(CROWD_ABSTAIN).toEqual({ crowdGap: 0.195, crowdWeight: 1, crowdConfidence: 0.4, crowdCoverage: 0.45 })
    expect(Object.isFrozen(CROWD_ABSTAIN)).toBe(true)
    expect(ToolIndex.fromEntries(crowd, { scoring: 'enhanced', tuning: { crowdGap: 0 } }).search(LITTLE, 5).length).toBeGreaterThan(0)
  })
  test('crowdCoverage above 1 answers any crowd with nothing, whatever its best tool matches', () => {
    const blind = ToolIndex.fromEntries(crowd, { scoring: 'enhanced', tuning: { ...CROWD_ABSTAIN, crowdCoverage: 1.5 } })
    expect(blind.search(ALL, 5)).toEqual([])
    expect(blind.search(LITTLE, 5)).toEqual([])
    expect(on.search(ALL, 5)).toEqual(off.search(ALL, 5))
    // The cut reads the best tool's coverage as explain gives it.
    const best = off.search(LITTLE, 1)[0]
    expect(off.explain(LITTLE, best.name)?.coverage).toBeLessThan(CROWD_ABSTAIN.crowdCoverage)
    expect(off.explain(ALL, off.search(ALL, 1)[0].name)?.coverage).toBeGreaterThanOrEqual(CROWD_ABSTAIN.crowdCoverage)
  })
})


describe('explain and the display threshold', () => {
  const entries = [
    { name: 'slack__send_message', description: 'Send a message to a Slack channel' },
    { name: 'gh__create_issue', description: 'Create an issue in a GitHub repository' },
    { name: 'mail__send', description: 'Send an email message' },
  ]
  const saved = { display: process.env.TOOL_SEARCH_DISPLAY_MIN_SCORE, enhanced: process.env.TOOL_SEARCH_ENHANCED_MIN_SCORE }
  afterEach(() => {
    for (const [k, v] of [
      ['TOOL_SEARCH_DISPLAY_MIN_SCORE', saved.display],
      ['TOOL_SEARCH_ENHANCED_MIN_SCORE', saved.enhanced],
    ] as const) {
      if (v === undefined) delete process.env[k]
      else process.env[k] = v
    }
  })
  for (const scoring of ['compat', 'enhanced'] as const) {
    test(`${scoring}: explain gives a tool search leaves out score 0 and a note, under the threshold search uses [regression: the environment's threshold was ignored]`, () => {
      const index = ToolIndex.fromEntries(entries, { scoring })
      const query = 'send a message to the team'
      for (const [display, enhanced] of [
        [undefined, undefined],
        ['0.5', '0.7'],
        ['0.9', '0.95'],
      ]) {
        if (display === undefined) delete process.env.TOOL_SEARCH_DISPLAY_MIN_SCORE
        else process.env.TOOL_SEARCH_DISPLAY_MIN_SCORE = display
        if (enhanced === undefined) delete process.env.TOOL_SEARCH_ENHANCED_MIN_SCORE
        else process.env.TOOL_SEARCH_ENHANCED_MIN_SCORE = enhanced
        const results = new Map(index.search(query, 10).map((r) => [r.name, r.score]))
        for (const { name } of entries) {
          const e = index.explain(query, name)!
          const shown = results.get(name)
          if (shown === undefined) {
            expect([display, name, e.score]).toEqual([display, name, 0])
          } else {
            expect([display, name, e.score, e.note]).toEqual([display, name, shown, undefined])
          }
        }
      }
    })
  }
})
