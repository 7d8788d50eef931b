/**
 * examples/ccb/*: claude-code-best's SearchExtraTools and ExecuteExtraTool as ccb would keep
 * them, run against stand-ins of the ccb modules they import (standin/src, mapped by this
 * folder's tsconfig). The behaviours are those ccb's own tool tests check, plus the package's
 * stricter rules.
 */
import { afterEach, beforeEach, describe, expect, mock, test } from 'bun:test'
import { z } from 'zod/v4'
import { ExecuteExtraTool, ExecuteTool } from '../../examples/ccb/ExecuteExtraTool'
import { clearSearchExtraToolsDescriptionCache, SearchExtraToolsTool } from '../../examples/ccb/SearchExtraToolsTool'
import * as searchSchemas from '../../examples/ccb/SearchExtraToolsTool'
import * as executeSchemas from '../../examples/ccb/ExecuteExtraTool'
import { CCB_CORE_TOOLS, extractDiscoveredToolNames } from '@ccb/tool-index-native'

const allow = async () => ({ behavior: 'allow' as const })
const parent = { type: 'assistant', content: [], uuid: 'm1' }

function target(name: string, over: Record<string, unknown> = {}) {
  return {
    name,
    call: mock(async (input: unknown) => ({ data: { echoed: input } })),
    checkPermissions: async () => ({ behavior: 'allow' as const }),
    prompt: async () => `Description for ${name}`,
    inputSchema: {},
    isEnabled: () => true,
    isMcp: name.startsWith('mcp__'),
    ...over,
  }
}

/** The search and execute tools themselves are in the list, as in ccb. */
function context(tools: unknown[], messages: unknown[] = []) {
  return { options: { tools: [SearchExtraToolsTool, ExecuteExtraTool, ...tools] }, messages, getAppState: () => ({ mcp: { clients: [] } }) } as any
}

/** A conversation in which SearchExtraTools returned `names` (its real text result). */
function discoveredBy(names: string[]) {
  const block = SearchExtraToolsTool.mapToolResultToToolResultBlockParam({ matches: names, query: 'q', total_deferred_tools: names.length }, 'toolu_s')
  return [{ type: 'user', message: { role: 'user', content: [block] } }]
}

const run = (input: { tool_name: string; params: Record<string, unknown> }, ctx: any, canUseTool: any = allow) =>
  ExecuteExtraTool.call(input, ctx, canUseTool, parent, undefined) as Promise<any>

let savedEnable: string | undefined
beforeEach(() => {
  savedEnable = process.env.ENABLE_SEARCH_EXTRA_TOOLS
  delete process.env.ENABLE_SEARCH_EXTRA_TOOLS
})
afterEach(() => {
  if (savedEnable === undefined) delete process.env.ENABLE_SEARCH_EXTRA_TOOLS
  else process.env.ENABLE_SEARCH_EXTRA_TOOLS = savedEnable
})

describe('ExecuteExtraTool: names and words', () => {
  test('its name, both exports, and a searchHint with "execute" and "tool"', () => {
    expect(ExecuteExtraTool.name).toBe('ExecuteExtraTool')
    expect(ExecuteTool).toBe(ExecuteExtraTool)
    expect(ExecuteExtraTool.searchHint).toContain('execute')
    expect(ExecuteExtraTool.searchHint).toContain('tool')
  })

  test('its prompt names SearchExtraTools and itself, never the seed names', async () => {
    const p = await ExecuteExtraTool.prompt()
    expect(p).toContain('SearchExtraTools')
    expect(p).toContain('ExecuteExtraTool')
    expect(p).not.toMatch(/\bToolSearch\b|\bExecuteTool\b/)
  })

  test('its prompt says to call core tools directly, with the provider/client fallback through it (as ccb says today)', async () => {
    const p = await ExecuteExtraTool.prompt()
    expect(p).toContain('call core tools directly')
    expect(p).toMatch(/provider\/client fallback/i)
    expect(await SearchExtraToolsTool.prompt()).toMatch(/already loaded[^.]*call it directly/)
  })

  test('it is core in ccb and passes permission through to the target', async () => {
    expect(CCB_CORE_TOOLS.has('ExecuteExtraTool')).toBe(true)
    expect(CCB_CORE_TOOLS.size).toBe(28)
    expect(await ExecuteExtraTool.checkPermissions()).toMatchObject({ behavior: 'passthrough' })
  })
})

describe('ExecuteExtraTool: result contract', () => {
  test('success: the target result spread, data wrapped with tool_name', async () => {
    const modifier = (c: unknown) => c
    const t = target('mcp__x__do', {
      call: mock(async () => ({ data: { ok: 1 }, newMessages: [{ type: 'user', content: 'side' }], contextModifier: modifier })),
    })
    const out = await run({ tool_name: t.name, params: {} }, context([t], discoveredBy([t.name])))
    expect(out.data).toEqual({ result: { ok: 1 }, tool_name: t.name })
    expect(out.newMessages).toEqual([{ type: 'user', content: 'side' }])
    expect(out.contextModifier).toBe(modifier)
  })

  test('not found: data {result: null, tool_name}, a user message naming SearchExtraTools, suggestions on refusal', async () => {
    const t = target('mcp__github__create_issue', { prompt: async () => 'Create a GitHub issue' })
    const out = await run({ tool_name: 'mcp__github__create_isue', params: {} }, context([t]))
    expect(out.data).toEqual({ result: null, tool_name: 'mcp__github__create_isue' })
    expect(out.newMessages).toHaveLength(1)
    expect(out.newMessages[0].type).toBe('user')
    expect(out.newMessages[0].message.content).toContain('SearchExtraTools')
    expect(out.refusal.reason).toBe('not_found')
    expect(out.refusal.suggestions).toContain('mcp__github__create_issue')
    expect(Object.keys(out)).toEqual(['data', 'newMessages'])
  })

  test('denied by the target: not called, refusal in newMessages', async () => {
    const t = target('mcp__x__secret', { checkPermissions: async () => ({ behavior: 'deny', message: 'Access denied' }) })
    const out = await run({ tool_name: t.name, params: {} }, context([t], discoveredBy([t.name])))
    expect(out.data).toEqual({ result: null, tool_name: t.name })
    expect(out.newMessages[0].message.content).toContain('Access denied')
    expect(t.call).not.toHaveBeenCalled()
  })
})

describe('ExecuteExtraTool: discovery from the conversation', () => {
  test('a deferred tool SearchExtraTools never returned is refused, with the select: usage', async () => {
    const t = target('mcp__x__hidden')
    const out = await run({ tool_name: t.name, params: {} }, context([t]))
    expect(out.data).toEqual({ result: null, tool_name: t.name })
    expect(out.newMessages[0].message.content).toContain('has not been discovered')
    expect(out.newMessages[0].message.content).toContain('SearchExtraTools("select:mcp__x__hidden")')
    expect(t.call).not.toHaveBeenCalled()
  })

  test('after the search result is in the conversation, it runs', async () => {
    const t = target('mcp__x__found')
    const out = await run({ tool_name: t.name, params: { a: 1 } }, context([t], discoveredBy([t.name])))
    expect(out.data).toEqual({ result: { echoed: { a: 1 } }, tool_name: t.name })
  })

  test('discovery survives compaction (the boundary carries the names) and delta attachments count', async () => {
    const a = target('mcp__x__a')
    const b = target('mcp__x__b')
    const messages = [
      { type: 'system', subtype: 'compact_boundary', compactMetadata: { preCompactDiscoveredTools: ['mcp__x__a'] } },
      { type: 'attachment', attachment: { type: 'deferred_tools_delta', addedNames: ['mcp__x__b'] } },
    ]
    expect((await run({ tool_name: a.name, params: {} }, context([a, b], messages))).data.result).not.toBeNull()
    expect((await run({ tool_name: b.name, params: {} }, context([a, b], messages))).data.result).not.toBeNull()
  })

  test('legacy tool_reference blocks count as discovered', () => {
    const messages = [{ type: 'user', message: { content: [{ type: 'tool_result', content: [{ type: 'tool_reference', tool_name: 'mcp__x__old' }] }] } }]
    expect([...extractDiscoveredToolNames(messages)]).toEqual(['mcp__x__old'])
  })

  test('not enforced when tool search is off, or when SearchExtraTools is not in the list', async () => {
    const t = target('mcp__x__free')
    process.env.ENABLE_SEARCH_EXTRA_TOOLS = 'false'
    expect((await run({ tool_name: t.name, params: {} }, context([t]))).data.result).not.toBeNull()
    delete process.env.ENABLE_SEARCH_EXTRA_TOOLS
    const noSearch = { options: { tools: [ExecuteExtraTool, t] }, messages: [] } as any
    expect((await run({ tool_name: t.name, params: {} }, noSearch)).data.result).not.toBeNull()
  })

  test('core tools need no discovery', async () => {
    const read = target('Read')
    expect((await run({ tool_name: 'Read', params: {} }, context([read]))).data.result).not.toBeNull()
  })
})

describe('ExecuteExtraTool: guard order and the package rules', () => {
  test('order: not discovered before disabled; disabled before validateInput; validateInput before permissions', async () => {
    const seen: string[] = []
    const t = target('mcp__x__ordered', {
      isEnabled: () => {
        seen.push('isEnabled')
        return false
      },
      validateInput: async () => {
        seen.push('validateInput')
        return { result: true }
      },
    })
    await run({ tool_name: t.name, params: {} }, context([t]))
    expect(seen).toEqual([]) // undiscovered: stopped before isEnabled
    const out = await run({ tool_name: t.name, params: {} }, context([t], discoveredBy([t.name])))
    expect(out.refusal.reason).toBe('disabled')
    expect(seen).toEqual(['isEnabled'])
    const perms = mock(async () => ({ behavior: 'allow' as const }))
    const u = target('mcp__x__checked', { validateInput: async () => ({ result: false, message: 'team_name is required' }), checkPermissions: perms })
    const out2 = await run({ tool_name: u.name, params: {} }, context([u], discoveredBy([u.name])))
    expect(out2.newMessages[0].message.content).toContain('team_name is required')
    expect(perms).not.toHaveBeenCalled()
  })

  test("a zod schema is checked with zod: a refinement holds, and the target gets zod's parsed value", async () => {
    const t = target('mcp__fs__read', {
      inputSchema: z.object({ path: z.string().refine((p) => !p.includes('..'), 'no parent paths'), n: z.coerce.number() }),
    })
    const ctx = context([t], discoveredBy([t.name]))
    const bad = await run({ tool_name: t.name, params: { path: '../etc/passwd', n: '1' } }, ctx)
    expect(bad.newMessages[0].message.content).toContain('no parent paths')
    expect(t.call).not.toHaveBeenCalled()
    const good = await run({ tool_name: t.name, params: { path: 'a.txt', n: '7' } }, ctx)
    expect(good.data.result).toEqual({ echoed: { path: 'a.txt', n: 7 } })
  })

  test("ask goes to ccb's canUseTool; no answer is a denial (ccb itself would run the target)", async () => {
    const t = target('mcp__x__asks', { checkPermissions: async () => ({ behavior: 'ask', message: 'ok?' }) })
    const ctx = context([t], discoveredBy([t.name]))
    const prompt = mock(async () => ({ behavior: 'allow' as const }))
    expect((await run({ tool_name: t.name, params: {} }, ctx, prompt)).data.result).not.toBeNull()
    expect(prompt).toHaveBeenCalledTimes(1)
    const silent = mock(async () => undefined)
    const out = await run({ tool_name: t.name, params: {} }, ctx, silent)
    expect(out.refusal.reason).toBe('denied')
    expect(t.call).toHaveBeenCalledTimes(1)
  })
})

describe('SearchExtraTools', () => {
  test('name, and its prompt points at ExecuteExtraTool', async () => {
    expect(SearchExtraToolsTool.name).toBe('SearchExtraTools')
    expect(await SearchExtraToolsTool.prompt()).toContain('ExecuteExtraTool')
  })

  test('discover: finds the tool by its description and returns text with its schema', async () => {
    const cron = target('CronCreate', { prompt: async () => 'Schedule cron jobs', inputJSONSchema: { type: 'object', properties: { cron: { type: 'string' } } } })
    // (With CronCreate the only deferred tool every IDF is 0, in the reference and here: ccb's own
    // test of this passes only because it mocks its tool index.)
    const other = target('mcp__mail__send', { prompt: async () => 'Send an email' })
    const out = await SearchExtraToolsTool.call({ query: 'discover:schedule cron job', max_results: 5 }, context([cron, other]))
    expect(out.data.matches).toContain('CronCreate')
    expect(out.data.text).toContain('"cron"')
  })

  test('keywords rank the tool whose name parts match', async () => {
    const tools = ['ToolA', 'ToolB', 'ToolC'].map((n) => target(n, { prompt: async () => `${n.replace('Tool', 'Tool ')} description` }))
    const out = await SearchExtraToolsTool.call({ query: 'tool B', max_results: 5 }, context(tools))
    expect(out.data.matches[0]).toBe('ToolB')
  })

  test('select: loads by name, reports core tools as already loaded', async () => {
    const t = target('mcp__x__pick')
    const out = await SearchExtraToolsTool.call({ query: 'select:mcp__x__pick,Read', max_results: 5 }, context([t, target('Read')]))
    expect(out.data.matches).toEqual(['mcp__x__pick', 'Read'])
    expect(out.data.already_loaded).toEqual(['Read'])
  })

  test('the text result names the tools and ExecuteExtraTool, whatever the model', () => {
    for (const ctx of [{ mainLoopModel: 'claude-3-haiku-20240307' }, { mainLoopModel: 'claude-sonnet-4-20250514' }, undefined]) {
      const block = SearchExtraToolsTool.mapToolResultToToolResultBlockParam({ matches: ['TestTool'], query: 'test', total_deferred_tools: 1 }, 'toolu_1', ctx)
      expect(typeof block.content).toBe('string')
      expect(block.content as string).toContain('TestTool')
      expect(block.content as string).toContain('ExecuteExtraTool')
      expect(block.content as string).not.toContain('ExecuteTool ')
    }
  })

  test('no match: the helpful message, with pending MCP servers', async () => {
    const block = SearchExtraToolsTool.mapToolResultToToolResultBlockParam({ matches: [], query: 'none', total_deferred_tools: 5 }, 'toolu_2')
    expect(block.content).toContain('No matching deferred tools found')
    const ctx = { ...context([]), getAppState: () => ({ mcp: { clients: [{ type: 'pending', name: 'slack' }] } }) }
    const out = await SearchExtraToolsTool.call({ query: 'select:mcp__slack__post', max_results: 5 }, ctx)
    expect(out.data.pending_mcp_servers).toEqual(['slack'])
  })

  test('discover: counts as discovery, as in ccb: ExecuteExtraTool then runs the tool', async () => {
    const t = target('mcp__mail__send_email', { prompt: async () => 'Send an email message' })
    const ctx = context([t, target('mcp__cal__create_event', { prompt: async () => 'Create a calendar event' })])
    expect((await run({ tool_name: t.name, params: {} }, ctx)).data.result).toBeNull()
    const found = await SearchExtraToolsTool.call({ query: 'discover:send an email', max_results: 3 }, ctx)
    expect(found.data.matches[0]).toBe(t.name)
    expect(searchSchemas.outputSchema().safeParse(found.data).success).toBe(true)
    const block = SearchExtraToolsTool.mapToolResultToToolResultBlockParam(found.data, 'toolu_4')
    expect(block.content as string).toContain('Send an email message')
    ctx.messages = [{ type: 'user', message: { content: [block] } }]
    expect([...extractDiscoveredToolNames(ctx.messages)]).toEqual(found.data.matches)
    expect((await run({ tool_name: t.name, params: {} }, ctx)).data.result).toEqual({ echoed: {} })
    expect(t.call).toHaveBeenCalledTimes(1)
  })

  test('an empty or multi-line discover: query is a keyword query, as in the reference', async () => {
    const ctx = context([target('mcp__mail__send_email'), target('mcp__cal__create_event')])
    for (const query of ['discover:', 'discover:\nsend email']) {
      const out = await SearchExtraToolsTool.call({ query, max_results: 3 }, ctx)
      expect(out.data.text).toBeUndefined()
    }
    const one = await SearchExtraToolsTool.call({ query: 'Discover: send email', max_results: 3 }, ctx)
    expect(one.data.text).toStartWith('Found ')
  })

  test('the schemas are exported as ccb exports them, and are the tools\' own', () => {
    expect(typeof searchSchemas.inputSchema).toBe('function')
    expect(searchSchemas.inputSchema()).toBe(SearchExtraToolsTool.inputSchema)
    expect(searchSchemas.outputSchema()).toBe(SearchExtraToolsTool.outputSchema)
    expect(executeSchemas.inputSchema()).toBe(ExecuteExtraTool.inputSchema)
    expect(executeSchemas.outputSchema()).toBe(ExecuteExtraTool.outputSchema)
    expect(executeSchemas.outputSchema().safeParse({ result: null, tool_name: 'x' }).success).toBe(true)
    expect(searchSchemas.outputSchema().safeParse({ matches: ['a'], query: 'q', total_deferred_tools: 1 }).success).toBe(true)
  })

  test('clearSearchExtraToolsDescriptionCache (ccb\'s /clear) drops the cached prompts', async () => {
    let desc = 'Archive old invoices'
    const t = target('mcp__books__archive', { prompt: async () => desc })
    const ctx = context([t, target('mcp__cal__create_event', { prompt: async () => 'Create a calendar event' })])
    const search = async () => (await SearchExtraToolsTool.call({ query: 'discover:shred receipts', max_results: 3 }, ctx)).data.matches
    expect(await search()).toEqual([])
    desc = 'Shred scanned receipts'
    // The same tool names: the cached index, with the old prompt, still answers.
    expect(await search()).toEqual([])
    clearSearchExtraToolsDescriptionCache()
    expect(await search()).toEqual([t.name])
  })

  test('round trip: what the search returns is what ExecuteExtraTool accepts as discovered', async () => {
    const t = target('mcp__mail__send_email', { prompt: async () => 'Send an email message' })
    const ctx = context([t])
    const found = await SearchExtraToolsTool.call({ query: 'send email', max_results: 3 }, ctx)
    expect(found.data.matches).toContain(t.name)
    const block = SearchExtraToolsTool.mapToolResultToToolResultBlockParam(found.data, 'toolu_3')
    ctx.messages = [{ type: 'user', message: { content: [block] } }]
    expect((await run({ tool_name: t.name, params: {} }, ctx)).data.result).not.toBeNull()
  })
})

describe('SearchExtraTools: core tools in the keyword search (ccb today)', () => {
  // The cached index follows tool names (prompts are read once): these tests reuse names.
  beforeEach(() => clearSearchExtraToolsDescriptionCache())
  const read = () =>
    target('Read', {
      prompt: async () => 'Reads a file from the local filesystem. Long usage notes follow.',
      description: async () => 'Read a file',
      inputSchema: z.object({ file_path: z.string(), limit: z.number().optional() }),
    })
  const text = (data: any) => SearchExtraToolsTool.mapToolResultToToolResultBlockParam(data, 'toolu_c').content as string

  test('words that fit a core tool rank it too: named already loaded, with its description and schema, never sent to ExecuteExtraTool', async () => {
    const cron = target('CronCreate', { prompt: async () => 'Schedule cron jobs' })
    const out = await SearchExtraToolsTool.call({ query: 'read file', max_results: 5 }, context([read(), cron]))
    expect(out.data.matches).toContain('Read')
    expect(out.data.already_loaded).toEqual(['Read'])
    expect(out.data.core_tool_guidance).toContain('"file_path"')
    // The short description (ccb reads `description()` for this), not the long prompt.
    expect(out.data.core_tool_guidance).toContain('Description: Read a file\n')
    expect(searchSchemas.outputSchema().safeParse(out.data).success).toBe(true)
    const t = text(out.data)
    for (const words of ['call directly', 'Do not guess parameters', 'Bash', 'ExecuteExtraTool']) expect(t).toContain(words)
    expect(t).not.toMatch(/deferred tool\(s\): [^\n]*Read/)
  })

  test("a core tool's exact name: already loaded, with the guidance; select: too", async () => {
    for (const query of ['read', 'select:Read']) {
      const out = await SearchExtraToolsTool.call({ query, max_results: 5 }, context([read(), target('CronCreate')]))
      expect(out.data.matches).toEqual(['Read'])
      expect(out.data.already_loaded).toEqual(['Read'])
      expect(out.data.core_tool_guidance).toContain('"limit"')
      expect(text(out.data)).toMatch(/^No deferred tools found: Read is already loaded/)
    }
  })

  test('equal keyword scores keep the order of the tool list, core and deferred alike', async () => {
    // Every deferred tool has "zebra": its IDF is 0, so the keyword list alone orders the matches.
    const grep = target('Grep', { prompt: async () => 'zebra finder' })
    const cron = target('CronCreate', { prompt: async () => 'zebra scheduler' })
    const mail = target('mcp__mail__send', { prompt: async () => 'zebra mailer' })
    const order = async (tools: unknown[]) => (await SearchExtraToolsTool.call({ query: 'zebra', max_results: 5 }, context(tools))).data.matches
    expect(await order([grep, cron, mail])).toEqual(['Grep', 'CronCreate', 'mcp__mail__send'])
    clearSearchExtraToolsDescriptionCache()
    expect(await order([cron, grep, mail])).toEqual(['CronCreate', 'Grep', 'mcp__mail__send'])
  })

  test('"+word" and an mcp__ prefix still search the deferred tools only', async () => {
    const grep = target('Grep', { prompt: async () => 'zebra finder' })
    const mail = target('mcp__mail__send', { prompt: async () => 'zebra mailer' })
    const ctx = context([grep, mail, target('CronCreate', { prompt: async () => 'Schedule cron jobs' })])
    expect((await SearchExtraToolsTool.call({ query: '+zebra', max_results: 5 }, ctx)).data.matches).toEqual(['mcp__mail__send'])
    expect((await SearchExtraToolsTool.call({ query: 'mcp__mail', max_results: 5 }, ctx)).data.matches).toEqual(['mcp__mail__send'])
  })

  test('a core tool whose prompt is over the text limit leaves the core tools out of the keyword search; the search still answers', async () => {
    const huge = target('Read', { prompt: async () => 'x '.repeat(9 * 1024 * 1024) })
    const grep = target('Grep', { prompt: async () => 'zebra finder' })
    const cron = target('CronCreate', { prompt: async () => 'zebra scheduler' })
    const out = await SearchExtraToolsTool.call({ query: 'zebra', max_results: 5 }, context([huge, grep, cron, target('mcp__m__x', { prompt: async () => 'mail' })]))
    expect(out.data.matches).toEqual(['CronCreate'])
    expect(out.data.already_loaded).toBeUndefined()
  })

  test("a core tool whose description throws or never answers falls back to its prompt; a throwing prompt getter stops nothing", async () => {
    const grep = target('Grep', { prompt: async () => 'zebra finder', description: () => { throw new Error('no') } })
    const glob = target('Glob', { prompt: async () => 'zebra globber', description: () => new Promise(() => {}) })
    const bad = Object.defineProperty(target('Edit'), 'prompt', { get() { throw new Error('hostile') } })
    const ctx = context([grep, glob, bad, target('CronCreate', { prompt: async () => 'Schedule cron jobs' })])
    const out = await (SearchExtraToolsTool as any).call({ query: 'zebra', max_results: 5 }, { ...ctx, options: { ...ctx.options } })
    expect(out.data.already_loaded).toEqual(['Grep', 'Glob'])
    expect(out.data.core_tool_guidance).toContain('Description: zebra finder')
    expect(out.data.core_tool_guidance).toContain('Description: zebra globber')
  }, 30_000)
})

