/**
 * ExecuteTool (SPEC §7): run a tool by name after every check that can stop it, in
 * claude-code-best's order: found → discovered → enabled → input (the schema's own library,
 * then the tool's `validateInput`) → permission → call. A stopped tool never runs.
 */
import { ToolIndexError, invalidArg } from './errors'
import { checkInput, type Checked } from './validate'
import { decidePermission, isEnabled, toolAcceptsInput } from './policy'
import { CORE_TOOLS, toolNames, type ToolNames } from './presets'
import { describeError, fieldOrUndefined, readField, readOwn } from './safeRead'
import { findToolNamed, type Found } from './lookup'
import { ToolIndexCache } from './cache'
import { MAX_TIMER_MS } from './config'
import { stringList } from './input'
import { toolSearch, type ToolSearchSession } from './toolSearch'
import type { ToolLike } from './types'

/** The ExecuteTool tool's input. */
export interface ExecuteToolInput {
  tool_name: string
  params?: unknown
}

/** Why a call did not run (absent when it ran). */
export type ExecuteToolRefusal = 'not_found' | 'disabled' | 'invalid_params' | 'denied' | 'not_discovered'

/** The outcome: the target's result, or `result: null` and a message saying why not. */
export interface ExecuteToolOutput {
  tool_name: string
  result: unknown
  /** Set when the target was not called. */
  refused?: ExecuteToolRefusal
  message?: string
  /** `not_found` only: the closest tool names. */
  suggestions?: string[]
}

/** Options of `executeTool`. */
export interface ExecuteToolOptions {
  /** Refuse deferred tools that were not discovered (`discovered` or `session`). */
  requireDiscovered?: boolean
  /** Names ToolSearch returned in this session (the package's in-memory record). */
  session?: ToolSearchSession
  /**
   * Names the host knows were discovered, e.g. read from the conversation
   * (`extractDiscoveredToolNames(messages)`), so discovery survives compaction. A function is
   * called only when the check needs it.
   */
  discovered?: Iterable<string> | (() => Iterable<string>)
  /** Replaces the core set (for `requireDiscovered`). */
  coreTools?: Iterable<string>
  /** The search and execute tools' names in messages (default `ToolSearch` / `ExecuteTool`). */
  names?: ToolNames
  /**
   * Ends a pending call with a refusal (the target never runs). The context's `signal` (MCP) and
   * `abortController.signal` (ccb) are honoured too.
   */
  signal?: AbortSignal
  /**
   * The longest the tool's own checks (`isEnabled`, an async schema, `validateInput`,
   * `checkPermissions`) may each take before the call is refused; default 30,000 ms, `Infinity`
   * for none. The host's `canUseTool` prompt has no deadline: end it with `signal`.
   */
  checkTimeoutMs?: number
}

/** A ccb-shaped tool-use context: the full tool list is `options.tools`. */
export interface ExecuteContext {
  options: { tools: readonly ToolLike[] }
  [key: string]: unknown
}

/** The most tools `executeTool` looks through (a sparse `length = 2**32 - 1` list is refused, not walked). */
export const MAX_TOOLS = 1_000_000

/** The longest unknown name turned into a suggestion query; the rest is ignored. */
const SUGGESTION_QUERY_CHARS = 256

function refuse(tool_name: string, refused: ExecuteToolRefusal, message: string, extra: Partial<ExecuteToolOutput> = {}): ExecuteToolOutput {
  return { tool_name, result: null, refused, message, ...extra }
}

/**
 * The host's tool list, read once: `length` once (a Proxy whose length changes between reads
 * cannot stretch a later walk), capped at `MAX_TOOLS`, each element once. A list that is not an
 * array, or cannot be read at all (a revoked Proxy), is `E_INVALID_ARG`.
 */
function readToolList(context: unknown): unknown[] {
  const toolsRead = readField<unknown>(fieldOrUndefined(context, 'options'), 'tools')
  let n: number
  let tools: unknown
  try {
    tools = toolsRead.ok ? toolsRead.value : undefined
    if (!Array.isArray(tools)) throw invalidArg('executeTool: context.options.tools must be the host tool list')
    n = tools.length
  } catch (e) {
    if (e instanceof ToolIndexError) throw e
    throw invalidArg(`executeTool: context.options.tools cannot be read: ${describeError(e)}`)
  }
  if (n > MAX_TOOLS) throw new ToolIndexError('E_TOO_LARGE', `executeTool: ${n} tools exceed the limit of ${MAX_TOOLS}`)
  const out = new Array<unknown>(n)
  for (let i = 0; i < n; i++) {
    try {
      out[i] = (tools as unknown[])[i]
    } catch {
      out[i] = undefined
    }
  }
  return out
}

function isDeferred(tool: object, core: ReadonlySet<string>, name: string): boolean {
  return fieldOrUndefined(tool, 'alwaysLoad') !== true && !core.has(name)
}

/** Names looked at in a host's `discovered` iterable, at most (an endless iterator ends here). */
const MAX_DISCOVERED = 1_000_000

function wasDiscovered(name: string, options: ExecuteToolOptions): boolean {
  // Own options only: a polluted Object.prototype.discovered or .session discovers nothing. Only
  // an answer of exactly `true` counts (a `has` that answers 1 or 'yes' discovers nothing).
  try {
    const session = fieldOrUndefined<ToolSearchSession>(options, 'session')
    const seen = fieldOrUndefined<ReadonlySet<string>>(session, 'discovered')
    if (seen && typeof seen.has === 'function' && seen.has(name) === true) return true
  } catch {
    // an unreadable session: not discovered through it
  }
  let d = fieldOrUndefined<ExecuteToolOptions['discovered']>(options, 'discovered')
  if (d === undefined || d === null) return false
  try {
    if (typeof d === 'function') d = d()
    // A string is iterable, but as characters, not names: it discovers nothing.
    if (typeof d !== 'object' || d === null) return false
    if (d instanceof Set) return Set.prototype.has.call(d, name) === true
    let seen = 0
    for (const n of d as Iterable<string>) {
      if (n === name) return true
      if (++seen >= MAX_DISCOVERED) return false
    }
  } catch {
    // the host's record cannot be read: not discovered
  }
  return false
}

/** The default of `checkTimeoutMs`. */
export const DEFAULT_CHECK_TIMEOUT_MS = 30_000

/** Why a pending step was cut short. */
class CutShort extends Error {}

function signalLike(v: unknown): v is AbortSignal {
  try {
    return v !== null && typeof v === 'object' && typeof (v as AbortSignal).aborted === 'boolean' && typeof (v as AbortSignal).addEventListener === 'function'
  } catch {
    return false
  }
}

/** `options.signal` (checked), the context's `signal` (MCP) and `abortController.signal` (ccb). */
function signalsOf(options: ExecuteToolOptions, context: unknown): AbortSignal[] {
  const out: AbortSignal[] = []
  const own = readOwn<unknown>(options, 'signal')
  if (!own.ok) throw invalidArg('executeTool: options.signal cannot be read')
  if (own.value !== undefined) {
    if (!signalLike(own.value)) throw invalidArg('executeTool: options.signal must be an AbortSignal')
    out.push(own.value)
  }
  const fromContext = fieldOrUndefined<unknown>(context, 'signal')
  if (signalLike(fromContext)) out.push(fromContext)
  const controller = fieldOrUndefined<unknown>(context, 'abortController')
  const fromController = fieldOrUndefined<unknown>(controller, 'signal')
  if (signalLike(fromController)) out.push(fromController)
  return out
}

function checkTimeoutOf(options: ExecuteToolOptions): number {
  const r = readOwn<unknown>(options, 'checkTimeoutMs')
  if (!r.ok) throw invalidArg('executeTool: options.checkTimeoutMs cannot be read')
  if (r.value === undefined) return DEFAULT_CHECK_TIMEOUT_MS
  const ms = r.value
  if (typeof ms !== 'number' || Number.isNaN(ms) || ms <= 0 || (Number.isFinite(ms) && ms > MAX_TIMER_MS)) {
    throw new ToolIndexError(
      'E_INVALID_NUMBER',
      `executeTool: options.checkTimeoutMs must be a number above 0 and at most ${MAX_TIMER_MS}, or Infinity for no deadline; got ${String(ms)}`,
    )
  }
  return ms
}

/**
 * Bounds for the pending steps of one call: the tool's own checks (`isEnabled`, the schema,
 * `validateInput`, `checkPermissions`) get `checkTimeoutMs` each; the host's permission prompt
 * has no deadline (a person may be answering), and every step ends when a signal aborts. A cut
 * short step rejects with `CutShort`, which the guard turns into a refusal: the target never runs.
 */
function bounds(signals: AbortSignal[], checkMs: number) {
  const aborted = (): boolean => {
    for (const s of signals) {
      try {
        if (s.aborted === true) return true
      } catch {
        return true
      }
    }
    return false
  }
  const within = <T>(p: Promise<T> | T, kind: 'check' | 'prompt'): Promise<T> => {
    if (aborted()) return Promise.reject(new CutShort('the call was aborted'))
    return new Promise<T>((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined
      const onAbort = () => finish(() => reject(new CutShort('the call was aborted')))
      const finish = (settle: () => void) => {
        if (timer !== undefined) clearTimeout(timer)
        for (const s of signals) {
          try {
            s.removeEventListener('abort', onAbort)
          } catch {
            // nothing to remove
          }
        }
        settle()
      }
      for (const s of signals) {
        try {
          s.addEventListener('abort', onAbort, { once: true })
        } catch {
          // a signal that cannot be listened to is still checked before each step
        }
      }
      if (kind === 'check' && Number.isFinite(checkMs)) {
        timer = setTimeout(() => finish(() => reject(new CutShort(`no answer within ${checkMs} ms`))), checkMs)
      }
      Promise.resolve(p).then(
        (v) => finish(() => resolve(v)),
        (e) => finish(() => reject(e)),
      )
    })
  }
  return { aborted, within }
}

/**
 * Run a tool by name (or alias) from `context.options.tools`. An unknown, undiscovered (with
 * `requireDiscovered`), disabled, invalid or denied call never reaches the target: it returns
 * `result: null`, `refused` and a message for the model. Otherwise the target's `call` gets the
 * validated (zod: parsed) input, the same context, `canUseTool`, parent message and progress
 * callback, and its result is returned as `result`. Errors the target throws propagate.
 *
 * Permission is stricter than claude-code-best's own ExecuteExtraTool: a tool without
 * `checkPermissions`, or one that answers `ask`/`passthrough`, goes to `canUseTool`, and no
 * answer there is a denial; a check that throws or answers something malformed is a denial
 * (ccb runs the target unless its check says `deny`). Options are read from `options`' own
 * properties only, and a tool list longer than `MAX_TOOLS` is an `E_TOO_LARGE` error.
 */
export async function executeTool(
  input: ExecuteToolInput,
  context: ExecuteContext,
  canUseTool?: (...args: any[]) => unknown,
  parentMessage?: unknown,
  onProgress?: (...args: any[]) => unknown,
  options: ExecuteToolOptions = {},
): Promise<ExecuteToolOutput> {
  if (input === null || typeof input !== 'object') throw invalidArg('executeTool: input must be an object')
  if (options === null || typeof options !== 'object') throw invalidArg('executeTool: options must be an object')
  const nameRead = readField<unknown>(input, 'tool_name')
  const paramsRead = readField<unknown>(input, 'params')
  if (!nameRead.ok || !paramsRead.ok) throw invalidArg('executeTool: input fields cannot be read')
  const name = nameRead.value
  if (typeof name !== 'string') throw invalidArg(`executeTool: tool_name must be a string, got ${typeof name}`)
  const tools = readToolList(context)
  const names = toolNames(fieldOrUndefined<ToolNames>(options, 'names'))
  const { aborted, within } = bounds(signalsOf(options, context), checkTimeoutOf(options))

  // 1. found. The tool's name is read once, here: every later step uses this name.
  const found = findToolNamed(tools, name)
  const tool = found?.tool
  const call = tool ? readField<unknown>(tool, 'call') : undefined
  if (found && tool && (!call?.ok || typeof call.value !== 'function')) {
    // The tool is there but cannot run: saying "not found" and suggesting its own name would
    // send the model back to it.
    return refuse(name, 'not_found', `Tool "${found.name}" cannot be run: it has no call function.`, { suggestions: [] })
  }
  if (!found || !tool || !call?.ok || typeof call.value !== 'function') {
    // Suggestions index the tools (their prompts may take seconds): a signal or the check
    // deadline ends the wait, and the refusal then comes without them.
    const suggestions = aborted() ? [] : await within(suggest(name, tools), 'check').catch((): string[] => [])
    const hint = suggestions.length ? ` Did you mean: ${suggestions.join(', ')}?` : ''
    return refuse(name, 'not_found', `Tool "${name}" not found. Use ${names.search} to discover available tools.${hint}`, { suggestions })
  }
  const target = found.name
  if (aborted()) return refuse(target, 'denied', `The call to "${target}" was aborted before it ran.`)

  // 2. discovered (only an absent or `false` requireDiscovered turns the check off: an
  // unreadable one, or `1`, `'true'`, `{}`, counts as set; doubt stops)
  const required = readField<unknown>(options, 'requireDiscovered')
  if (!required.ok || (required.value !== undefined && required.value !== false)) {
    const coreTools = fieldOrUndefined<Iterable<string>>(options, 'coreTools')
    let core: ReadonlySet<string> = CORE_TOOLS
    if (coreTools !== undefined) {
      // A string is refused (it would spread into characters: every one-letter tool would be core).
      core = new Set(stringList(coreTools, 'executeTool: options.coreTools'))
    }
    if (isDeferred(tool, core, target) && !wasDiscovered(target, options)) {
      return refuse(
        target,
        'not_discovered',
        `Tool "${target}" has not been discovered yet. You must first use ${names.search} to discover this tool before executing it.\n\nUsage: ${names.search}("select:${target}")`,
      )
    }
  }

  // 3. enabled
  const enabled = async (): Promise<boolean> => {
    try {
      return await within(isEnabled(tool), 'check')
    } catch {
      return false
    }
  }
  if (!(await enabled())) {
    return refuse(target, 'disabled', `Tool "${target}" is disabled and cannot be executed.`)
  }

  // 4. input: schema, then the tool's own check. The same two checks run again on an input a
  // permission decision puts in place, as if the model had sent it (a path check the model's
  // input passed says nothing of the path that replaced it).
  const checkedInput = async (input: unknown): Promise<Checked> => {
    let checked: Checked
    try {
      checked = await within(checkInput(tool, input), 'check')
    } catch (e) {
      return { ok: false, message: `its input check did not finish: ${describeError(e)}` }
    }
    if (!checked.ok) return checked
    let own: Awaited<ReturnType<typeof toolAcceptsInput>>
    try {
      own = await within(toolAcceptsInput(tool, checked.value, context), 'check')
    } catch (e) {
      own = { stopped: true, message: `its validateInput did not finish: ${describeError(e)}` }
    }
    return own ? { ok: false, message: own.message } : checked
  }
  const given = paramsRead.value === undefined || paramsRead.value === null ? {} : paramsRead.value
  const checked = await checkedInput(given)
  if (!checked.ok) return refuse(target, 'invalid_params', `Invalid parameters for tool "${target}": ${checked.message}`)

  // 5. permission. The hooks are handed the checked input itself; one that edits it in place
  // (with or without handing it back as `updatedInput`) has put a new input in place, which is
  // checked again like any other.
  const before = leavesOf(checked.value)
  const permission = await decidePermission(tool, checked.value, context, canUseTool, parentMessage, within)
  if (permission.stopped) return refuse(target, 'denied', `Permission denied for tool "${target}": ${permission.message}`)
  let callInput = checked.value
  const edited = !permission.updated && !sameLeaves(before, leavesOf(checked.value))
  if (permission.updated || edited) {
    const again = await checkedInput(permission.updated ? permission.input : checked.value)
    if (!again.ok) return refuse(target, 'invalid_params', `Invalid parameters for tool "${target}" after the permission decision: ${again.message}`)
    callInput = again.value
  }

  // 6. still enabled, and still the tool that was checked: while the checks were pending the
  // host may have replaced its list, removed the tool, renamed it or disabled it. The list is
  // read after the last wait, so nothing can change it between this look and the call.
  if (!(await enabled())) return refuse(target, 'disabled', `Tool "${target}" was disabled while the call was being checked.`)
  let now: Found | undefined
  try {
    now = findToolNamed(readToolList(context), name)
  } catch {
    now = undefined
  }
  if (!now || now.tool !== tool || now.name !== target) {
    return refuse(target, 'not_found', `Tool "${target}" is no longer available: the tool list changed while the call was being checked.`)
  }
  if (aborted()) return refuse(target, 'denied', `The call to "${target}" was aborted before it ran.`)

  // 7. call
  const result = await (call.value as (...a: unknown[]) => unknown).call(tool, callInput, context, canUseTool, parentMessage, onProgress)
  return { tool_name: target, result }
}

/** Prototypes `leavesOf` compares by identity only. */
const BUILTIN_PROTOTYPES = new Set<object | null>([null, Object.prototype, Array.prototype, Function.prototype, Date.prototype, RegExp.prototype, Map.prototype, Set.prototype, String.prototype, Number.prototype, Boolean.prototype])

/** The most leaves `leavesOf` records; past them an input counts as changed by the permission hooks. */
const MAX_LEAVES = 100_000

/**
 * What an input holds, to tell whether a permission hook changed it in place: every own property
 * (any key, enumerable or not) of every object reachable from it through properties and
 * prototypes other than the engine's own, as key and descriptor (a data value, a primitive or an object by identity; an
 * accessor's functions, never called), with each object's prototype and a date's time.
 * Undefined when it holds more than `MAX_LEAVES` or a trap throws: then it counts as changed.
 * Contents kept in internal slots (a Map's entries, a URL's parts) are not looked at.
 */
function leavesOf(value: unknown): unknown[] | undefined {
  const out: unknown[] = []
  const seen = new Set<object>()
  const stack: unknown[] = [value]
  try {
    while (stack.length > 0) {
      const v = stack.pop()
      out.push(v)
      if (out.length > MAX_LEAVES) return undefined
      if (v === null || (typeof v !== 'object' && typeof v !== 'function') || seen.has(v)) continue
      seen.add(v)
      if (v instanceof Date) out.push(v.getTime())
      // The prototype by identity; walked only when it is not one of the engine's own (whose
      // change is a global one, not an edit of this input, and whose functions the engine may
      // fill in lazily).
      const proto = Reflect.getPrototypeOf(v)
      out.push(proto)
      if (!BUILTIN_PROTOTYPES.has(proto as object)) stack.push(proto)
      const keys = Reflect.ownKeys(v)
      out.push(keys.length)
      for (const k of keys) {
        const d = Reflect.getOwnPropertyDescriptor(v, k)
        out.push(k, d?.enumerable, d?.get, d?.set)
        if (d && 'value' in d) stack.push(d.value)
      }
    }
  } catch {
    return undefined
  }
  return out
}

/** Whether two `leavesOf` records are the same (an unreadable one never is). */
function sameLeaves(a: unknown[] | undefined, b: unknown[] | undefined): boolean {
  if (!a || !b || a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) return false
  return true
}

/** A separate index line over all tools (core included), so suggestions do not evict ToolSearch's. */
const suggestionCache = new ToolIndexCache()

async function suggest(name: string, tools: readonly unknown[]): Promise<string[]> {
  const head = name.slice(0, SUGGESTION_QUERY_CHARS)
  if (!head.trim()) return []
  try {
    const words = head.replace(/^mcp__/, '').replace(/[_\-]+/g, ' ').replace(/([a-z])([A-Z])/g, '$1 $2')
    const usable = tools.filter((t) => t !== null && typeof t === 'object' && typeof fieldOrUndefined(t, 'name') === 'string')
    const out = await toolSearch({ query: words, max_results: 3 }, { tools: usable as ToolLike[], coreTools: [], cache: suggestionCache })
    return out.matches
  } catch {
    // Suggestions are a courtesy: a tool list they cannot index still gets its refusal.
    return []
  }
}
