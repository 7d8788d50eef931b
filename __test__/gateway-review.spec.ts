// What the gateway reads from an HTTP upstream is bounded a message, and a stdio server's pid is
// only ever walked while it is the process that was started.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import * as http from 'node:http'
import type { AddressInfo } from 'node:net'

const fetchMod = require('../dist/gateway/fetch.js') as typeof import('../ts/gateway/fetch')
const tree = require('../dist/gateway/processTree.js') as typeof import('../ts/gateway/processTree')
const gw = require('../dist/gateway/index.js') as typeof import('../ts/gateway/index')
const { ToolSearchSession } = require('../dist/toolSearch.js')
const FLAKY = require('node:path').join(__dirname, 'fixtures', 'gateway', 'flaky-server.mjs') as string
const RAW = require('node:path').join(__dirname, 'fixtures', 'gateway', 'raw-server.mjs') as string
const quiet = gw.stderrLogger({ write: () => {} })
/** A gateway over a config object (no environment), logging nothing. */
const gatewayOf = (data: unknown, name = 'test') => new gw.Gateway({ config: gw.parseConfig(data, name, {}), logger: quiet })
const newSession = () => ({ search: new ToolSearchSession() })

const LIMIT = 64 * 1024
let server: http.Server
let base = ''

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const send = (type: string, body: string, length = false) => {
      res.writeHead(200, { 'content-type': type, ...(length ? { 'content-length': Buffer.byteLength(body) } : {}) })
      res.end(body)
    }
    if (req.url === '/json-small') return send('application/json', JSON.stringify({ ok: 'x'.repeat(LIMIT - 100) }))
    if (req.url === '/json-big') return send('application/json', JSON.stringify({ ok: 'x'.repeat(LIMIT) }))
    if (req.url === '/json-big-declared') return send('application/json', JSON.stringify({ ok: 'x'.repeat(LIMIT) }), true)
    const event = (n: number) => `event: message\ndata: ${'y'.repeat(n)}\n\n`
    if (req.url === '/sse-many') return send('text/event-stream', Array.from({ length: 8 }, () => event(LIMIT / 2)).join(''))
    if (req.url === '/sse-one-big') return send('text/event-stream', event(LIMIT + 10))
    // A request's stream: progress, then (on /rpc-answered) the answer to request 7, split across
    // writes in the middle of a multi-byte character; /rpc-cut ends after the progress.
    if (req.url === '/rpc-answered' || req.url === '/rpc-cut') {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.write(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progress: 1 } })}\n\n`)
      if (req.url === '/rpc-cut') return res.end()
      const answer = Buffer.from(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: 7, result: { text: 'ré' } })}\n\n`)
      const cut = answer.indexOf(Buffer.from('é')) + 1
      res.write(answer.subarray(0, cut))
      return setTimeout(() => res.end(answer.subarray(cut)), 20)
    }
    // An MCP "server" whose answer to initialize never ends: 64 MiB of one JSON string.
    if (req.url === '/mcp') {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.write('{"jsonrpc":"2.0","id":0,"result":{"x":"')
      let sent = 0
      const more = () => {
        while (sent < 64 * 1024 * 1024) {
          sent += 1024 * 1024
          if (!res.write('z'.repeat(1024 * 1024))) return res.once('drain', more)
        }
        res.end('"}}')
      }
      res.on('error', () => {})
      return more()
    }
    res.writeHead(404).end()
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(() => {
  server.closeAllConnections?.()
  server.close()
})

describe('boundedFetch', () => {
  const f = fetchMod.boundedFetch(LIMIT)
  test('a JSON answer within the bound reads whole; one past it fails, declared or not', async () => {
    expect(((await (await f(`${base}/json-small`)).json()) as { ok: string }).ok.length).toBe(LIMIT - 100)
    await expect((await f(`${base}/json-big`)).json()).rejects.toThrow(/over 65536 bytes/)
    await expect(f(`${base}/json-big-declared`)).rejects.toThrow(fetchMod.AnswerTooLargeError)
  })
  test('an event stream is bounded by its events, not its length', async () => {
    expect((await (await f(`${base}/sse-many`)).text()).length).toBeGreaterThan(2 * LIMIT)
    await expect((await f(`${base}/sse-one-big`)).text()).rejects.toThrow(/over 65536 bytes/)
  })
  test("a request's stream that ends before answering it fails; one that answers it, a notification's and a GET's do not", async () => {
    const post = (body: unknown) => ({ method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } })
    const call = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: {} }
    await expect((await f(`${base}/rpc-cut`, post(call))).text()).rejects.toThrow(fetchMod.StreamEndedError)
    await expect((await f(`${base}/rpc-cut`, post([call, { ...call, id: 'x' }]))).text()).rejects.toThrow(/before answering 2 requests/)
    expect(await (await f(`${base}/rpc-answered`, post(call))).text()).toContain('"result":{"text":"ré"}')
    // Answered for id 7 only: a batch that also waits for "x" still fails.
    await expect((await f(`${base}/rpc-answered`, post([call, { ...call, id: 'x' }]))).text()).rejects.toThrow(/before answering the request/)
    expect(await (await f(`${base}/rpc-cut`, post({ jsonrpc: '2.0', method: 'notifications/initialized' }))).text()).toContain('progress')
    expect(await (await f(`${base}/rpc-cut`)).text()).toContain('progress')
  })
})

test('an HTTP upstream whose answer never ends is named unavailable, not read into memory', async () => {
  const g = gatewayOf({ mcpServers: { huge: { url: `${base}/mcp` } }, gateway: { connectTimeoutMs: 20_000, backoffInitialMs: 60_000 } })
  const rss = process.memoryUsage().rss
  try {
    await g.start()
    const session = newSession()
    const r = await g.search('anything', 1, session)
    expect(r.unavailable_servers.map((u: { server: string }) => u.server)).toEqual(['huge'])
    expect(r.unavailable_servers[0].error).toMatch(/over 16777216 bytes/)
    // Not asserted as a figure of speed: 64 MiB kept whole (as a string, twice that) would show here.
    expect(process.memoryUsage().rss - rss).toBeLessThan(400 * 1024 * 1024)
  } finally {
    await g.close()
  }
}, 60_000)

test('startTimeOf tells a running process from a pid no process has', () => {
  if (process.platform !== 'linux') return
  expect(tree.startTimeOf(process.pid)).toMatch(/^\d+$/)
  expect(tree.startTimeOf(process.pid)).toBe(tree.startTimeOf(process.pid))
  expect(tree.startTimeOf(2 ** 22 + 12345)).toBeUndefined()
})

describe('config: what the review found accepted', () => {
  const cfg = require('../dist/gateway/config.js') as typeof import('../ts/gateway/config')
  test.each([
    [{ mcpServers: { a: { url: 'https://user:secret@example.com/mcp' } } }, /holds a user name or password/],
    [{ mcpServers: { a: { url: 'https://user@example.com/mcp' } } }, /holds a user name or password/],
    [{ mcpServers: { a: { type: 'stdio', url: 'http://127.0.0.1:1/mcp' } } }, /type "stdio", which takes "command"/],
    [{ mcpServers: { a: { command: 'node' } }, gateway: { callTimeoutMs: 5000, maxCallTimeoutMs: 1000 } }, /maxCallTimeoutMs \(1000\) is below/],
  ])('%j is refused', (data, message) => {
    expect(() => cfg.parseConfig(data, 'cfg', {})).toThrow(message)
  })
  test('an env entry named __proto__ is kept as a variable, not taken for a prototype', () => {
    const parsed = cfg.parseConfig(JSON.parse('{"mcpServers":{"a":{"command":"node","env":{"__proto__":"x","B":"y"}}}}'), 'cfg', {})
    const env = parsed.servers[0].env as Record<string, string>
    expect(Object.keys(env).sort()).toEqual(['B', '__proto__'])
    expect(env.__proto__).toBe('x')
  })
})

test.skipIf(process.platform !== 'linux')('a child that detached on purpose (its own session) is not in its parent\'s tree', async () => {
  const { spawn } = require('node:child_process') as typeof import('node:child_process')
  const sh = spawn('sh', ['-c', 'setsid sleep 30 & sleep 30 & echo ready; wait'], { stdio: ['ignore', 'pipe', 'ignore'] })
  try {
    await new Promise<void>((r) => sh.stdout!.once('data', () => r()))
    await new Promise((r) => setTimeout(r, 300))
    const fs = require('node:fs') as typeof import('node:fs')
    const kids = fs
      .readdirSync('/proc')
      .filter((p) => /^\d+$/.test(p))
      .filter((p) => {
        try {
          const st = fs.readFileSync(`/proc/${p}/stat`, 'utf8')
          return Number(st.slice(st.lastIndexOf(')') + 2).split(' ')[1]) === sh.pid
        } catch {
          return false
        }
      })
      .map(Number)
    expect(kids.length).toBe(2)
    const listed = tree.processTree(sh.pid as number).map((p) => p.pid)
    expect(listed).toContain(sh.pid as number)
    expect(listed.filter((p) => kids.includes(p)).length).toBe(1)
    for (const k of kids) process.kill(k, 'SIGKILL')
  } finally {
    sh.kill('SIGKILL')
  }
})

test('tool-index serve stops on SIGHUP as on SIGTERM', async () => {
  const path = require('node:path') as typeof import('node:path')
  const fs = require('node:fs') as typeof import('node:fs')
  const os = require('node:os') as typeof import('node:os')
  const { spawn } = require('node:child_process') as typeof import('node:child_process')
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tool-index-hup-'))
  const file = path.join(dir, 'cfg.json')
  fs.writeFileSync(file, JSON.stringify({ mcpServers: { flaky: { command: process.execPath, args: [FLAKY] } } }))
  const child = spawn(process.execPath, [path.join(__dirname, '..', 'dist', 'cli.js'), 'serve', '--config', file], { stdio: ['pipe', 'ignore', 'pipe'] })
  let err = ''
  child.stderr!.on('data', (d) => (err += d))
  try {
    const deadline = Date.now() + 30_000
    while (!/ready/.test(err) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100))
    expect(err).toMatch(/ready/)
    child.kill('SIGHUP')
    const code = await new Promise<number | null>((r) => child.once('exit', (c) => r(c)))
    expect(code).toBe(0)
    expect(err).toMatch(/stopping \(SIGHUP\)/)
  } finally {
    child.kill('SIGKILL')
    fs.rmSync(dir, { recursive: true, force: true })
  }
}, 60_000)

test('an error answer to the tools/list after list_changed keeps the tools listed before, and the server up', async () => {
  const g = gatewayOf({ mcpServers: { le: { command: process.execPath, args: [FLAKY], env: { FLAKY_MODE: 'list-error' } } }, gateway: { backoffInitialMs: 60_000 } })
  try {
    await g.start()
    const session = newSession()
    expect((await g.search('select:mcp__le__poke', 1, session)).matches.map((m: { name: string }) => m.name)).toEqual(['mcp__le__poke'])
    expect(await g.execute('mcp__le__poke', {}, session)).toMatchObject({ content: [{ type: 'text', text: 'poked' }] })
    await new Promise((r) => setTimeout(r, 1000))
    const after = await g.search('select:mcp__le__poke', 1, session)
    expect(after.unavailable_servers).toEqual([])
    expect(after.matches.map((m: { name: string }) => m.name)).toEqual(['mcp__le__poke'])
  } finally {
    await g.close()
  }
}, 60_000)

test("an upstream's own -32001 after progress past callTimeoutMs is its answer, not the gateway's timeout", async () => {
  const g = gatewayOf({ mcpServers: { rpc: { command: process.execPath, args: [FLAKY], env: { FLAKY_MODE: 'rpc-error' } } }, gateway: { callTimeoutMs: 500 } })
  try {
    await g.start()
    const session = newSession()
    await g.search('select:mcp__rpc__rpc_fail', 1, session)
    let notices = 0
    const out = await g
      .execute('mcp__rpc__rpc_fail', { code: -32001, progressMs: 1200 }, session, { onProgress: () => void notices++ })
      .then(
        (r) => r,
        (e: unknown) => e,
      )
    expect(notices).toBeGreaterThan(3)
    expect(out).toMatchObject({ code: -32001 })
    expect(String((out as Error).message)).toContain('custom failure')
  } finally {
    await g.close()
  }
}, 60_000)

/**
 * A gateway over the flaky server (`alwaysLoad` its `tool`), served over HTTP as the upstream
 * `inner` of a second gateway with `settings`; `run` gets the outer gateway, a session in which
 * the tool was found, the tool's name there, and `stopInner`, which shuts the inner one down.
 */
async function throughHttp(
  tool: string,
  settings: Record<string, unknown>,
  run: (outer: any, session: ReturnType<typeof newSession>, name: string, stopInner: () => Promise<void>) => Promise<void>,
): Promise<void> {
  const inner = gatewayOf({ mcpServers: { flaky: { command: process.execPath, args: [FLAKY], alwaysLoad: [tool] } } }, 'inner')
  const served = await gw.serveHttp(inner, { port: 0, log: quiet })
  await inner.start()
  const outer = gatewayOf({ mcpServers: { inner: { url: served.url } }, gateway: settings }, 'outer')
  let innerOpen = true
  const stopInner = async () => {
    innerOpen = false
    await served.close()
    await inner.close()
  }
  try {
    await outer.start()
    const session = newSession()
    const name = `mcp__inner__mcp__flaky__${tool}`
    expect((await outer.search(`select:${name}`, 1, session)).matches.map((m: { name: string }) => m.name)).toEqual([name])
    await run(outer, session, name, stopInner)
  } finally {
    await outer.close()
    if (innerOpen) await stopInner()
  }
}

/** An `onProgress` for a call, and a promise of its first progress notice. */
function firstProgress(): { onProgress: () => void; progressed: Promise<void> } {
  let onProgress!: () => void
  const progressed = new Promise<void>((r) => (onProgress = () => r()))
  return { onProgress, progressed }
}

test('an HTTP upstream that goes away is taken down (its calls fail as connection_closed or unavailable), not kept listed for good', async () => {
  await throughHttp('echo', { connectTimeoutMs: 8000, backoffInitialMs: 60_000 }, async (outer, session, name, stopInner) => {
    expect(await outer.execute(name, { text: 'up' }, session)).toMatchObject({ structuredContent: { echoed: 'up' } })
    await stopInner()
    // The call fails either way the outer gateway learns that the server went away: during the
    // call (the request fails: `connection_closed`), or just before it, when a tools/list_changed
    // notice from the closing server made it list again and that listing failed (`unavailable`).
    const out = (await outer.execute(name, { text: 'down' }, session)) as {
      isError?: boolean
      structuredContent?: { failed?: string; refused?: string; server?: string }
    }
    expect(out.isError).toBe(true)
    const why = out.structuredContent?.failed ?? out.structuredContent?.refused
    expect(['connection_closed', 'unavailable']).toContain(String(why))
    expect(out.structuredContent?.server).toBe('inner')
    const after = await outer.search('echo', 5, session)
    expect(after.unavailable_servers.map((u: { server: string }) => u.server)).toEqual(['inner'])
  })
}, 60_000)

test('a call running on an HTTP upstream that shuts down fails as connection_closed, without waiting for its deadline', async () => {
  // Without the check, the call would wait out its 120 s deadline, past this test's 60 s.
  await throughHttp('count_slowly', { callTimeoutMs: 120_000, backoffInitialMs: 60_000 }, async (outer, session, name, stopInner) => {
    const { onProgress, progressed } = firstProgress()
    const call = outer.execute(name, { to: 1000, delay_ms: 100 }, session, { onProgress })
    await progressed
    // The inner gateway ends its sessions' streams quietly, then stops listening.
    await stopInner()
    const out = (await call) as { isError?: boolean; structuredContent?: { failed?: string; server?: string } }
    expect(out.isError).toBe(true)
    expect(out.structuredContent).toMatchObject({ failed: 'connection_closed', server: 'inner' })
    const after = await outer.search('count', 5, session)
    expect(after.unavailable_servers.map((u: { server: string }) => u.server)).toEqual(['inner'])
    expect(after.unavailable_servers[0].error).toMatch(/^hung: no answer to ping within \d+ ms after a transport error/)
  })
}, 60_000)

test('the same for a stateless HTTP server (no GET stream): its request stream that ends quietly before the answer counts', async () => {
  const { spawn } = require('node:child_process') as typeof import('node:child_process')
  const script = require('node:path').join(__dirname, 'fixtures', 'gateway', 'stateless-http-server.mjs') as string
  const child = spawn(process.execPath, [script], { stdio: ['pipe', 'pipe', 'inherit'] })
  try {
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout!.once('data', (b: Buffer) => resolve(JSON.parse(b.toString()).url))
      child.once('exit', () => reject(new Error('the server exited')))
    })
    // Without reading for the answer, the quiet end would leave the call to its 120 s deadline.
    const g = gatewayOf({ mcpServers: { stateless: { url } }, gateway: { callTimeoutMs: 120_000, backoffInitialMs: 60_000 } }, 'outer')
    try {
      await g.start()
      const session = newSession()
      const name = 'mcp__stateless__count_slowly'
      expect((await g.search(`select:${name}`, 1, session)).matches.map((m: { name: string }) => m.name)).toEqual([name])
      expect(await g.execute(name, { to: 2, delay_ms: 10 }, session)).toMatchObject({ content: [{ type: 'text', text: 'counted to 2' }] })
      const { onProgress, progressed } = firstProgress()
      const call = g.execute(name, { to: 10000, delay_ms: 100 }, session, { onProgress })
      await progressed
      const exited = new Promise((r) => child.once('exit', r))
      child.stdin!.write('stop\n')
      await exited
      const out = (await call) as { isError?: boolean; structuredContent?: { failed?: string; server?: string } }
      expect(out.structuredContent).toMatchObject({ failed: 'connection_closed', server: 'stateless' })
      const after = await g.search('count', 5, session)
      expect(after.unavailable_servers[0].error).toMatch(/after a transport error \(SSE stream disconnected: StreamEndedError/)
    } finally {
      await g.close()
    }
  } finally {
    child.kill('SIGKILL')
  }
}, 60_000)

test("at most 32 new sessions' bodies are read at once; more get 503 at once", async () => {
  const g = gatewayOf({ mcpServers: {} })
  const served = await gw.serveHttp(g, { port: 0, log: quiet })
  const port = Number(new URL(served.url).port)
  const reqs: http.ClientRequest[] = []
  try {
    const statuses = await new Promise<number[]>((resolve) => {
      const got: number[] = []
      const timer = setTimeout(() => resolve(got), 5000)
      for (let i = 0; i < 40; i++) {
        const r = http.request({ host: '127.0.0.1', port, path: '/mcp', method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'content-length': String(4 * 1024 * 1024) } })
        r.on('response', (res) => {
          got.push(res.statusCode ?? 0)
          res.resume()
          if (got.length === 8) {
            clearTimeout(timer)
            setTimeout(() => resolve(got), 300)
          }
        })
        r.on('error', () => {})
        r.write('{"jsonrpc":')
        reqs.push(r)
      }
    })
    expect(statuses.length).toBe(8)
    expect(statuses.every((s) => s === 503)).toBe(true)
  } finally {
    for (const r of reqs) r.destroy()
    await served.close()
    await g.close()
  }
}, 30_000)

describe('direct calls by bare name (`prefix: false`)', () => {
  type CallResult = { isError?: boolean; content: { type: string; text: string }[]; structuredContent?: Record<string, unknown> }
  const { Client } = require('@modelcontextprotocol/sdk/client/index.js')
  const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js')
  /** A gateway served over HTTP, and one MCP client of it. */
  const clientOf = async (data: unknown) => {
    const g = gatewayOf(data)
    const served = await gw.serveHttp(g, { port: 0, log: quiet })
    void g.start()
    const client = new Client({ name: 'bare-names', version: '1' })
    await client.connect(new StreamableHTTPClientTransport(new URL(served.url)))
    const call = (name: string, args: Record<string, unknown> = {}) =>
      (client.callTool({ name, arguments: args }) as Promise<CallResult>).catch((e: Error & { code?: number }) => ({ thrown: e.code ?? e.message }))
    const close = async () => {
      await client.close().catch(() => {})
      await served.close()
      await g.close()
    }
    return { client, call, close }
  }
  const textOf = (r: unknown) => ((r as CallResult).content ?? []).map((c) => c.text).join('\n')

  test("a bare direct name of a server that went down answers unavailable, and one of a server that never came up too", async () => {
    const missing = require('node:path').join(require('node:os').tmpdir(), `no-such-server-${process.pid}`)
    const { client, call, close } = await clientOf({
      mcpServers: {
        flaky: { command: process.execPath, args: [FLAKY], alwaysLoad: ['echo', 'typed_echo', 'crash'], prefix: false },
        gone: { command: missing, alwaysLoad: ['vanish'], prefix: false },
      },
      gateway: { backoffInitialMs: 60_000, backoffMaxMs: 60_000 },
    })
    try {
      expect((await client.listTools()).tools.map((t: { name: string }) => t.name)).toEqual(
        expect.arrayContaining(['echo', 'typed_echo', 'crash']),
      )
      expect(await call('echo', { text: 'up' })).toMatchObject({ structuredContent: { echoed: 'up' } })
      // Named in alwaysLoad of a server that never listed its tools.
      const vanish = await call('vanish')
      expect(vanish).toMatchObject({ isError: true, structuredContent: { refused: 'unavailable', server: 'gone', tool_name: 'mcp__gone__vanish' } })
      await call('crash')
      let down: unknown
      for (const deadline = Date.now() + 5000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 100))) {
        down = await call('echo', { text: 'down' })
        if ((down as CallResult).structuredContent?.refused === 'unavailable') break
      }
      expect(down).toMatchObject({ isError: true, structuredContent: { refused: 'unavailable', server: 'flaky', tool_name: 'mcp__flaky__echo' } })
      expect(textOf(down)).toMatch(/server "flaky" is unavailable/)
      // A tool with an outputSchema: the refusal is its text alone.
      const typed = await call('typed_echo', { text: 'down' })
      expect(typed).toMatchObject({ isError: true })
      expect((typed as CallResult).structuredContent).toBeUndefined()
      // Names no server loads directly stay unknown, and the gateway's own names stay its own.
      expect(await call('fail')).toEqual({ thrown: -32602 })
      expect(await call('no_such_tool')).toEqual({ thrown: -32602 })
    } finally {
      await close()
    }
  }, 60_000)

  test('a tool its server lists twice runs by its bare name through execute_tool as it does directly', async () => {
    const { call, close } = await clientOf({
      mcpServers: { tw: { command: process.execPath, args: [FLAKY], env: { FLAKY_MODE: 'twice' }, alwaysLoad: true, prefix: false } },
      gateway: { requireDiscovered: false },
    })
    try {
      expect(textOf(await call('twin'))).toBe('twin ran')
      expect(textOf(await call('execute_tool', { tool_name: 'twin', arguments: {} }))).toBe('twin ran')
      expect(textOf(await call('execute_tool', { tool_name: 'mcp__tw__twin', arguments: {} }))).toBe('twin ran')
      const found = (await call('search_tools', { query: 'select:twin', max_results: 5 })) as CallResult
      expect((found.structuredContent?.matches as { name: string }[]).map((m) => m.name)).toEqual(['mcp__tw__twin'])
    } finally {
      await close()
    }
  }, 60_000)
})

describe('a call deadline while the wall clock lags', () => {
  // Timers run on a monotonic clock; Date.now() is the wall clock, which NTP may step or slew
  // and which counts whole milliseconds, so a deadline can fire before its delay has passed by
  // Date.now(). That is still the call's deadline, not an upstream's own -32001 answer.
  let up: InstanceType<typeof gw.Upstream>
  beforeAll(async () => {
    const settings = { ...gw.DEFAULT_SETTINGS, callTimeoutMs: 600, connectTimeoutMs: 20_000 }
    up = new gw.Upstream({ name: 'flaky', transport: 'stdio', command: 'node', args: [FLAKY] } as never, settings, quiet, { onTools: () => {} })
    up.start()
    await up.settled()
  }, 30_000)
  afterAll(async () => {
    await up?.close()
  })
  test('a call past its deadline is a timeout even when Date.now() did not move', async () => {
    expect(up.state).toBe('ready')
    const realNow = Date.now
    const frozen = realNow()
    const t0 = performance.now()
    Date.now = () => frozen
    let err: unknown
    try {
      // Its first progress notice (which restarts the deadline) would come after 2 s.
      err = await up.callTool('count_slowly', { to: 100, delay_ms: 2000 }, {}).then(
        () => null,
        (e: unknown) => e,
      )
    } finally {
      Date.now = realNow
    }
    expect(err).toBeInstanceOf(gw.UpstreamUnavailableError)
    expect((err as InstanceType<typeof gw.UpstreamUnavailableError>).reason).toBe('timeout')
    expect(performance.now() - t0).toBeLessThan(5_000)
  }, 20_000)
  test('progress restarts callTimeoutMs even when the caller did not ask for it [regression: a call without a progress handler timed out]', async () => {
    // 8 steps of 250 ms (2 s in all) against a 600 ms deadline restarted by each step's notice.
    const out = await up.callTool('count_slowly', { to: 8, delay_ms: 250 }, {})
    expect(out).toMatchObject({ content: [{ type: 'text', text: 'counted to 8' }] })
  }, 20_000)
})

describe('a call deadline after progress, while the wall clock lags', () => {
  // On a progress notice the SDK restarts its own timer before the handler that restarts the
  // gateway's runs, so the SDK's would fire first: the gateway's deadlines now abort the call
  // themselves, and the SDK's timers stand further off.
  const settings = { ...gw.DEFAULT_SETTINGS, callTimeoutMs: 600, maxCallTimeoutMs: 1_500, connectTimeoutMs: 20_000 }
  const ups: InstanceType<typeof gw.Upstream>[] = []
  const upstream = async (name: string, env: Record<string, string>) => {
    const up = new gw.Upstream({ name, transport: 'stdio', command: 'node', args: [FLAKY], env } as never, settings, quiet, { onTools: () => {} })
    ups.push(up)
    up.start()
    await up.settled()
    expect(up.state).toBe('ready')
    return up
  }
  afterAll(async () => {
    await Promise.all(ups.map((u) => u.close()))
  })
  /** The call's error, made while Date.now() stands still. */
  const frozenCall = async (up: InstanceType<typeof gw.Upstream>, tool: string, args: unknown) => {
    const realNow = Date.now
    const frozen = realNow()
    Date.now = () => frozen
    try {
      return await up.callTool(tool, args, { onprogress: () => {} }).then(
        () => null,
        (e: unknown) => e,
      )
    } finally {
      Date.now = realNow
    }
  }
  test('no answer after a progress notice is a timeout', async () => {
    const up = await upstream('stall', { FLAKY_MODE: 'stall' })
    const err = await frozenCall(up, 'stall', {})
    expect(err).toBeInstanceOf(gw.UpstreamUnavailableError)
    expect((err as InstanceType<typeof gw.UpstreamUnavailableError>).reason).toBe('timeout')
  }, 30_000)
  test('progress that never ends meets the total deadline, as a timeout', async () => {
    const up = await upstream('counting', {})
    const t0 = performance.now()
    const err = await frozenCall(up, 'count_slowly', { to: 1000, delay_ms: 100 })
    expect(err).toBeInstanceOf(gw.UpstreamUnavailableError)
    expect((err as InstanceType<typeof gw.UpstreamUnavailableError>).reason).toBe('timeout')
    expect(performance.now() - t0).toBeLessThan(10_000)
  }, 30_000)
})

/** A gateway's MCP client sessions, in memory: each records the log messages it receives. */
const inMemory = {
  Client: require('@modelcontextprotocol/sdk/client/index.js').Client,
  InMemoryTransport: require('@modelcontextprotocol/sdk/inMemory.js').InMemoryTransport,
  LoggingMessageNotificationSchema: require('@modelcontextprotocol/sdk/types.js').LoggingMessageNotificationSchema,
}
type CallOut = { isError?: boolean; content: { type: string; text: string }[]; structuredContent?: Record<string, unknown> }
async function clientSession(g: any, label: string) {
  const [a, b] = inMemory.InMemoryTransport.createLinkedPair()
  await g.createServer().connect(a)
  const client = new inMemory.Client({ name: label, version: '1' })
  const logs: unknown[] = []
  client.setNotificationHandler(inMemory.LoggingMessageNotificationSchema, (n: { params: { data: unknown } }) => void logs.push(n.params.data))
  await client.connect(b)
  const execute = (tool: string, args: Record<string, unknown> = {}, onprogress?: () => void) =>
    client.callTool({ name: 'execute_tool', arguments: { tool_name: tool, arguments: args } }, undefined, onprogress ? { onprogress } : undefined) as Promise<CallOut>
  return { client, logs, execute }
}

describe("an upstream's log messages reach one client session only", () => {
  let g: any
  beforeAll(async () => {
    g = gatewayOf({ mcpServers: { flaky: { command: process.execPath, args: [FLAKY] } }, gateway: { requireDiscovered: false } })
    await g.start()
  }, 30_000)
  afterAll(async () => {
    await g?.close()
  })

  test("a call of another session in flight on the same server gets none of a call's log messages, either way round", async () => {
    const a = await clientSession(g, 'A')
    const b = await clientSession(g, 'B')
    for (const [slow, chatty] of [
      [a, b],
      [b, a],
    ]) {
      a.logs.length = 0
      b.logs.length = 0
      const { onProgress, progressed } = firstProgress()
      const long = slow.execute('mcp__flaky__count_slowly', { to: 20, delay_ms: 50 }, onProgress)
      await progressed
      expect((await chatty.execute('mcp__flaky__chatty')).content[0].text).toBe('chatted')
      expect((await long).content[0].text).toBe('counted to 20')
      expect(slow.logs).toEqual([])
      expect(chatty.logs).toEqual([])
    }
  }, 30_000)

  test("a log message sent just after one session's call ended reaches no other session's call in flight [regression: it did]", async () => {
    const a = await clientSession(g, 'A')
    const b = await clientSession(g, 'B')
    const { onProgress, progressed } = firstProgress()
    const long = b.execute('mcp__flaky__count_slowly', { to: 20, delay_ms: 50 }, onProgress)
    await progressed
    expect((await a.execute('mcp__flaky__postlog')).content[0].text).toBe('answered')
    expect((await long).content[0].text).toBe('counted to 20')
    expect(b.logs).toEqual([])
    expect(a.logs).toEqual([])
  }, 30_000)

  test('a call gets its log messages when the calls in flight on its server are all of its session', async () => {
    // Once the other sessions' calls have been over for the grace period.
    await new Promise((r) => setTimeout(r, gw.LOG_GRACE_MS + 100))
    const a = await clientSession(g, 'A')
    expect((await a.execute('mcp__flaky__chatty')).content[0].text).toBe('chatted')
    expect(a.logs).toEqual(['chatty: one', 'chatty: two'])
    a.logs.length = 0
    const { onProgress, progressed } = firstProgress()
    const long = a.execute('mcp__flaky__count_slowly', { to: 20, delay_ms: 50 }, onProgress)
    await progressed
    await a.execute('mcp__flaky__chatty')
    await long
    expect(a.logs).toContain('chatty: one')
    expect(a.logs).toContain('chatty: two')
  }, 30_000)
})

/** The names a search matched. */
const namesOf = (r: { matches: { name: string }[] }) => r.matches.map((m) => m.name)
/** The text of a call's result. */
const textOfResult = (r: unknown) => ((r as CallOut).content ?? []).map((c) => c.text).join('\n')
/** Polls `check` every 100 ms until it holds, for at most 10 s. */
async function eventually(check: () => Promise<boolean>): Promise<void> {
  for (const deadline = Date.now() + 10_000; !(await check()) && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 100))
}

test("a tool whose schema nests 20,000 levels is left out, and its server's other tools stay searchable and callable, after list_changed too", async () => {
  const g = gatewayOf({
    mcpServers: { raw: { command: process.execPath, args: [RAW], env: { RAW_DEEP: '20000', RAW_ID: 'raw' } } },
    gateway: { requireDiscovered: false, backoffInitialMs: 60_000 },
  })
  try {
    await g.start()
    const session = newSession()
    const first = await g.search('select:mcp__raw__echo,mcp__raw__t0_1,mcp__raw__deep_tool', 5, session)
    expect(first.unavailable_servers).toEqual([])
    expect(namesOf(first)).toEqual(['mcp__raw__echo', 'mcp__raw__t0_1'])
    expect(first.total_tools).toBe(5)
    expect(first.partial_servers).toEqual([{ server: 'raw', left_out: 1, why: 'nested deeper than 256 levels' }])
    expect(gw.Gateway.formatSearch(first)).toContain('Servers with tools left out')
    expect(textOfResult(await g.execute('mcp__raw__t0_1', {}, session))).toBe('raw ran t0_1')
    expect(await g.execute('mcp__raw__deep_tool', {}, session)).toMatchObject({ isError: true, structuredContent: { refused: 'not_found' } })
    // The list after list_changed adds `later` and a second deep tool.
    expect(textOfResult(await g.execute('mcp__raw__relist', {}, session))).toBe('raw ran relist')
    await eventually(async () => namesOf(await g.search('select:mcp__raw__later', 1, session)).length === 1)
    const after = await g.search('select:mcp__raw__later,mcp__raw__deep_later', 5, session)
    expect(after.unavailable_servers).toEqual([])
    expect(namesOf(after)).toEqual(['mcp__raw__later'])
    expect(after.partial_servers).toEqual([{ server: 'raw', left_out: 2, why: 'nested deeper than 256 levels' }])
    expect(textOfResult(await g.execute('mcp__raw__later', {}, session))).toBe('raw ran later')
    expect(textOfResult(await g.execute('mcp__raw__echo', {}, session))).toBe('raw ran echo')
  } finally {
    await g.close()
  }
}, 60_000)

test('a tool whose outputSchema does not compile does not take its server down: it is listed and runs', async () => {
  const g = gatewayOf({
    mcpServers: { raw: { command: process.execPath, args: [RAW], env: { RAW_BAD_OUTPUT: '1', RAW_ID: 'raw' } } },
    gateway: { requireDiscovered: false, backoffInitialMs: 60_000 },
  })
  try {
    await g.start()
    const session = newSession()
    const found = await g.search('select:mcp__raw__bad_output,mcp__raw__echo', 5, session)
    expect(found.unavailable_servers).toEqual([])
    expect(namesOf(found)).toEqual(['mcp__raw__bad_output', 'mcp__raw__echo'])
    expect(textOfResult(await g.execute('mcp__raw__bad_output', {}, session))).toBe('raw ran bad_output')
  } finally {
    await g.close()
  }
}, 60_000)

test('a tools/list page of 130,000 tools is read whole, and its tools are searchable and callable', async () => {
  const g = gatewayOf({
    mcpServers: { big: { command: process.execPath, args: [RAW], env: { RAW_TOOLS: '130000', RAW_ID: 'big' } } },
    gateway: { requireDiscovered: false, backoffInitialMs: 60_000, connectTimeoutMs: 50_000, listTimeoutMs: 50_000 },
  })
  try {
    await g.start()
    const session = newSession()
    const found = await g.search('select:mcp__big__t0_129999', 1, session)
    expect(found.unavailable_servers).toEqual([])
    expect(found.total_tools).toBe(130_002)
    expect(namesOf(found)).toEqual(['mcp__big__t0_129999'])
    expect(textOfResult(await g.execute('mcp__big__t0_129999', {}, session))).toBe('big ran t0_129999')
  } finally {
    await g.close()
  }
}, 120_000)

describe('the maxTools cap', () => {
  const cfg = require('../dist/gateway/config.js') as typeof import('../ts/gateway/config')
  const { LIMITS } = require('../dist/config.js') as typeof import('../ts/config')
  const { MAX_TOOLS } = require('../dist/executeTool.js') as typeof import('../ts/executeTool')

  test("defaults to the most tools the package's search and execute take, and only a whole number up to that is accepted", () => {
    const most = Math.min(LIMITS.toolCount, MAX_TOOLS)
    expect(gw.DEFAULT_SETTINGS.maxTools).toBe(most)
    expect(cfg.parseConfig({ mcpServers: {}, gateway: { maxTools: most } }, 'cfg', {}).settings.maxTools).toBe(most)
    for (const v of [0, -1, 1.5, most + 1, '5', Number.NaN]) {
      expect(() => cfg.parseConfig({ mcpServers: {}, gateway: { maxTools: v } }, 'cfg', {})).toThrow(`gateway.maxTools must be a whole number from 1 to ${most}`)
    }
  })

  test('servers are taken in config order: the first keeps all its tools, the one that crosses the cap keeps what fits', async () => {
    // a: echo, relist, t0_0 (3 tools); b: echo, relist, t0_0, t0_1, t0_2 (5); the cap lets 2 of b's in.
    const g = gatewayOf({
      mcpServers: {
        a: { command: process.execPath, args: [RAW], env: { RAW_TOOLS: '1', RAW_ID: 'a' } },
        b: { command: process.execPath, args: [RAW], env: { RAW_TOOLS: '3', RAW_ID: 'b' } },
      },
      gateway: { requireDiscovered: false, backoffInitialMs: 60_000, maxTools: 5 },
    })
    try {
      await g.start()
      const session = newSession()
      const found = await g.search('select:mcp__a__echo,mcp__a__relist,mcp__a__t0_0,mcp__b__echo,mcp__b__relist,mcp__b__t0_0', 10, session)
      expect(found.total_tools).toBe(5)
      expect(found.unavailable_servers).toEqual([])
      expect(namesOf(found)).toEqual(['mcp__a__echo', 'mcp__a__relist', 'mcp__a__t0_0', 'mcp__b__echo', 'mcp__b__relist'])
      expect(found.partial_servers).toEqual([{ server: 'b', left_out: 3, why: "over the gateway's limit of 5 tools (maxTools)" }])
      for (const tool of ['echo', 't0_0']) expect(textOfResult(await g.execute(`mcp__a__${tool}`, {}, session))).toBe(`a ran ${tool}`)
      expect(textOfResult(await g.execute('mcp__b__echo', {}, session))).toBe('b ran echo')
      expect(await g.execute('mcp__b__t0_2', {}, session)).toMatchObject({ isError: true, structuredContent: { refused: 'not_found', tool_name: 'mcp__b__t0_2' } })
    } finally {
      await g.close()
    }
  }, 60_000)

  test('a failure inside the gateway reaches the client as a coded failure in the result, not a bare JSON-RPC error', async () => {
    const g = gatewayOf({ mcpServers: { a: { command: process.execPath, args: [RAW], env: { RAW_ID: 'a' } } }, gateway: { requireDiscovered: false } })
    try {
      await g.start()
      const c = await clientSession(g, 'A')
      expect(textOfResult(await c.execute('mcp__a__echo'))).toBe('a ran echo')
      // A tool list past what the package's execute takes (sparse: nothing is allocated per tool).
      const tools = g.tools
      g.tools = new Array(MAX_TOOLS + 1)
      const out = await c.execute('mcp__a__echo').catch((e: Error & { code?: number }) => ({ thrown: e.code }))
      g.tools = tools
      expect(out).toMatchObject({ isError: true, structuredContent: { failed: 'internal_error', code: 'E_TOO_LARGE', tool_name: 'mcp__a__echo' } })
      expect(textOfResult(out)).toMatch(/could not run: .*exceed the limit/)
      await c.client.close()
    } finally {
      await g.close()
    }
  }, 60_000)
})

describe('HTTP serving: bodies, tokens, Host checks and stop', () => {
  const net = require('node:net') as typeof import('node:net')
  const ACCEPT = 'application/json, text/event-stream'
  const initBody = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'review', version: '1' } } })
  const flakyGateway = (args: string[] = [FLAKY]) => gatewayOf({ mcpServers: { flaky: { command: process.execPath, args } } }, 'serve')
  /** A new session's id (initialize, then initialized). */
  const openSession = async (url: string): Promise<string> => {
    const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: ACCEPT }, body: initBody })
    await r.text()
    const sid = r.headers.get('mcp-session-id')
    expect(r.status).toBe(200)
    expect(typeof sid).toBe('string')
    const n = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: ACCEPT, 'mcp-session-id': sid!, 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    })
    await n.text()
    return sid!
  }
  /** A POST whose body never finishes: its socket, and a promise of the status it is answered with ('none' if it closes unanswered). */
  const halfSent = (port: number, headers: Record<string, string> = {}) => {
    const s = net.connect(port, '127.0.0.1')
    s.on('error', () => {})
    let text = ''
    const status = new Promise<string>((resolve) => {
      s.on('data', (d) => {
        text += d
        const m = /^HTTP\/1\.1 (\d+)/.exec(text)
        if (m) resolve(m[1])
      })
      s.on('close', () => resolve('none'))
    })
    const extra = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('')
    s.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nAccept: ${ACCEPT}\r\n${extra}Content-Length: 1000\r\n\r\n{"jsonrpc"`)
    return { socket: s, status }
  }

  test('slow POST bodies on an existing session get 503 past the count and 408 past the deadline', async () => {
    const g = flakyGateway()
    const served = await gw.serveHttp(g, { port: 0, log: quiet, maxBodiesReading: 2, bodyDeadlineMs: 400 })
    const socks: import('node:net').Socket[] = []
    try {
      const sid = await openSession(served.url)
      const on = { 'Mcp-Session-Id': sid, 'Mcp-Protocol-Version': '2025-06-18' }
      const slow = [halfSent(served.port, on), halfSent(served.port, on)]
      socks.push(...slow.map((s) => s.socket))
      await new Promise((r) => setTimeout(r, 100))
      const third = halfSent(served.port, on)
      socks.push(third.socket)
      expect(await third.status).toBe('503')
      expect(await Promise.all(slow.map((s) => s.status))).toEqual(['408', '408'])
      // The session still answers a whole request.
      const r = await fetch(served.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: ACCEPT, ...on },
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }),
      })
      expect(r.status).toBe(200)
      expect(await r.text()).toContain('"result":{}')
    } finally {
      for (const s of socks) s.destroy()
      await served.close()
      await g.close()
    }
  })

  /** `tool-index serve ARGS` until it exits (its code) or says it is listening (`'listening'`, then it is killed). */
  const cliServe = async (args: string[]): Promise<{ code: number | null | 'listening'; err: string }> => {
    const path = require('node:path') as typeof import('node:path')
    const fs = require('node:fs') as typeof import('node:fs')
    const os = require('node:os') as typeof import('node:os')
    const { spawn } = require('node:child_process') as typeof import('node:child_process')
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tool-index-serve-'))
    const file = path.join(dir, 'cfg.json')
    fs.writeFileSync(file, JSON.stringify({ mcpServers: { flaky: { command: process.execPath, args: [FLAKY] } } }))
    const env = { ...process.env }
    delete env.TOOL_INDEX_GATEWAY_TOKEN
    const child = spawn(process.execPath, [path.join(__dirname, '..', 'dist', 'cli.js'), 'serve', '--config', file, ...args], { stdio: ['pipe', 'ignore', 'pipe'], env })
    let err = ''
    try {
      const code = await new Promise<number | null | 'listening'>((resolve) => {
        child.stderr!.on('data', (d) => {
          err += d
          if (/listening on/.test(err)) resolve('listening')
        })
        child.once('exit', (c) => resolve(c))
        setTimeout(() => resolve('listening'), 20_000).unref()
      })
      return { code, err }
    } finally {
      child.kill('SIGKILL')
      fs.rmSync(dir, { recursive: true, force: true })
    }
  }

  test('serve --token "" is refused (exit code 2), not taken as no token', async () => {
    const empty = await cliServe(['--http', '0', '--token', ''])
    expect(empty.code).toBe(2)
    expect(empty.err).toContain('--token must not be empty')
    expect(empty.err).not.toContain('listening on')
    expect((await cliServe(['--http', '0', '--token', '  '])).code).toBe(2)
    // A token with spaces at its ends could never match the trimmed header.
    const padded = await cliServe(['--http', '0', '--token', ' secret '])
    expect(padded.code).toBe(2)
    expect(padded.err).toContain('--token must not start or end with whitespace')
  }, 60_000)

  /** POST an initialize to 127.0.0.1 (or `addr`):`port` with this Host header; the status. */
  const initWithHost = (port: number, hostHeader: string, addr = '127.0.0.1') =>
    new Promise<number>((resolve, reject) => {
      const req = http.request(
        { host: addr, port, path: '/mcp', method: 'POST', headers: { host: hostHeader, 'content-type': 'application/json', accept: ACCEPT, 'content-length': Buffer.byteLength(initBody) } },
        (res) => {
          res.resume()
          res.on('end', () => resolve(res.statusCode ?? 0))
        },
      )
      req.on('error', reject)
      req.end(initBody)
    })

  test('on port 80 the Host header may leave the port out, as clients send it [regression: every client refused with 403]', () => {
    const serve = require('../dist/gateway/serve.js') as typeof import('../ts/gateway/serve')
    expect(serve.allowedHostsOf('127.0.0.1', 80)).toEqual(expect.arrayContaining(['127.0.0.1:80', '127.0.0.1', 'localhost', '[::1]']))
    expect(serve.allowedHostsOf('127.0.0.1', 8080)).not.toContain('127.0.0.1')
    expect(serve.allowedHostsOf('127.0.0.1', 8080)).toContain('localhost:8080')
  })

  test('every loopback bind checks the Host header; a wider bind without a token warns', async () => {
    const serve = require('../dist/gateway/serve.js') as typeof import('../ts/gateway/serve')
    for (const h of ['127.0.0.1', '127.0.0.2', '127.255.0.9', 'localhost', '::1', '[::1]', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1', '::ffff:7f00:2']) expect([h, serve.isLoopbackHost(h)]).toEqual([h, true])
    for (const h of ['0.0.0.0', '::', '10.0.0.1', '128.0.0.1', '::ffff:10.0.0.1', '::2', 'example.com']) expect([h, serve.isLoopbackHost(h)]).toEqual([h, false])
    const g = flakyGateway()
    try {
      // 127.0.0.2 is loopback too: an attacker's name in Host is refused, its own address taken.
      let served = await gw.serveHttp(g, { port: 0, host: '127.0.0.2', log: quiet })
      try {
        expect(await initWithHost(served.port, `rebind.attacker.example:${served.port}`, '127.0.0.2')).toBe(403)
        expect(await initWithHost(served.port, `127.0.0.2:${served.port}`, '127.0.0.2')).toBe(200)
        expect(await initWithHost(served.port, `localhost:${served.port}`, '127.0.0.2')).toBe(200)
      } finally {
        await served.close()
      }
      // Loopback written another way is read from the address bound [regression: 127.1 and
      // 2130706433 took any Host and warned they were not loopback].
      for (const other of ['127.1', '2130706433']) {
        const lines: string[] = []
        served = await gw.serveHttp(g, { port: 0, host: other, log: gw.stderrLogger({ write: (l: string) => void lines.push(l) }) })
        try {
          expect([other, await initWithHost(served.port, `rebind.attacker.example:${served.port}`, '127.0.0.1')]).toEqual([other, 403])
          expect([other, await initWithHost(served.port, `127.0.0.1:${served.port}`, '127.0.0.1')]).toEqual([other, 200])
          expect([other, await initWithHost(served.port, `${other}:${served.port}`, '127.0.0.1')]).toEqual([other, 200])
          expect(lines.filter((l) => /not a loopback address/.test(l))).toEqual([])
        } finally {
          await served.close()
        }
      }
      // So is an IPv4-mapped 127.0.0.1 (where the system can bind it).
      const mapped = await gw.serveHttp(g, { port: 0, host: '::ffff:127.0.0.1', log: quiet }).catch(() => undefined)
      if (mapped) {
        try {
          expect(await initWithHost(mapped.port, `rebind.attacker.example:${mapped.port}`)).toBe(403)
          expect(await initWithHost(mapped.port, `127.0.0.1:${mapped.port}`)).toBe(200)
        } finally {
          await mapped.close()
        }
      }
      // A wider bind without a token says so at startup; with one it does not.
      for (const token of [undefined, 'secret']) {
        const lines: string[] = []
        served = await gw.serveHttp(g, { port: 0, host: '0.0.0.0', token, log: gw.stderrLogger({ write: (l: string) => void lines.push(l) }) })
        await served.close()
        expect([token, lines.some((l) => /warn: 0\.0\.0\.0 is not a loopback address and no token is set/.test(l))]).toEqual([token, token === undefined])
      }
    } finally {
      await g.close()
    }
  })

  test('close ends a half-sent request at once, and the upstreams then get their graceful close', async () => {
    const path = require('node:path') as typeof import('node:path')
    const fs = require('node:fs') as typeof import('node:fs')
    const os = require('node:os') as typeof import('node:os')
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tool-index-stop-'))
    const marker = path.join(dir, 'stdin-ended')
    // The flaky server, noting when its stdin ends (the graceful close; a kill would not write it).
    const g = flakyGateway(['-e', `process.stdin.on('end', () => require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'end')); import(${JSON.stringify(FLAKY)})`])
    const served = await gw.serveHttp(g, { port: 0, log: quiet })
    const halves: ReturnType<typeof halfSent>[] = []
    try {
      await g.start()
      const sid = await openSession(served.url)
      halves.push(halfSent(served.port), halfSent(served.port, { 'Mcp-Session-Id': sid, 'Mcp-Protocol-Version': '2025-06-18' }))
      await new Promise((r) => setTimeout(r, 200))
      const t0 = Date.now()
      const how = await Promise.race([served.close().then(() => 'closed'), new Promise((r) => setTimeout(() => r('still waiting'), 4000))])
      expect(how).toBe('closed')
      expect(Date.now() - t0).toBeLessThan(4000)
      expect(await Promise.all(halves.map((h) => h.status))).toEqual(['none', 'none'])
      await g.close()
      expect(fs.existsSync(marker)).toBe(true)
    } finally {
      for (const h of halves) h.socket.destroy()
      await served.close()
      await g.close()
      fs.rmSync(dir, { recursive: true, force: true })
    }
  }, 20_000)
})

describe('an HTTP status on one call', () => {
  // An answer's text may quote the call's arguments; what every session's search shows as the
  // server's error must not carry it, and one refused call must not take the server down.
  const HTTP_ERROR = require('node:path').join(__dirname, 'fixtures', 'gateway', 'http-error-server.mjs') as string
  const started = async (status: number, rpcCode?: number, callAnswer?: string, more: Record<string, string> = {}) => {
    const env = {
      ...process.env,
      ...more,
      HTTP_ERROR_STATUS: String(status),
      ...(rpcCode === undefined ? {} : { RPC_ERROR_CODE: String(rpcCode) }),
      ...(callAnswer === undefined ? {} : { CALL_ANSWER: callAnswer }),
    }
    const child = require('node:child_process').spawn('node', [HTTP_ERROR], { env, stdio: ['ignore', 'pipe', 'inherit'] })
    const port = await new Promise<number>((resolve, reject) => {
      child.stdout.once('data', (d: Buffer) => resolve(Number(/port (\d+)/.exec(String(d))?.[1])))
      child.once('exit', () => reject(new Error('the fixture server exited')))
    })
    return { child, url: `http://127.0.0.1:${port}/mcp` }
  }
  /**
   * One call by session A to the bank server the fixture runs (`status`, `rpcCode`), then
   * session B's search 200 ms later (after the ping a failure starts): the server stays listed.
   */
  const callThenSearch = async (status: number, rpcCode: number | undefined, account: string, callAnswer?: string) => {
    const { child, url } = await started(status, rpcCode, callAnswer)
    const g = gatewayOf({ mcpServers: { bank: { url } }, gateway: { requireDiscovered: false, backoffInitialMs: 60_000 } })
    try {
      await g.start()
      const call = await g.execute('mcp__bank__lookup', { account }, newSession()).then(
        (out) => ({ out }),
        (error: unknown) => ({ error: error as { message?: string; code?: number } }),
      )
      await new Promise((r) => setTimeout(r, 200))
      const seen = await g.search('look up an account', 5, newSession())
      expect(seen.unavailable_servers).toEqual([])
      expect(seen.matches.map((m) => m.name)).toEqual(['mcp__bank__lookup'])
      return { call, seen }
    } finally {
      await g.close()
      child.kill('SIGKILL')
    }
  }
  test.each([400, 413, 500])('HTTP %d: that call fails as http_error, another session sees none of its arguments, and the server stays', async (status) => {
    const { call, seen } = await callThenSearch(status, undefined, 'ALICE-SECRET-4111')
    expect(call).toMatchObject({ out: { isError: true, structuredContent: { failed: 'http_error', server: 'bank' } } })
    expect(JSON.stringify(call)).not.toContain('ALICE-SECRET-4111')
    expect(JSON.stringify(seen)).not.toContain('ALICE-SECRET-4111')
  }, 30_000)
  test.each([404, 500, -32000])('a JSON-RPC error of code %d (an answer over HTTP 200) is the upstream\'s own: passed on, and the server stays [regression: positive codes read as HTTP statuses]', async (code) => {
    const { call } = await callThenSearch(200, code, 'nope')
    expect(call).toMatchObject({ error: { code, message: expect.stringContaining('no such account') } })
  }, 30_000)
  test("a server that fails to start with an error page is listed with its status, never the page's text [regression: the page was shown to every session]", async () => {
    const { child, url } = await started(200, undefined, undefined, { INIT_STATUS: '500' })
    const g = gatewayOf({ mcpServers: { bank: { url } }, gateway: { requireDiscovered: false, backoffInitialMs: 60_000 } })
    try {
      await g.start()
      const seen = await g.search('look up an account', 5, newSession())
      expect(seen.unavailable_servers).toMatchObject([{ server: 'bank', error: 'failed to start: HTTP status 500' }])
      expect(JSON.stringify(seen)).not.toContain('hunter2')
    } finally {
      await g.close()
      child.kill('SIGKILL')
    }
  }, 30_000)
  test('a result that is not a CallToolResult fails that call as invalid_result, and the server stays [regression: read as no answer, it took the server down for every session]', async () => {
    const { call } = await callThenSearch(200, undefined, 'x', 'bad-result')
    expect(call).toMatchObject({ out: { isError: true, structuredContent: { failed: 'invalid_result', server: 'bank' } } })
  }, 30_000)
  test('an answer of another content type (a page of HTML) fails that call as http_error, not as a bare JSON-RPC error of code -1', async () => {
    const { call } = await callThenSearch(200, undefined, 'x', 'html')
    expect(call).toMatchObject({ out: { isError: true, structuredContent: { failed: 'http_error', server: 'bank' } } })
  }, 30_000)
})

describe('a large answer from a stdio server', () => {
  // The SDK closes a stdio connection whose message passes its buffer; the gateway's bound is
  // the same 16 MiB as over HTTP (the SDK's own default was 10 MiB), and past it the server's
  // error says why instead of "crashed?".
  test('a 12 MiB answer comes through; an 18 MiB one closes the connection, and the error says so', async () => {
    const g = gatewayOf({ mcpServers: { flaky: { command: 'node', args: [FLAKY] } }, gateway: { requireDiscovered: false, backoffInitialMs: 60_000 } })
    try {
      await g.start()
      const s = newSession()
      const six = 'x'.repeat(6 * 1024 * 1024)
      const ok = await g.execute('mcp__flaky__echo', { text: six }, s)
      expect((ok as { isError?: boolean }).isError).toBeFalsy()
      expect((ok as { structuredContent?: { echoed?: string } }).structuredContent?.echoed?.length).toBe(six.length)
      const big = await g.execute('mcp__flaky__echo', { text: 'y'.repeat(9 * 1024 * 1024) }, s)
      expect(big).toMatchObject({ isError: true, structuredContent: { failed: 'connection_closed' } })
      expect(JSON.stringify(big)).toContain('over 16 MiB')
    } finally {
      await g.close()
    }
  }, 60_000)
})

describe('tools an upstream lists that MCP does not allow', () => {
  test('a tool without an inputSchema is left out and its server\'s other tools stay; a name clients refuse is not listed directly [regression: the whole server went down; the name was listed as is]', async () => {
    const g = gatewayOf({
      mcpServers: { odd: { command: process.execPath, args: [RAW], env: { RAW_ODD: '1' }, alwaysLoad: ['my tool/x', 'relist'], prefix: false } },
      gateway: { requireDiscovered: false, backoffInitialMs: 60_000 },
    })
    try {
      await g.start()
      const s = newSession()
      const seen = await g.search('echo the call back', 5, s)
      expect(seen.unavailable_servers).toEqual([])
      expect(seen.matches.map((m: { name: string }) => m.name)).toContain('mcp__odd__echo')
      expect(seen.partial_servers).toMatchObject([{ server: 'odd', left_out: 1, why: expect.stringContaining('inputSchema') }])
      const { client } = await clientSession(g, 'direct')
      const direct = (await client.listTools()).tools.map((t: { name: string }) => t.name)
      expect(direct).toContain('relist')
      expect(direct).not.toContain('my tool/x')
      expect(direct).not.toContain('no_schema')
      // Nor called directly, by its bare or its full name [regression: it ran, never listed].
      for (const name of ['my tool/x', 'mcp__odd__my tool/x']) {
        const r = await client.callTool({ name, arguments: {} }).then((x: unknown) => ({ ran: x }), (e: { code?: number }) => ({ code: e.code }))
        expect(r).toEqual({ code: -32602 })
      }
      // Still reachable through the execute tool.
      expect(await g.execute('mcp__odd__my tool/x', {}, s)).toMatchObject({ content: [{ text: expect.stringContaining('ran my tool/x') }] })
    } finally {
      await g.close()
    }
  }, 30_000)
})
