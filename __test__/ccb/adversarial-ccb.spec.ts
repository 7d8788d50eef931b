/**
 * The adversarial classes through claude-code-best's ExecuteExtraTool (examples/ccb, run against
 * the ccb stand-ins): look-alike names, a tool list changed while the permission prompt is
 * pending, ccb's abortController, discovery records that cannot be read, params that are not
 * data. Every case spies on the target and asserts it never ran.
 */
import { afterEach, beforeEach, describe, expect, mock, test } from 'bun:test'
import { ExecuteExtraTool } from '../../examples/ccb/ExecuteExtraTool'
import { SearchExtraToolsTool } from '../../examples/ccb/SearchExtraToolsTool'
import { ToolIndexError } from '@ccb/tool-index-native'

const NAME = 'mcp__adv__target'
const allow = async () => ({ behavior: 'allow' as const })

function target(over: Record<string, unknown> = {}) {
  return {
    name: NAME,
    call: mock(async (input: unknown) => ({ data: { echoed: input } })),
    checkPermissions: async () => ({ behavior: 'allow' as const }),
    prompt: async () => 'adversarial target',
    isEnabled: () => true,
    isMcp: true,
    ...over,
  }
}

function discoveredBy(names: string[]) {
  const block = SearchExtraToolsTool.mapToolResultToToolResultBlockParam({ matches: names, query: 'q', total_deferred_tools: names.length }, 'toolu_s')
  return [{ type: 'user', message: { role: 'user', content: [block] } }]
}

function context(tools: unknown[], messages: unknown = discoveredBy([NAME]), extra: Record<string, unknown> = {}) {
  return { options: { tools: [SearchExtraToolsTool, ExecuteExtraTool, ...tools] }, messages, ...extra } as any
}

const run = (tool_name: string, params: unknown, ctx: any, canUseTool: any = allow) =>
  ExecuteExtraTool.call({ tool_name, params } as any, ctx, canUseTool, undefined, undefined) as Promise<any>

/** Refused (ccb's shape: `result: null`, a refusal reason), and the spy never ran. */
async function refusedNotRun(p: Promise<any>, t: { call: ReturnType<typeof mock> }, reason?: string) {
  const out = await p
  expect(t.call).not.toHaveBeenCalled()
  expect(out.data.result).toBeNull()
  expect(out.refusal?.reason).toBeDefined()
  if (reason) expect(out.refusal.reason).toBe(reason)
}

let saved: string | undefined
beforeEach(() => {
  saved = process.env.ENABLE_SEARCH_EXTRA_TOOLS
  process.env.ENABLE_SEARCH_EXTRA_TOOLS = 'true'
})
afterEach(() => {
  if (saved === undefined) delete process.env.ENABLE_SEARCH_EXTRA_TOOLS
  else process.env.ENABLE_SEARCH_EXTRA_TOOLS = saved
})

describe('ExecuteExtraTool under attack', () => {
  test('control: the discovered tool runs once', async () => {
    const t = target()
    const out = await run(NAME, {}, context([t]))
    expect(out.refusal).toBeUndefined()
    expect(t.call).toHaveBeenCalledTimes(1)
  })

  for (const [label, name] of [
    ['upper case', NAME.toUpperCase()],
    ['trailing space', `${NAME} `],
    ['zero-width space', 'mcp__adv__tar\u200bget'],
    ['fullwidth letters', 'ｍｃｐ__adv__target'],
    ['__proto__', '__proto__'],
    ['constructor', 'constructor'],
    ['toString', 'toString'],
    ['hasOwnProperty', 'hasOwnProperty'],
  ] as const) {
    test(`a look-alike name (${label}) is not found, and nothing runs`, async () => {
      const t = target()
      await refusedNotRun(run(name, {}, context([t])), t, 'not_found')
    })
  }

  test('a deferred tool no search returned is not run (empty conversation)', async () => {
    const t = target()
    await refusedNotRun(run(NAME, {}, context([t], [])), t, 'not_discovered')
  })

  test('a conversation that cannot be read discovers nothing', async () => {
    const t = target()
    const ctx = context([t])
    Object.defineProperty(ctx, 'messages', { get() { throw new Error('unreadable') } })
    await refusedNotRun(run(NAME, {}, ctx), t, 'not_discovered')
  })

  test('the tool removed from the list while canUseTool is pending is not run', async () => {
    const t = target({ checkPermissions: async () => ({ behavior: 'ask' as const }) })
    const ctx = context([t])
    const canUse = async () => {
      ctx.options.tools = [SearchExtraToolsTool, ExecuteExtraTool]
      return { behavior: 'allow' as const }
    }
    await refusedNotRun(run(NAME, {}, ctx, canUse), t, 'not_found')
  })

  test("ccb's abortController ends a permission prompt that never answers, and nothing runs", async () => {
    const t = target({ checkPermissions: async () => ({ behavior: 'ask' as const }) })
    const ac = new AbortController()
    setTimeout(() => ac.abort(), 30)
    const t0 = performance.now()
    await refusedNotRun(run(NAME, {}, context([t], discoveredBy([NAME]), { abortController: ac }), () => new Promise(() => {})), t, 'denied')
    expect(performance.now() - t0).toBeLessThan(5_000)
  })

  test('params that are not JSON data (a Map, a class instance, Infinity) are refused', async () => {
    class Sneaky {
      get n() {
        return 1
      }
    }
    for (const params of [new Map([['n', 1]]), { a: new Sneaky() }, { n: Infinity }]) {
      const t = target({ inputJSONSchema: { type: 'object' } })
      await refusedNotRun(run(NAME, params, context([t])), t, 'invalid_params')
    }
  })

  test('an undeclared 2019-09 keyword is enforced, not ignored', async () => {
    const t = target({ inputJSONSchema: { type: 'object', properties: { a: { type: 'string' } }, unevaluatedProperties: false } })
    await refusedNotRun(run(NAME, { a: 'x', evil: 1 }, context([t])), t, 'invalid_params')
  })

  test('no tool list in the context is a coded error, not a run', async () => {
    const t = target()
    let err: unknown
    try {
      await ExecuteExtraTool.call({ tool_name: NAME, params: {} } as any, { options: {}, messages: [] } as any, allow, undefined, undefined)
    } catch (e) {
      err = e
    }
    expect(err).toBeInstanceOf(ToolIndexError)
    expect((err as ToolIndexError).code).toBe('E_INVALID_ARG')
    expect(t.call).not.toHaveBeenCalled()
  })
})
