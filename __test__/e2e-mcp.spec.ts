/**
 * End to end: ToolSearch and ExecuteTool against real MCP servers over stdio.
 *
 * Starts @modelcontextprotocol/server-everything, -filesystem (on a fresh temp dir) and -memory
 * (on a temp memory file) through the SDK's client, turns their `tools/list` into deferred
 * `mcp__<server>__<tool>` tools next to a few ccb-like built-ins, and checks that searching finds
 * the right tools, that executing really reaches the servers, that invalid or denied calls never
 * do, and that a disconnect drops a server's tools through an incremental index update.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import * as fs from 'node:fs'
import * as path from 'node:path'
import {
  ToolIndexCache,
  executeTool,
  formatToolSearchResult,
  toolSearch,
  type ToolLike,
} from '../dist/index.js'
import {
  DEFAULT_FILES,
  isRunning,
  startAll,
  startServer,
  stopServer,
  textOf,
  type McpFleet,
  type McpServerHandle,
  type McpToolLike,
} from './helpers/mcp'
import { buildToolIndex as referenceBuild, hybridSearch as referenceHybrid } from '../reference'

const START_TIMEOUT_MS = 60_000
const CALL_TIMEOUT_MS = 30_000

// ---------------------------------------------------------------------------------------------
// ccb-like built-in tools: Read and Bash are core (always loaded); the Cron tools are deferred.
// ---------------------------------------------------------------------------------------------

type HostTool = ToolLike & {
  call: (input: any, ctx?: any, canUseTool?: any, parentMessage?: any, onProgress?: any) => Promise<unknown>
  isEnabled?: () => boolean
  checkPermissions?: (input: any, ctx?: any) => Promise<unknown>
}

function builtin(name: string, description: string, schema: Record<string, unknown>, extra: Partial<HostTool> = {}): HostTool {
  return {
    name,
    prompt: async () => description,
    inputJSONSchema: schema,
    isEnabled: () => true,
    checkPermissions: async (input: unknown) => ({ behavior: 'allow', updatedInput: input }),
    call: async (input: unknown) => ({ data: { builtin: name, input } }),
    ...extra,
  }
}

const BUILTINS: HostTool[] = [
  builtin('Read', 'Reads a file from the local filesystem. You can access any file directly by using this tool.', {
    type: 'object',
    properties: { file_path: { type: 'string' } },
    required: ['file_path'],
  }),
  builtin('Bash', 'Executes a given bash command in a persistent shell session.', {
    type: 'object',
    properties: { command: { type: 'string' } },
    required: ['command'],
  }),
  builtin(
    'CronCreate',
    'Schedule a prompt to run later: a recurring cron job or a one-shot reminder.',
    { type: 'object', properties: { cron: { type: 'string' }, prompt: { type: 'string' } }, required: ['cron', 'prompt'] },
    { searchHint: 'schedule a recurring or one-shot prompt' },
  ),
  builtin('CronDelete', 'Cancel a cron job previously scheduled with CronCreate.', {
    type: 'object',
    properties: { id: { type: 'string' } },
    required: ['id'],
  }, { searchHint: 'cancel a scheduled cron job' }),
  builtin('CronList', 'List the cron jobs scheduled in this session.', { type: 'object', properties: {} }, {
    searchHint: 'list scheduled cron jobs',
  }),
]
const CORE_BUILTINS = ['Read', 'Bash']
const DEFERRED_BUILTINS = BUILTINS.filter((t) => !CORE_BUILTINS.includes(t.name))

let fleet: McpFleet
let fsServer: McpServerHandle
let memServer: McpServerHandle
let everything: McpServerHandle

/** The host's full tool list: built-ins plus the tools of every running server. */
function hostTools(): HostTool[] {
  return [...BUILTINS, ...(fleet.tools() as HostTool[])]
}

function mcpTool(server: McpServerHandle, tool: string): McpToolLike {
  const t = server.tools.find((x) => x.mcpToolName === tool)
  if (!t) throw new Error(`${server.name} lists no tool "${tool}"; it lists ${server.listedTools.map((x) => x.name).join(', ')}`)
  return t
}

/** A copy of a tool whose `call` counts invocations (and still reaches the server). */
function spied<T extends HostTool>(tool: T, overrides: Partial<HostTool> = {}): T & { calls: unknown[][] } {
  const calls: unknown[][] = []
  const inner = tool.call
  return {
    ...tool,
    ...overrides,
    calls,
    call: async (...args: unknown[]) => {
      calls.push(args)
      return (inner as (...a: unknown[]) => Promise<unknown>)(...args)
    },
  }
}

function context(tools: HostTool[] = hostTools()) {
  return { options: { tools }, abortController: new AbortController(), messages: [] as unknown[] }
}

beforeAll(async () => {
  fleet = await startAll()
  fsServer = fleet.servers.filesystem
  memServer = fleet.servers.memory
  everything = fleet.servers.everything
}, START_TIMEOUT_MS)

afterAll(async () => {
  await fleet?.stopAll()
}, START_TIMEOUT_MS)

// ---------------------------------------------------------------------------------------------

describe('the servers and their tools', () => {
  test('all three servers list tools, converted to deferred mcp__<server>__<tool> tools', () => {
    for (const s of [everything, fsServer, memServer]) {
      expect(s.listedTools.length).toBeGreaterThan(0)
      expect(s.tools.length).toBe(s.listedTools.length)
      for (const t of s.tools) {
        expect(t.name).toBe(`mcp__${s.name}__${t.mcpToolName}`)
        expect(t.isMcp).toBe(true)
        expect(t.inputJSONSchema).toEqual(s.listedTools.find((x) => x.name === t.mcpToolName)!.inputSchema)
      }
    }
    // The tools this suite relies on exist under these exact names.
    for (const [s, names] of [
      [everything, ['echo', 'get-sum']],
      [fsServer, ['read_text_file', 'write_file', 'list_directory', 'move_file']],
      [memServer, ['create_entities', 'read_graph', 'search_nodes', 'delete_relations']],
    ] as const) {
      for (const n of names) expect(mcpTool(s, n).name).toBe(`mcp__${s.name}__${n}`)
    }
  })
})

describe('ToolSearch over real MCP tools', () => {
  test('total_deferred_tools counts every MCP tool and the deferred built-ins, not the core ones', async () => {
    const out = await toolSearch({ query: 'file' }, { tools: hostTools() })
    expect(out.total_deferred_tools).toBe(fleet.tools().length + DEFERRED_BUILTINS.length)
    expect(out.query).toBe('file')
  })

  const NATURAL: [query: string, expected: () => string][] = [
    ['read the contents of a file', () => mcpTool(fsServer, 'read_text_file').name],
    ['create entities in the knowledge graph', () => mcpTool(memServer, 'create_entities').name],
    ['echo a message back', () => mcpTool(everything, 'echo').name],
    ['add two numbers together', () => mcpTool(everything, 'get-sum').name],
    ['list files in a directory', () => mcpTool(fsServer, 'list_directory').name],
    ['move or rename a file', () => mcpTool(fsServer, 'move_file').name],
    ['write content to a new file', () => mcpTool(fsServer, 'write_file').name],
    ['search nodes in the knowledge graph', () => mcpTool(memServer, 'search_nodes').name],
    ['delete relations between entities', () => mcpTool(memServer, 'delete_relations').name],
    ['schedule a recurring prompt', () => 'CronCreate'],
  ]
  for (const [query, expected] of NATURAL) {
    test(`"${query}" finds the right tool in the top 5`, async () => {
      const out = await toolSearch({ query }, { tools: hostTools() })
      expect(out.matches.length).toBeLessThanOrEqual(5)
      expect(out.matches).toContain(expected())
      // Core tools are never offered as deferred matches of a natural-language query.
      for (const core of CORE_BUILTINS) expect(out.matches).not.toContain(core)
    })
  }

  test('max_results limits the matches', async () => {
    for (const max of [1, 2, 8]) {
      const out = await toolSearch({ query: 'file directory', max_results: max }, { tools: hostTools() })
      expect(out.matches.length).toBe(max)
      expect(new Set(out.matches).size).toBe(max)
    }
    // Default 5.
    expect((await toolSearch({ query: 'file directory' }, { tools: hostTools() })).matches.length).toBe(5)
  })

  test('compat ranking equals the reference hybrid search on the real MCP catalogue', async () => {
    const tools = hostTools()
    const refIndex = await referenceBuild(tools as any)
    const deferred = refIndex.map((e) => ({ name: e.name, description: e.description, searchHint: e.searchHint }))
    for (const [query] of NATURAL) {
      for (const max of [3, 5, 10]) {
        const out = await toolSearch({ query, max_results: max }, { tools })
        const ref = referenceHybrid(query, deferred, refIndex, max).map((r) => r.name)
        expect({ query, max, matches: out.matches }).toEqual({ query, max, matches: ref })
      }
    }
  })

  test('an exact tool name returns that tool first', async () => {
    const name = mcpTool(memServer, 'read_graph').name
    const out = await toolSearch({ query: name }, { tools: hostTools() })
    expect(out.matches[0]).toBe(name)
  })

  test('an mcp__<server> prefix returns only that server\'s tools', async () => {
    const out = await toolSearch({ query: 'mcp__memory', max_results: 20 }, { tools: hostTools() })
    expect(out.matches.length).toBeGreaterThan(0)
    // Every memory tool is matched, ahead of anything else.
    const head = out.matches.slice(0, memServer.tools.length)
    expect(new Set(head)).toEqual(new Set(memServer.tools.map((t) => t.name)))
  })

  test('+required terms keep only tools that have the term', async () => {
    const out = await toolSearch({ query: '+graph delete', max_results: 10 }, { tools: hostTools() })
    expect(out.matches.length).toBeGreaterThan(0)
    expect(out.matches).toContain(mcpTool(memServer, 'delete_entities').name)
    // Every keyword-only-eligible result talks about the knowledge graph (memory server).
    expect(out.matches.filter((m) => m.startsWith('mcp__memory__')).length).toBeGreaterThanOrEqual(3)
  })

  test('select: loads named tools in request order, deduplicated, reporting already-loaded core tools', async () => {
    const echo = mcpTool(everything, 'echo').name
    const graph = mcpTool(memServer, 'read_graph').name
    const out = await toolSearch(
      { query: `select:${echo}, ${graph},${echo} ,Read,NoSuchTool,` },
      { tools: hostTools() },
    )
    expect(out.matches).toEqual([echo, graph, 'Read'])
    expect(out.already_loaded).toEqual(['Read'])
    expect(out.total_deferred_tools).toBe(fleet.tools().length + DEFERRED_BUILTINS.length)
  })

  test("a query that is a core tool's name: the tool is named already loaded, never sent to the execute tool", async () => {
    const out = await toolSearch({ query: ' read ' }, { tools: hostTools() })
    // The keyword half is Read alone; the TF-IDF half adds the MCP tools about reading.
    expect(out.matches[0]).toBe('Read')
    expect(out.already_loaded).toEqual(['Read'])
    expect(out.core_tool_guidance).toBeUndefined()
    const text = formatToolSearchResult(out, 'toolu_core', { supportsToolReference: false, tools: hostTools() }).content as string
    const found = /^Found \d+ deferred tool\(s\): (.*)\.$/m.exec(text)
    expect(found?.[1].split(', ')).toEqual(out.matches.slice(1))
    expect(text).toContain('- Read (already loaded: call it directly, not through ExecuteTool)')
  })

  test('searchLoaded: words rank the core tools among the MCP servers\' tools, with how to call them', async () => {
    const words = 'run a command in a persistent shell session'
    // The seed's keyword search sees deferred tools only.
    const seed = await toolSearch({ query: words, max_results: 5 }, { tools: hostTools() })
    expect(seed.matches).not.toContain('Bash')
    const out = await toolSearch({ query: words, max_results: 5 }, { tools: hostTools(), searchLoaded: true })
    expect(out.matches).toContain('Bash')
    expect(out.already_loaded).toEqual(['Bash'])
    expect(out.core_tool_guidance).toContain('"command"')
    expect(out.core_tool_guidance).toContain('do not wrap it in ExecuteTool')
    const text = formatToolSearchResult(out, 'toolu_loaded', { supportsToolReference: false, tools: hostTools() }).content as string
    expect(text).toContain('Bash is already loaded: call directly')
  })

  test('searchLoaded under enhanced scoring: the deferred tools alone are ranked, an exact name still reaches a loaded tool', async () => {
    const words = 'run a command in a persistent shell session'
    const out = await toolSearch({ query: words, max_results: 5 }, { tools: hostTools(), searchLoaded: true, scoring: 'enhanced' })
    expect(out.matches).not.toContain('Bash')
    expect(out.already_loaded).toBeUndefined()
    const exact = await toolSearch({ query: 'Bash' }, { tools: hostTools(), searchLoaded: true, scoring: 'enhanced' })
    expect(exact.matches[0]).toBe('Bash')
    expect(exact.already_loaded).toEqual(['Bash'])
  })

  test('select: with no known name reports the pending MCP servers', async () => {
    const out = await toolSearch({ query: 'select:mcp__slack__post_message' }, { tools: hostTools(), pendingMcpServers: ['slack'] })
    expect(out.matches).toEqual([])
    expect(out.pending_mcp_servers).toEqual(['slack'])
    const block = formatToolSearchResult(out, 'toolu_none', { supportsToolReference: true })
    expect(typeof block.content).toBe('string')
    expect(block.content as string).toContain('No matching deferred tools found')
    expect(block.content as string).toContain('slack')
  })

  test('discover: returns text with each match\'s name, score, description and JSON schema', async () => {
    const out = await toolSearch({ query: 'discover:create entities in the knowledge graph' }, { tools: hostTools() })
    const target = mcpTool(memServer, 'create_entities')
    expect(out.matches).toContain(target.name)
    expect(typeof out.text).toBe('string')
    const text = out.text as string
    for (const name of out.matches) expect(text).toContain(name)
    expect(text).toContain(target.description)
    expect(text).toContain(JSON.stringify(target.inputJSONSchema))
    expect(text).toMatch(/\d+\.\d{2}\b/)
    // The scores in the text are 2-decimal numbers in descending order.
    const scores = [...text.matchAll(/score:\s*(\d+\.\d{2})/g)].map((m) => Number(m[1]))
    expect(scores.length).toBe(out.matches.length)
    expect([...scores].sort((a, b) => b - a)).toEqual(scores)
    // discover loads nothing: even with tool_reference support the model gets text.
    const block = formatToolSearchResult(out, 'toolu_d', { supportsToolReference: true })
    expect(block.content).toBe(text)
  })

  test('formatToolSearchResult: tool_reference blocks, or text telling the model to use ExecuteTool', async () => {
    const echo = mcpTool(everything, 'echo').name
    const out = await toolSearch({ query: `select:${echo},Bash` }, { tools: hostTools() })
    const refs = formatToolSearchResult(out, 'toolu_1', { supportsToolReference: true })
    expect(refs).toEqual({
      type: 'tool_result',
      tool_use_id: 'toolu_1',
      content: [
        { type: 'tool_reference', tool_name: echo },
        { type: 'tool_reference', tool_name: 'Bash' },
      ],
    })
    const text = formatToolSearchResult(out, 'toolu_2', { supportsToolReference: false })
    expect(text.type).toBe('tool_result')
    expect(text.tool_use_id).toBe('toolu_2')
    expect(typeof text.content).toBe('string')
    const s = text.content as string
    expect(s).toContain(echo)
    expect(s).toContain('ExecuteTool')
    expect(s).toContain('"tool_name"')
    expect(s).toContain('"params"')
    expect(s).toMatch(/Bash[^\n]*already loaded/i)
  })
})

describe('ExecuteTool really calls the MCP servers', () => {
  test('everything/echo returns the echoed text', async () => {
    const name = mcpTool(everything, 'echo').name
    const out = await executeTool({ tool_name: name, params: { message: 'hello from e2e' } }, context())
    expect(out.message).toBeUndefined()
    expect(out.tool_name).toBe(name)
    expect(textOf(out.result)).toBe('Echo: hello from e2e')
  }, CALL_TIMEOUT_MS)

  test('everything/get-sum adds on the server', async () => {
    const out = await executeTool({ tool_name: mcpTool(everything, 'get-sum').name, params: { a: 19, b: 23 } }, context())
    expect(textOf(out.result)).toContain('42')
  }, CALL_TIMEOUT_MS)

  test('filesystem/read_text_file returns the file content written to the temp dir', async () => {
    const file = path.join(fsServer.root as string, 'hello.txt')
    const out = await executeTool({ tool_name: mcpTool(fsServer, 'read_text_file').name, params: { path: file } }, context())
    expect(out.message).toBeUndefined()
    expect(textOf(out.result)).toBe(DEFAULT_FILES['hello.txt'])
  }, CALL_TIMEOUT_MS)

  test('filesystem/write_file writes a real file, which list_directory then shows', async () => {
    const file = path.join(fsServer.root as string, 'written.txt')
    const w = await executeTool(
      { tool_name: mcpTool(fsServer, 'write_file').name, params: { path: file, content: 'written by ExecuteTool' } },
      context(),
    )
    expect(w.message).toBeUndefined()
    expect(fs.readFileSync(file, 'utf8')).toBe('written by ExecuteTool')
    const ls = await executeTool({ tool_name: mcpTool(fsServer, 'list_directory').name, params: { path: fsServer.root } }, context())
    expect(textOf(ls.result)).toContain('written.txt')
    expect(textOf(ls.result)).toContain('hello.txt')
  }, CALL_TIMEOUT_MS)

  test('memory/create_entities then read_graph shows the entities', async () => {
    const entities = [
      { name: 'tool-index-native', entityType: 'package', observations: ['written in Rust', 'napi-rs binding'] },
      { name: 'ccb', entityType: 'agent', observations: ['Claude-Code-style CLI'] },
    ]
    const created = await executeTool({ tool_name: mcpTool(memServer, 'create_entities').name, params: { entities } }, context())
    expect(created.message).toBeUndefined()
    expect(textOf(created.result)).toContain('tool-index-native')
    const graph = await executeTool({ tool_name: mcpTool(memServer, 'read_graph').name, params: {} }, context())
    const text = textOf(graph.result)
    expect(text).toContain('tool-index-native')
    expect(text).toContain('ccb')
    expect(text).toContain('napi-rs binding')
    // The server persisted them to the memory file in our temp dir.
    expect(fs.readFileSync(memServer.memoryFile as string, 'utf8')).toContain('tool-index-native')
  }, CALL_TIMEOUT_MS)

  test('search then execute: the first match of a natural query runs on the server', async () => {
    const found = await toolSearch({ query: 'echo a message back' }, { tools: hostTools() })
    const name = found.matches.find((m) => m.endsWith('__echo'))
    expect(name).toBe(mcpTool(everything, 'echo').name)
    const out = await executeTool({ tool_name: name as string, params: { message: 'round trip' } }, context())
    expect(textOf(out.result)).toBe('Echo: round trip')
  }, CALL_TIMEOUT_MS)

  test('the target gets the same context, canUseTool, parent message and progress callback', async () => {
    const echo = spied(mcpTool(everything, 'echo') as HostTool)
    const tools = [...BUILTINS, echo]
    const ctx = context(tools)
    const canUseTool = async () => ({ behavior: 'allow' as const })
    const parent = { type: 'assistant', uuid: 'parent-1' }
    const onProgress = () => {}
    const out = await executeTool({ tool_name: echo.name, params: { message: 'ctx' } }, ctx, canUseTool, parent, onProgress)
    expect(textOf(out.result)).toBe('Echo: ctx')
    expect(echo.calls.length).toBe(1)
    const [input, c, cu, pm, op] = echo.calls[0]
    expect(input).toEqual({ message: 'ctx' })
    expect(c).toBe(ctx)
    expect(cu).toBe(canUseTool)
    expect(pm).toBe(parent)
    expect(op).toBe(onProgress)
  }, CALL_TIMEOUT_MS)

  test('a tool whose schema declares JSON Schema 2020-12 (MCP\'s default dialect) is validated and runs', async () => {
    const base = mcpTool(everything, 'echo')
    const schema = { ...base.inputJSONSchema, $schema: 'https://json-schema.org/draft/2020-12/schema' }
    const echo = spied({ ...base, inputJSONSchema: schema } as HostTool)
    const ok = await executeTool({ tool_name: echo.name, params: { message: '2020-12' } }, context([...BUILTINS, echo]))
    expect(ok.message).toBeUndefined()
    expect(textOf(ok.result)).toBe('Echo: 2020-12')
    const bad = await executeTool({ tool_name: echo.name, params: {} }, context([...BUILTINS, echo]))
    expect(bad.result).toBeNull()
    expect(bad.message).toContain('message')
    expect(echo.calls.length).toBe(1)
  }, CALL_TIMEOUT_MS)

  test('a tool is found by alias', async () => {
    const echo = spied(mcpTool(everything, 'echo') as HostTool, { aliases: ['say'] })
    const out = await executeTool({ tool_name: 'say', params: { message: 'alias' } }, context([...BUILTINS, echo]))
    expect(out.tool_name).toBe(echo.name)
    expect(textOf(out.result)).toBe('Echo: alias')
  }, CALL_TIMEOUT_MS)
})

describe('calls that must never reach the server', () => {
  /** Run `fn`; assert the server got no tools/call request meanwhile. */
  async function serverUntouched(server: McpServerHandle, fn: () => Promise<void>): Promise<void> {
    const before = server.callCount()
    await fn()
    expect(server.callCount()).toBe(before)
  }

  test('wrong type: echo with a number message names "message"', async () => {
    const echo = spied(mcpTool(everything, 'echo') as HostTool)
    await serverUntouched(everything, async () => {
      const out = await executeTool({ tool_name: echo.name, params: { message: 42 } }, context([...BUILTINS, echo]))
      expect(out.result).toBeNull()
      expect(out.message).toContain('message')
    })
    expect(echo.calls.length).toBe(0)
  })

  test('missing required field: read_text_file without path names "path"', async () => {
    const read = spied(mcpTool(fsServer, 'read_text_file') as HostTool)
    await serverUntouched(fsServer, async () => {
      const out = await executeTool({ tool_name: read.name, params: { tail: 1 } }, context([...BUILTINS, read]))
      expect(out.result).toBeNull()
      expect(out.message).toContain('path')
    })
    expect(read.calls.length).toBe(0)
  })

  test('nested error: create_entities with an entity lacking entityType names it', async () => {
    const create = spied(mcpTool(memServer, 'create_entities') as HostTool)
    await serverUntouched(memServer, async () => {
      const out = await executeTool(
        { tool_name: create.name, params: { entities: [{ name: 'half', observations: [] }] } },
        context([...BUILTINS, create]),
      )
      expect(out.result).toBeNull()
      expect(out.message).toContain('entityType')
    })
    expect(create.calls.length).toBe(0)
    // And the graph really does not hold it.
    const graph = await executeTool({ tool_name: mcpTool(memServer, 'read_graph').name, params: {} }, context())
    expect(textOf(graph.result)).not.toContain('"half"')
  }, CALL_TIMEOUT_MS)

  test('out of range: get-sum with a string operand names the field', async () => {
    const sum = spied(mcpTool(everything, 'get-sum') as HostTool)
    await serverUntouched(everything, async () => {
      const out = await executeTool({ tool_name: sum.name, params: { a: 1, b: 'two' } }, context([...BUILTINS, sum]))
      expect(out.result).toBeNull()
      expect(out.message).toMatch(/\bb\b/)
    })
    expect(sum.calls.length).toBe(0)
  })

  test('a denying permission check stops a write: no call, no file', async () => {
    const file = path.join(fsServer.root as string, 'denied.txt')
    const write = spied(mcpTool(fsServer, 'write_file') as HostTool, {
      checkPermissions: async () => ({ behavior: 'deny', message: 'writes are not allowed in this test' }),
    })
    await serverUntouched(fsServer, async () => {
      const out = await executeTool({ tool_name: write.name, params: { path: file, content: 'nope' } }, context([...BUILTINS, write]))
      expect(out.result).toBeNull()
      expect(out.message).toContain('writes are not allowed in this test')
      expect(out.message?.toLowerCase()).toContain('denied')
    })
    expect(write.calls.length).toBe(0)
    expect(fs.existsSync(file)).toBe(false)
  })

  test('a disabled tool is refused', async () => {
    const echo = spied(mcpTool(everything, 'echo') as HostTool, { isEnabled: () => false })
    await serverUntouched(everything, async () => {
      const out = await executeTool({ tool_name: echo.name, params: { message: 'x' } }, context([...BUILTINS, echo]))
      expect(out.result).toBeNull()
      expect(out.message).toContain('disabled')
    })
    expect(echo.calls.length).toBe(0)
  })

  test('an unknown tool gives the not-found message and suggests close names', async () => {
    const out = await executeTool({ tool_name: 'mcp__everything__ech', params: { message: 'x' } }, context())
    expect(out.result).toBeNull()
    expect(out.message).toStartWith('Tool "mcp__everything__ech" not found. Use ToolSearch to discover available tools.')
    expect(out.message).toContain(mcpTool(everything, 'echo').name)
  })
})

describe('a server disconnecting', () => {
  test('its tools leave later searches through an incremental update, not a rebuild', async () => {
    // A private cache so the build/update counts belong to this test; prompts counted per tool.
    const cache = new ToolIndexCache()
    const prompts = new Map<string, number>()
    const counted = (t: HostTool): HostTool => ({
      ...t,
      prompt: async (c: unknown) => {
        prompts.set(t.name, (prompts.get(t.name) ?? 0) + 1)
        return (t.prompt as (c: unknown) => Promise<string>)(c)
      },
    })
    const all = hostTools().map(counted)
    const memoryNames = new Set(memServer.tools.map((t) => t.name))
    const survivors = all.filter((t) => !memoryNames.has(t.name))
    const queries = [
      'read the contents of a file',
      'echo a message back',
      'list files in a directory',
      'schedule a recurring prompt',
      'create entities in the knowledge graph',
      'graph',
    ]

    const before = await cache.get(all)
    const beforeLength = before.length
    const first = await toolSearch({ query: 'create entities in the knowledge graph' }, { tools: all, cache })
    expect(first.matches).toContain(mcpTool(memServer, 'create_entities').name)
    expect(cache.stats).toEqual({ builds: 1, updates: 0 })
    const promptsAfterBuild = new Map(prompts)
    expect(promptsAfterBuild.size).toBe(all.length - CORE_BUILTINS.length)

    // The memory server goes away; the host drops its tools from its list.
    const after = await cache.get(survivors)
    expect(after).not.toBe(before)
    expect(after.length).toBe(beforeLength - memoryNames.size)
    expect(after.length).toBe(survivors.length - CORE_BUILTINS.length)
    expect(cache.stats).toEqual({ builds: 1, updates: 1 })
    // No surviving tool was described again: the update only removed entries.
    expect(prompts).toEqual(promptsAfterBuild)

    const fresh = new ToolIndexCache()
    for (const query of queries) {
      const inc = await toolSearch({ query, max_results: 8 }, { tools: survivors, cache })
      for (const m of inc.matches) expect(memoryNames.has(m)).toBe(false)
      expect(inc.total_deferred_tools).toBe(survivors.length - CORE_BUILTINS.length)
      // Identical to a fresh build over the surviving tools.
      const ref = await toolSearch({ query, max_results: 8 }, { tools: survivors, cache: fresh })
      expect(inc).toEqual(ref)
    }
    expect(cache.stats).toEqual({ builds: 1, updates: 1 })
    expect(fresh.stats.builds).toBe(1)
  }, START_TIMEOUT_MS)

  test('stopping the real memory server: its tools vanish from ToolSearch and ExecuteTool', async () => {
    const createName = mcpTool(memServer, 'create_entities').name
    const withMemory = await toolSearch({ query: 'create entities in the knowledge graph' }, { tools: hostTools() })
    expect(withMemory.matches).toContain(createName)
    const totalBefore = withMemory.total_deferred_tools

    await fleet.stop('memory')
    expect(isRunning(memServer)).toBe(false)
    expect(fs.existsSync(path.dirname(memServer.memoryFile as string))).toBe(false)

    const tools = hostTools()
    expect(tools.some((t) => t.name.startsWith('mcp__memory__'))).toBe(false)
    const out = await toolSearch({ query: 'create entities in the knowledge graph', max_results: 10 }, { tools })
    expect(out.total_deferred_tools).toBe(totalBefore - memServer.tools.length)
    expect(out.matches.some((m) => m.startsWith('mcp__memory__'))).toBe(false)
    const sel = await toolSearch({ query: `select:${createName}` }, { tools, pendingMcpServers: ['memory'] })
    expect(sel.matches).toEqual([])
    expect(sel.pending_mcp_servers).toEqual(['memory'])
    const exec = await executeTool({ tool_name: createName, params: { entities: [] } }, context(tools))
    expect(exec.result).toBeNull()
    expect(exec.message).toStartWith(`Tool "${createName}" not found.`)

    // The other servers still answer.
    const echo = await executeTool({ tool_name: mcpTool(everything, 'echo').name, params: { message: 'still here' } }, context(tools))
    expect(textOf(echo.result)).toBe('Echo: still here')
  }, START_TIMEOUT_MS)

  test('a server reconnecting brings its tools back', async () => {
    const again = await startServer('memory')
    try {
      const tools = [...hostTools(), ...(again.tools as HostTool[])]
      const out = await toolSearch({ query: 'create entities in the knowledge graph' }, { tools })
      expect(out.matches).toContain('mcp__memory__create_entities')
      const exec = await executeTool({ tool_name: 'mcp__memory__read_graph', params: {} }, context(tools))
      expect(exec.message).toBeUndefined()
      // A fresh memory file: the entities created earlier are gone with the old temp dir.
      expect(textOf(exec.result)).not.toContain('tool-index-native')
    } finally {
      await stopServer(again)
    }
    expect(isRunning(again)).toBe(false)
  }, START_TIMEOUT_MS)
})

describe('cleanup', () => {
  test('the suite stops its own servers and removes their temp dirs', async () => {
    const handles = Object.values(fleet.servers)
    await fleet.stopAll()
    for (const h of handles) {
      expect(isRunning(h)).toBe(false)
      for (const d of h.tempDirs) expect(fs.existsSync(d)).toBe(false)
    }
  }, START_TIMEOUT_MS)
})
