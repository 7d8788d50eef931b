/**
 * The gateway's config: the `mcpServers` file of Claude Desktop / Cursor, plus an optional
 * `gateway` block of deadlines and back-off settings.
 */
import * as path from 'node:path'
import { LIMITS, MAX_TIMER_MS } from '../config'
import { MAX_TOOLS } from '../executeTool'
import { readFileText } from '../files'

/** The most tools the package's search and execute take in one list: the ceiling of `maxTools`. */
export const MAX_GATEWAY_TOOLS = Math.min(LIMITS.toolCount, MAX_TOOLS)

/** One upstream server, as the config file gives it. */
export interface UpstreamConfig {
  /** The normalized server name (`[A-Za-z0-9_-]`), used in `mcp__<server>__<tool>`. */
  name: string
  /** The key in `mcpServers`, as written. */
  key: string
  transport: 'stdio' | 'http' | 'sse'
  command?: string
  args?: string[]
  env?: Record<string, string>
  cwd?: string
  url?: string
  headers?: Record<string, string>
  /** `true`: every tool of this server is exposed directly; a list: those tools. */
  alwaysLoad: boolean | string[]
  /**
   * `false`: its directly exposed tools keep their upstream names (when no other exposed tool
   * has that name); by default they are `mcp__<server>__<tool>`.
   */
  prefix: boolean
}

/** Deadlines and back-off, in milliseconds. */
export interface GatewaySettings {
  /** Deadline of connect + initialize + the first tools/list. */
  connectTimeoutMs: number
  /** Deadline of one upstream tools/call without progress (progress resets it). */
  callTimeoutMs: number
  /** Hard deadline of one upstream tools/call, progress or not. */
  maxCallTimeoutMs: number
  /** Deadline of tools/list and ping. */
  listTimeoutMs: number
  /** First reconnect delay; doubles up to `backoffMaxMs` (with ±20 % jitter). */
  backoffInitialMs: number
  backoffMaxMs: number
  /** How long tools/list and search wait for the first connection round at startup. */
  startupWaitMs: number
  /** Refuse execute_tool for tools search_tools has not returned in this session. */
  requireDiscovered: boolean
  /**
   * The most tools the gateway indexes and routes, taken from the servers in config order (at
   * most, and by default, `MAX_GATEWAY_TOOLS`): the server that crosses it keeps what fits.
   */
  maxTools: number
}

/** A parsed config. */
export interface GatewayConfig {
  servers: UpstreamConfig[]
  settings: GatewaySettings
}

/** The defaults of the `gateway` block. */
export const DEFAULT_SETTINGS: Readonly<GatewaySettings> = Object.freeze({
  connectTimeoutMs: 30_000,
  callTimeoutMs: 60_000,
  maxCallTimeoutMs: 600_000,
  listTimeoutMs: 10_000,
  backoffInitialMs: 500,
  backoffMaxMs: 30_000,
  startupWaitMs: 30_000,
  requireDiscovered: true,
  maxTools: MAX_GATEWAY_TOOLS,
})

/** The transports a server's `type` (or `transport`) may name. */
const KNOWN_TYPES = new Set(['stdio', 'http', 'streamable-http', 'streamableHttp', 'sse'])

/** A config problem: the message names the file and the field. */
export class ConfigError extends Error {
  readonly code = 'E_CONFIG'
}

/**
 * Claude Code's rule for MCP server names in tool names (`[A-Za-z0-9_-]`), with runs of
 * underscores folded to one and trailing ones dropped: a server name then never holds the `__`
 * that ends it in `mcp__<server>__<tool>`, so servers `s` and `s__t` cannot both answer to
 * `mcp__s__t__echo`, and every tool name belongs to one server.
 */
export function normalizeServerName(key: string): string {
  return (
    key
      .replace(/[^a-zA-Z0-9_-]/g, '_')
      .replace(/_{2,}/g, '_')
      .replace(/_+$/, '') || 'server'
  )
}

function stringMap(v: unknown, where: string): Record<string, string> | undefined {
  if (v === undefined) return undefined
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new ConfigError(`${where} must be an object of strings`)
  // No prototype: a key named "__proto__" is kept as a key, not taken for the prototype.
  const out: Record<string, string> = Object.create(null)
  for (const [k, x] of Object.entries(v)) {
    if (typeof x !== 'string') throw new ConfigError(`${where}.${k} must be a string`)
    out[k] = x
  }
  return out
}

/**
 * Expand `${VAR}` and `${VAR:-default}` from the environment (Claude Code's rule). A variable
 * that is not set and has no default is a `ConfigError` naming it (a misspelt `${GITHUB_TOKNE}`
 * would otherwise start the server with an empty token, failing forever), as is a NUL byte,
 * which no process argument or environment value can hold.
 */
function expand(s: string, env: NodeJS.ProcessEnv, where: string): string {
  const out = s.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_, name: string, dflt?: string) => {
    const v = env[name] ?? dflt
    if (v === undefined) throw new ConfigError(`${where} uses \${${name}}, which is not set (give a default with \${${name}:-…})`)
    return v
  })
  if (out.includes('\0')) throw new ConfigError(`${where} holds a NUL byte`)
  return out
}

/** What a value of the `gateway` setting `k` must be, when `v` is not that; undefined when it is. */
function settingProblem(k: string, v: unknown): string | undefined {
  if (k === 'maxTools') {
    const ok = typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= MAX_GATEWAY_TOOLS
    return ok ? undefined : `a whole number from 1 to ${MAX_GATEWAY_TOOLS}`
  }
  const want = typeof (DEFAULT_SETTINGS as Record<string, unknown>)[k]
  if (want !== 'number') return typeof v === want ? undefined : `a ${want}`
  const ok = typeof v === 'number' && Number.isFinite(v) && v > 0 && v <= MAX_TIMER_MS
  return ok ? undefined : `a positive number of milliseconds, at most ${MAX_TIMER_MS}`
}

/** The keys a server's entry may have (others, such as another client's settings, are left alone). */
const SERVER_KEYS = ['type', 'transport', 'command', 'args', 'env', 'cwd', 'url', 'headers', 'alwaysLoad', 'prefix', 'disabled', 'enabled']
/** The keys of the file the gateway reads. */
const ROOT_KEYS = ['mcpServers', 'servers', 'gateway']

/** Edit distance, up to `max + 1` (a row of the table at a time). */
function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const row = [i]
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1))
    prev = row
  }
  return prev[b.length]
}

/**
 * An unknown key that is a near miss of a known one (`disable`, `Gateway`, `comand`) is a
 * `ConfigError`: read as written it would be ignored, and the server start (or the setting stay)
 * against the intent. Other unknown keys, such as another client's settings, are left alone.
 */
function checkNearMisses(obj: object, known: readonly string[], where: string): void {
  for (const k of Object.keys(obj)) {
    if (known.includes(k)) continue
    const lower = k.toLowerCase()
    const near = known.find((x) => editDistance(lower, x.toLowerCase(), x.length >= 5 ? 2 : 1) <= (x.length >= 5 ? 2 : 1))
    if (near) throw new ConfigError(`${where}: "${k}" is not a setting; did you mean "${near}"?`)
  }
}

/** Parse a config object (the file's JSON). `file` is used in messages and for relative `cwd`s. */
export function parseConfig(data: unknown, file = '<config>', env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) throw new ConfigError(`${file}: expected a JSON object with "mcpServers"`)
  const root = data as { mcpServers?: unknown; servers?: unknown; gateway?: unknown }
  checkNearMisses(root, ROOT_KEYS, file)
  const map = root.mcpServers ?? root.servers
  if (map === null || typeof map !== 'object' || Array.isArray(map)) throw new ConfigError(`${file}: "mcpServers" must be an object of servers`)
  const servers: UpstreamConfig[] = []
  const taken = new Set<string>()
  // Keys that are already names as they stand: no other key's name may take one of them.
  const normalizedKeys = new Set(Object.keys(map as Record<string, unknown>).filter((k) => normalizeServerName(k) === k))
  for (const [key, raw] of Object.entries(map as Record<string, unknown>)) {
    const where = `${file}: mcpServers.${key}`
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new ConfigError(`${where} must be an object`)
    const s = raw as Record<string, unknown>
    checkNearMisses(s, SERVER_KEYS, where)
    for (const flag of ['disabled', 'enabled'] as const) {
      if (s[flag] !== undefined && typeof s[flag] !== 'boolean') throw new ConfigError(`${where}.${flag} must be true or false`)
    }
    if (s.disabled === true || s.enabled === false) continue
    // A key already in normal form keeps its name; the others take the next free `_N` after
    // them (`a.b` beside `a_b_2` must not become `a_b_2`).
    let name = normalizeServerName(key)
    for (let i = 2; taken.has(name) || (name !== key && normalizedKeys.has(name)); i++) name = `${normalizeServerName(key)}_${i}`
    taken.add(name)
    for (const field of ['type', 'transport', 'cwd', 'command', 'url'] as const) {
      if (s[field] !== undefined && typeof s[field] !== 'string') throw new ConfigError(`${where}.${field} must be a string`)
    }
    const type = typeof s.type === 'string' ? s.type : typeof s.transport === 'string' ? s.transport : undefined
    if (type !== undefined && !KNOWN_TYPES.has(type)) throw new ConfigError(`${where}.type "${type}" is not a transport (known: ${[...KNOWN_TYPES].join(', ')})`)
    if (typeof s.command === 'string' && typeof s.url === 'string') throw new ConfigError(`${where} has both "command" and "url": give one`)
    if (type === 'stdio' && typeof s.url === 'string') throw new ConfigError(`${where} is of type "stdio", which takes "command", not "url"`)
    let alwaysLoad: boolean | string[] = false
    if (s.alwaysLoad === true) alwaysLoad = true
    else if (Array.isArray(s.alwaysLoad)) {
      if (!s.alwaysLoad.every((x) => typeof x === 'string')) throw new ConfigError(`${where}.alwaysLoad must be true or a list of tool names`)
      alwaysLoad = s.alwaysLoad as string[]
    } else if (s.alwaysLoad !== undefined && s.alwaysLoad !== false) throw new ConfigError(`${where}.alwaysLoad must be true or a list of tool names`)
    if (s.prefix !== undefined && typeof s.prefix !== 'boolean') throw new ConfigError(`${where}.prefix must be true or false`)
    const prefix = s.prefix !== false
    if (typeof s.url === 'string' || type === 'http' || type === 'streamable-http' || type === 'streamableHttp' || type === 'sse') {
      if (typeof s.url !== 'string') throw new ConfigError(`${where}.url must be a string`)
      let url: URL
      try {
        url = new URL(expand(s.url, env, `${where}.url`))
      } catch {
        throw new ConfigError(`${where}.url is not a valid URL: ${s.url}`)
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(`${where}.url must be an http: or https: URL, not ${url.protocol}`)
      // A URL shows in errors the model reads and in logs: credentials go in a header.
      if (url.username || url.password) {
        throw new ConfigError(`${where}.url holds a user name or password: give credentials as a header (headers: { "Authorization": "Basic …" }), never in the URL`)
      }
      const headers = stringMap(s.headers, `${where}.headers`)
      if (headers) for (const k of Object.keys(headers)) headers[k] = expand(headers[k], env, `${where}.headers.${k}`)
      servers.push({ name, key, transport: type === 'sse' ? 'sse' : 'http', url: url.href, headers, alwaysLoad, prefix })
      continue
    }
    if (typeof s.command !== 'string' || !s.command) throw new ConfigError(`${where} needs "command" (stdio) or "url" (HTTP)`)
    if (s.args !== undefined && (!Array.isArray(s.args) || !s.args.every((a) => typeof a === 'string'))) {
      throw new ConfigError(`${where}.args must be a list of strings`)
    }
    const envMap = stringMap(s.env, `${where}.env`)
    if (envMap) for (const k of Object.keys(envMap)) envMap[k] = expand(envMap[k], env, `${where}.env.${k}`)
    const cwd = typeof s.cwd === 'string' ? path.resolve(path.dirname(file), expand(s.cwd, env, `${where}.cwd`)) : undefined
    const command = expand(s.command, env, `${where}.command`)
    if (!command.trim()) throw new ConfigError(`${where}.command is empty once its variables are expanded`)
    servers.push({
      name,
      key,
      transport: 'stdio',
      command,
      args: ((s.args as string[] | undefined) ?? []).map((a, i) => expand(a, env, `${where}.args[${i}]`)),
      env: envMap,
      cwd,
      alwaysLoad,
      prefix,
    })
  }
  const settings: GatewaySettings = { ...DEFAULT_SETTINGS }
  if (root.gateway !== undefined) {
    if (root.gateway === null || typeof root.gateway !== 'object' || Array.isArray(root.gateway)) throw new ConfigError(`${file}: "gateway" must be an object`)
    for (const [k, v] of Object.entries(root.gateway as Record<string, unknown>)) {
      if (!Object.hasOwn(DEFAULT_SETTINGS, k)) throw new ConfigError(`${file}: gateway.${k} is not a setting (known: ${Object.keys(DEFAULT_SETTINGS).join(', ')})`)
      const problem = settingProblem(k, v)
      if (problem) throw new ConfigError(`${file}: gateway.${k} must be ${problem}`)
      ;(settings as unknown as Record<string, unknown>)[k] = v
    }
  }
  if (settings.maxCallTimeoutMs < settings.callTimeoutMs) {
    throw new ConfigError(`${file}: gateway.maxCallTimeoutMs (${settings.maxCallTimeoutMs}) is below gateway.callTimeoutMs (${settings.callTimeoutMs}): a call's total deadline cannot be shorter than its deadline without progress`)
  }
  return { servers, settings }
}

/** Read and parse a config file. */
export function loadConfig(file: string, env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  // A regular file only: a FIFO would block and /dev/zero fill memory.
  const text = readFileText(file, 'config', (message) => new ConfigError(message))
  let data: unknown
  try {
    data = JSON.parse(text)
  } catch (e) {
    throw new ConfigError(`config ${file} is not valid JSON: ${(e as Error).message}`)
  }
  return parseConfig(data, path.resolve(file), env)
}
