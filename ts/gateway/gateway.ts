/**
 * The gateway: many upstream MCP servers behind two tools, `search_tools` (the package's
 * ToolSearch over every upstream tool) and `execute_tool` (the package's ExecuteTool:
 * discovery check, ajv validation, then the upstream call), plus the `alwaysLoad` tools.
 */
import { ToolIndexCache } from '../index'
import { executeTool } from '../executeTool'
import { ToolSearchSession, toolSearch } from '../toolSearch'
import type { Scoring, ToolLike } from '../types'
import type { GatewayConfig } from './config'
import { stderrLogger, type Logger } from './log'
import { loadSdk } from './sdk'
import { Upstream, UpstreamUnavailableError, type UpstreamTool } from './upstream'

/** The gateway's own tool names. */
export const SEARCH_TOOL = 'search_tools'
export const EXECUTE_TOOL = 'execute_tool'

const VERSION = '0.1.0'
const MAX_RESULTS_CAP = 50
/** Direct names remembered as having had an outputSchema, at most. */
const MAX_TYPED_DIRECT = 100_000

/** A tool of the aggregated list: a ToolLike the package's search and execute take. */
export interface GatewayTool extends ToolLike {
  name: string
  /** The upstream's own name for it. */
  upstreamName: string
  server: string
  description: string
  inputJSONSchema?: object
  alwaysLoad: boolean
  /** The name in the gateway's tools/list (alwaysLoad tools only). */
  directName?: string
  source: UpstreamTool
  checkPermissions: (input: unknown) => Promise<{ behavior: 'allow'; updatedInput: unknown }>
  call: (input: unknown, ctx: CallContext, canUseTool?: unknown, parent?: unknown, onProgress?: ProgressFn) => Promise<unknown>
}

type ProgressFn = (p: { progress: number; total?: number; message?: string }) => void
type LogFn = (params: Record<string, unknown>) => void

interface CallContext {
  options: { tools: readonly ToolLike[] }
  signal?: AbortSignal
  onLog?: LogFn
  meta?: Record<string, unknown>
  /** The client session the call is made for: an upstream relays its log messages only within one session. */
  session?: GatewaySession
}

/** One search hit, as `search_tools` returns it in `structuredContent.matches`. */
export interface SearchMatch {
  name: string
  server: string
  tool: string
  description: string
  inputSchema?: object
  /** Exposed directly in tools/list (alwaysLoad): call it by name. */
  direct?: boolean
}

/** What `search_tools` returns as `structuredContent`. */
export interface SearchResult {
  query: string
  matches: SearchMatch[]
  total_tools: number
  unavailable_servers: { server: string; error: string; retry_in_ms?: number }[]
  pending_servers?: string[]
  /** Ready servers some of whose listed tools are left out of the index: how many, and why. */
  partial_servers?: { server: string; left_out: number; why: string }[]
  /** On an `isError` result: why the search did not run (`invalid_params`, or the package's error code). */
  error?: { code: string; message: string }
}

/** Options of `Gateway`. */
export interface GatewayOptions {
  config: GatewayConfig
  logger?: Logger
  /** Ranking: `'enhanced'` (BM25F, the default) or `'compat'`. */
  scoring?: Scoring
}

const SEARCH_INPUT_SCHEMA = {
  type: 'object',
  properties: {
    query: {
      type: 'string',
      description:
        'What you need, in words ("create a github issue"). Syntax: "+word" requires a word; "select:name1,name2" fetches tools by exact name; "discover:words" ranks by words with scores.',
    },
    max_results: { type: 'integer', minimum: 1, maximum: MAX_RESULTS_CAP, description: 'How many tools to return (default 5).' },
  },
  required: ['query'],
  additionalProperties: false,
} as const

const SEARCH_OUTPUT_SCHEMA = {
  type: 'object',
  properties: {
    query: { type: 'string' },
    matches: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          name: { type: 'string' },
          server: { type: 'string' },
          tool: { type: 'string' },
          description: { type: 'string' },
          inputSchema: { type: 'object' },
          direct: { type: 'boolean' },
        },
        required: ['name', 'server', 'tool', 'description'],
      },
    },
    total_tools: { type: 'integer' },
    unavailable_servers: { type: 'array', items: { type: 'object' } },
    pending_servers: { type: 'array', items: { type: 'string' } },
    partial_servers: { type: 'array', items: { type: 'object' } },
    error: { type: 'object', properties: { code: { type: 'string' }, message: { type: 'string' } }, required: ['code', 'message'] },
  },
  required: ['query', 'matches', 'total_tools', 'unavailable_servers'],
} as const

const EXECUTE_INPUT_SCHEMA = {
  type: 'object',
  properties: {
    tool_name: { type: 'string', description: 'The tool name exactly as search_tools returned it.' },
    arguments: { type: 'object', description: "The tool's arguments, matching its input schema.", additionalProperties: true },
  },
  required: ['tool_name'],
  additionalProperties: false,
} as const

/** Per client session state. */
export interface GatewaySession {
  search: ToolSearchSession
}

function fingerprint(t: UpstreamTool): string {
  return JSON.stringify([t.description ?? '', t.inputSchema ?? null, t.outputSchema ?? null, t.annotations ?? null, t.title ?? null])
}

/** Whether `name` reads as a gateway tool name (`mcp__…`): such a name is never given to an alias or a bare direct name. */
function isFullName(name: string): boolean {
  return name.startsWith('mcp__')
}

/**
 * An upstream's JSON-RPC error as this gateway sends it on: same code and data, and the upstream's
 * own message (the SDK client puts "MCP error <code>: " before it; the client's SDK adds that again).
 */
function upstreamRpcError(e: unknown): unknown {
  const err = e as { code?: unknown; message?: unknown; data?: unknown } | null
  if (!err || typeof err !== 'object' || typeof err.code !== 'number' || typeof err.message !== 'string') return e
  const prefix = `MCP error ${err.code}: `
  const message = err.message.startsWith(prefix) ? err.message.slice(prefix.length) : err.message
  return new UpstreamRpcError(message, err.code, err.data)
}

/** An upstream's JSON-RPC error, passed on to the client as it came: the one error a call lets through. */
class UpstreamRpcError extends Error {
  constructor(
    message: string,
    readonly code: number,
    data: unknown,
  ) {
    super(message)
    if (data !== undefined) (this as { data?: unknown }).data = data
  }
}

/** A tool name MCP clients and model APIs accept (the MCP specification's rule). */
const VALID_TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/

/** Results the gateway made itself (refusals, failures), as opposed to an upstream's own results. */
const MADE = new WeakSet<object>()

/**
 * A result the gateway made: `isError`, the message as text, and `fields` (a stable `refused` or
 * `failed` code, the tool, the message) as `structuredContent`.
 */
function gatewayError(message: string, fields: Record<string, unknown>): Record<string, unknown> {
  const r = { ...text(message, true), structuredContent: { ...fields, message } }
  MADE.add(r)
  return r
}

function text(s: string, isError = false): { content: { type: 'text'; text: string }[]; isError?: boolean } {
  return isError ? { content: [{ type: 'text', text: s }], isError: true } : { content: [{ type: 'text', text: s }] }
}

/** Many upstream MCP servers behind search_tools / execute_tool. */
export class Gateway {
  readonly upstreams: Upstream[]
  /** The aggregated tools, in config order. */
  tools: GatewayTool[] = []
  /** Index updates: full builds and incremental updates of the search index. */
  readonly cache = new ToolIndexCache()
  private byName = new Map<string, GatewayTool>()
  private directByName = new Map<string, GatewayTool>()
  /** Direct names ever listed with an outputSchema: a client may still check a call's result against it. */
  private typedDirect = new Set<string>()
  /**
   * Bare direct names (`prefix: false`) and the full names they stood for, kept while their server
   * is not ready: a call by the bare name is then refused as unavailable, not unknown.
   */
  private bareDirect = new Map<string, string>()
  private prints = new Map<string, string>()
  /** Per server, how many of its tools are left out because the `maxTools` cap was reached before them. */
  private capped = new Map<string, number>()
  private directKey = ''
  private readonly servers = new Set<any>()
  private readonly log: Logger
  private readonly scoring: Scoring
  private startedAt = 0

  constructor(readonly options: GatewayOptions) {
    this.log = options.logger ?? stderrLogger()
    this.scoring = options.scoring ?? 'enhanced'
    this.upstreams = options.config.servers.map((c) => new Upstream(c, options.config.settings, this.log, { onTools: () => this.rebuild() }))
  }

  /** Connect to every upstream (in parallel); resolves when each has connected or failed once. */
  async start(): Promise<void> {
    loadSdk()
    this.startedAt = Date.now()
    this.log.log('info', 'starting', `starting: ${this.upstreams.length} server${this.upstreams.length === 1 ? '' : 's'} (${this.upstreams.map((u) => u.name).join(', ')})`, {
      servers: this.upstreams.map((u) => u.name),
    })
    for (const u of this.upstreams) u.start()
    await this.ready()
    const ok = this.upstreams.filter((u) => u.state === 'ready').length
    this.log.log('info', 'started', `${ok}/${this.upstreams.length} servers ready, ${this.tools.length} tools indexed in ${Date.now() - this.startedAt} ms`, {
      ready: ok,
      servers: this.upstreams.length,
      tools: this.tools.length,
      ms: Date.now() - this.startedAt,
    })
  }

  /** The first connection round has settled. */
  ready(): Promise<void> {
    return Promise.all(this.upstreams.map((u) => u.settled())).then(() => undefined)
  }

  private async waitStartup(): Promise<void> {
    const wait = this.options.config.settings.startupWaitMs
    let timer: NodeJS.Timeout | undefined
    await Promise.race([this.ready(), new Promise<void>((r) => (timer = setTimeout(r, wait)))])
    clearTimeout(timer)
  }

  /** The configured server a name `mcp__<server>__<tool>` points at, and the tool's upstream name. */
  private upstreamOf(name: string): { upstream: Upstream; tool: string } | undefined {
    // Server names hold no `__` (normalizeServerName), so the first one after `mcp__` ends it.
    const m = /^mcp__(.+?)__(.+)$/.exec(name)
    const upstream = m ? this.upstreams.find((u) => u.name === m[1]) : undefined
    return upstream && { upstream, tool: m![2] }
  }

  /** Whether `name` is `mcp__<server>__<tool>` of a configured server that loads that tool directly. */
  private isDirectName(name: string): boolean {
    const of = this.upstreamOf(name)
    const always = of?.upstream.config.alwaysLoad
    return always === true || (Array.isArray(always) && always.includes(of!.tool))
  }

  /**
   * The full name a direct call by `name` runs as, or undefined for a name that is not a direct tool:
   * a listed direct name; a full name the config loads directly; or a bare name of a `prefix: false`
   * server that is not ready now (listed before, or named in its `alwaysLoad` list).
   */
  private directTarget(name: string): string | undefined {
    // A name clients refuse is never listed, so it is never called directly either (it stays
    // reachable through the execute tool).
    if (!VALID_TOOL_NAME.test(name)) return undefined
    const t = this.directByName.get(name)
    if (t) return t.name
    if (isFullName(name)) return this.isDirectName(name) ? name : undefined
    if (name === SEARCH_TOOL || name === EXECUTE_TOOL) return undefined
    const remembered = this.bareDirect.get(name)
    if (remembered !== undefined) return remembered
    const claims = this.upstreams.filter((u) => u.state !== 'ready' && u.config.prefix === false && Array.isArray(u.config.alwaysLoad) && u.config.alwaysLoad.includes(name))
    return claims.length === 1 ? `mcp__${claims[0].name}__${name}` : undefined
  }

  /** Rebuild the aggregated list after an upstream's tools changed. */
  private rebuild(): void {
    // How many servers list each bare name (a server that lists a name twice counts once).
    const counts = new Map<string, number>()
    for (const u of this.upstreams) for (const n of new Set(u.tools.map((t) => t?.name))) counts.set(n, (counts.get(n) ?? 0) + 1)
    const tools: GatewayTool[] = []
    const byName = new Map<string, GatewayTool>()
    const prints = new Map<string, string>()
    const capped = new Map<string, number>()
    const cap = this.options.config.settings.maxTools
    let changedInPlace = false
    for (const u of this.upstreams) {
      const always = u.config.alwaysLoad
      for (const t of u.tools) {
        if (typeof t?.name !== 'string') continue
        const name = `mcp__${u.name}__${t.name}`
        if (byName.has(name)) continue
        if (tools.length >= cap) {
          capped.set(u.name, (capped.get(u.name) ?? 0) + 1)
          continue
        }
        const fp = fingerprint(t)
        const before = this.prints.get(name)
        if (before !== undefined && before !== fp) changedInPlace = true
        prints.set(name, fp)
        const tool: GatewayTool = {
          name,
          upstreamName: t.name,
          server: u.name,
          isMcp: true,
          description: typeof t.description === 'string' ? t.description : '',
          inputJSONSchema: t.inputSchema && typeof t.inputSchema === 'object' ? t.inputSchema : undefined,
          alwaysLoad: always === true || (Array.isArray(always) && always.includes(t.name)),
          // The bare name is an alias when no other server has it, and never when it reads as another
          // tool's full name (`mcp__b__x` listed by server `a` must not take calls meant for `b`).
          aliases: counts.get(t.name) === 1 && !isFullName(t.name) ? [t.name] : undefined,
          source: t,
          // The MCP client is the permission authority: it approved the execute_tool call itself.
          checkPermissions: async (input: unknown) => ({ behavior: 'allow', updatedInput: input }),
          call: (input, ctx, _c, _p, onProgress) => this.forward(u, t.name, name, input, ctx, onProgress),
        }
        tools.push(tool)
        byName.set(name, tool)
      }
    }
    // Names in the gateway's own tools/list: mcp__server__tool, or the upstream name for `prefix: false` servers when free.
    const directByName = new Map<string, GatewayTool>()
    const direct = tools.filter((t) => t.alwaysLoad)
    const bareCounts = new Map<string, number>()
    for (const t of direct) bareCounts.set(t.upstreamName, (bareCounts.get(t.upstreamName) ?? 0) + 1)
    // Bounded: past the cap, only the names listed from now on are kept.
    if (this.typedDirect.size > MAX_TYPED_DIRECT) this.typedDirect.clear()
    for (const t of direct) {
      const up = this.upstreams.find((u) => u.name === t.server)
      const bare =
        up?.config.prefix === false &&
        bareCounts.get(t.upstreamName) === 1 &&
        t.upstreamName !== SEARCH_TOOL &&
        t.upstreamName !== EXECUTE_TOOL &&
        !isFullName(t.upstreamName)
      t.directName = bare ? t.upstreamName : t.name
      directByName.set(t.directName, t)
      if (t.source.outputSchema !== undefined) this.typedDirect.add(t.directName)
    }
    this.directByName = directByName
    // Bare names of servers that went down stay known; a ready server's list is the truth.
    const bareDirect = new Map<string, string>()
    const notReady = new Set(this.upstreams.filter((u) => u.state !== 'ready').map((u) => u.name))
    for (const [bare, full] of this.bareDirect) {
      const of = this.upstreamOf(full)
      if (of && notReady.has(of.upstream.name) && !directByName.has(bare)) bareDirect.set(bare, full)
    }
    for (const [directName, t] of directByName) if (directName !== t.name) bareDirect.set(directName, t.name)
    this.bareDirect = bareDirect.size > MAX_TYPED_DIRECT ? new Map([...bareDirect].slice(-MAX_TYPED_DIRECT)) : bareDirect
    this.logCapped(capped, cap)
    // The index cache follows tool names; a tool whose text changed under the same name needs a rebuild.
    if (changedInPlace) this.cache.clear()
    this.tools = tools
    this.byName = byName
    this.prints = prints
    const directKey = tools
      .filter((t) => t.alwaysLoad)
      .map((t) => `${t.directName}\u0000${prints.get(t.name)}`)
      .join('\u0001')
    if (directKey !== this.directKey) {
      this.directKey = directKey
      for (const s of this.servers) void Promise.resolve().then(() => s.sendToolListChanged()).catch(() => {})
    }
  }

  /** Log each server whose count of tools left out by the `maxTools` cap changed, and keep the counts. */
  private logCapped(capped: Map<string, number>, cap: number): void {
    for (const [server, n] of capped) {
      if (this.capped.get(server) === n) continue
      this.log.log('warn', 'tools_capped', `${n} tool${n === 1 ? '' : 's'} left out: the gateway's limit of ${cap} tools (maxTools) was reached, servers earlier in the config first`, {
        server,
        count: n,
        maxTools: cap,
      })
    }
    this.capped = capped
  }

  /**
   * Run `tool` on `u`. A call the upstream never answered comes back as an `isError` result whose
   * `structuredContent.failed` says why (`unavailable`, `timeout`, `connection_closed`); a JSON-RPC
   * error from the upstream is passed on with its own code, message and data.
   */
  private async forward(u: Upstream, tool: string, name: string, input: unknown, ctx: CallContext, onProgress?: ProgressFn): Promise<unknown> {
    try {
      return await u.callTool(tool, input, { signal: ctx.signal, onprogress: onProgress, onlog: ctx.onLog, meta: ctx.meta, session: ctx.session })
    } catch (e) {
      if (e instanceof UpstreamUnavailableError) {
        return gatewayError(e.message, { failed: e.reason, tool_name: name, server: u.name })
      }
      throw upstreamRpcError(e)
    }
  }

  /** Servers not ready now, with why. */
  unavailable(): SearchResult['unavailable_servers'] {
    const now = Date.now()
    return this.upstreams
      .filter((u) => u.state === 'unavailable')
      .map((u) => ({ server: u.name, error: u.lastError ?? 'unavailable', ...(u.retryAt ? { retry_in_ms: Math.max(0, u.retryAt - now) } : {}) }))
  }

  /** Ready servers some of whose listed tools are left out, with how many and why. */
  partial(): NonNullable<SearchResult['partial_servers']> {
    const out: NonNullable<SearchResult['partial_servers']> = []
    for (const u of this.upstreams) {
      if (u.state !== 'ready') continue
      const over = this.capped.get(u.name) ?? 0
      const whys = u.leftOut ? [u.leftOut.why] : []
      if (over) whys.push(`over the gateway's limit of ${this.options.config.settings.maxTools} tools (maxTools)`)
      const n = (u.leftOut?.count ?? 0) + over
      if (n) out.push({ server: u.name, left_out: n, why: whys.join('; ') })
    }
    return out
  }

  /** Run a search (the package's ToolSearch) and record the matches in the session. */
  async search(query: string, maxResults: number, session: GatewaySession): Promise<SearchResult> {
    await this.waitStartup()
    const pending = this.upstreams.filter((u) => u.state === 'connecting' && u.connects === 0).map((u) => u.name)
    const out = await toolSearch(
      { query, max_results: maxResults },
      { tools: this.tools, coreTools: [], scoring: this.scoring, session: session.search, cache: this.cache, pendingMcpServers: pending },
    )
    const matches: SearchMatch[] = []
    for (const name of out.matches) {
      const t = this.byName.get(name)
      if (!t) continue
      matches.push({
        name,
        server: t.server,
        tool: t.upstreamName,
        description: t.description,
        ...(t.inputJSONSchema ? { inputSchema: t.inputJSONSchema } : {}),
        ...(t.alwaysLoad ? { direct: true } : {}),
      })
    }
    const res: SearchResult = { query, matches, total_tools: this.tools.length, unavailable_servers: this.unavailable() }
    if (pending.length) res.pending_servers = pending
    const partial = this.partial()
    if (partial.length) res.partial_servers = partial
    return res
  }

  /** A search that did not run: `isError`, with `structuredContent` that still fits the output schema. */
  private searchError(query: string, code: string, message: string): Record<string, unknown> {
    const r: SearchResult = { query: query.slice(0, 1000), matches: [], total_tools: this.tools.length, unavailable_servers: this.unavailable(), error: { code, message } }
    return { ...text(message, true), structuredContent: r }
  }

  /** Render a search result as text for the model. */
  static formatSearch(r: SearchResult): string {
    const lines: string[] = []
    if (r.matches.length === 0) lines.push(`No tools match "${r.query}" (${r.total_tools} tools indexed).`)
    else {
      lines.push(`Found ${r.matches.length} tool${r.matches.length === 1 ? '' : 's'}:`)
      r.matches.forEach((m, i) => {
        lines.push(`\n${i + 1}. ${m.name} (server: ${m.server}${m.direct ? ', loaded: call it directly' : ''})`)
        if (m.description) lines.push(`   ${m.description.replace(/\n/g, '\n   ')}`)
        lines.push(`   Input schema: ${m.inputSchema ? JSON.stringify(m.inputSchema) : '(none)'}`)
      })
      lines.push(`\nTo run one, call ${EXECUTE_TOOL} with {"tool_name": "<name>", "arguments": {...}}.`)
    }
    if (r.pending_servers?.length) lines.push(`Still connecting (their tools are not searchable yet): ${r.pending_servers.join(', ')}.`)
    if (r.partial_servers?.length) {
      lines.push(`Servers with tools left out (those are not searchable): ${r.partial_servers.map((p) => `${p.server} (${p.left_out}: ${p.why})`).join('; ')}.`)
    }
    if (r.unavailable_servers.length) {
      lines.push(
        `Unavailable servers (their tools are not searchable now): ${r.unavailable_servers
          .map((u) => `${u.server} (${u.error}${u.retry_in_ms !== undefined ? `; retrying in ${Math.ceil(u.retry_in_ms / 1000)} s` : ''})`)
          .join('; ')}.`,
      )
    }
    return lines.join('\n')
  }

  /**
   * Run `tool_name` with `args` through the package's ExecuteTool (discovery check, schema
   * validation), forwarding to the owning upstream; refusals come back as `isError` results.
   */
  async execute(
    toolName: unknown,
    args: unknown,
    session: GatewaySession,
    extra: { signal?: AbortSignal; onProgress?: ProgressFn; onLog?: LogFn; meta?: Record<string, unknown> } = {},
  ): Promise<Record<string, unknown>> {
    await this.waitStartup()
    if (typeof toolName !== 'string' || !toolName) {
      return gatewayError(`${EXECUTE_TOOL} needs "tool_name": a tool name from ${SEARCH_TOOL}.`, { refused: 'invalid_params', tool_name: null })
    }
    if (args !== undefined && (args === null || typeof args !== 'object' || Array.isArray(args))) {
      return gatewayError(`Invalid arguments for "${toolName}": "arguments" must be an object.`, { refused: 'invalid_params', tool_name: toolName })
    }
    // A name `mcp__<server>__<tool>` of a configured server runs on that server or not at all.
    const of = this.upstreamOf(toolName)
    const down = of && of.upstream.state !== 'ready' ? of.upstream : undefined
    if (down) {
      const why = down.state === 'connecting' ? 'is connecting' : `is unavailable (${down.lastError ?? 'down'})`
      return gatewayError(`Tool "${toolName}" cannot run now: server "${down.name}" ${why}. Its tools come back when it reconnects.`, {
        refused: 'unavailable',
        tool_name: toolName,
        server: down.name,
      })
    }
    let out: Awaited<ReturnType<typeof executeTool>>
    try {
      out = await executeTool(
        { tool_name: toolName, params: args ?? {} },
        { options: { tools: this.tools }, signal: extra.signal, onLog: extra.onLog, meta: extra.meta, session },
        undefined,
        undefined,
        extra.onProgress,
        {
          requireDiscovered: this.options.config.settings.requireDiscovered,
          session: session.search,
          coreTools: [],
          names: { search: SEARCH_TOOL, execute: EXECUTE_TOOL },
        },
      )
    } catch (e) {
      if (e instanceof UpstreamRpcError) throw e
      // Anything else that failed here is the gateway's: a coded failure, never a bare JSON-RPC error.
      const code = typeof (e as { code?: unknown })?.code === 'string' ? (e as { code: string }).code : 'E_INTERNAL'
      return gatewayError(`Tool "${toolName}" could not run: ${(e as Error)?.message ?? e}`, { failed: 'internal_error', code, tool_name: toolName })
    }
    if (out.refused) {
      const message = out.message ?? 'refused'
      return gatewayError(message, { refused: out.refused, tool_name: out.tool_name, ...(out.suggestions?.length ? { suggestions: out.suggestions } : {}) })
    }
    return out.result as Record<string, unknown>
  }

  /** A new MCP server (one per client session) over this gateway. */
  createServer(): any {
    const sdk = loadSdk()
    const T = sdk.types
    const server = new sdk.Server(
      { name: 'tool-index-gateway', version: VERSION },
      {
        capabilities: { tools: { listChanged: true }, logging: {} },
        instructions: `This server fronts ${this.upstreams.length} MCP servers (${this.upstreams.map((u) => u.name).join(', ')}). Call ${SEARCH_TOOL} to find a tool, then ${EXECUTE_TOOL} to run it.`,
      },
    )
    const session: GatewaySession = { search: new ToolSearchSession() }
    this.servers.add(server)
    server.onclose = () => this.servers.delete(server)
    // The gateway logs to stderr; it accepts a client's level so logging/setLevel succeeds.
    server.setRequestHandler(T.SetLevelRequestSchema, async () => ({}))
    server.setRequestHandler(T.ListToolsRequestSchema, async () => {
      await this.waitStartup()
      // A tool listed directly must have a name clients and model APIs take (MCP's rule:
      // letters, digits, `_`, `-`, `.`, at most 128); one that has not stays reachable through
      // the execute tool only.
      const direct = this.tools
        .filter((t) => t.alwaysLoad && VALID_TOOL_NAME.test(t.directName ?? t.name))
        .map((t) => {
          const { name: _n, ...rest } = t.source
          return { ...rest, name: t.directName ?? t.name, inputSchema: t.source.inputSchema ?? { type: 'object' } }
        })
      return {
        tools: [
          {
            name: SEARCH_TOOL,
            title: 'Search tools',
            description: `Search the tools of every connected MCP server (${this.upstreams.map((u) => u.name).join(', ')}) and get their names, descriptions and input schemas. Call this before ${EXECUTE_TOOL}.`,
            inputSchema: SEARCH_INPUT_SCHEMA,
            outputSchema: SEARCH_OUTPUT_SCHEMA,
            annotations: { readOnlyHint: true, openWorldHint: false },
          },
          {
            name: EXECUTE_TOOL,
            title: 'Execute a tool',
            description: `Run a tool that ${SEARCH_TOOL} returned: its arguments are checked against the tool's input schema, then it runs on its own server and its result is returned as is.`,
            inputSchema: EXECUTE_INPUT_SCHEMA,
          },
          ...direct,
        ],
      }
    })
    server.setRequestHandler(T.CallToolRequestSchema, async (req: any, extra: any) => {
      const name = req.params.name as string
      const args = req.params.arguments as Record<string, unknown> | undefined
      const { progressToken, ...meta } = (req.params._meta ?? {}) as Record<string, unknown>
      // Progress goes out in order, and before the result.
      let sent: Promise<unknown> = Promise.resolve()
      const onProgress: ProgressFn | undefined =
        progressToken === undefined
          ? undefined
          : (p) => {
              sent = sent.then(() => extra.sendNotification({ method: 'notifications/progress', params: { ...p, progressToken } })).catch(() => {})
            }
      // The upstream's log messages during the call go to this caller, in order with its progress.
      const onLog: LogFn = (params) => {
        sent = sent.then(() => extra.sendNotification({ method: 'notifications/message', params })).catch(() => {})
      }
      const fwd = { signal: extra.signal as AbortSignal, onProgress, onLog, meta }
      if (name === SEARCH_TOOL) {
        const query = args?.query
        const max = args?.max_results ?? 5
        if (typeof query !== 'string') return this.searchError('', 'invalid_params', `${SEARCH_TOOL} needs "query": a string.`)
        if (typeof max !== 'number' || !Number.isInteger(max) || max < 1 || max > MAX_RESULTS_CAP) {
          return this.searchError(query, 'invalid_params', `${SEARCH_TOOL}: "max_results" must be a whole number from 1 to ${MAX_RESULTS_CAP}.`)
        }
        try {
          const r = await this.search(query, max, session)
          return { content: [{ type: 'text', text: Gateway.formatSearch(r) }], structuredContent: r }
        } catch (e) {
          const code = typeof (e as { code?: unknown })?.code === 'string' ? (e as { code: string }).code : 'E_INTERNAL'
          return this.searchError(query, code, `${SEARCH_TOOL} failed: ${(e as Error)?.message ?? e}`)
        }
      }
      if (name === EXECUTE_TOOL) {
        const r = await this.execute(args?.tool_name, args?.arguments, session, fwd)
        await sent
        return r
      }
      // A direct tool whose server is still starting or down is not listed now, but it keeps
      // its name: the call takes the execute path, which waits for startup or says unavailable.
      let target = this.directTarget(name)
      if (target === undefined && this.upstreams.some((u) => u.state === 'connecting' && u.connects === 0)) {
        await this.waitStartup()
        target = this.directTarget(name)
      }
      if (target !== undefined) {
        const t = this.directByName.get(name)
        const r = await this.execute(target, args, session, fwd)
        await sent
        // A client checks a direct tool's structuredContent against the tool's outputSchema, which a
        // refusal's fields would fail: there the refusal is its text alone.
        if (MADE.has(r) && (t ? t.source.outputSchema !== undefined : this.typedDirect.has(name))) {
          const { structuredContent: _s, ...plain } = r
          return plain
        }
        return r
      }
      throw Object.assign(new Error(`Unknown tool: ${name}. Use ${SEARCH_TOOL} and ${EXECUTE_TOOL}.`), { code: T.ErrorCode.InvalidParams })
    })
    return server
  }

  /** SIGKILL every upstream process still running (synchronous: safe in an `exit` handler). */
  killAll(): void {
    for (const u of this.upstreams) u.killAll()
  }

  /** Close every upstream and every client session. */
  async close(): Promise<void> {
    await Promise.all([...this.servers].map((s) => s.close().catch(() => {})))
    await Promise.all(this.upstreams.map((u) => u.close()))
  }
}
