/** The drop-in API through the package root: behaviour of every export. */
import { afterEach, describe, expect, test } from 'bun:test'
import { createRequire } from 'node:module'
import { z } from 'zod'
import {
  CORE_TOOLS,
  LIMITS,
  ToolIndex,
  ToolIndexError,
  buildToolIndex,
  clearToolIndexCache,
  getToolIndex,
  isDeferredTool,
  parseToolName,
  searchTools,
  tokenize,
  tokenizeAndStem,
  type ToolLike,
} from '../dist/index.js'

const tool = (name: string, description: string, extra: Partial<ToolLike> = {}): ToolLike => ({
  name,
  prompt: async () => description,
  ...extra,
})

const TOOLS: ToolLike[] = [
  tool('Read', 'Read a file from disk'),
  tool('Bash', 'Run a shell command'),
  tool('CronCreate', 'Schedule a prompt to run on a cron schedule', { searchHint: 'schedule a recurring or one-shot prompt' }),
  tool('CronDelete', 'Cancel a scheduled cron job', { searchHint: 'cancel a scheduled job' }),
  tool('mcp__github__create_issue', 'Create a new issue in a GitHub repository', {
    inputJSONSchema: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] },
  }),
  tool('mcp__slack__slack_post_message', 'Post a message to a Slack channel'),
  tool('PdfParse', '解析PDF文件并提取其中的文本', { searchHint: '解析 pdf 文件' }),
]

function names(results: { name: string }[]): string[] {
  return results.map((r) => r.name)
}

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn()
  } catch (e) {
    expect(e).toBeInstanceOf(ToolIndexError)
    return (e as ToolIndexError).code
  }
  return undefined
}

async function asyncCodeOf(fn: () => Promise<unknown>): Promise<string | undefined> {
  try {
    await fn()
  } catch (e) {
    expect(e).toBeInstanceOf(ToolIndexError)
    return (e as ToolIndexError).code
  }
  return undefined
}

afterEach(() => {
  delete process.env.TOOL_SEARCH_DISPLAY_MIN_SCORE
  delete process.env.TOOL_SEARCH_EXCLUDE
  delete process.env.TOOL_SEARCH_INCLUDE_FORCE
  clearToolIndexCache()
})

describe('CORE_TOOLS and isDeferredTool', () => {
  test('the 31 core names of SPEC §1, read-only', () => {
    expect(CORE_TOOLS.size).toBe(31)
    for (const n of ['Bash', 'Read', 'ToolSearch', 'ExecuteTool', 'SyntheticOutput', 'TeamCreate', 'LSP']) expect(CORE_TOOLS.has(n)).toBe(true)
    expect(CORE_TOOLS.has('CronCreate')).toBe(false)
    expect(() => (CORE_TOOLS as Set<string>).add('X')).toThrow(TypeError)
    expect(() => (CORE_TOOLS as Set<string>).delete('Read')).toThrow(TypeError)
    expect(CORE_TOOLS.has('Read')).toBe(true)
  })

  test.each([
    [{ name: 'Read' }, false],
    [{ name: 'CronCreate' }, true],
    [{ name: 'CronCreate', alwaysLoad: true }, false],
    [{ name: 'mcp__github__create_issue' }, true],
    [{ name: 'mcp__github__create_issue', alwaysLoad: true }, false],
    [{ name: 'Read', alwaysLoad: false }, false],
  ])('isDeferredTool(%o) is %p', (t, want) => {
    expect(isDeferredTool(t)).toBe(want)
  })

  test('a replaced core set', () => {
    expect(isDeferredTool({ name: 'Read' }, { coreTools: ['SearchExtraTools'] })).toBe(true)
    expect(isDeferredTool({ name: 'SearchExtraTools' }, { coreTools: new Set(['SearchExtraTools']) })).toBe(false)
    expect(isDeferredTool({ name: 'Bash' }, { coreTools: [] })).toBe(true)
  })

  test('bad input', () => {
    expect(codeOf(() => isDeferredTool(null as never))).toBe('E_INVALID_ARG')
    expect(codeOf(() => isDeferredTool({ name: 42 } as never))).toBe('E_INVALID_ARG')
  })
})

describe('parseToolName / tokenize', () => {
  test.each([
    ['mcp__github__create_issue', ['github', 'create', 'issue'], 'github create issue', true],
    ['NotebookEditTool', ['notebook', 'edit', 'tool'], 'notebook edit tool', false],
    ['HTTPServer', ['httpserver'], 'httpserver', false],
    ['MongoDBDatabase', ['mongo', 'dbdatabase'], 'mongo dbdatabase', false],
  ])('%s', (name, parts, full, isMcp) => {
    expect(parseToolName(name)).toEqual({ parts, full, isMcp })
  })

  test('tokenizer keeps CJK bigrams and compat quirks', () => {
    expect(tokenize('解析pdf文件')).toEqual(['解析', 'pdf', '文件'])
    expect(tokenize('Create the create_issue tool')).toEqual(['create', 'create_issue', 'tool'])
    expect(tokenizeAndStem('running servers quickly')).toEqual(['runn', 'server', 'quick'])
    expect(codeOf(() => tokenize(undefined as never))).toBe('E_INVALID_ARG')
  })
})

describe('buildToolIndex', () => {
  test('indexes deferred tools only, with the reference fields', async () => {
    const index = await buildToolIndex(TOOLS)
    expect(index.length).toBe(5)
    expect(index.names()).toEqual(['CronCreate', 'CronDelete', 'mcp__github__create_issue', 'mcp__slack__slack_post_message', 'PdfParse'])
    const e = index.get('mcp__github__create_issue')!
    expect(e.normalizedName).toBe('github create issue')
    expect(e.isMcp).toBe(true)
    expect(e.isDeferred).toBe(true)
    expect(e.inputSchema).toEqual({ type: 'object', properties: { title: { type: 'string' } }, required: ['title'] })
    expect(e.tokens.slice(0, 3)).toEqual(['github', 'create', 'issue'])
    expect(e.tfVector).toBeInstanceOf(Map)
    expect([...e.tfVector.keys()]).toEqual(e.tokens)
    const entries = [...index]
    expect(entries.map((x) => x.name)).toEqual(index.names())
    expect(index.at(-1)!.name).toBe('PdfParse')
    expect(index.map((x) => x.name).length).toBe(5)
    expect(index.find((x) => x.name === 'CronDelete')!.searchHint).toBe('cancel a scheduled job')
  })

  test('options.coreTools replaces the core set; [] indexes everything', async () => {
    expect((await buildToolIndex(TOOLS, { coreTools: [] })).length).toBe(TOOLS.length)
    expect((await buildToolIndex(TOOLS, { coreTools: ['CronCreate'] })).has('Read')).toBe(true)
  })

  test('env knobs: TOOL_SEARCH_EXCLUDE and TOOL_SEARCH_INCLUDE_FORCE', async () => {
    process.env.TOOL_SEARCH_EXCLUDE = 'CronDelete, PdfParse'
    process.env.TOOL_SEARCH_INCLUDE_FORCE = 'Read'
    const index = await buildToolIndex(TOOLS)
    expect(index.names().sort()).toEqual(['CronCreate', 'Read', 'mcp__github__create_issue', 'mcp__slack__slack_post_message'])
  })

  test('a throwing, non-string or never-settling prompt() gives ""', async () => {
    const index = await buildToolIndex(
      [
        { name: 'Throws', prompt: async () => { throw new Error('boom') } },
        { name: 'SyncThrows', prompt: () => { throw new Error('boom') } },
        { name: 'NotAString', prompt: async () => 42 as never },
        { name: 'Never', prompt: () => new Promise<string>(() => {}) },
        { name: 'Fine', prompt: async () => 'fine description' },
        { name: 'DescOnly', description: 'described without a prompt' },
      ],
      { promptTimeoutMs: 50 },
    )
    expect(index.length).toBe(6)
    for (const n of ['Throws', 'SyncThrows', 'NotAString', 'Never']) expect(index.get(n)!.description).toBe('')
    expect(index.get('Fine')!.description).toBe('fine description')
    expect(index.get('DescOnly')!.description).toBe('described without a prompt')
  })

  test('the JSON Schema of a zod inputSchema', async () => {
    const index = await buildToolIndex([
      { name: 'Zod', prompt: async () => 'x', inputSchema: z.object({ path: z.string(), limit: z.number().optional() }) },
    ])
    const schema = index.get('Zod')!.inputSchema as { type: string; properties: Record<string, unknown>; required: string[] }
    expect(schema.type).toBe('object')
    expect(Object.keys(schema.properties)).toEqual(['path', 'limit'])
    expect(schema.required).toEqual(['path'])
  })

  test('duplicate names throw E_DUPLICATE_NAME', async () => {
    // The drop-in build keeps the first tool of a name and reports the rest (ccb never throws here).
    const built = await buildToolIndex([tool('A', 'x'), tool('A', 'y')])
    expect(built.names()).toEqual(['A'])
    expect(built.skipped).toEqual([{ index: 1, name: 'A', reason: 'duplicate_name' }])
    expect(codeOf(() => ToolIndex.fromEntries([{ name: 'A' }, { name: 'A' }]))).toBe('E_DUPLICATE_NAME')
  })

  test('bad input gets a coded error', async () => {
    expect(await asyncCodeOf(() => buildToolIndex(null as never))).toBe('E_INVALID_ARG')
    expect(await asyncCodeOf(() => buildToolIndex([null as never]))).toBe('E_INVALID_ARG')
    expect(await asyncCodeOf(() => buildToolIndex([{ name: 7 } as never]))).toBe('E_INVALID_ARG')
    expect((await buildToolIndex([{ name: '' }])).skipped).toEqual([{ index: 0, name: '', reason: 'empty_name' }])
    expect(await asyncCodeOf(() => buildToolIndex(TOOLS, { scoring: 'bm25' as never }))).toBe('E_INVALID_SCORING')
    expect(await asyncCodeOf(() => buildToolIndex(TOOLS, { promptTimeoutMs: -1 }))).toBe('E_INVALID_NUMBER')
    const throwingGetter = { get name(): string { throw new Error('getter') } }
    expect(await asyncCodeOf(() => buildToolIndex([throwingGetter as never]))).toBe('E_INVALID_ARG')
    expect(codeOf(() => ToolIndex.fromEntries([{ name: 'A', description: 5 as never }]))).toBe('E_INVALID_ARG')
    expect(codeOf(() => ToolIndex.fromEntries([{ name: 'x'.repeat(LIMITS.nameLength + 1) }]))).toBe('E_TOO_LARGE')
  })

  test('an empty catalog builds an empty index that finds nothing', async () => {
    const index = await buildToolIndex([])
    expect(index.length).toBe(0)
    expect(searchTools('anything', index)).toEqual([])
  })
})

describe('searchTools', () => {
  test('ranks by TF-IDF with the reference result shape', async () => {
    const index = await buildToolIndex(TOOLS)
    const results = searchTools('schedule a recurring prompt', index)
    expect(results[0].name).toBe('CronCreate')
    expect(Object.keys(results[0]).sort()).toEqual(['description', 'inputSchema', 'isDeferred', 'isMcp', 'name', 'score', 'searchHint'])
    for (let i = 1; i < results.length; i++) expect(results[i - 1].score).toBeGreaterThanOrEqual(results[i].score)
    expect(results.every((r) => r.score >= 0.1 && r.score <= 1)).toBe(true)
  })

  test('CJK query matches Chinese text; one shared bigram is not enough', async () => {
    const index = await buildToolIndex(TOOLS)
    expect(names(searchTools('解析pdf文件', index))).toEqual(['PdfParse'])
    expect(names(searchTools('提取文本内容', index))).toEqual(['PdfParse'])
    expect(searchTools('文本', index)).toEqual([])
  })

  test('the name boost: a query containing a normalized name scores 0.75 at least', async () => {
    const index = await buildToolIndex(TOOLS)
    const r = searchTools('please github create issue now', index)
    expect(r[0].name).toBe('mcp__github__create_issue')
    expect(r[0].score).toBeGreaterThanOrEqual(0.75)
  })

  test('empty, blank, stop-word-only and unknown queries give []', async () => {
    const index = await buildToolIndex(TOOLS)
    for (const q of ['', '   ', 'the of and', 'zzzzqqq']) expect(searchTools(q, index)).toEqual([])
  })

  test('limits: default 5, fractions truncate, Infinity is all, bad ones throw E_INVALID_LIMIT', async () => {
    const index = ToolIndex.fromEntries([
      ...Array.from({ length: 20 }, (_, i) => ({ name: `mcp__s__tool${i}`, description: 'send a message' })),
      { name: 'Other', description: 'unrelated' },
    ])
    process.env.TOOL_SEARCH_DISPLAY_MIN_SCORE = '0.000001' // 20 near-identical tools score low
    expect(searchTools('send message', index).length).toBe(5)
    expect(searchTools('send message', index, 2.9).length).toBe(2)
    expect(searchTools('send message', index, 0).length).toBe(0)
    expect(searchTools('send message', index, Infinity).length).toBe(20)
    // ties stay in index order
    expect(names(searchTools('send message', index, 3))).toEqual(['mcp__s__tool0', 'mcp__s__tool1', 'mcp__s__tool2'])
    for (const bad of [NaN, -1, '3', null]) {
      expect(codeOf(() => searchTools('send', index, bad as never))).toBe('E_INVALID_LIMIT')
    }
    expect(codeOf(() => searchTools(42 as never, index))).toBe('E_INVALID_ARG')
    expect(codeOf(() => searchTools('x', {} as never))).toBe('E_INVALID_ARG')
  })

  test('TOOL_SEARCH_DISPLAY_MIN_SCORE is read at search time', async () => {
    const index = await buildToolIndex(TOOLS)
    const all = searchTools('schedule a job', index, 10)
    process.env.TOOL_SEARCH_DISPLAY_MIN_SCORE = '0.99'
    expect(searchTools('schedule a job', index, 10).length).toBeLessThan(all.length)
    process.env.TOOL_SEARCH_DISPLAY_MIN_SCORE = 'not a number'
    expect(searchTools('schedule a job', index, 10)).toEqual(all)
  })

  test('a reference-shaped entry array is accepted', async () => {
    const index = await buildToolIndex(TOOLS)
    const arr = index.toArray()
    expect(names(searchTools('slack message', arr))).toEqual(names(searchTools('slack message', index)))
  })

  test('strings round-trip unchanged: lone surrogates, astral characters, __proto__', () => {
    const odd = ['mcp__x__bad\uD800name', 'emoji😀tool', '__proto__', 'constructor', 'toString']
    const index = ToolIndex.fromEntries([...odd.map((name) => ({ name, description: `odd tool ${name} helper` })), { name: 'Other', description: 'unrelated' }])
    process.env.TOOL_SEARCH_DISPLAY_MIN_SCORE = '0.000001'
    const r = index.search('odd tool helper', 10)
    expect(names(r).sort()).toEqual([...odd].sort())
    expect(index.get('__proto__')!.name).toBe('__proto__')
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })

  test('strings of every length around the native reader\'s 4 KiB buffer come back whole', () => {
    // The binding reads a string in one call when it fits 4,096 bytes and in two otherwise;
    // a character of 1 to 4 UTF-8 bytes (or a lone surrogate, 3 bytes as U+FFFD) ends each.
    const binding = createRequire(import.meta.url)('../index.js') as typeof import('../index')
    const tails = ['a', 'é', '中', '😀', '\uD800']
    const entries: { name: string; description: string; searchHint: string }[] = []
    for (let bytes = 4_085; bytes <= 4_100; bytes++) {
      for (const [t, tail] of tails.entries()) {
        const size = tail === '\uD800' ? 3 : Buffer.byteLength(tail)
        const head = `t${bytes}x${t}_`
        const word = `endword${bytes}x${t}`
        entries.push({
          name: head + 'n'.repeat(bytes - head.length - size) + tail,
          description: `${'d'.repeat(bytes - word.length - 2 - size)} ${word} ${tail}`,
          searchHint: `${word} ${tail}`.padStart(bytes - size + word.length + 1, 'h'),
        })
      }
    }
    const index = new binding.ToolIndex(entries)
    const fixed = (s: string) => s.replace(/\uD800/g, '\uFFFD')
    expect(index.names()).toEqual(entries.map((e) => fixed(e.name)))
    expect(entries.map((e) => Buffer.byteLength(fixed(e.name)))).toContain(4_096)
    index.ids().forEach((id, i) => {
      const e = entries[i]
      const full = binding.parseToolName(fixed(e.name)).full
      // The tokens the index holds are those of the three texts as JavaScript has them.
      const tokens = [full, e.searchHint, e.description].flatMap((text) => binding.tokenizeAndStem(fixed(text)))
      expect(index.entryTerms(id)!.tokens).toEqual([...new Set(tokens)])
      expect(index.normalizedName(id)).toBe(full)
    })
  })

  test('multi-megabyte descriptions index and search; over the cap is E_TOO_LARGE', () => {
    const big = `${'lorem ipsum dolor '.repeat(200_000)} unicorn`
    const index = ToolIndex.fromEntries([{ name: 'Big', description: big }, { name: 'Small', description: 'tiny tool' }])
    expect(names(index.search('big unicorn'))).toEqual(['Big'])
    expect(codeOf(() => index.search('q'.repeat(LIMITS.queryLength + 1)))).toBe('E_TOO_LARGE')
  })
})

describe('getToolIndex', () => {
  test('same object while the names hold; incremental update equals a fresh build', async () => {
    const a = await getToolIndex(TOOLS)
    const b = await getToolIndex([...TOOLS].reverse())
    expect(b).toBe(a)
    const more = [...TOOLS, tool('mcp__jira__create_ticket', 'Create a Jira ticket for an issue')]
    const c = await getToolIndex(more)
    expect(c).not.toBe(a)
    const fresh = await buildToolIndex(more)
    for (const q of ['create issue', 'cron', 'ticket for an issue', '解析pdf']) {
      expect(searchTools(q, c, 10)).toEqual(searchTools(q, fresh, 10))
    }
    const fewer = more.filter((t) => !t.name.startsWith('mcp__github'))
    const d = await getToolIndex(fewer)
    expect(d.has('mcp__github__create_issue')).toBe(false)
    const fresh2 = await buildToolIndex(fewer)
    for (const q of ['create issue', 'slack', 'ticket']) expect(searchTools(q, d, 10)).toEqual(searchTools(q, fresh2, 10))
  })

  test('concurrent calls share one build; clearToolIndexCache forces a new object', async () => {
    const [a, b] = await Promise.all([getToolIndex(TOOLS), getToolIndex(TOOLS)])
    expect(a).toBe(b)
    clearToolIndexCache()
    expect(await getToolIndex(TOOLS)).not.toBe(a)
  })
})
