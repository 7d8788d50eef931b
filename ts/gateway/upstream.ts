/**
 * One upstream MCP server: connects with the SDK client, keeps its tool list, follows
 * `notifications/tools/list_changed`, notices crashes and hangs, and reconnects with a
 * bounded exponential back-off. Every request it sends has a deadline.
 */
import type { GatewaySettings, UpstreamConfig } from './config'
import type { Logger } from './log'
import { MAX_ANSWER_BYTES, boundedFetch } from './fetch'
import { RUN_MARKER_VAR, killPids, killTree, newRunMarker, processTree, startTimeOf, type ProcessRef } from './processTree'
import { loadSdk } from './sdk'

/** The most tools/list pages read from one server (an endless cursor stops here, with a warning). */
const MAX_LIST_PAGES = 100

/**
 * How deeply a tool's data (its schemas above all) may nest, in objects and arrays: far past any
 * real tool, far short of what overflows the stack of a recursive walk (JSON.stringify, a schema
 * compiler). A deeper tool is left out of its server's list.
 */
export const MAX_TOOL_DEPTH = 256

/** How many names of left-out tools a log line gives. */
const NAMES_LOGGED = 5

/** How long a stopping gateway waits for a stdio server to exit on its own before killing it. */
const CLOSE_GRACE_MS = 500
/** How far past a call's own deadlines the SDK's request timers are set (a backstop only). */
const BACKSTOP_MS = 1000

/** A tool as an upstream lists it. */
export interface UpstreamTool {
  name: string
  description?: string
  inputSchema?: Record<string, unknown>
  outputSchema?: Record<string, unknown>
  annotations?: Record<string, unknown>
  title?: string
  [key: string]: unknown
}

/** Connection states. */
export type UpstreamState = 'connecting' | 'ready' | 'unavailable' | 'closed'

/** What an upstream reports to the gateway. */
export interface UpstreamEvents {
  /** The tool list changed (connected, list_changed, dropped). */
  onTools(up: Upstream): void
}

/** Why a call got no answer from its upstream: down before it, past its deadline, or the connection closed during it. */
export type UpstreamFailure = 'unavailable' | 'timeout' | 'connection_closed' | 'http_error' | 'invalid_result'

/** Why a request to an upstream failed without an answer from it. */
export class UpstreamUnavailableError extends Error {
  readonly code = 'E_UPSTREAM_UNAVAILABLE'
  constructor(
    message: string,
    readonly reason: UpstreamFailure = 'unavailable',
  ) {
    super(message)
  }
}

function withDeadline<T>(p: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  return Promise.race([
    p,
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new UpstreamUnavailableError(message)), ms)
    }),
  ]).finally(() => clearTimeout(timer))
}

const VERSION = '0.1.0'

/** Whether `value` nests objects and arrays deeper than `max` levels (walked with a stack of its own, never recursively). */
function nestsDeeperThan(value: unknown, max: number): boolean {
  const values: unknown[] = [value]
  const depths: number[] = [0]
  while (values.length) {
    const v = values.pop()
    const d = depths.pop()!
    if (v === null || typeof v !== 'object') continue
    if (d >= max) return true
    for (const child of Object.values(v)) {
      values.push(child)
      depths.push(d + 1)
    }
  }
  return false
}

/**
 * Every page of an MCP client's `tools/list` (up to `MAX_LIST_PAGES`), each tool as the server
 * sent it; `truncated` when pages were left. A plain request, not `client.listTools`: that
 * compiles every tool's outputSchema (a call's result is checked by the client, never here), and
 * one schema it cannot compile fails the list. A page is taken as any paginated result: each tool
 * is checked on its own (`checkedTool`), so one malformed tool is left out instead of failing the
 * list.
 */
export async function listToolPages(client: any, timeoutMs: number): Promise<{ tools: unknown[]; truncated: boolean }> {
  const tools: unknown[] = []
  let cursor: string | undefined
  for (let page = 0; page < MAX_LIST_PAGES; page++) {
    const res = (await withDeadline(
      client.request({ method: 'tools/list', params: cursor ? { cursor } : {} }, loadSdk().types.PaginatedResultSchema, { timeout: timeoutMs }),
      timeoutMs,
      `tools/list did not answer within ${timeoutMs} ms`,
    )) as { tools?: unknown; nextCursor?: string }
    if (!Array.isArray(res.tools)) throw new Error('tools/list answered without a list of tools')
    // One at a time: a page's tools spread into push() would be as many arguments, past the engine's limit (about 125,000).
    for (const t of res.tools) tools.push(t)
    cursor = res.nextCursor
    if (!cursor) break
  }
  return { tools, truncated: cursor !== undefined }
}

/**
 * A listed tool as the gateway can handle it (the MCP shape, checked by the SDK's own schema,
 * nested no deeper than `MAX_TOOL_DEPTH`, serializable), or why it cannot.
 */
export function checkedTool(tool: unknown): { tool: UpstreamTool } | { problem: string } {
  if (nestsDeeperThan(tool, MAX_TOOL_DEPTH)) return { problem: `nested deeper than ${MAX_TOOL_DEPTH} levels` }
  const parsed = loadSdk().types.ToolSchema.safeParse(tool) as { success: boolean; data?: UpstreamTool; error?: { issues?: { path?: unknown[]; message?: string }[] } }
  if (!parsed.success) {
    const issue = parsed.error?.issues?.[0]
    const where = issue?.path?.length ? issue.path.join('.') : 'the tool'
    return { problem: `not an MCP tool (${where}: ${issue?.message ?? 'invalid'})` }
  }
  try {
    JSON.stringify(parsed.data)
  } catch (e) {
    return { problem: `not serializable (${(e as Error)?.message ?? e})` }
  }
  return { tool: parsed.data as UpstreamTool }
}

/**
 * How a request over HTTP failed: undefined for a JSON-RPC error (an `McpError`: the upstream's
 * own answer, whatever its code; JSON-RPC lets a server use positive codes such as 404), else
 * the HTTP status the transport's error carries (a positive `code`), `'no answer'` when it has
 * no code at all (the fetch itself failed), or `'odd answer'` for a transport error with another
 * code (an answer that is not JSON-RPC, such as a page of HTML).
 */
function httpStatusOf(err: unknown, McpError: new (...a: never[]) => unknown): number | 'no answer' | 'odd answer' | undefined {
  if (err instanceof McpError) return undefined
  const code = (err as { code?: unknown } | undefined)?.code
  if (typeof code !== 'number') return 'no answer'
  // The SDK's own transport error with no status (an answer of another content type).
  return code > 0 ? code : 'odd answer'
}

/**
 * What a failed request to an upstream is kept as in the server's error, which every session's
 * search shows: its kind and status, never the text of an answer (an HTTP error page or a
 * JSON-RPC error message may quote another session's arguments). A failure without an answer
 * (a process that would not start, a refused connection) keeps its message's first line.
 */
function failureOf(err: unknown): string {
  let McpError: (new (...a: never[]) => unknown) | undefined
  try {
    McpError = loadSdk().types.McpError
  } catch {
    // no SDK: the failure is that (E_NO_SDK), and no answer came
  }
  // Classified as a call's failure is (`httpStatusOf`).
  const kind = McpError ? httpStatusOf(err, McpError) : 'no answer'
  if (kind === undefined) return `a JSON-RPC error (code ${String((err as { code?: unknown }).code)})`
  if (typeof kind === 'number') return `HTTP status ${kind}`
  if (kind === 'odd answer') return 'an HTTP answer that is not JSON-RPC'
  const text = String((err as Error)?.message ?? err).split('\n')[0]
  return text.length > 200 ? `${text.slice(0, 200)}…` : text
}

/** A failed schema check of an answer (zod's error: `issues`, no numeric `code`). */
function isSchemaFailure(err: unknown): boolean {
  if (err === null || typeof err !== 'object') return false
  const e = err as { name?: unknown; issues?: unknown; code?: unknown }
  return typeof e.code !== 'number' && Array.isArray(e.issues) && (e.name === 'ZodError' || e.name === '$ZodError')
}

/** Receives an upstream's `notifications/message` params. */
type LogListener = (params: Record<string, unknown>) => void

/** A call in flight on an upstream: the client session it is made for, and its log listener. */
interface CallInFlight {
  session: object
  onlog?: LogListener
}

/**
 * How long a finished call's session still counts for the upstream's log messages: a message
 * the server sent for it may arrive after its answer.
 */
export const LOG_GRACE_MS = 1000

/**
 * The log listeners of `calls` when they, and the calls that ended within `LOG_GRACE_MS`
 * (`recent`), all belong to one session; none when they belong to several (or there are none).
 */
function oneSessionListeners(calls: ReadonlySet<CallInFlight>, recent: Iterable<object>): LogListener[] {
  let session: object | undefined
  const listeners: LogListener[] = []
  for (const c of calls) {
    if (session !== undefined && c.session !== session) return []
    session = c.session
    if (c.onlog) listeners.push(c.onlog)
  }
  for (const r of recent) if (session !== undefined && r !== session) return []
  return listeners
}

/** One upstream server and its connection. */
export class Upstream {
  state: UpstreamState = 'connecting'
  tools: UpstreamTool[] = []
  /** The listing running after list_changed, and whether another notice came during it. */
  private refreshing: { gen: number; again: boolean } | undefined
  /** How many tools of the last listing were left out (nested too deeply, or not serializable), and why (the first one's reason). */
  leftOut: { count: number; why: string } | undefined
  /** The last failure, while unavailable. */
  lastError: string | undefined
  /** When the next reconnect is due (ms since epoch), while unavailable. */
  retryAt: number | undefined
  /** How many times it connected. */
  connects = 0
  private client: any
  private transport: any
  /** stdio transports whose process may still run (killed on exit). */
  private readonly live = new Set<any>()
  /** Each started stdio transport's run marker (in its processes' environment). */
  private readonly markers = new WeakMap<object, string>()
  /** The process each stdio transport started, with its start time as read at the spawn. */
  private readonly roots = new WeakMap<object, ProcessRef>()
  private attempt = 0
  private timer: NodeJS.Timeout | undefined
  private generation = 0
  /** The generation whose liveness is being checked (one ping at a time). */
  private checking: number | undefined
  /** The calls in flight: each one's client session and log listener (an upstream's log messages are not tied to a request). */
  private readonly inFlight = new Set<CallInFlight>()
  /** The sessions of calls that ended lately, with when they stop counting (see `LOG_GRACE_MS`). */
  private readonly ended = new Map<object, number>()
  private firstRound: Promise<void>
  private settleFirst!: () => void

  constructor(
    readonly config: UpstreamConfig,
    private readonly settings: GatewaySettings,
    private readonly log: Logger,
    private readonly events: UpstreamEvents,
  ) {
    this.firstRound = new Promise((r) => (this.settleFirst = r))
  }

  /** The server name used in `mcp__<server>__<tool>`. */
  get name(): string {
    return this.config.name
  }

  /** Resolves once the first connection attempt has succeeded or failed. */
  settled(): Promise<void> {
    return this.firstRound
  }

  /** Start connecting (and keep reconnecting until `close`). */
  start(): void {
    void this.connect()
  }

  private describe(): string {
    const c = this.config
    return c.transport === 'stdio' ? `stdio: ${[c.command, ...(c.args ?? [])].join(' ')}` : `${c.transport}: ${c.url}`
  }

  private async connect(): Promise<void> {
    if (this.state === 'closed') return
    const gen = ++this.generation
    this.state = 'connecting'
    const sdk = loadSdk()
    const c = this.config
    const t0 = Date.now()
    this.log.log('info', 'connecting', `connecting (${this.describe()})${this.attempt ? `, attempt ${this.attempt + 1}` : ''}`, { server: this.name, attempt: this.attempt + 1 })
    let transport: any
    if (c.transport === 'stdio') {
      const marker = newRunMarker()
      transport = new sdk.StdioClientTransport({
        command: c.command,
        args: c.args,
        env: { ...sdk.getDefaultEnvironment(), ...(c.env ?? {}), [RUN_MARKER_VAR]: marker },
        cwd: c.cwd,
        stderr: 'pipe',
        // The same bound on one message as over HTTP (the SDK's default is 10 MiB). Past it the
        // SDK closes the connection, so the server goes down: said so, not taken for a crash.
        maxBufferSize: MAX_ANSWER_BYTES,
      })
      this.markers.set(transport, marker)
      transport.stderr?.on('data', (chunk: Buffer) => {
        for (const line of chunk.toString('utf8').split('\n')) {
          if (line.trim()) this.log.log('debug', 'upstream_stderr', line, { server: this.name })
        }
      })
    } else {
      // Answers are read through a fetch that stops at MAX_ANSWER_BYTES a message: the SDK reads a
      // JSON answer whole, and an upstream could otherwise send gigabytes.
      const init = { fetch: boundedFetch(MAX_ANSWER_BYTES), ...(c.headers ? { requestInit: { headers: c.headers } } : {}) }
      transport = c.transport === 'sse' ? new sdk.SSEClientTransport(new URL(c.url!), init) : new sdk.StreamableHTTPClientTransport(new URL(c.url!), init)
    }
    const client = new sdk.Client({ name: 'tool-index-gateway', version: VERSION }, { capabilities: {} })
    let overflow = false
    client.onerror = (e: Error) => {
      this.log.log('debug', 'upstream_error', `transport error: ${e?.message ?? e}`, { server: this.name })
      if (/ReadBuffer exceeded maximum size/.test(String(e?.message))) overflow = true
      // Over HTTP a stream that broke, or ended before its answers, leaves its requests waiting
      // for their deadlines: a ping tells a server that is gone (it then goes down, and those
      // requests fail as connection_closed) from one that only dropped a stream.
      if (c.transport !== 'stdio' && this.state === 'ready') void this.checkAlive(gen, `a transport error (${e?.message ?? e})`)
    }
    client.setNotificationHandler(sdk.types.LoggingMessageNotificationSchema, (n: { params: Record<string, unknown> }) => {
      if (gen === this.generation) this.relayLog(n.params)
    })
    client.setNotificationHandler(sdk.types.ToolListChangedNotificationSchema, () => {
      if (gen === this.generation) this.requestRefresh(gen)
    })
    this.client = client
    this.transport = transport
    if (c.transport === 'stdio') this.live.add(transport)
    try {
      const connecting = client.connect(transport, { timeout: this.settings.connectTimeoutMs })
      // The child is spawned synchronously by connect: its start time, read now, tells it from a
      // later process that gets the same pid once it has exited.
      if (c.transport === 'stdio' && typeof transport.pid === 'number') this.roots.set(transport, { pid: transport.pid, start: startTimeOf(transport.pid) })
      await withDeadline(connecting, this.settings.connectTimeoutMs, `did not initialize within ${this.settings.connectTimeoutMs} ms`)
      if (gen !== this.generation) return
      // Set after connect: a failed connect closes the transport, and its own error is the better message.
      client.onclose = () => this.down(gen, overflow ? `it sent a message over ${MAX_ANSWER_BYTES / 1024 / 1024} MiB (the gateway's limit), so the connection was closed` : 'the connection closed')
      // The first tools/list is part of starting: it gets what is left of the connect deadline.
      const left = Math.max(1, this.settings.connectTimeoutMs - (Date.now() - t0))
      const listed = await withDeadline(this.listAll(client), left, `did not list its tools within ${this.settings.connectTimeoutMs} ms of starting`)
      if (gen !== this.generation) return
      const tools = this.usable(listed)
      this.tools = tools
      this.state = 'ready'
      this.lastError = undefined
      this.retryAt = undefined
      this.attempt = 0
      this.connects++
      const info = client.getServerVersion?.() as { name?: string; version?: string } | undefined
      this.log.log('info', 'ready', `ready: ${tools.length} tools in ${Date.now() - t0} ms${info?.name ? ` (${info.name} ${info.version ?? ''})`.trimEnd() : ''}`, {
        server: this.name,
        tools: tools.length,
        ms: Date.now() - t0,
      })
      this.events.onTools(this)
    } catch (e) {
      this.log.log('debug', 'start_failed', `failed to start: ${(e as Error)?.message ?? e}`, { server: this.name })
      this.down(gen, `failed to start: ${failureOf(e)}`, true)
    } finally {
      this.settleFirst()
    }
  }

  private async listAll(client: any): Promise<unknown[]> {
    const { tools, truncated } = await listToolPages(client, this.settings.listTimeoutMs)
    if (truncated) {
      this.log.log('warn', 'tools_truncated', `tools/list still had pages after ${MAX_LIST_PAGES}; the first ${tools.length} tools are used`, { server: this.name, tools: tools.length })
    }
    return tools
  }

  /**
   * The listed tools the gateway can handle; the others are left out, logged and counted in
   * `leftOut`, and the server's other tools stay available.
   */
  private usable(listed: unknown[]): UpstreamTool[] {
    const tools: UpstreamTool[] = []
    const names: string[] = []
    let why: string | undefined
    for (const t of listed) {
      const checked = checkedTool(t)
      if ('tool' in checked) {
        tools.push(checked.tool)
        continue
      }
      why ??= checked.problem
      if (names.length < NAMES_LOGGED) names.push(String((t as { name?: unknown } | null)?.name).slice(0, 100))
    }
    const count = listed.length - tools.length
    this.leftOut = count ? { count, why: why! } : undefined
    if (count) {
      this.log.log('warn', 'tools_left_out', `${count} tool${count === 1 ? '' : 's'} left out (${names.join(', ')}${count > names.length ? ', …' : ''}): ${why}`, {
        server: this.name,
        count,
      })
    }
    return tools
  }

  /**
   * Re-list after `notifications/tools/list_changed`, one listing at a time: notices that come
   * during a listing ask for one more after it, so a storm of them costs two listings, and an
   * older list never lands after a newer one.
   */
  private requestRefresh(gen: number): void {
    const running = this.refreshing
    if (running && running.gen === gen) {
      running.again = true
      return
    }
    const run = { gen, again: false }
    this.refreshing = run
    void (async () => {
      do {
        run.again = false
        await this.refresh(gen)
      } while (run.again && gen === this.generation && this.state === 'ready')
      if (this.refreshing === run) this.refreshing = undefined
    })()
  }

  private async refresh(gen: number): Promise<void> {
    const t0 = Date.now()
    try {
      const listed = await this.listAll(this.client)
      if (gen !== this.generation || this.state !== 'ready') return
      const tools = this.usable(listed)
      this.tools = tools
      this.log.log('info', 'list_changed', `tool list changed: ${tools.length} tools`, { server: this.name, tools: tools.length })
      this.events.onTools(this)
    } catch (e) {
      if (gen !== this.generation) return
      const code = (e as { code?: unknown })?.code
      // A JSON-RPC error code is negative; an HTTP status (a lost session) is not an answer.
      const answered = typeof code === 'number' && code < 0 && Date.now() - t0 < this.settings.listTimeoutMs
      if (answered) {
        // The server answered with an error on a live connection: its tools stay as they were.
        this.log.log('warn', 'list_changed_failed', `tools/list after list_changed answered an error (${(e as Error)?.message ?? e}); keeping the ${this.tools.length} tools listed before`, { server: this.name })
        return
      }
      this.log.log('debug', 'list_changed_failed', `tools/list after list_changed failed: ${(e as Error)?.message ?? e}`, { server: this.name })
      this.down(gen, `tools/list after list_changed failed: ${failureOf(e)}`)
    }
  }

  /**
   * An upstream log message goes to the calls in flight when they all belong to one client
   * session, and so do the calls that ended within `LOG_GRACE_MS`: over stdio it names no
   * request, so with calls of two sessions in flight (or just ended) it may be either's, and it
   * goes to the gateway's own log only.
   */
  private relayLog(params: Record<string, unknown>): void {
    const now = Date.now()
    for (const [session, until] of this.ended) if (until <= now) this.ended.delete(session)
    const listeners = oneSessionListeners(this.inFlight, this.ended.keys())
    if (listeners.length === 0) {
      const data = params.data
      let text: string
      try {
        text = typeof data === 'string' ? data : JSON.stringify(data)
      } catch (e) {
        text = `(a log message that cannot be written: ${(e as Error)?.message ?? e})`
      }
      this.log.log('debug', 'upstream_log', text, { server: this.name, level: params.level })
      return
    }
    for (const l of listeners) l(params)
  }

  /** Mark unavailable, drop the tools, close the connection, schedule a reconnect. */
  private down(gen: number, why: string, kill = false): void {
    if (gen !== this.generation || this.state === 'closed' || this.state === 'unavailable') return
    this.generation++
    const hadTools = this.tools.length > 0
    this.tools = []
    this.leftOut = undefined
    this.state = 'unavailable'
    this.lastError = why
    const client = this.client
    const transport = this.transport
    this.client = undefined
    this.transport = undefined
    // What the server started is listed now: once it exits, its children are re-parented.
    const tree = this.treeOf(transport)
    if (kill) this.killTransport(transport)
    if (client) {
      client.onclose = undefined
      void client
        .close()
        .catch(() => {})
        .finally(() => {
          // A server run through npx or a shell leaves its real process behind when the
          // wrapper exits: whatever of the tree still runs is killed.
          killPids(tree)
          this.live.delete(transport)
        })
    }
    const base = Math.min(this.settings.backoffMaxMs, this.settings.backoffInitialMs * 2 ** Math.min(this.attempt, 30))
    const delay = Math.round(base * (0.8 + Math.random() * 0.4))
    this.attempt++
    this.retryAt = Date.now() + delay
    this.log.log('warn', 'unavailable', `unavailable (${why}); tools dropped, reconnecting in ${delay} ms`, { server: this.name, error: why, retryInMs: delay })
    this.timer = setTimeout(() => {
      this.timer = undefined
      this.state = 'connecting'
      void this.connect()
    }, delay)
    this.timer.unref?.()
    if (hadTools) this.events.onTools(this)
  }

  /**
   * Call a tool. Resolves with the upstream's result unchanged; rejects with the upstream's
   * JSON-RPC error, or an `UpstreamUnavailableError` (not connected, deadline passed: then the
   * server is pinged and, if silent, treated as hung).
   */
  async callTool(
    name: string,
    args: unknown,
    opts: {
      signal?: AbortSignal
      onprogress?: (p: { progress: number; total?: number; message?: string }) => void
      /**
       * Receives the upstream's `notifications/message` params while the call runs, when every
       * call in flight on this upstream has the same `session`.
       */
      onlog?: LogListener
      /** The client session the call is made for (compared by identity); none: a session of its own. */
      session?: object
      meta?: Record<string, unknown>
    },
  ): Promise<Record<string, unknown>> {
    const client = this.client
    const gen = this.generation
    if (this.state !== 'ready' || !client) {
      throw new UpstreamUnavailableError(`server "${this.name}" is unavailable${this.lastError ? ` (${this.lastError})` : ''}`)
    }
    const sdk = loadSdk()
    const params: Record<string, unknown> = { name, arguments: args }
    if (opts.meta && Object.keys(opts.meta).length) params._meta = opts.meta
    const inFlight: CallInFlight = { session: opts.session ?? {}, onlog: opts.onlog }
    this.inFlight.add(inFlight)
    const t0 = Date.now()
    let lastProgress = t0
    // The call's deadlines are timers of our own that abort the request: one restarted by each
    // progress notice (`callTimeoutMs`), one for the whole call (`maxCallTimeoutMs`). Whether a
    // deadline passed is then a flag the timer set, never a reading of Date.now() (timers run
    // on the event loop's clock, which can stand a little ahead of it), and no ordering with
    // the SDK's own timers is assumed: those are set later, as a backstop only.
    let deadlinePassed = false
    const ours = new AbortController()
    const expire = () => {
      deadlinePassed = true
      ours.abort(new Error('the call deadline passed'))
    }
    const idle = setTimeout(expire, this.settings.callTimeoutMs)
    const total = setTimeout(expire, this.settings.maxCallTimeoutMs)
    idle.unref?.()
    total.unref?.()
    const onCallerAbort = () => ours.abort(opts.signal?.reason)
    if (opts.signal?.aborted) onCallerAbort()
    else opts.signal?.addEventListener('abort', onCallerAbort, { once: true })
    const onprogress = (p: { progress: number; total?: number; message?: string }) => {
      lastProgress = Date.now()
      idle.refresh()
      opts.onprogress?.(p)
    }
    try {
      return await client.request({ method: 'tools/call', params }, sdk.types.CallToolResultSchema, {
        signal: ours.signal,
        // Always: the handler makes the SDK ask the server for progress, and each notice restarts
        // `callTimeoutMs` (relayed to the client only when it asked for progress).
        onprogress,
        timeout: this.settings.callTimeoutMs + BACKSTOP_MS,
        resetTimeoutOnProgress: true,
        maxTotalTimeout: this.settings.maxCallTimeoutMs + BACKSTOP_MS,
      })
    } catch (e) {
      const err = e as { code?: number; message?: string }
      if (opts.signal?.aborted && !deadlinePassed) throw e
      // A deadline of ours, or (should ours ever be late) the SDK's backstop, told apart from
      // an upstream's own -32001 by the time since the last progress notice.
      const now = Date.now()
      const backstop =
        err?.code === sdk.types.ErrorCode.RequestTimeout &&
        (now - lastProgress >= this.settings.callTimeoutMs || now - t0 >= this.settings.maxCallTimeoutMs)
      if (deadlinePassed || backstop) {
        void this.checkAlive(gen, 'a call deadline')
        throw new UpstreamUnavailableError(`server "${this.name}" did not answer tools/call "${name}" within its deadline (${this.settings.callTimeoutMs} ms)`, 'timeout')
      }
      // An answer that is not a CallToolResult (the SDK's schema check throws a ZodError, with
      // no code): the server did answer, so only this call fails, over stdio and HTTP alike.
      if (isSchemaFailure(e) && gen === this.generation) {
        throw new UpstreamUnavailableError(`server "${this.name}" answered tools/call "${name}" with a result that is not a valid CallToolResult`, 'invalid_result')
      }
      // Over HTTP a dead or restarted upstream never closes the connection: its requests fail
      // with no JSON-RPC code (the fetch failed) or with 404 (the session is gone). Either takes
      // it down, to reconnect with a new session. Another HTTP status (400, 413, 429, 500...)
      // fails this call only, and a ping tells whether the server is still there. What is kept
      // as the server's error, which every session's search shows, names no more than the
      // status: the answer's text may quote this call's arguments.
      const http = this.config.transport !== 'stdio' ? httpStatusOf(e, sdk.types.McpError) : undefined
      if (http !== undefined) {
        this.log.log('debug', 'upstream_http_error', `tools/call "${name}" failed over HTTP: ${err?.message ?? e}`, { server: this.name })
      }
      if (gen !== this.generation || http === 'no answer' || http === 404) {
        this.down(gen, http === undefined ? `the connection closed during tools/call "${name}"` : `tools/call "${name}" failed over HTTP (${http === 'no answer' ? 'no answer' : `status ${http}`})`)
        throw new UpstreamUnavailableError(`server "${this.name}" closed the connection during the call (${this.lastError ?? 'crashed?'}); its tools are dropped until it reconnects`, 'connection_closed')
      }
      if (typeof http === 'number') {
        void this.checkAlive(gen, `HTTP ${http} on a call`)
        throw new UpstreamUnavailableError(`server "${this.name}" answered tools/call "${name}" with HTTP status ${http}`, 'http_error')
      }
      if (http === 'odd answer') {
        void this.checkAlive(gen, 'an HTTP answer that is not JSON-RPC')
        throw new UpstreamUnavailableError(`server "${this.name}" answered tools/call "${name}" over HTTP with something that is not a JSON-RPC answer`, 'http_error')
      }
      throw e
    } finally {
      clearTimeout(idle)
      clearTimeout(total)
      opts.signal?.removeEventListener('abort', onCallerAbort)
      this.inFlight.delete(inFlight)
      this.ended.delete(inFlight.session)
      this.ended.set(inFlight.session, Date.now() + LOG_GRACE_MS)
      if (this.ended.size > 1024) this.ended.delete(this.ended.keys().next().value as object)
    }
  }

  /**
   * Ping after a call deadline or (over HTTP) a transport error: no answer, or a request that
   * fails, takes the server down as hung, with its process tree. `after` says what came first.
   */
  private async checkAlive(gen: number, after: string): Promise<void> {
    const client = this.client
    if (!client || gen !== this.generation || this.checking === gen) return
    this.checking = gen
    try {
      await withDeadline(client.ping({ timeout: this.settings.listTimeoutMs }), this.settings.listTimeoutMs, 'ping timed out')
    } catch (e) {
      this.down(gen, `hung: no answer to ping within ${this.settings.listTimeoutMs} ms after ${after} (${(e as Error)?.message ?? e})`, true)
    } finally {
      if (this.checking === gen) this.checking = undefined
    }
  }

  /** A stdio transport's process and its descendants (and the processes with its run marker), listed now (empty for HTTP). */
  private treeOf(transport: any): ProcessRef[] {
    if (!transport || !this.live.has(transport)) return []
    return processTree(this.rootOf(transport), this.markers.get(transport))
  }

  /**
   * The pid of the process a stdio transport started, while that process still runs: a pid
   * whose start time is not the one read at the spawn belongs to another process now (the
   * server exited and the pid was reused), and is never walked or killed.
   */
  private rootOf(transport: any): number | undefined {
    const root = this.roots.get(transport)
    if (!root) return undefined
    if (root.start !== undefined && startTimeOf(root.pid) !== root.start) return undefined
    return root.pid
  }

  private killTransport(transport: any): void {
    if (!transport) return
    // The server and whatever it started (a server run through npx is a grandchild).
    killTree(this.rootOf(transport), this.markers.get(transport))
    this.live.delete(transport)
  }

  /** SIGKILL every stdio process this upstream started that may still run, with its descendants (synchronous; for exit). */
  killAll(): void {
    for (const t of [...this.live]) this.killTransport(t)
  }

  /** Stop for good. */
  async close(): Promise<void> {
    this.state = 'closed'
    this.generation++
    if (this.timer) clearTimeout(this.timer)
    const client = this.client
    this.client = undefined
    this.settleFirst()
    const trees = [...this.live].map((t) => this.treeOf(t))
    if (client) {
      client.onclose = undefined
      // A server gets a moment to exit on its own (the SDK ends its stdin, and escalates to
      // signals only after seconds); then what is left of its process tree is killed, so a
      // stopping gateway is not killed itself before it has killed its servers.
      await Promise.race([client.close().catch(() => {}), new Promise((r) => setTimeout(r, CLOSE_GRACE_MS).unref())])
    }
    for (const tree of trees) killPids(tree)
    this.killAll()
  }
}
