/**
 * `toolSearchMode()`: ccb's reading of `ENABLE_SEARCH_EXTRA_TOOLS` (and the package's
 * `ENABLE_TOOL_SEARCH`), value by value, with ccb's kill switch
 * `CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS`.
 */
import { afterEach, describe, expect, test } from 'bun:test'
import { Deadline, withTimeout } from '../ts/config'
import { buildToolIndex, isToolSearchEnabled, toolSearchMode } from '../ts/index'

const VARS = ['ENABLE_TOOL_SEARCH', 'ENABLE_SEARCH_EXTRA_TOOLS', 'CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS'] as const
const saved = Object.fromEntries(VARS.map((v) => [v, process.env[v]]))

function setEnv(values: Partial<Record<(typeof VARS)[number], string>>): void {
  for (const v of VARS) {
    if (values[v] === undefined) delete process.env[v]
    else process.env[v] = values[v]
  }
}

afterEach(() => {
  for (const v of VARS) {
    if (saved[v] === undefined) delete process.env[v]
    else process.env[v] = saved[v]
  }
})

// [ENABLE_SEARCH_EXTRA_TOOLS, expected mode]
const CASES: [string | undefined, 'on' | 'auto' | 'off'][] = [
  [undefined, 'on'],
  ['', 'on'],
  ['   ', 'on'],
  ['true', 'on'],
  ['TRUE', 'on'],
  ['1', 'on'],
  [' yes ', 'on'],
  ['on', 'on'],
  ['banana', 'on'],
  ['false', 'off'],
  ['FALSE', 'off'],
  [' off ', 'off'],
  ['0', 'off'],
  ['no', 'off'],
  ['auto', 'auto'],
  ['AUTO', 'on'],
  [' auto', 'on'],
  ['auto:0', 'on'],
  ['auto:0x', 'on'],
  ['auto:-5', 'on'],
  ['auto:1', 'auto'],
  ['auto:50', 'auto'],
  ['auto:99', 'auto'],
  ['auto:5x', 'auto'],
  ['auto: 5', 'auto'],
  ['auto:abc', 'auto'],
  ['auto:', 'auto'],
  ['auto:100', 'off'],
  ['auto:1000', 'off'],
  ['Auto:50', 'on'],
]

describe('toolSearchMode', () => {
  for (const [value, want] of CASES) {
    test(`ENABLE_SEARCH_EXTRA_TOOLS=${JSON.stringify(value)} → ${want}`, () => {
      setEnv({ ENABLE_SEARCH_EXTRA_TOOLS: value })
      expect(toolSearchMode()).toBe(want)
      expect(isToolSearchEnabled()).toBe(want !== 'off')
    })
  }

  test('CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS turns it off, whatever else says', () => {
    for (const kill of ['1', 'true', ' TRUE ', 'yes', 'on']) {
      setEnv({ ENABLE_SEARCH_EXTRA_TOOLS: 'true', CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS: kill })
      expect(toolSearchMode()).toBe('off')
    }
    for (const notKill of ['0', 'false', '', 'maybe']) {
      setEnv({ CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS: notKill })
      expect(toolSearchMode()).toBe('on')
    }
  })

  test("the package's own ENABLE_TOOL_SEARCH is read first", () => {
    setEnv({ ENABLE_TOOL_SEARCH: 'false', ENABLE_SEARCH_EXTRA_TOOLS: 'true' })
    expect(toolSearchMode()).toBe('off')
    setEnv({ ENABLE_TOOL_SEARCH: 'auto:30', ENABLE_SEARCH_EXTRA_TOOLS: 'false' })
    expect(toolSearchMode()).toBe('auto')
  })
})

describe('Deadline: one timer for a batch of promises', () => {
  const never = new Promise<string>(() => {})
  test('a batch raced before arm() gets its values, or undefined once the time has passed since arm()', async () => {
    const d = new Deadline(40)
    let rejectLate!: (e: Error) => void
    const raced = [d.race(Promise.resolve('now')), d.race(never), d.race(new Promise<string>((_, reject) => (rejectLate = reject)))]
    await new Promise((r) => setTimeout(r, 60)) // not armed yet: nothing expires
    rejectLate(new Error('late'))
    const armedAt = performance.now()
    d.arm()
    const [a, b, c] = await Promise.allSettled(raced)
    d.disarm()
    expect(a).toEqual({ status: 'fulfilled', value: 'now' })
    expect(b).toEqual({ status: 'fulfilled', value: undefined })
    expect(c.status).toBe('rejected')
    // Expired by the timer of arm(), not before (a lower bound only; the upper one is the test's timeout).
    expect(performance.now() - armedAt).toBeGreaterThanOrEqual(35)
    expect(await d.race(never)).toBeUndefined() // raced after the time has passed
  })

  test('0 is no limit: the promise itself', () => {
    const d = new Deadline(0)
    const p = Promise.resolve(1)
    expect(d.race(p)).toBe(p)
    d.arm()
    d.disarm()
  })

  test('withTimeout keeps its contract', async () => {
    expect(await withTimeout(Promise.resolve('v'), 1000)).toBe('v')
    expect(await withTimeout(never, 20)).toBeUndefined()
  })

  test('a build of 3,000 tools whose prompt() never settles gives each an empty description at the deadline', async () => {
    const tools = Array.from({ length: 3000 }, (_, i) => ({ name: `mcp__s__t${i}`, isMcp: true, prompt: () => never }))
    const index = await buildToolIndex(tools, { promptTimeoutMs: 100 })
    expect(index.length).toBe(3000)
    expect(index.get('mcp__s__t2999')?.description).toBe('')
    index.dispose()
  }, 20_000)
})
