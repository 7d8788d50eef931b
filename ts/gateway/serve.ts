/**
 * `tool-index serve --config FILE [--http PORT] [--host H] [--token T] [--json-logs]`: the
 * gateway over stdio (default) or Streamable HTTP.
 */
import { randomUUID, timingSafeEqual } from 'node:crypto'
import * as http from 'node:http'
import { isIPv4, isIPv6 } from 'node:net'
import { parseArgs } from 'node:util'
import { ConfigError, loadConfig } from './config'
import { Gateway } from './gateway'
import { stderrLogger, type Logger } from './log'
import { loadSdk } from './sdk'

/** Usage text of `tool-index serve`. */
export const SERVE_USAGE = `usage: tool-index serve --config FILE [--http PORT] [--host HOST] [--token TOKEN] [--max-sessions N] [--scoring MODE] [--json-logs] [--verbose]

  --config FILE   an mcpServers config (Claude Desktop / Cursor format)
  --http PORT     serve Streamable HTTP at http://HOST:PORT/mcp instead of stdio (0 = any free port)
  --host HOST     the address to bind with --http (default 127.0.0.1)
  --token TOKEN   require "Authorization: Bearer TOKEN" (default: env TOOL_INDEX_GATEWAY_TOKEN); not empty
  --max-sessions N  with --http, at most N sessions at once (default 1000; the one idle the longest makes room)
  --scoring MODE  enhanced (default) or compat
  --json-logs     log one JSON object a line on stderr
  --verbose       also log upstream servers' stderr`

/** The largest request body a POST may have (the SDK's own limit). */
const MAX_BODY_BYTES = 4 * 1024 * 1024

/** POST bodies read at once, at most (new sessions' and existing ones'): more wait for none and get 503. */
const MAX_BODIES_READING = 32

/** How long a POST body may take to arrive. */
const BODY_DEADLINE_MS = 30_000

/**
 * A request's body as text; `'too-large'` once it passes `limit` bytes (the rest is not kept),
 * `'late'` when it has not ended within `deadlineMs`, `'gone'` when the request was aborted.
 */
function readBody(req: http.IncomingMessage, limit: number, deadlineMs: number): Promise<string | 'too-large' | 'late' | 'gone'> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = []
    let size = 0
    let done = false
    const finish = (v: string | 'too-large' | 'late' | 'gone') => {
      if (done) return
      done = true
      clearTimeout(timer)
      chunks.length = 0
      resolve(v)
    }
    const timer = setTimeout(() => finish('late'), deadlineMs)
    req.on('data', (chunk: Buffer) => {
      if (done) return
      size += chunk.length
      if (size > limit) return finish('too-large')
      chunks.push(chunk)
    })
    req.on('end', () => finish(Buffer.concat(chunks).toString('utf8')))
    req.on('error', () => finish('gone'))
    req.on('close', () => finish(req.complete ? Buffer.concat(chunks).toString('utf8') : 'gone'))
  })
}

/** An IPv6 address in its canonical (WHATWG URL) form, in brackets; undefined when it is none. */
function canonicalIPv6(h: string): string | undefined {
  try {
    return new URL(`http://[${h}]/`).hostname
  } catch {
    return undefined
  }
}

/**
 * Whether a `--host` value binds loopback only: localhost, 127.0.0.0/8, ::1, or an IPv4-mapped
 * 127.0.0.0/8 (::ffff:127.0.0.0/104), in any spelling.
 */
export function isLoopbackHost(host: string): boolean {
  const h = host.trim().toLowerCase().replace(/^\[(.*)\]$/, '$1')
  if (h === 'localhost' || h === 'localhost.') return true
  if (isIPv4(h)) return h.startsWith('127.')
  if (!isIPv6(h)) return false
  const c = canonicalIPv6(h)
  return c === '[::1]' || (c !== undefined && /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(c))
}

/** The Host headers a loopback-bound gateway accepts: its own address and the localhost forms, with the port. */
export function allowedHostsOf(host: string, port: number): string[] {
  const h = host.trim().replace(/^\[(.*)\]$/, '$1')
  const names = new Set(['127.0.0.1', 'localhost', '[::1]'])
  if (isIPv6(h)) {
    names.add(`[${h}]`)
    const c = canonicalIPv6(h)
    if (c) names.add(c)
  } else names.add(h)
  // On port 80 clients leave the port out of the Host header (it is the default).
  return [...names].flatMap((n) => (port === 80 ? [`${n}:${port}`, n] : [`${n}:${port}`]))
}

/** Answer an HTTP request with a JSON-RPC error (no request id: the request was not taken). */
function rpcError(res: http.ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers })
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }))
}

/** A running HTTP gateway. */
export interface HttpGateway {
  gateway: Gateway
  url: string
  port: number
  close(): Promise<void>
}

function tokenMatches(header: string | undefined, token: string): boolean {
  const m = /^Bearer\s+(.+)$/i.exec(header ?? '')
  if (!m) return false
  const a = Buffer.from(m[1].trim())
  const b = Buffer.from(token)
  return a.length === b.length && timingSafeEqual(a, b)
}

/** Serve a gateway over Streamable HTTP (stateful sessions, one MCP server per session). */
export async function serveHttp(
  gateway: Gateway,
  opts: {
    port: number
    host?: string
    token?: string
    log: Logger
    /** A session with no request open for this long is closed (default 30 min). */
    sessionIdleMs?: number
    /**
     * At most this many sessions at once (default 1,000), counting those being initialized. A new
     * one closes the session idle the longest (no request or stream open) once the SDK has
     * accepted it; when every session is busy it gets HTTP 503.
     */
    maxSessions?: number
    /** At most this many POST bodies read at once (default 32); more get HTTP 503. */
    maxBodiesReading?: number
    /** A POST body not received within this long gets HTTP 408 (default 30 s). */
    bodyDeadlineMs?: number
  },
): Promise<HttpGateway> {
  const sdk = loadSdk()
  const host = opts.host ?? '127.0.0.1'
  const sessions = new Map<string, { transport: any; server: any; open: number; lastSeen: number }>()
  const idleMs = opts.sessionIdleMs ?? 30 * 60_000
  const maxSessions = opts.maxSessions ?? 1000
  const maxReading = opts.maxBodiesReading ?? MAX_BODIES_READING
  const bodyDeadlineMs = opts.bodyDeadlineMs ?? BODY_DEADLINE_MS
  /** Initialize requests admitted and not yet turned into a session (or ended). */
  let pending = 0
  const idleCount = (): number => {
    let n = 0
    for (const s of sessions.values()) if (s.open === 0) n++
    return n
  }
  /** Whether one more session fits: counting those being made, and counting idle ones as room. */
  const hasRoom = (): boolean => sessions.size + pending - idleCount() < maxSessions
  /** Close the session idle the longest (not `keep`); false when none is idle. */
  const evictIdle = (keep: string): boolean => {
    let oldest: [string, { transport: any; lastSeen: number }] | undefined
    for (const [id, s] of sessions) if (id !== keep && s.open === 0 && (!oldest || s.lastSeen < oldest[1].lastSeen)) oldest = [id, s]
    if (!oldest) return false
    sessions.delete(oldest[0])
    opts.log.log('debug', 'session', `HTTP session ${oldest[0]} closed to make room (${maxSessions} sessions)`, { session: oldest[0] })
    void oldest[1].transport.close().catch(() => {})
    return true
  }
  const sweep = setInterval(
    () => {
      const now = Date.now()
      for (const [id, s] of sessions) {
        if (s.open === 0 && now - s.lastSeen > idleMs) {
          sessions.delete(id)
          opts.log.log('debug', 'session', `HTTP session ${id} closed after ${idleMs} ms idle`, { session: id })
          void s.transport.close().catch(() => {})
        }
      }
    },
    Math.max(50, Math.min(60_000, Math.floor(idleMs / 2))),
  )
  sweep.unref()
  // Any loopback bind checks the Host header (DNS rebinding: a page whose name resolves to
  // 127.0.0.1 must not reach the gateway); a wider bind cannot know its names, and warns without a
  // token. Whether the bind is loopback is read from the address bound, once listening (`127.1`,
  // `2130706433` or a name that resolves to 127.0.0.1 are loopback too); no request comes before.
  let loopback = isLoopbackHost(host)
  let allowedHosts: string[] = []
  let port = opts.port
  /** POST bodies being read now (see MAX_BODIES_READING). */
  let reading = 0
  /**
   * A POST's body, read here for every POST (new session or not) within the same bounds: at most
   * `maxReading` at once, MAX_BODY_BYTES each, within `bodyDeadlineMs`. `undefined` once the
   * request has been answered (or was aborted).
   */
  const boundedBody = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<{ body: unknown } | undefined> => {
    if (reading >= maxReading) {
      res.once('finish', () => req.destroy())
      rpcError(res, 503, -32000, `Too many requests being read: at most ${maxReading} request bodies at once`, { connection: 'close', 'retry-after': '5' })
      return undefined
    }
    reading++
    let raw: Awaited<ReturnType<typeof readBody>>
    try {
      raw = await readBody(req, MAX_BODY_BYTES, bodyDeadlineMs)
    } finally {
      reading--
    }
    if (raw === 'gone') return undefined
    if (raw === 'too-large' || raw === 'late') {
      res.once('finish', () => req.destroy())
      if (raw === 'too-large') rpcError(res, 413, -32600, `Request body over ${MAX_BODY_BYTES} bytes`, { connection: 'close' })
      else rpcError(res, 408, -32600, `Request body not received within ${bodyDeadlineMs} ms`, { connection: 'close' })
      return undefined
    }
    try {
      return { body: JSON.parse(raw) }
    } catch {
      rpcError(res, 400, -32700, 'Parse error: the body is not JSON')
      return undefined
    }
  }
  const httpServer = http.createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://x')
      if (url.pathname !== '/mcp') {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found: the MCP endpoint is /mcp\n')
        return
      }
      if (opts.token && !tokenMatches(req.headers.authorization, opts.token)) {
        rpcError(res, 401, -32001, 'Unauthorized: a bearer token is required', { 'www-authenticate': 'Bearer' })
        return
      }
      const sid = req.headers['mcp-session-id']
      const existing = typeof sid === 'string' ? sessions.get(sid) : undefined
      if (existing) {
        existing.open++
        existing.lastSeen = Date.now()
        res.once('close', () => {
          existing.open--
          existing.lastSeen = Date.now()
        })
        if (req.method !== 'POST') return void (await existing.transport.handleRequest(req, res))
        // Read within the same bounds as a new session's body, then handed to the SDK parsed.
        const read = await boundedBody(req, res)
        if (!read) return
        if (sessions.get(sid as string) !== existing) {
          rpcError(res, 404, -32001, 'Session not found')
          return
        }
        await existing.transport.handleRequest(req, res, read.body)
        return
      }
      if (typeof sid === 'string') {
        rpcError(res, 404, -32001, 'Session not found')
        return
      }
      // A new session. Its body is read here (at most MAX_BODY_BYTES), so that only an
      // initialize request counts against maxSessions, and a slot is taken before its body could
      // arrive late. Another session is closed to make room only once the SDK has accepted the
      // new one (Host, Accept and content checks passed): a rejected request ends nobody's session.
      let body: unknown
      if (req.method === 'POST') {
        const read = await boundedBody(req, res)
        if (!read) return
        body = read.body
      }
      const initializing = Array.isArray(body) ? body.some((m) => sdk.types.isInitializeRequest(m)) : sdk.types.isInitializeRequest(body)
      if (initializing && !hasRoom()) {
        rpcError(res, 503, -32000, `Too many sessions: all ${maxSessions} are in use`, { 'retry-after': '5' })
        return
      }
      let reserved = initializing
      const release = () => {
        if (reserved) pending--
        reserved = false
      }
      if (reserved) pending++
      res.once('close', release)
      const transport = new sdk.StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        enableDnsRebindingProtection: loopback,
        allowedHosts: loopback ? allowedHosts : undefined,
        onsessioninitialized: (id: string) => {
          release()
          sessions.set(id, { transport, server, open: 0, lastSeen: Date.now() })
          opts.log.log('debug', 'session', `HTTP session ${id} opened`, { session: id })
          while (sessions.size > maxSessions && evictIdle(id)) {
            // one idle session closed per turn
          }
        },
      })
      const server = gateway.createServer()
      transport.onclose = () => {
        if (transport.sessionId) sessions.delete(transport.sessionId)
        void server.close().catch(() => {})
      }
      await server.connect(transport)
      await transport.handleRequest(req, res, body)
      if (!transport.sessionId) await server.close().catch(() => {})
    })().catch((e) => {
      opts.log.log('error', 'http_error', `HTTP request failed: ${(e as Error)?.message ?? e}`)
      if (!res.headersSent) res.writeHead(500).end()
    })
  })
  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject)
    httpServer.listen(opts.port, host, () => resolve())
  })
  const bound = httpServer.address() as { port: number; address: string }
  port = bound.port
  loopback = isLoopbackHost(bound.address)
  // The name the gateway was told to bind (what its clients put in Host) and the address bound.
  allowedHosts = loopback ? [...new Set([...allowedHostsOf(host, port), ...allowedHostsOf(bound.address, port)])] : []
  const shown = host.includes(':') ? `[${host}]` : host
  const url = `http://${shown}:${port}/mcp`
  opts.log.log('info', 'listening', `listening on ${url}${opts.token ? ' (bearer token required)' : ''}`, { url, port })
  if (!loopback && !opts.token) {
    opts.log.log(
      'warn',
      'no_token',
      `${host} is not a loopback address and no token is set: anyone who can reach ${url} can call every upstream server's tools (set --token or TOOL_INDEX_GATEWAY_TOKEN)`,
      { url },
    )
  }
  return {
    gateway,
    url,
    port,
    close: async () => {
      clearInterval(sweep)
      // Stop listening and end every connection at once (a half-sent request included: waiting
      // on it held a stop until its body's deadline), then close the sessions.
      const closed = new Promise<void>((r) => httpServer.close(() => r()))
      httpServer.closeAllConnections?.()
      for (const { transport } of sessions.values()) await transport.close().catch(() => {})
      await closed
    },
  }
}

/**
 * The `serve` subcommand: resolves with the exit code once the gateway stops (stdin closes in
 * stdio mode; SIGINT / SIGTERM / SIGHUP in both).
 */
export async function runServe(argv: string[]): Promise<number> {
  let values: Record<string, string | boolean | undefined>
  try {
    values = parseArgs({
      args: argv,
      options: {
        config: { type: 'string', short: 'c' },
        http: { type: 'string' },
        host: { type: 'string' },
        token: { type: 'string' },
        'max-sessions': { type: 'string' },
        scoring: { type: 'string' },
        'json-logs': { type: 'boolean' },
        verbose: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      allowPositionals: false,
    }).values
  } catch (e) {
    process.stderr.write(`tool-index serve: ${(e as Error).message}\n${SERVE_USAGE}\n`)
    return 2
  }
  if (values.help) {
    process.stdout.write(`${SERVE_USAGE}\n`)
    return 0
  }
  const fail = (msg: string, code = 2) => {
    process.stderr.write(`tool-index serve: ${msg}\n${code === 2 ? `${SERVE_USAGE}\n` : ''}`)
    return code
  }
  if (typeof values.config !== 'string') return fail('--config FILE is required')
  // An empty token would turn authentication off without a word: refused rather than taken as unset.
  if (typeof values.token === 'string' && values.token.trim() === '') return fail('--token must not be empty (leave --token out to serve without one)')
  // The Authorization header is read trimmed, so a token with spaces at its ends could never match.
  if (typeof values.token === 'string' && values.token !== values.token.trim()) return fail('--token must not start or end with whitespace')
  const scoring = values.scoring ?? 'enhanced'
  if (scoring !== 'enhanced' && scoring !== 'compat') return fail('--scoring takes enhanced or compat')
  let port: number | undefined
  if (values.http !== undefined) {
    // Digits only: Number() would take '' (port 0, a random one), 1e3 and 0x50.
    port = /^\d{1,5}$/.test(String(values.http)) ? Number(values.http) : Number.NaN
    if (!Number.isInteger(port) || port < 0 || port > 65535) return fail('--http takes a port number (0-65535)')
  } else if (values.host !== undefined || values.token !== undefined || values['max-sessions'] !== undefined) {
    return fail('--host, --token and --max-sessions need --http')
  }
  const maxSessions = values['max-sessions'] === undefined ? undefined : /^\d{1,7}$/.test(String(values['max-sessions'])) ? Number(values['max-sessions']) : Number.NaN
  if (maxSessions !== undefined && !(Number.isInteger(maxSessions) && maxSessions >= 1 && maxSessions <= 1_000_000)) {
    return fail('--max-sessions takes a whole number from 1 to 1000000')
  }
  const log = stderrLogger({ json: values['json-logs'] === true, level: values.verbose ? 'debug' : 'info' })
  let config
  try {
    config = loadConfig(values.config)
  } catch (e) {
    if (e instanceof ConfigError) return fail(e.message, 1)
    throw e
  }
  try {
    loadSdk()
  } catch (e) {
    return fail((e as Error).message, 1)
  }
  const gateway = new Gateway({ config, logger: log, scoring })
  const token = typeof values.token === 'string' ? values.token : process.env.TOOL_INDEX_GATEWAY_TOKEN || undefined
  let stop!: (code: number) => void
  const stopped = new Promise<number>((r) => (stop = r))
  let closing = false
  const shutdown = async (code: number, why: string) => {
    if (closing) return
    closing = true
    log.log('info', 'stopping', `stopping (${why})`)
    await Promise.race([closeAll(), new Promise((r) => setTimeout(r, 5000).unref())])
    stop(code)
  }
  let closeAll = () => gateway.close()
  process.once('exit', () => gateway.killAll())
  // SIGHUP (the terminal went away) stops like SIGTERM. A second signal while stopping ends the
  // process at once, but only after the servers' process trees are killed (a signal's default
  // action would skip the exit handler).
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(sig, () => {
      if (!closing) return void shutdown(0, sig)
      gateway.killAll()
      process.exit(1)
    })
  }
  if (port !== undefined) {
    let served: HttpGateway
    try {
      served = await serveHttp(gateway, { port, host: values.host as string | undefined, token, log, maxSessions })
    } catch (e) {
      return fail(`cannot listen on ${values.host ?? '127.0.0.1'}:${port}: ${(e as Error).message}`, 1)
    }
    closeAll = async () => {
      await served.close()
      await gateway.close()
    }
    void gateway.start()
  } else {
    const sdk = loadSdk()
    const server = gateway.createServer()
    const transport = new sdk.StdioServerTransport()
    transport.onclose = () => void shutdown(0, 'stdin closed')
    process.stdin.once('end', () => void shutdown(0, 'stdin closed'))
    void gateway.start()
    await server.connect(transport)
  }
  return stopped
}
