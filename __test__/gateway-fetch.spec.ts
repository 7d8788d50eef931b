// What the gateway reads from an HTTP upstream is bounded a message, and a stdio server's pid is
// only ever walked while it is the process that was started.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import * as http from 'node:http'
import type { AddressInfo } from 'node:net'

const fetchMod = require('../dist/gateway/fetch.js') as typeof import('../ts/gateway/fetch')
const tree = require('../dist/gateway/processTree.js') as typeof import('../ts/gateway/processTree')
const gw = require('../dist/gateway/index.js') as typeof import('../ts/gateway/index')

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
})

test('an HTTP upstream whose answer never ends is named unavailable, not read into memory', async () => {
  const quiet = gw.stderrLogger({ write: () => {} })
  const g = new gw.Gateway({
    config: gw.parseConfig({ mcpServers: { huge: { url: `${base}/mcp` } }, gateway: { connectTimeoutMs: 20_000, backoffInitialMs: 60_000 } }, 'huge'),
    logger: quiet,
  })
  const rss = process.memoryUsage().rss
  try {
    await g.start()
    const session = { search: new (require('../dist/toolSearch.js').ToolSearchSession)() }
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
