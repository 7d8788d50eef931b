/**
 * The module API ccb imports from its `toolIndex.ts` and `localSearch.ts`, through the package's
 * `./ccb` entry (ccb's 28 core tools): the behaviours ccb's own toolIndex and tokenizer tests
 * check, in this package's words.
 */
import { beforeEach, describe, expect, test } from 'bun:test'
import {
  CORE_TOOLS,
  buildToolIndex,
  clearToolIndexCache,
  getToolIndex,
  isDeferredTool,
  parseToolName,
  searchTools,
  tokenize,
  tokenizeAndStem,
} from '../../ts/ccb-dropin'

/** A ccb-shaped tool: only `prompt()` gives the description. */
const hostTool = (name: string, description: string, extra: Record<string, unknown> = {}) => ({
  name,
  isMcp: false,
  prompt: async () => description,
  ...extra,
})

describe('parseToolName', () => {
  test('an MCP name: server and words, marked MCP', () => {
    expect(parseToolName('mcp__github__create_issue')).toMatchObject({ isMcp: true, parts: ['github', 'create', 'issue'] })
  })
  test('a CamelCase built-in name splits into lowercased words', () => {
    expect(parseToolName('NotebookEditTool')).toMatchObject({ isMcp: false, parts: ['notebook', 'edit', 'tool'] })
    expect(parseToolName('EnterWorktreeTool').parts).toEqual(expect.arrayContaining(['enter', 'worktree']))
  })
})

describe('buildToolIndex with ccb core tools', () => {
  test('ccb has 28 core tools, its search and execute tools among them', () => {
    expect(CORE_TOOLS.size).toBe(28)
    expect(CORE_TOOLS.has('SearchExtraTools')).toBe(true)
    expect(CORE_TOOLS.has('ExecuteExtraTool')).toBe(true)
    expect(isDeferredTool({ name: 'SearchExtraTools' })).toBe(false)
    expect(isDeferredTool({ name: 'CronCreate' })).toBe(true)
  })

  test('indexes only deferred tools, each with tokens and a TF vector', async () => {
    const index = await buildToolIndex([
      hostTool('PinnedTool', 'always there', { alwaysLoad: true }),
      hostTool('Read', 'reads files'),
      hostTool('ConfigTool', 'Manage configuration settings.', { searchHint: 'configure settings options' }),
      hostTool('CronCreateTool', 'Create cron jobs for scheduling.', { searchHint: 'schedule recurring prompt' }),
    ] as never)
    expect(index.length).toBe(2)
    for (const entry of index) {
      expect(entry.tokens.length).toBeGreaterThan(0)
      expect(entry.tfVector.size).toBeGreaterThan(0)
    }
  })

  test('nothing to index when every tool is core or always loaded', async () => {
    const index = await buildToolIndex([hostTool('Edit', 'edits'), hostTool('Mine', 'x', { alwaysLoad: true })] as never)
    expect(index.length).toBe(0)
  })

  test('duplicate names never throw (ccb indexes both; the first one answers here)', async () => {
    const index = await buildToolIndex([hostTool('DupTool', 'weather forecast'), hostTool('DupTool', 'weather report'), hostTool('MailTool', 'send mail')] as never)
    expect(index.skipped.map((s) => s.reason)).toEqual(['duplicate_name'])
    expect(searchTools('weather', index).map((r) => r.name)).toEqual(['DupTool'])
  })
})

describe('searchTools', () => {
  const tools = [
    hostTool('CronCreateTool', 'Create cron jobs for scheduling tasks.', { searchHint: 'schedule a recurring or one-shot prompt' }),
    hostTool('ConfigTool', 'Manage configuration settings.', { searchHint: 'configure settings options' }),
  ]

  test('ranks the tool whose hint and description match first, with a positive score', async () => {
    const results = searchTools('schedule cron job', await buildToolIndex(tools as never))
    expect(results[0]?.name).toBe('CronCreateTool')
    expect(results[0]?.score).toBeGreaterThan(0)
  })

  test('an empty query and a query no tool answers give no results', async () => {
    const index = await buildToolIndex(tools as never)
    expect(searchTools('', index)).toEqual([])
    expect(searchTools('quantum physics entanglement', index)).toEqual([])
  })
})

describe('getToolIndex caching', () => {
  beforeEach(() => clearToolIndexCache())
  const tools = [hostTool('ConfigTool', 'Manage configuration.')]

  test('the same tool list gives the same object', async () => {
    expect(await getToolIndex(tools as never)).toBe(await getToolIndex(tools as never))
  })

  test('clearToolIndexCache makes the next call build a new one', async () => {
    const first = await getToolIndex(tools as never)
    clearToolIndexCache()
    expect(await getToolIndex(tools as never)).not.toBe(first)
  })
})

describe('tokenizer (CJK bigrams + ASCII words)', () => {
  test('a CJK run gives its overlapping bigrams', () => {
    expect(tokenize('优化重构流程')).toEqual(['优化', '化重', '重构', '构流', '流程'])
    expect(tokenizeAndStem('搜索代码')).toEqual(expect.arrayContaining(['搜索', '代码']))
  })
  test('ASCII words are lowercased; CJK and ASCII are split apart', () => {
    expect(tokenize('Refactor TypeScript helpers')).toEqual(expect.arrayContaining(['refactor', 'typescript', 'helpers']))
    const mixed = tokenize('优化 refactor 流程')
    expect(mixed).toEqual(expect.arrayContaining(['优化', '流程', 'refactor']))
    expect(mixed).not.toContain('化r')
  })
  test('a lone CJK character gives no token; stop words are dropped', () => {
    expect(tokenize('改 the file').some((t) => /[\u4e00-\u9fff]/.test(t))).toBe(false)
    expect(tokenize('the file and 流程')).not.toContain('the')
  })
  test('stemming touches ASCII words only', () => {
    const t = tokenizeAndStem('running 流程 tests')
    expect(t).toContain('流程')
    expect(t).not.toContain('running')
  })
})
