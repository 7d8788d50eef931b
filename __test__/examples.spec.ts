/**
 * The examples/ wrappers: ccb-shaped ToolSearch and ExecuteTool tools over the package's
 * `toolSearch`, `formatToolSearchResult` and `executeTool`, on the `buildTool` stand-in.
 */
import { describe, expect, test } from 'bun:test'
import { spawnSync } from 'node:child_process'
import * as path from 'node:path'
import { z } from 'zod'
import { buildTool, type Tool, type ToolUseContext } from '../examples/buildTool'
import { ExecuteTool } from '../examples/ExecuteTool'
import { ToolSearchTool, makeToolSearchTool } from '../examples/ToolSearchTool'
import { main, makeContext, tools as hostTools } from '../examples/host'

const ROOT = path.resolve(__dirname, '..')

describe('buildTool stand-in', () => {
  test('fills ccb defaults and keeps what the definition gives', async () => {
    const t = buildTool({ name: 'X', prompt: () => 'x', call: async () => ({ data: 1 }) })
    expect(t.isEnabled()).toBe(true)
    expect(t.isReadOnly()).toBe(false)
    expect(t.isConcurrencySafe()).toBe(false)
    expect(t.userFacingName()).toBe('X')
    expect(await t.checkPermissions({ a: 1 }, makeContext())).toEqual({ behavior: 'allow', updatedInput: { a: 1 } })
    const ro = buildTool({ name: 'Y', prompt: () => 'y', isReadOnly: () => true, call: async () => ({ data: 2 }) })
    expect(ro.isReadOnly()).toBe(true)
  })

  test('the wrappers have ccb-shaped metadata', async () => {
    expect(ToolSearchTool.name).toBe('ToolSearch')
    expect(ToolSearchTool.isReadOnly()).toBe(true)
    expect(ExecuteTool.name).toBe('ExecuteTool')
    // SPEC §7: ExecuteTool's own permission check passes through, it is not concurrency-safe / read-only.
    expect((await ExecuteTool.checkPermissions({ tool_name: 'x', params: {} }, makeContext())).behavior).toBe('passthrough')
    expect(ExecuteTool.isConcurrencySafe()).toBe(false)
    expect(ExecuteTool.isReadOnly()).toBe(false)
    expect(typeof (await ToolSearchTool.prompt())).toBe('string')
  })
})

describe('ToolSearchTool wrapper', () => {
  test('call searches context.options.tools; the result maps to tool_reference blocks', async () => {
    const out = await ToolSearchTool.call({ query: 'weather forecast for a city' }, makeContext())
    expect(out.data.matches[0]).toBe('mcp__weather__get_forecast')
    expect(out.data.total_deferred_tools).toBe(3) // CronCreate + two MCP tools; Read/ToolSearch/ExecuteTool are core
    const block = ToolSearchTool.mapToolResultToToolResultBlockParam!(out.data, 'toolu_1') as any
    expect(block.type).toBe('tool_result')
    expect(block.tool_use_id).toBe('toolu_1')
    expect(block.content[0]).toEqual({ type: 'tool_reference', tool_name: 'mcp__weather__get_forecast' })
    expect(block.content.every((c: any) => c.type === 'tool_reference')).toBe(true)
  })

  test('without tool_reference support the result is text pointing at ExecuteTool', async () => {
    const textTool = makeToolSearchTool({ supportsToolReference: false })
    const out = await textTool.call({ query: 'select:mcp__github__create_issue,Read' }, makeContext())
    expect(out.data.matches).toEqual(['mcp__github__create_issue', 'Read'])
    expect(out.data.already_loaded).toEqual(['Read'])
    const block = textTool.mapToolResultToToolResultBlockParam!(out.data, 'toolu_2') as any
    expect(typeof block.content).toBe('string')
    expect(block.content).toContain('mcp__github__create_issue')
    expect(block.content).toContain('ExecuteTool')
    expect(block.content).toContain('"tool_name"')
    expect(block.content).toMatch(/Read[^\n]*already loaded/i)
  })

  test('no match: pending MCP servers from context.options.mcpClients are reported', async () => {
    const out = await ToolSearchTool.call({ query: 'select:mcp__slack__post_message' }, makeContext())
    expect(out.data.matches).toEqual([])
    expect(out.data.pending_mcp_servers).toEqual(['slack'])
    const block = ToolSearchTool.mapToolResultToToolResultBlockParam!(out.data, 'toolu_3') as any
    expect(block.content).toContain('No matching deferred tools found')
    expect(block.content).toContain('slack')
  })

  test('discover: hands back text with the schemas, even where tool_reference is supported', async () => {
    const out = await ToolSearchTool.call({ query: 'discover:github issue' }, makeContext())
    expect(out.data.matches).toContain('mcp__github__create_issue')
    expect(out.data.text).toContain('"required":["repo","title"]')
    const block = ToolSearchTool.mapToolResultToToolResultBlockParam!(out.data, 'toolu_4') as any
    expect(block.content).toBe(out.data.text)
  })
})

describe('ExecuteTool wrapper', () => {
  test('runs a deferred tool with the same context and maps its result', async () => {
    const ctx = makeContext()
    const out = await ExecuteTool.call({ tool_name: 'mcp__weather__get_forecast', params: { city: 'Oslo', days: 3 } }, ctx)
    expect(out.data.tool_name).toBe('mcp__weather__get_forecast')
    expect(out.data.message).toBeUndefined()
    expect(out.data.result).toEqual({ data: [{ type: 'text', text: 'Sunny in Oslo for 3 day(s)' }] })
    const block = ExecuteTool.mapToolResultToToolResultBlockParam!(out.data, 'toolu_5') as any
    expect(block).toEqual({
      type: 'tool_result',
      tool_use_id: 'toolu_5',
      content: JSON.stringify([{ type: 'text', text: 'Sunny in Oslo for 3 day(s)' }]),
    })
  })

  test('invalid params and unknown tools come back as error results; the target never runs', async () => {
    let ran = 0
    const guarded = buildTool({
      name: 'mcp__weather__get_forecast',
      isMcp: true,
      inputJSONSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      prompt: () => 'forecast',
      call: async () => {
        ran++
        return { data: 'ran' }
      },
    })
    const ctx: ToolUseContext = { options: { tools: [ToolSearchTool, ExecuteTool, guarded] } }
    const bad = await ExecuteTool.call({ tool_name: guarded.name, params: { days: 2 } }, ctx)
    expect(bad.data.result).toBeNull()
    expect(bad.data.message).toContain('city')
    const badBlock = ExecuteTool.mapToolResultToToolResultBlockParam!(bad.data, 'toolu_6') as any
    expect(badBlock.is_error).toBe(true)
    expect(badBlock.content).toContain('city')

    const missing = await ExecuteTool.call({ tool_name: 'NoSuchTool', params: {} }, ctx)
    expect(missing.data.result).toBeNull()
    expect(missing.data.message).toStartWith('Tool "NoSuchTool" not found. Use ToolSearch to discover available tools.')
    expect(ran).toBe(0)
  })

  test('a target with a zod inputSchema (as ccb built-ins have) is validated and runs', async () => {
    let got: unknown
    const zodTool: Tool = buildTool({
      name: 'CronCreate',
      inputSchema: z.strictObject({ cron: z.string(), prompt: z.string() }),
      prompt: () => 'Create a cron job',
      call: async (input: unknown) => {
        got = input
        return { data: 'scheduled' }
      },
    })
    const ctx: ToolUseContext = { options: { tools: [ExecuteTool, zodTool] } }
    const ok = await ExecuteTool.call({ tool_name: 'CronCreate', params: { cron: '0 9 * * *', prompt: 'standup' } }, ctx)
    expect(ok.data.message).toBeUndefined()
    expect(ok.data.result).toEqual({ data: 'scheduled' })
    expect(got).toEqual({ cron: '0 9 * * *', prompt: 'standup' })
    const bad = await ExecuteTool.call({ tool_name: 'CronCreate', params: { cron: 5 } }, ctx)
    expect(bad.data.result).toBeNull()
    expect(bad.data.message).toContain('cron')
    expect(bad.data.message).toContain('prompt')
  })

  test('ExecuteTool can run ToolSearch itself (a zod-schema core tool) by name', async () => {
    const ctx = makeContext()
    const out = await ExecuteTool.call({ tool_name: 'ToolSearch', params: { query: 'select:CronCreate' } }, ctx)
    expect(out.data.message).toBeUndefined()
    expect((out.data.result as any).data.matches).toEqual(['CronCreate'])
  })
})

describe('host example', () => {
  test('main() runs one search and one execution', async () => {
    const lines: string[] = []
    const { search, execution } = (await main((...a) => lines.push(a.join(' ')))) as any
    expect(search.matches[0]).toBe('mcp__weather__get_forecast')
    expect(execution.tool_name).toBe('mcp__weather__get_forecast')
    expect(execution.result.data[0].text).toBe('Sunny in Paris for 2 day(s)')
    expect(lines.length).toBe(2)
    expect(lines[0]).toContain('tool_reference')
    expect(lines[1]).toContain('Sunny in Paris')
    expect(hostTools.map((t) => t.name)).toContain('ExecuteTool')
  })

  test('runs as a script with bun', () => {
    const bun = path.join(ROOT, 'node_modules', '.bin', 'bun')
    const r = spawnSync(bun, ['examples/host.ts'], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 })
    expect(r.stderr).toBe('')
    expect(r.status).toBe(0)
    expect(r.stdout).toContain('ToolSearch →')
    expect(r.stdout).toContain('Sunny in Paris for 2 day(s)')
  }, 60_000)
})
