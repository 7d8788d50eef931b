/**
 * End to end: `tool-index serve` over real MCP servers from npm (server-everything,
 * server-filesystem, server-memory) and a misbehaving fixture server of our own, driven by the
 * MCP SDK client over stdio and Streamable HTTP, and by the MCP Inspector's CLI mode.
 *
 * The same behaviour suite runs in both transports: list, search (keywords, +required, select:,
 * discover:), execute (passthrough of content, isError, progress, cancellation), refusals
 * (unknown, undiscovered, invalid arguments), list_changed, an upstream crash mid-session, a hung
 * upstream, and a server that hangs at startup.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import * as fs from 'node:fs'
import * as http from 'node:http'
import * as os from 'node:os'
import * as path from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { LoggingMessageNotificationSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'

const ROOT = path.resolve(__dirname, '..')
const CLI = path.join(ROOT, 'dist', 'cli.js')
const FLAKY = path.join(ROOT, '__test__', 'fixtures', 'gateway', 'flaky-server.mjs')
const INSPECTOR = path.join(ROOT, 'node_modules', '@modelcontextprotocol', 'inspector', 'clients', 'launcher', 'build', 'index.js')

function binOf(pkg: string): string {
  const pj = path.join(ROOT, 'node_modules', pkg, 'package.json')
  const json = JSON.parse(fs.readFileSync(pj, 'utf8')) as { bin: string | Record<string, string> }
  const bin = typeof json.bin === 'string' ? json.bin : Object.values(json.bin)[0]
  return path.resolve(path.dirname(pj), bin)
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tool-index-gateway-'))
const files = path.join(tmp, 'files')
fs.mkdirSync(files)
fs.writeFileSync(path.join(files, 'notes.txt'), 'gateway notes: line one\nline two\n')

interface Cfg {
  mcpServers: Record<string, unknown>
  gateway?: Record<string, unknown>
}

/** The three npm servers, the flaky fixture (echo / late_tool loaded directly), and optionally a server that never initializes. */
function fullConfig(name: string, stuck: boolean): string {
  const memFile = path.join(tmp, `${name}-memory.jsonl`)
  const cfg: Cfg = {
    mcpServers: {
      everything: { command: 'node', args: [binOf('@modelcontextprotocol/server-everything'), 'stdio'] },
      filesystem: { command: 'node', args: [binOf('@modelcontextprotocol/server-filesystem'), files] },
      memory: { command: 'node', args: [binOf('@modelcontextprotocol/server-memory')], env: { MEMORY_FILE_PATH: memFile } },
      flaky: { command: 'node', args: [FLAKY], alwaysLoad: ['echo', 'late_tool'] },
      ...(stuck ? { stuck: { command: 'node', args: [FLAKY], env: { FLAKY_MODE: 'hang-init' } } } : {}),
    },
    gateway: {
      connectTimeoutMs: 8000,
      callTimeoutMs: 2000,
      listTimeoutMs: 3000,
      backoffInitialMs: 1000,
      backoffMaxMs: 4000,
      startupWaitMs: 4000,
    },
  }
  const file = path.join(tmp, `${name}.json`)
  fs.writeFileSync(file, JSON.stringify(cfg, null, 2))
  return file
}

afterAll(() => {
  fs.rmSync(tmp, { recursive: true, force: true })
})

type CallResult = { content: { type: string; text?: string }[]; isError?: boolean; structuredContent?: any }

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

async function until<T>(what: string, fn: () => Promise<T | undefined | false>, ms = 15_000): Promise<T> {
  const end = Date.now() + ms
  for (;;) {
    const v = await fn()
    if (v) return v
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await sleep(150)
  }
}

/** The entry search results give for `server` once they name it unavailable (polls until then). */
async function reportedUnavailable(c: Client, server: string, ms: number): Promise<{ server: string; error: string }> {
  return until(
    `${server} to be reported unavailable`,
    async () => {
      const s = (await c.callTool({ name: 'search_tools', arguments: { query: 'anything' } })) as CallResult
      return s.structuredContent.unavailable_servers.find((u: { server: string }) => u.server === server)
    },
    ms,
  )
}

function textOf(r: CallResult): string {
  return r.content.map((c) => c.text ?? '').join('\n')
}

interface Harness {
  client: Client
  stderr: () => string
  listChanged: () => number
  logs: unknown[]
}

/** The behaviour suite, run once per transport. */
function behaviour(mode: string, h: () => Harness) {
  const call = (name: string, args: Record<string, unknown>) => h().client.callTool({ name, arguments: args }) as Promise<CallResult>
  const search = (query: string, max?: number) => call('search_tools', max === undefined ? { query } : { query, max_results: max })
  const exec = (tool_name: string, args?: unknown) => call('execute_tool', args === undefined ? { tool_name } : { tool_name, arguments: args })

  test(`${mode}: startup progress names every server on stderr`, async () => {
    await h().client.listTools()
    const log = h().stderr()
    for (const s of ['everything', 'filesystem', 'memory', 'flaky']) expect(log).toContain(s)
    expect(log).toMatch(/ready/)
  }, 30_000)

  test(`${mode}: tools/list has search_tools, execute_tool and the alwaysLoad tool, nothing else`, async () => {
    const { tools } = await h().client.listTools()
    expect(tools.map((t) => t.name).sort()).toEqual(['execute_tool', 'mcp__flaky__echo', 'search_tools'])
    const echo = tools.find((t) => t.name === 'mcp__flaky__echo')!
    expect((echo.inputSchema as any).properties.text.type).toBe('string')
  }, 30_000)

  test(`${mode}: an undiscovered tool is refused before search_tools returned it`, async () => {
    const r = await exec('mcp__memory__read_graph', {})
    expect(r.isError).toBe(true)
    expect(r.structuredContent.refused).toBe('not_discovered')
    expect(textOf(r)).toContain('search_tools')
  }, 30_000)

  test(`${mode}: keyword search ranks the right upstream tools, with schemas, as text and structuredContent`, async () => {
    const r = await search('read the contents of a text file', 5)
    expect(r.isError).toBeFalsy()
    const names = r.structuredContent.matches.map((m: any) => m.name)
    expect(names).toContain('mcp__filesystem__read_text_file')
    const m = r.structuredContent.matches.find((x: any) => x.name === 'mcp__filesystem__read_text_file')
    expect(m.server).toBe('filesystem')
    expect(m.tool).toBe('read_text_file')
    expect(m.inputSchema.required).toContain('path')
    expect(textOf(r)).toContain('mcp__filesystem__read_text_file')
    expect(textOf(r)).toContain('execute_tool')
    expect(r.structuredContent.total_tools).toBeGreaterThan(30)
  }, 30_000)

  test(`${mode}: +required, select: and discover: work through the gateway`, async () => {
    const req = await search('+entities create', 5)
    const names: string[] = req.structuredContent.matches.map((m: any) => m.name)
    expect(names.length).toBeGreaterThan(0)
    expect(names[0]).toMatch(/^mcp__memory__/)
    const sel = await search('select:mcp__memory__read_graph,mcp__filesystem__list_directory')
    expect(sel.structuredContent.matches.map((m: any) => m.name)).toEqual(['mcp__memory__read_graph', 'mcp__filesystem__list_directory'])
    const bare = await search('select:read_graph')
    expect(bare.structuredContent.matches.map((m: any) => m.name)).toEqual(['mcp__memory__read_graph'])
    const disc = await search('discover:knowledge graph relations', 3)
    expect(disc.structuredContent.matches.every((m: any) => m.server === 'memory')).toBe(true)
  }, 30_000)

  test(`${mode}: execute forwards to the owning server and returns its result unchanged`, async () => {
    await search('select:mcp__filesystem__read_text_file,mcp__everything__echo,mcp__memory__create_entities,mcp__memory__read_graph')
    const read = await exec('mcp__filesystem__read_text_file', { path: path.join(files, 'notes.txt') })
    expect(read.isError).toBeFalsy()
    expect(textOf(read)).toContain('gateway notes: line one')
    const echo = await exec('mcp__everything__echo', { message: 'hi there' })
    expect(textOf(echo)).toContain('hi there')
    const made = await exec('mcp__memory__create_entities', { entities: [{ name: `gw-${mode}`, entityType: 'test', observations: ['made via the gateway'] }] })
    expect(made.isError).toBeFalsy()
    const graph = await exec('mcp__memory__read_graph', {})
    expect(textOf(graph)).toContain(`gw-${mode}`)
  }, 30_000)

  test(`${mode}: content, structuredContent and isError pass through exactly as a direct call returns them`, async () => {
    const direct = new Client({ name: 'direct', version: '1' })
    await direct.connect(new StdioClientTransport({ command: 'node', args: [FLAKY], stderr: 'ignore' }))
    try {
      await search('select:mcp__flaky__fail')
      const viaEcho = await call('mcp__flaky__echo', { text: 'same bytes ✓' })
      const dirEcho = await direct.callTool({ name: 'echo', arguments: { text: 'same bytes ✓' } })
      expect(viaEcho).toEqual(dirEcho as any)
      const viaFail = await exec('mcp__flaky__fail', {})
      const dirFail = await direct.callTool({ name: 'fail', arguments: {} })
      expect(viaFail).toEqual(dirFail as any)
      expect(viaFail.isError).toBe(true)
    } finally {
      await direct.close()
    }
  }, 30_000)

  test(`${mode}: bad arguments are refused with the schema error and never reach the server`, async () => {
    const badType = await exec('mcp__filesystem__read_text_file', { path: 42 })
    expect(badType.isError).toBe(true)
    expect(badType.structuredContent.refused).toBe('invalid_params')
    expect(textOf(badType)).toContain('/path')
    const badShape = await exec('mcp__memory__create_entities', { entities: [{ name: `never-${mode}` }] })
    expect(badShape.structuredContent.refused).toBe('invalid_params')
    const graph = await exec('mcp__memory__read_graph', {})
    expect(textOf(graph)).not.toContain(`never-${mode}`)
    const notObject = await exec('mcp__memory__read_graph', [1, 2])
    expect(notObject.isError).toBe(true)
    const direct = await call('mcp__flaky__echo', { text: 5 })
    expect(direct.structuredContent.refused).toBe('invalid_params')
    const noName = await call('execute_tool', {})
    expect(noName.isError).toBe(true)
    const badMax = await search('files', 0)
    expect(badMax.isError).toBe(true)
  }, 30_000)

  test(`${mode}: an unknown tool is refused with suggestions`, async () => {
    const r = await exec('mcp__filesystem__read_txt_fil', { path: 'x' })
    expect(r.isError).toBe(true)
    expect(r.structuredContent.refused).toBe('not_found')
    expect(textOf(r)).toContain('not found')
    await expect(h().client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toThrow(/Unknown tool/)
  }, 30_000)

  test(`${mode}: progress notifications reach the client; a cancellation reaches the upstream`, async () => {
    await search('select:mcp__flaky__count_slowly,mcp__flaky__stats')
    const seen: { progress: number; total?: number; message?: string }[] = []
    const r = (await h().client.callTool({ name: 'execute_tool', arguments: { tool_name: 'mcp__flaky__count_slowly', arguments: { to: 3, delay_ms: 20 } } }, undefined, {
      onprogress: (p) => seen.push(p),
    })) as CallResult
    expect(textOf(r)).toBe('counted to 3')
    expect(seen.map((p) => [p.progress, p.total, p.message])).toEqual([
      [1, 3, 'step 1'],
      [2, 3, 'step 2'],
      [3, 3, 'step 3'],
    ])
    const before = JSON.parse(textOf(await exec('mcp__flaky__stats', {}))).cancelled
    const ac = new AbortController()
    const pending = h().client.callTool({ name: 'execute_tool', arguments: { tool_name: 'mcp__flaky__count_slowly', arguments: { to: 40, delay_ms: 50 } } }, undefined, {
      signal: ac.signal,
      onprogress: () => {},
    })
    setTimeout(() => ac.abort('test cancels'), 300)
    await expect(pending).rejects.toThrow()
    await until('the upstream to see the cancellation', async () => JSON.parse(textOf(await exec('mcp__flaky__stats', {}))).cancelled === before + 1)
  }, 30_000)

  test(`${mode}: an upstream's log messages during a call reach the caller, before the result`, async () => {
    await search('select:mcp__flaky__chatty')
    const before = h().logs.length
    const r = await exec('mcp__flaky__chatty', {})
    expect(textOf(r)).toBe('chatted')
    expect(h().logs.slice(before)).toEqual([
      { level: 'info', logger: 'flaky', data: 'chatty: one' },
      { level: 'info', logger: 'flaky', data: 'chatty: two' },
    ])
  }, 30_000)

  test(`${mode}: list_changed updates the index and the client's tool list`, async () => {
    const before = h().listChanged()
    await search('select:mcp__flaky__add_tool')
    const added = await exec('mcp__flaky__add_tool', { name: 'zebra_stripes', description: 'Count the stripes of a zebra in a photo' })
    expect(added.isError).toBeFalsy()
    const found = await until('zebra_stripes to be searchable', async () => {
      const r = await search('zebra stripes', 3)
      return r.structuredContent.matches.some((m: any) => m.name === 'mcp__flaky__zebra_stripes') && r
    })
    expect(found.structuredContent.matches[0].name).toBe('mcp__flaky__zebra_stripes')
    const ran = await exec('mcp__flaky__zebra_stripes', {})
    expect(textOf(ran)).toBe('zebra_stripes ran')
    // late_tool is alwaysLoad: the gateway's own list changes, and it says so.
    await exec('mcp__flaky__add_tool', { name: 'late_tool', description: 'A tool that arrives late' })
    await until('tools/list_changed from the gateway', async () => h().listChanged() > before)
    // A notice of an earlier change may arrive first (under load): the listing is polled.
    const tools = await until('late_tool in tools/list', async () => {
      const listed = (await h().client.listTools()).tools
      return listed.some((t) => t.name === 'mcp__flaky__late_tool') && listed
    })
    expect(tools.map((t) => t.name)).toContain('mcp__flaky__late_tool')
    expect(h().stderr()).toContain('tool list changed')
  }, 30_000)

  test(`${mode}: an upstream crash mid-session drops its tools, names it unavailable, and it comes back`, async () => {
    await search('select:mcp__flaky__crash')
    const r = await exec('mcp__flaky__crash', {})
    expect(r.isError).toBe(true)
    expect(textOf(r)).toMatch(/closed the connection/)
    expect(r.structuredContent).toMatchObject({ failed: 'connection_closed', tool_name: 'mcp__flaky__crash', server: 'flaky' })
    const s = await search('echo a message', 10)
    expect(s.structuredContent.matches.some((m: any) => m.server === 'flaky')).toBe(false)
    expect(s.structuredContent.unavailable_servers.map((u: any) => u.server)).toContain('flaky')
    expect(textOf(s)).toContain('Unavailable servers')
    const gone = await exec('mcp__flaky__echo', { text: 'x' })
    expect(gone.isError).toBe(true)
    expect(textOf(gone)).toMatch(/flaky/)
    // The other servers keep working meanwhile.
    expect(textOf(await exec('mcp__everything__echo', { message: 'still here' }))).toContain('still here')
    await until('flaky to reconnect', async () => (await search('select:mcp__flaky__echo')).structuredContent.matches.length === 1)
    expect(textOf((await call('mcp__flaky__echo', { text: 'back' })) as CallResult)).toBe('back')
  }, 30_000)

  test(`${mode}: a hung upstream hits the call deadline, is pinged, dropped, and reconnected`, async () => {
    await search('select:mcp__flaky__freeze')
    const t0 = Date.now()
    const r = await exec('mcp__flaky__freeze', {})
    expect(r.isError).toBe(true)
    expect(textOf(r)).toMatch(/did not answer .* within its deadline/)
    expect(r.structuredContent).toMatchObject({ failed: 'timeout', tool_name: 'mcp__flaky__freeze', server: 'flaky' })
    expect(Date.now() - t0).toBeLessThan(10_000)
    await until('the hang to be detected', async () => /hung: no answer to ping/.test(h().stderr()), 10_000)
    await until('flaky to reconnect after the hang', async () => (await search('select:mcp__flaky__echo')).structuredContent.matches.length === 1, 20_000)
  }, 30_000)
}

// ------------------------------------------------------------------------------------------------

describe('gateway over stdio (MCP SDK client)', () => {
  let client: Client
  let err = ''
  let changed = 0
  const logs: unknown[] = []
  beforeAll(async () => {
    const config = fullConfig('stdio', true)
    const transport = new StdioClientTransport({ command: 'node', args: [CLI, 'serve', '--config', config], stderr: 'pipe' })
    transport.stderr?.on('data', (d: Buffer) => (err += d.toString()))
    client = new Client({ name: 'gateway-test', version: '1' })
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      changed++
    })
    client.setNotificationHandler(LoggingMessageNotificationSchema, async (n) => {
      logs.push(n.params)
    })
    await client.connect(transport)
  }, 60_000)
  afterAll(async () => {
    await client?.close()
  })
  behaviour('stdio', () => ({ client, stderr: () => err, listChanged: () => changed, logs }))

  test('stdio: hostile input gets an error result and the gateway keeps serving', async () => {
    const huge = (await client.callTool({ name: 'search_tools', arguments: { query: 'x'.repeat(4 * 1024 * 1024 + 1) } })) as CallResult
    expect(huge.isError).toBe(true)
    expect(textOf(huge)).toMatch(/limit/)
    await client.callTool({ name: 'search_tools', arguments: { query: 'select:mcp__memory__read_graph' } })
    const proto = (await client.callTool({
      name: 'execute_tool',
      arguments: JSON.parse('{"tool_name":"mcp__memory__read_graph","arguments":{"__proto__":{"polluted":true}}}'),
    })) as CallResult
    expect(proto.isError).toBe(true)
    expect(proto.structuredContent.refused).toBe('invalid_params')
    expect(({} as any).polluted).toBeUndefined()
    const longName = (await client.callTool({ name: 'execute_tool', arguments: { tool_name: 'mcp__'.repeat(20_000), arguments: {} } })) as CallResult
    expect(longName.isError).toBe(true)
    const ok = (await client.callTool({ name: 'search_tools', arguments: { query: 'read a file' } })) as CallResult
    expect(ok.isError).toBeFalsy()
  }, 30_000)

  test('stdio: a server that never initializes is named unavailable after its connect deadline', async () => {
    const stuck = await reportedUnavailable(client, 'stuck', 20_000)
    expect(stuck.error).toMatch(/failed to start: did not initialize within 8000 ms/)
    expect(err).toMatch(/\[stuck\] warn: unavailable/)
  }, 30_000)
})

describe('gateway over Streamable HTTP (MCP SDK client, bearer token, JSON logs; Inspector CLI)', () => {
  const TOKEN = 'test-token-1234'
  let child: ChildProcess
  let url = ''
  let client: Client
  let err = ''
  let changed = 0
  const logs: unknown[] = []
  beforeAll(async () => {
    const config = fullConfig('http', false)
    child = spawn('node', [CLI, 'serve', '--config', config, '--http', '0', '--token', TOKEN, '--json-logs'], { stdio: ['ignore', 'ignore', 'pipe'] })
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()))
    url = await until('the gateway to listen', async () => {
      for (const line of err.split('\n')) {
        if (!line.trim()) continue
        const o = JSON.parse(line)
        if (o.event === 'listening') return o.url as string
      }
      return undefined
    })
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/)
    client = new Client({ name: 'gateway-test', version: '1' })
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      changed++
    })
    client.setNotificationHandler(LoggingMessageNotificationSchema, async (n) => {
      logs.push(n.params)
    })
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }))
  }, 60_000)
  afterAll(async () => {
    await client?.close().catch(() => {})
    child?.kill('SIGTERM')
    await new Promise((r) => child?.once('exit', r))
  })

  test('http: requests without the bearer token get 401', async () => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }),
    })
    expect(res.status).toBe(401)
    const wrong = await fetch(url, { method: 'POST', headers: { authorization: 'Bearer nope', 'content-type': 'application/json' }, body: '{}' })
    expect(wrong.status).toBe(401)
  })

  test('http: --json-logs writes one JSON object a line, with a ready event per server', async () => {
    await client.listTools()
    // The log reaches this process through the child's stderr, which can arrive after the
    // HTTP answer: read it until every server's ready event is there.
    const readyOf = () =>
      err
        .split('\n')
        .filter((l) => l.trim())
        .map((l) => JSON.parse(l))
        .filter((e) => e.event === 'ready')
        .map((e) => e.server)
        .sort()
    await until('a ready event from every server', async () => new Set(readyOf()).size >= 4)
    const events = err
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l))
    expect(events.every((e) => typeof e.ts === 'string' && typeof e.event === 'string')).toBe(true)
    expect(readyOf()).toEqual(['everything', 'filesystem', 'flaky', 'memory'])
  })

  behaviour('http', () => ({ client, stderr: () => err, listChanged: () => changed, logs }))

  const inspector = (args: string[]) => {
    const r = spawnSync('node', [INSPECTOR, '--cli', url, '--transport', 'http', '--header', `Authorization: Bearer ${TOKEN}`, ...args], { encoding: 'utf8', timeout: 60_000 })
    // 0: success; 5: the tool returned isError (the result is still printed)
    if (r.status !== 0 && r.status !== 5) throw new Error(`inspector exited ${r.status}: ${r.stderr}${r.stdout}`)
    return JSON.parse(r.stdout)
  }

  test('http: Inspector CLI lists, searches, calls a direct tool, and is refused for undiscovered / invalid calls', async () => {
    const list = inspector(['--method', 'tools/list'])
    expect(list.tools.map((t: any) => t.name)).toContain('search_tools')
    const s = inspector(['--method', 'tools/call', '--tool-name', 'search_tools', '--tool-arg', 'query=list a directory'])
    expect(s.structuredContent.matches.map((m: any) => m.name)).toContain('mcp__filesystem__list_directory')
    const echo = inspector(['--method', 'tools/call', '--tool-name', 'mcp__flaky__echo', '--tool-arg', 'text=from the inspector'])
    expect(echo.content[0].text).toBe('from the inspector')
    // Each Inspector run is a new session: nothing is discovered in it.
    const undiscovered = inspector(['--method', 'tools/call', '--tool-name', 'execute_tool', '--tool-arg', 'tool_name=mcp__memory__read_graph', 'arguments={}'])
    expect(undiscovered.isError).toBe(true)
    expect(undiscovered.structuredContent.refused).toBe('not_discovered')
    const bad = inspector(['--method', 'tools/call', '--tool-name', 'mcp__flaky__echo', '--tool-arg', 'text=5', 'extra=1'])
    expect(bad.isError).toBe(true)
    expect(bad.structuredContent.refused).toBe('invalid_params')
  }, 60_000)
})

describe('gateway over stdio (MCP Inspector CLI)', () => {
  let config = ''
  beforeAll(() => {
    const cfg: Cfg = {
      mcpServers: {
        memory: { command: 'node', args: [binOf('@modelcontextprotocol/server-memory')], env: { MEMORY_FILE_PATH: path.join(tmp, 'inspector-memory.jsonl') } },
        flaky: { command: 'node', args: [FLAKY], alwaysLoad: true, prefix: false },
      },
      // One Inspector run is one session, so search-then-execute cannot span runs: let execute run undiscovered tools.
      gateway: { requireDiscovered: false, connectTimeoutMs: 8000 },
    }
    config = path.join(tmp, 'inspector.json')
    fs.writeFileSync(config, JSON.stringify(cfg))
  })
  const inspector = (args: string[]) => {
    const r = spawnSync('node', [INSPECTOR, '--cli', ...args, '--', 'node', CLI, 'serve', '--config', config], { encoding: 'utf8', timeout: 60_000 })
    // 0: success; 5: the tool returned isError (the result is still printed)
    if (r.status !== 0 && r.status !== 5) throw new Error(`inspector exited ${r.status}: ${r.stderr}${r.stdout}`)
    return JSON.parse(r.stdout)
  }

  test('stdio: Inspector CLI lists (alwaysLoad server exposed directly), searches, executes, refuses bad arguments', () => {
    const list = inspector(['--method', 'tools/list'])
    const names = list.tools.map((t: any) => t.name)
    expect(names).toContain('search_tools')
    expect(names).toContain('execute_tool')
    // alwaysLoad + prefix: false: the fixture's tools are listed under their own names
    expect(names).toContain('count_slowly')
    expect(names).not.toContain('mcp__flaky__count_slowly')
    expect(names.some((n: string) => n.startsWith('mcp__memory__'))).toBe(false)
    const s = inspector(['--method', 'tools/call', '--tool-name', 'search_tools', '--tool-arg', 'query=create entities in the knowledge graph'])
    expect(s.structuredContent.matches[0].name).toBe('mcp__memory__create_entities')
    const ran = inspector(['--method', 'tools/call', '--tool-name', 'execute_tool', '--tool-arg', 'tool_name=mcp__memory__read_graph', 'arguments={}'])
    expect(ran.isError).toBeFalsy()
    expect(JSON.parse(ran.content[0].text)).toEqual({ entities: [], relations: [] })
    const bad = inspector(['--method', 'tools/call', '--tool-name', 'execute_tool', '--tool-arg', 'tool_name=mcp__memory__create_entities', 'arguments={"entities":"nope"}'])
    expect(bad.isError).toBe(true)
    expect(bad.structuredContent.refused).toBe('invalid_params')
  }, 60_000)
})

describe('gateway config and command line', () => {
  // Loaded from dist like the rest of the suite's subject.
  const cfgMod = require('../dist/gateway/config.js') as typeof import('../ts/gateway/config')

  test('parses stdio and HTTP servers, expands ${VAR}, normalizes and de-duplicates names', () => {
    const c = cfgMod.parseConfig(
      {
        mcpServers: {
          'my server': { command: 'node', args: ['${HOME_DIR:-/home}/x.js'], env: { TOKEN: '${SECRET}' } },
          my_server: { url: 'http://127.0.0.1:9/mcp', headers: { Authorization: 'Bearer ${SECRET}' }, alwaysLoad: ['a'] },
          old: { type: 'sse', url: 'http://127.0.0.1:9/sse', prefix: false, alwaysLoad: true },
          off: { command: 'x', disabled: true },
        },
        gateway: { callTimeoutMs: 1234, requireDiscovered: false },
      },
      '/tmp/c.json',
      { SECRET: 's3' },
    )
    // A key already in normal form keeps its name; the other takes the next free suffix.
    expect(c.servers.map((s) => [s.name, s.transport])).toEqual([
      ['my_server_2', 'stdio'],
      ['my_server', 'http'],
      ['old', 'sse'],
    ])
    expect(c.servers[0].args).toEqual(['/home/x.js'])
    expect(c.servers[0].env).toEqual({ TOKEN: 's3' })
    expect(c.servers[1].headers).toEqual({ Authorization: 'Bearer s3' })
    expect(c.servers[1].alwaysLoad).toEqual(['a'])
    expect(c.servers[2].prefix).toBe(false)
    expect(c.settings.callTimeoutMs).toBe(1234)
    expect(c.settings.requireDiscovered).toBe(false)
    expect(c.settings.connectTimeoutMs).toBe(cfgMod.DEFAULT_SETTINGS.connectTimeoutMs)
  })

  test('a suffixed name never takes another key\'s own name [regression: a.b became a_b_2 beside a key a_b_2]', () => {
    const c = cfgMod.parseConfig({ mcpServers: { 'a.b': { command: 'x' }, a_b: { command: 'y' }, a_b_2: { command: 'z' } } }, '/tmp/c.json', {})
    expect(c.servers.map((s) => [s.key, s.name])).toEqual([
      ['a.b', 'a_b_3'],
      ['a_b', 'a_b'],
      ['a_b_2', 'a_b_2'],
    ])
  })

  test('a variable that is not set, a command empty once expanded, or a NUL byte is a ConfigError naming the field [regression: started a server that could never work]', () => {
    const cases: [unknown, RegExp][] = [
      [{ mcpServers: { a: { command: 'x', env: { TOKEN: '${GITHUB_TOKNE}' } } } }, /mcpServers\.a\.env\.TOKEN uses \$\{GITHUB_TOKNE\}, which is not set/],
      [{ mcpServers: { a: { url: 'http://127.0.0.1:9/mcp', headers: { Authorization: 'Bearer ${NOPE}' } } } }, /headers\.Authorization uses \$\{NOPE\}/],
      [{ mcpServers: { a: { command: '${CMD:-}' } } }, /command is empty once its variables are expanded/],
      [{ mcpServers: { a: { command: 'node', args: ['a\u0000b'] } } }, /args\[0\] holds a NUL byte/],
    ]
    for (const [data, re] of cases) {
      let err: unknown
      try {
        cfgMod.parseConfig(data, '/tmp/c.json', {})
      } catch (e) {
        err = e
      }
      expect(err).toBeInstanceOf(cfgMod.ConfigError)
      expect(String((err as Error).message)).toMatch(re)
    }
    // A default, even an empty one, is a value.
    expect(cfgMod.parseConfig({ mcpServers: { a: { command: 'x', env: { T: '${UNSET:-}' } } } }, '/tmp/c.json', {}).servers[0].env).toEqual({ T: '' })
  })

  test('a near miss of a known key is a ConfigError saying which was meant; other clients\' keys are left alone [regression: "disable": true started the server]', () => {
    for (const [data, re] of [
      [{ mcpServers: { off: { command: 'x', disable: true } } }, /mcpServers\.off: "disable" is not a setting; did you mean "disabled"/],
      [{ mcpServers: { a: { comand: 'x' } } }, /did you mean "command"/],
      [{ mcpServers: {}, Gateway: { requireDiscovered: false } }, /"Gateway" is not a setting; did you mean "gateway"/],
    ] as [unknown, RegExp][]) {
      expect(() => cfgMod.parseConfig(data, '/tmp/c.json', {})).toThrow(re)
    }
    const c = cfgMod.parseConfig({ mcpServers: { a: { command: 'x', autoApprove: [], timeout: 60, envFile: '.env' } }, globalShortcut: 'x' }, '/tmp/c.json', {})
    expect(c.servers.map((s) => s.name)).toEqual(['a'])
  })

  test('rejects malformed configs with a ConfigError naming the field', () => {
    const bad: [unknown, RegExp][] = [
      [null, /mcpServers/],
      [{ mcpServers: [] }, /mcpServers/],
      [{ mcpServers: { a: { args: [] } } }, /mcpServers\.a needs "command"/],
      [{ mcpServers: { a: { command: 'x', args: 'y' } } }, /args must be a list/],
      [{ mcpServers: { a: { url: 'not a url' } } }, /not a valid URL/],
      [{ mcpServers: { a: { command: 'x', alwaysLoad: 'yes' } } }, /alwaysLoad/],
      [{ mcpServers: { a: { command: 'x', env: { K: 1 } } } }, /env\.K must be a string/],
      [{ mcpServers: {}, gateway: { callTimeout: 5 } }, /gateway\.callTimeout is not a setting/],
      [{ mcpServers: {}, gateway: { callTimeoutMs: -1 } }, /positive number/],
      // Past the longest timer delay, a deadline would fire after 1 ms.
      [{ mcpServers: {}, gateway: { connectTimeoutMs: 2 ** 31 } }, /at most 2147483647/],
      [{ mcpServers: {}, gateway: { callTimeoutMs: 1e12 } }, /at most 2147483647/],
      // Keys of Object.prototype are not settings (JSON.parse makes "__proto__" an own key).
      [JSON.parse('{"mcpServers":{},"gateway":{"__proto__":{"x":1}}}'), /gateway\.__proto__ is not a setting/],
      [{ mcpServers: {}, gateway: { constructor: 1 } }, /gateway\.constructor is not a setting/],
      [{ mcpServers: {}, gateway: [] }, /"gateway" must be an object/],
      [{ mcpServers: { a: { command: 'node', type: 'websocket' } } }, /mcpServers\.a\.type "websocket" is not a transport/],
      [{ mcpServers: { a: { command: 'node', url: 'http://127.0.0.1:1/mcp' } } }, /both "command" and "url"/],
      [{ mcpServers: { a: { command: 'node', disabled: 'true' } } }, /mcpServers\.a\.disabled must be true or false/],
      [{ mcpServers: { a: { command: 'node', cwd: 5 } } }, /mcpServers\.a\.cwd must be a string/],
      [{ mcpServers: { a: { command: 'node', type: 5 } } }, /mcpServers\.a\.type must be a string/],
      [{ mcpServers: { a: { command: ['node'] } } }, /mcpServers\.a\.command must be a string/],
      [{ mcpServers: { a: { url: 'file:///etc/passwd' } } }, /mcpServers\.a\.url must be an http: or https: URL, not file:/],
      [{ mcpServers: { a: { type: 'sse', url: 'data:text/plain,x' } } }, /not data:/],
    ]
    for (const [data, re] of bad) {
      let err: unknown
      try {
        cfgMod.parseConfig(data, 'c.json')
      } catch (e) {
        err = e
      }
      expect(err).toBeInstanceOf(cfgMod.ConfigError)
      expect((err as Error).message).toMatch(re)
      expect((err as { code: string }).code).toBe('E_CONFIG')
    }
  })

  test('tool-index serve: usage errors exit 2, config errors exit 1, with a message', () => {
    const run = (args: string[]) => spawnSync('node', [CLI, 'serve', ...args], { encoding: 'utf8', timeout: 20_000 })
    const none = run([])
    expect(none.status).toBe(2)
    expect(none.stderr).toContain('--config FILE is required')
    expect(run(['--config', 'x.json', '--http', 'abc']).status).toBe(2)
    expect(run(['--config', 'x.json', '--token', 't']).stderr).toContain('--host, --token and --max-sessions need --http')
    expect(run(['--config', 'x.json', '--max-sessions', '5']).status).toBe(2)
    for (const n of ['0', '1.5', 'many', '1e9']) {
      const r = run(['--config', 'x.json', '--http', '0', '--max-sessions', n])
      expect(r.status).toBe(2)
      expect(r.stderr).toContain('--max-sessions takes a whole number')
    }
    const missing = run(['--config', path.join(tmp, 'does-not-exist.json')])
    expect(missing.status).toBe(1)
    expect(missing.stderr).toContain('cannot read config')
    fs.writeFileSync(path.join(tmp, 'broken.json'), '{"mcpServers": {')
    expect(run(['--config', path.join(tmp, 'broken.json')]).stderr).toContain('is not valid JSON')
    const help = run(['--help'])
    expect(help.status).toBe(0)
    expect(help.stdout).toContain('--json-logs')
  })
})

describe('gateway in process (library API)', () => {
  test('list_changed updates the search index incrementally (one build, then updates)', async () => {
    const gw = require('../dist/gateway/index.js') as typeof import('../ts/gateway/index')
    const lines: string[] = []
    const config = gw.parseConfig({ mcpServers: { flaky: { command: 'node', args: [FLAKY] } }, gateway: { connectTimeoutMs: 8000 } }, 'inline')
    const g = new gw.Gateway({ config, logger: gw.stderrLogger({ json: true, write: (l) => lines.push(l) }) })
    try {
      await g.start()
      const session = { search: new (require('../dist/toolSearch.js').ToolSearchSession)() }
      const first = await g.search('echo a message', 3, session)
      expect(first.matches[0].name).toBe('mcp__flaky__echo')
      expect(g.cache.stats.builds).toBe(1)
      await g.search('select:mcp__flaky__add_tool', 1, session)
      const r = await g.execute('mcp__flaky__add_tool', { name: 'weather_report', description: 'Report the weather for a city' }, session)
      expect(JSON.stringify(r)).not.toContain('"isError":true')
      await until('weather_report in the index', async () => (await g.search('weather for a city', 3, session)).matches.some((m) => m.name === 'mcp__flaky__weather_report'))
      expect(g.cache.stats.builds).toBe(1)
      expect(g.cache.stats.updates).toBeGreaterThanOrEqual(1)
      const events = lines.map((l) => JSON.parse(l).event)
      expect(events).toContain('list_changed')
    } finally {
      await g.close()
    }
  }, 30_000)
})

describe('gateway HTTP sessions', () => {
  /** A gateway with no servers, served over HTTP in this process with `options`. */
  const servedEmpty = async (options: { maxSessions?: number; sessionIdleMs?: number }) => {
    const gw = require('../dist/gateway/index.js') as typeof import('../ts/gateway/index')
    const quiet = gw.stderrLogger({ write: () => {} })
    const g = new gw.Gateway({ config: gw.parseConfig({ mcpServers: {} }, 'empty'), logger: quiet })
    return { g, served: await gw.serveHttp(g, { port: 0, log: quiet, ...options }) }
  }

  test('past maxSessions a new session closes the one idle the longest; with none idle it gets 503', async () => {
    const { g, served } = await servedEmpty({ maxSessions: 2 })
    const clients: Client[] = []
    try {
      await g.start()
      const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
      const initialize = async () => {
        const r = await fetch(served.url, {
          method: 'POST',
          headers,
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }),
        })
        await r.text()
        return { status: r.status, sid: r.headers.get('mcp-session-id') }
      }
      const ping = async (sid: string) => {
        const r = await fetch(served.url, {
          method: 'POST',
          headers: { ...headers, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }),
        })
        await r.text()
        return r.status
      }
      const a = await initialize()
      await sleep(20)
      const b = await initialize()
      await sleep(20)
      const c = await initialize()
      expect([a.status, b.status, c.status]).toEqual([200, 200, 200])
      expect(await ping(a.sid!)).toBe(404)
      expect(await ping(b.sid!)).toBe(200)
      expect(await ping(c.sid!)).toBe(200)
      // SDK clients keep a stream open, so their sessions are never idle: a third is refused.
      for (let i = 0; i < 2; i++) {
        const client = new Client({ name: `busy-${i}`, version: '1' })
        await client.connect(new StreamableHTTPClientTransport(new URL(served.url)))
        clients.push(client)
      }
      for (const client of clients) expect((await client.listTools()).tools.map((t) => t.name)).toContain('search_tools')
      await sleep(300)
      expect((await initialize()).status).toBe(503)
      for (const client of clients) expect((await client.listTools()).tools.map((t) => t.name)).toContain('search_tools')
    } finally {
      for (const client of clients) await client.close().catch(() => {})
      await served.close()
      await g.close()
    }
  }, 20_000)

  test('the session cap holds against initialize bodies that come late, and a rejected request ends no session', async () => {
    const { g, served } = await servedEmpty({ maxSessions: 2 })
    const url = new URL(served.url)
    const INIT = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } })
    /** A POST whose headers go first and whose body follows after `lateMs`. */
    const post = (body: string, headers: Record<string, string>, lateMs = 0) =>
      new Promise<{ status: number; sid: string | undefined }>((resolve, reject) => {
        const req = http.request(
          { host: url.hostname, port: url.port, path: '/mcp', method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } },
          (res) => {
            res.resume()
            res.on('end', () => resolve({ status: res.statusCode ?? 0, sid: res.headers['mcp-session-id'] as string | undefined }))
          },
        )
        req.on('error', reject)
        req.flushHeaders()
        setTimeout(() => req.end(body), lateMs)
      })
    const ping = async (sid: string) =>
      (await post(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }), { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' })).status
    try {
      await g.start()
      const late = await Promise.all(Array.from({ length: 6 }, () => post(INIT, {}, 300)))
      const sids = late.filter((r) => r.status === 200).map((r) => r.sid!)
      const alive = (await Promise.all(sids.map(ping))).filter((st) => st === 200).length
      expect(alive).toBeLessThanOrEqual(2)
      // At the cap with two idle sessions: requests the SDK refuses close neither of them.
      const a = (await post(INIT, {})).sid!
      const b = (await post(INIT, {})).sid!
      expect([await ping(a), await ping(b)]).toEqual([200, 200])
      const refused = [
        await post(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' }), {}),
        await post(INIT, { 'content-type': 'text/plain' }),
        await post(INIT, { host: 'evil.example:80' }),
        await post('{not json', {}),
      ]
      for (const r of refused) expect(r.status).toBeGreaterThanOrEqual(400)
      expect([await ping(a), await ping(b)]).toEqual([200, 200])
    } finally {
      await served.close()
      await g.close()
    }
  }, 20_000)

  test('a session idle past sessionIdleMs is closed: its id then gets 404', async () => {
    const { g, served } = await servedEmpty({ sessionIdleMs: 200 })
    try {
      await g.start()
      const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
      const init = await fetch(served.url, {
        method: 'POST',
        headers,
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }),
      })
      expect(init.status).toBe(200)
      await init.text()
      const sid = init.headers.get('mcp-session-id')!
      expect(sid).toBeTruthy()
      const ping = () =>
        fetch(served.url, { method: 'POST', headers: { ...headers, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' }, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }) })
      const live = await ping()
      expect(live.status).toBe(200)
      await live.text()
      // No request for well over sessionIdleMs (a ping would keep it alive), then one request.
      await sleep(900)
      const gone = await ping()
      await gone.text()
      expect(gone.status).toBe(404)
    } finally {
      await served.close()
      await g.close()
    }
  }, 20_000)
})

describe('gateway with a Streamable HTTP upstream (url + headers)', () => {
  test('an HTTP upstream with a bearer header is used; a wrong token leaves it unavailable', async () => {
    const gw = require('../dist/gateway/index.js') as typeof import('../ts/gateway/index')
    const quiet = gw.stderrLogger({ write: () => {} })
    const inner = new gw.Gateway({ config: gw.parseConfig({ mcpServers: { flaky: { command: 'node', args: [FLAKY], alwaysLoad: ['echo'] } } }, 'inner'), logger: quiet })
    const served = await gw.serveHttp(inner, { port: 0, token: 'inner-secret', log: quiet })
    void inner.start()
    const outerConfig = gw.parseConfig(
      {
        mcpServers: {
          inner: { url: served.url, headers: { Authorization: 'Bearer inner-secret' } },
          wrong: { type: 'http', url: served.url, headers: { Authorization: 'Bearer nope' } },
        },
        gateway: { connectTimeoutMs: 8000, backoffInitialMs: 5000 },
      },
      'outer',
    )
    const outer = new gw.Gateway({ config: outerConfig, logger: quiet })
    try {
      await outer.start()
      const session = { search: new (require('../dist/toolSearch.js').ToolSearchSession)() }
      const r = await outer.search('select:mcp__inner__mcp__flaky__echo', 1, session)
      expect(r.matches.map((m) => m.name)).toEqual(['mcp__inner__mcp__flaky__echo'])
      expect(r.unavailable_servers.map((u) => u.server)).toEqual(['wrong'])
      expect(r.unavailable_servers[0].error).toMatch(/failed to start/)
      const out = await outer.execute('mcp__inner__mcp__flaky__echo', { text: 'two hops' }, session)
      expect(out).toEqual({ content: [{ type: 'text', text: 'two hops' }], structuredContent: { echoed: 'two hops' } })
    } finally {
      await outer.close()
      await served.close()
      await inner.close()
    }
  }, 30_000)
})

describe('gateway: process trees, the first tools/list, server names', () => {
  const cfgMod = require('../dist/gateway/config.js') as typeof import('../ts/gateway/config')
  /** Processes whose command line holds `marker` (Linux /proc; elsewhere ps). */
  const running = (marker: string): number[] => {
    const r = spawnSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' })
    return r.stdout
      .split('\n')
      .filter((l) => l.includes(marker) && !l.includes('ps -eo'))
      .map((l) => Number(l.trim().split(/\s+/)[0]))
  }

  /** A gateway over `config` (written to a file named after `name`), driven by an SDK client. */
  const gatewayOver = async (name: string, config: Cfg): Promise<Client> => {
    const file = path.join(tmp, `${name}.json`)
    fs.writeFileSync(file, JSON.stringify(config))
    const c = new Client({ name: `${name}-test`, version: '1' })
    await c.connect(new StdioClientTransport({ command: 'node', args: [CLI, 'serve', '--config', file], stderr: 'pipe' }))
    return c
  }

  test('a hung server run through a shell (as npx runs one) is killed with its wrapper, at every reconnect and at exit', async () => {
    // sh stays the parent (the `; exit` keeps it from exec-ing node), so the server is a grandchild.
    const marker = `wrapped-${process.pid}-${Date.now()}`
    const c = await gatewayOver('wrapped', {
      mcpServers: { wrapped: { command: 'sh', args: ['-c', 'node "$0" "$1"; exit $?', FLAKY, marker], env: { FLAKY_MODE: 'hang-init' } } },
      gateway: { connectTimeoutMs: 1000, backoffInitialMs: 200, backoffMaxMs: 400, startupWaitMs: 1000 },
    })
    try {
      // Several connect deadlines pass: each gives up on one started server.
      await sleep(4500)
      expect(running(marker).length).toBeLessThanOrEqual(2)
    } finally {
      await c.close()
    }
    const left = await until('the wrapped servers to be gone', async () => running(marker).length === 0 || undefined, 5_000).catch(() => false)
    for (const pid of running(marker)) process.kill(pid, 'SIGKILL')
    expect(left).toBe(true)
  }, 30_000)

  test('a server whose wrapper exits at once, leaving its child running (sh -c "server & exit 1"), is killed all the same', async () => {
    const marker = `orphan-${process.pid}-${Date.now()}`
    const c = await gatewayOver('orphan', {
      mcpServers: { orphan: { command: 'sh', args: ['-c', 'node "$0" "$1" & sleep 1; exit 1', FLAKY, marker], env: { FLAKY_MODE: 'hang-init' } } },
      gateway: { connectTimeoutMs: 8000, backoffInitialMs: 60_000, backoffMaxMs: 60_000, startupWaitMs: 500 },
    })
    try {
      await until('the server to start', async () => running(marker).length > 0 || undefined, 5_000)
      // The wrapper exits after 1 s; its child, re-parented and still holding the connection's
      // pipes, keeps the attempt open until the 8 s connect deadline ends it. The child is no longer
      // below the wrapper and is found by its run marker. (Waiting only 8 s from here raced that
      // deadline: a loaded run gave up 0.25 s before it.)
      const gone = await until('the orphaned server to be killed', async () => running(marker).length === 0 || undefined, 14_000).catch(() => false)
      expect(gone).toBe(true)
    } finally {
      await c.close()
      for (const pid of running(marker)) process.kill(pid, 'SIGKILL')
    }
  }, 30_000)

  test.skipIf(process.platform !== 'linux' || spawnSync('setsid', ['--version']).status !== 0)(
    'a daemon a server started (its own session, no longer below the server) outlives the stop, though it carries the run marker',
    async () => {
      const marker = `detached-${process.pid}-${Date.now()}`
      const c = await gatewayOver('detached', {
        mcpServers: { d: { command: 'sh', args: ['-c', 'setsid -f node -e "setTimeout(() => {}, 60000)" "$1"; exec node "$0"', FLAKY, marker] } },
      })
      try {
        await until('the detached program to start', async () => running(marker).length > 0 || undefined, 5_000)
        await c.listTools()
      } finally {
        await c.close()
      }
      await sleep(2000)
      const left = running(marker)
      for (const pid of left) process.kill(pid, 'SIGKILL')
      expect(left.length).toBe(1)
    },
    30_000,
  )

  test('the first tools/list is inside the connect deadline: a server whose pages never end is named unavailable', async () => {
    const c = await gatewayOver('pager', {
      mcpServers: { pager: { command: 'node', args: [FLAKY], env: { FLAKY_MODE: 'endless-pages' } } },
      gateway: { connectTimeoutMs: 1500, backoffInitialMs: 5000, backoffMaxMs: 5000, startupWaitMs: 500 },
    })
    try {
      const pager = await reportedUnavailable(c, 'pager', 8_000)
      expect(pager.error).toMatch(/did not list its tools within 1500 ms/)
    } finally {
      await c.close()
    }
  }, 30_000)

  test('a direct (alwaysLoad) tool of a server that is down answers unavailable, not an unknown-tool error', async () => {
    const c = await gatewayOver('direct-down', {
      mcpServers: { flaky: { command: 'node', args: [FLAKY], alwaysLoad: ['echo', 'typed_echo', 'crash'] } },
      gateway: { backoffInitialMs: 10_000, backoffMaxMs: 10_000 },
    })
    try {
      const ok = (await c.callTool({ name: 'mcp__flaky__echo', arguments: { text: 'hi' } })) as CallResult
      expect(ok.isError).toBeFalsy()
      // Listing makes the client keep each direct tool's outputSchema and check results against it.
      expect((await c.listTools()).tools.find((t) => t.name === 'mcp__flaky__typed_echo')?.outputSchema).toBeDefined()
      const typed = (await c.callTool({ name: 'mcp__flaky__typed_echo', arguments: { text: 'hi' } })) as CallResult
      expect(typed.structuredContent).toEqual({ echoed: 'hi' })
      // A refusal of a tool with an outputSchema is its text alone: its fields would fail the client's schema check.
      const bad = (await c.callTool({ name: 'mcp__flaky__typed_echo', arguments: { text: 5 } })) as CallResult
      expect(bad.isError).toBe(true)
      expect(bad.structuredContent).toBeUndefined()
      expect(textOf(bad)).toMatch(/Invalid parameters/)
      const badUntyped = (await c.callTool({ name: 'mcp__flaky__echo', arguments: { text: 5 } })) as CallResult
      expect(badUntyped.structuredContent).toMatchObject({ refused: 'invalid_params', tool_name: 'mcp__flaky__echo' })
      await c.callTool({ name: 'mcp__flaky__crash', arguments: {} })
      const down = (await until('flaky to be down', async () => {
        const r = (await c.callTool({ name: 'mcp__flaky__echo', arguments: { text: 'hi' } })) as CallResult
        return r.structuredContent?.refused === 'unavailable' && r
      }, 5_000)) as CallResult
      expect(down.isError).toBe(true)
      expect(textOf(down)).toMatch(/server "flaky" is unavailable/)
      const typedDown = (await c.callTool({ name: 'mcp__flaky__typed_echo', arguments: { text: 'hi' } })) as CallResult
      expect(typedDown.isError).toBe(true)
      expect(textOf(typedDown)).toMatch(/server "flaky" is unavailable/)
    } finally {
      await c.close()
    }
  }, 30_000)

  test("a tool listed under another server's full name never takes that server's calls", async () => {
    // `a` lists tools literally named mcp__b__delete_all and mcp__c__delete_all; b is down, c is up without such a tool.
    const c = await gatewayOver('impostor', {
      mcpServers: {
        a: { command: 'node', args: [FLAKY], env: { FLAKY_EXTRA_TOOLS: 'mcp__b__delete_all,mcp__c__delete_all' }, alwaysLoad: true, prefix: false },
        b: { command: path.join(tmp, 'no-such-server') },
        c: { command: 'node', args: [FLAKY] },
      },
      gateway: { backoffInitialMs: 10_000, backoffMaxMs: 10_000, startupWaitMs: 4000 },
    })
    try {
      const listed = (await c.listTools()).tools.map((t) => t.name)
      expect(listed).toContain('mcp__a__mcp__b__delete_all')
      expect(listed).toContain('echo')
      expect(listed).not.toContain('mcp__b__delete_all')
      expect(listed).not.toContain('mcp__c__delete_all')
      const exec = (n: string) => c.callTool({ name: 'execute_tool', arguments: { tool_name: n, arguments: {} } }) as Promise<CallResult>
      const direct = (n: string) =>
        (c.callTool({ name: n, arguments: {} }) as Promise<CallResult>).catch((e: Error) => ({ content: [{ type: 'text', text: e.message }], isError: true }))
      // b's name is refused while b is down; c's name is unknown on c; as direct calls neither is one of the listed tools.
      const b = await exec('mcp__b__delete_all')
      expect(b.structuredContent).toMatchObject({ refused: 'unavailable', server: 'b' })
      const onC = await exec('mcp__c__delete_all')
      expect(onC.structuredContent).toMatchObject({ refused: 'not_found' })
      for (const r of [b, onC, await direct('mcp__b__delete_all'), await direct('mcp__c__delete_all')]) {
        expect(r.isError).toBe(true)
        expect(textOf(r)).not.toContain(' ran')
      }
      const own = (await c.callTool({ name: 'execute_tool', arguments: { tool_name: 'mcp__a__mcp__b__delete_all', arguments: {} } })) as CallResult
      expect(textOf(own)).toBe('mcp__b__delete_all ran')
    } finally {
      await c.close()
    }
  }, 30_000)

  test('execute_tool without a string tool_name or with non-object arguments is refused invalid_params', async () => {
    const c = await gatewayOver('bad-exec', { mcpServers: { flaky: { command: 'node', args: [FLAKY] } } })
    try {
      // search_tools errors carry a code too, in structuredContent that fits its outputSchema (the client checks it).
      await c.listTools()
      for (const args of [{ query: 5 }, { query: 'x', max_results: 0 }, { query: 'x', max_results: 'many' }]) {
        const r = (await c.callTool({ name: 'search_tools', arguments: args })) as CallResult
        expect(r.isError).toBe(true)
        expect(r.structuredContent.error).toMatchObject({ code: 'invalid_params' })
        expect(r.structuredContent.matches).toEqual([])
      }
      for (const args of [{ tool_name: 5 }, { tool_name: '' }, { tool_name: 'mcp__flaky__echo', arguments: [] }, { tool_name: 'mcp__flaky__echo', arguments: 'x' }]) {
        const r = (await c.callTool({ name: 'execute_tool', arguments: args })) as CallResult
        expect(r.isError).toBe(true)
        expect(r.structuredContent).toMatchObject({ refused: 'invalid_params' })
        expect(typeof r.structuredContent.message).toBe('string')
      }
    } finally {
      await c.close()
    }
  }, 30_000)

  test("an upstream's JSON-RPC error reaches the client with its own code, message and data", async () => {
    const c = await gatewayOver('rpc-error', {
      mcpServers: { rpc: { command: 'node', args: [FLAKY], env: { FLAKY_MODE: 'rpc-error' }, alwaysLoad: true } },
    })
    try {
      // -32000 and -32001 are also the codes of the SDK's own "connection closed" and "timed
      // out": from the upstream they are its answer, and the server stays up.
      for (const code of [-32042, -32000, -32001]) {
        for (const call of [
          () => c.callTool({ name: 'execute_tool', arguments: { tool_name: 'mcp__rpc__rpc_fail', arguments: { code } } }),
          () => c.callTool({ name: 'mcp__rpc__rpc_fail', arguments: { code } }),
        ]) {
          const e = (await call().then(
            (r) => r,
            (err: unknown) => err,
          )) as { code: number; message: string; data: unknown }
          expect(e.code).toBe(code)
          // The client's SDK adds its prefix once; the upstream's message follows it unchanged.
          expect(e.message).toBe(`MCP error ${code}: custom failure`)
          expect(e.data).toEqual({ why: 'x' })
        }
      }
      const s = (await c.callTool({ name: 'search_tools', arguments: { query: 'anything' } })) as CallResult
      expect(s.structuredContent.unavailable_servers).toEqual([])
    } finally {
      await c.close()
    }
  }, 30_000)

  test('a storm of list_changed notices costs two listings, not one per notice', async () => {
    const file = path.join(tmp, 'storm.json')
    fs.writeFileSync(file, JSON.stringify({ mcpServers: { flaky: { command: 'node', args: [FLAKY], alwaysLoad: ['storm'] } } }))
    const transport = new StdioClientTransport({ command: 'node', args: [CLI, 'serve', '--config', file], stderr: 'pipe' })
    let stderr = ''
    transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()))
    const c = new Client({ name: 'storm-test', version: '1' })
    await c.connect(transport)
    try {
      const r = (await c.callTool({ name: 'mcp__flaky__storm', arguments: { count: 200 } })) as CallResult
      expect(textOf(r)).toBe('sent 200')
      const relisted = () => stderr.split('tool list changed').length - 1
      await until('a listing after the storm', async () => relisted() > 0)
      await sleep(1000)
      expect(relisted()).toBeGreaterThanOrEqual(1)
      expect(relisted()).toBeLessThanOrEqual(2)
    } finally {
      await c.close()
    }
  }, 30_000)

  test('server names never hold "__", so a tool name belongs to one server', () => {
    const c = cfgMod.parseConfig({ mcpServers: { s: { command: 'x' }, s__t: { command: 'x' }, 'a___': { command: 'x' }, 日本: { command: 'x' } } }, 'c.json')
    expect(c.servers.map((s) => s.name)).toEqual(['s', 's_t', 'a', 'server'])
  })
})
