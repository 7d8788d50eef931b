/**
 * `toolSearchMode()`: ccb's reading of `ENABLE_SEARCH_EXTRA_TOOLS` (and the package's
 * `ENABLE_TOOL_SEARCH`), value by value, with ccb's kill switch
 * `CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS`.
 */
import { afterEach, describe, expect, test } from 'bun:test'
import { isToolSearchEnabled, toolSearchMode } from '../ts/index'

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
