/**
 * ExecuteTool (SPEC §7): run a tool by name, in ccb's guard order: not found -> not discovered
 * -> disabled -> schema validation -> `validateInput` -> permissions -> call. Nothing runs that
 * must not: every doubt (a throw, a malformed answer, a missing answer) is a refusal.
 */
import { ToolIndexError, invalidArg } from './errors'
import { ToolIndexCache, isDeferredTool } from './index'
import { Doubt, isToolEnabled, message, readDecision, readMethod, readOwn, type Decision } from './policy'
import { toolSearch, type ToolSearchSession } from './toolSearch'
import type { ToolLike } from './types'
import { snapshotParams, validatorOf, type Checked } from './validate'

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
  /** The package's in-memory record of what ToolSearch returned. */
  session?: ToolSearchSession
  /** Names the host reports as discovered (e.g. read from the conversation), or a function giving them. */
  discovered?: Iterable<string> | (() => Iterable<string>)
  /** Replaces the core set (for `requireDiscovered`). */
  coreTools?: Iterable<string>
  /** Tool names written in refusal messages (defaults `ToolSearch` / `ExecuteTool`). */
  names?: { search?: string; execute?: string }
}

/** A ccb-shaped tool-use context: the full tool list is `options.tools`. */
export interface ExecuteContext {
  options: { tools: readonly ToolLike[] }
  [key: string]: unknown
}

/** The most tools `executeTool` looks through. */
export const MAX_TOOLS = 1_000_000
/** The longest unknown name used to build suggestions. */
const MAX_SUGGEST_CHARS = 256

function refuse(tool_name: string, refused: ExecuteToolRefusal, message: string, extra: Partial<ExecuteToolOutput> = {}): ExecuteToolOutput {
  return { tool_name, result: null, refused, message, ...extra }
}

/** An own option (a polluted prototype cannot switch options on or off). */
function opt<T>(options: object, key: string): T | undefined {
  const v = readOwn(options, key)
  if (v instanceof Doubt) throw invalidArg(`executeTool: options.${key}: ${v.reason}`)
  return v as T | undefined
}

/** Find the tool by name, then by alias; tools whose fields cannot be read are skipped. */
function findTool(tools: readonly unknown[], name: string): { tool: object; name: string } | undefined {
  const n = tools.length
  if (n > MAX_TOOLS) throw new ToolIndexError('E_TOO_LARGE', `executeTool: ${n} tools exceed the limit of ${MAX_TOOLS}`)
  let byAlias: { tool: object; name: string } | undefined
  for (let i = 0; i < n; i++) {
    const t = tools[i]
    if (t === null || typeof t !== 'object') continue
    const tn = readOwn(t, 'name')
    if (typeof tn !== 'string') continue
    if (tn === name) return { tool: t, name: tn }
    if (!byAlias) {
      const aliases = readOwn(t, 'aliases')
      if (Array.isArray(aliases) && aliases.length <= 1000) {
        try {
          if (aliases.includes(name)) byAlias = { tool: t, name: tn }
        } catch {
          // unreadable aliases: not a match
        }
      }
    }
  }
  return byAlias
}

function discoveredNames(options: object): Set<string> | Doubt {
  const out = new Set<string>()
  try {
    let d = opt<Iterable<string> | (() => Iterable<string>)>(options, 'discovered')
    if (typeof d === 'function') d = d()
    if (d !== undefined && d !== null) for (const x of d) if (typeof x === 'string') out.add(x)
    const session = opt<ToolSearchSession>(options, 'session')
    const seen = session ? readOwn(session, 'discovered') : undefined
    if (seen instanceof Doubt) return seen
    if (seen !== undefined && seen !== null) for (const x of seen as Iterable<string>) if (typeof x === 'string') out.add(x)
  } catch (err) {
    return new Doubt(`reading the discovered tools threw: ${message(err)}`)
  }
  return out
}

/** The tool's deferral, from a copy of just the fields that decide it (own reads only). */
function deferred(tool: object, name: string, coreTools: Iterable<string> | undefined): boolean {
  const probe = Object.create(null) as { name: string; alwaysLoad: boolean }
  probe.name = name
  const alwaysLoad = readOwn(tool, 'alwaysLoad')
  probe.alwaysLoad = alwaysLoad === true
  return isDeferredTool(probe, coreTools === undefined ? undefined : { coreTools: [...coreTools] })
}

/**
 * Run a tool by name (or alias) from `context.options.tools`. Unknown, undiscovered (with
 * `requireDiscovered`), disabled, schema-invalid, `validateInput`-rejected and
 * permission-denied calls never reach the target, and return `{result: null, refused, message}`.
 * A zod schema's parsed output is what the tool gets; an `updatedInput` from any permission
 * decision is validated again. A tool without `checkPermissions` is `passthrough`: the host's
 * `canUseTool` decides, and without one (or without an answer) the call is denied. Errors the
 * target throws propagate unchanged.
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
  const name = readOwn(input, 'tool_name')
  if (typeof name !== 'string') throw invalidArg(`executeTool: tool_name must be a string, got ${name instanceof Doubt ? name.reason : typeof name}`)
  let tools: unknown
  try {
    tools = context?.options?.tools
  } catch (err) {
    throw invalidArg(`executeTool: reading context.options.tools threw: ${message(err)}`)
  }
  if (!Array.isArray(tools)) throw invalidArg('executeTool: context.options.tools must be the host tool list')
  const names = opt<{ search?: unknown; execute?: unknown }>(options, 'names')
  const searchName = typeof names?.search === 'string' && names.search ? names.search : 'ToolSearch'

  // 1. not found
  const found = findTool(tools, name)
  if (!found || !(readMethod(found.tool, 'call') instanceof Function)) {
    const suggestions = await suggest(name, tools as ToolLike[])
    const hint = suggestions.length ? ` Did you mean: ${suggestions.join(', ')}?` : ''
    return refuse(name, 'not_found', `Tool "${name}" not found. Use ${searchName} to discover available tools.${hint}`, { suggestions })
  }
  const { tool, name: target } = found
  const call = readMethod(tool, 'call') as (...args: any[]) => unknown

  // 2. not discovered
  if (opt<unknown>(options, 'requireDiscovered') === true) {
    const coreTools = opt<Iterable<string>>(options, 'coreTools')
    const seen = discoveredNames(options)
    if (seen instanceof Doubt || (deferred(tool, target, coreTools) && !seen.has(target))) {
      return refuse(target, 'not_discovered', `Tool "${target}" has not been discovered yet. Call ${searchName} (e.g. "select:${target}") first.`)
    }
  }

  // 3. disabled
  if (!(await isToolEnabled(tool))) {
    return refuse(target, 'disabled', `Tool "${target}" is disabled and cannot be executed.`)
  }

  // 4. schema validation
  const schema = validatorOf(tool)
  if (schema instanceof Doubt) {
    return refuse(target, 'invalid_params', `Tool "${target}" cannot be called: ${schema.reason}.`)
  }
  const check = async (value: unknown): Promise<Checked> => {
    const snap = snapshotParams(value)
    if (!snap.ok || !schema) return snap
    return schema(snap.value)
  }
  let params: unknown
  try {
    params = readOwn(input, 'params')
  } catch {
    params = new Doubt('unreadable params')
  }
  if (params instanceof Doubt) return refuse(target, 'invalid_params', `Invalid params for "${target}": ${params.reason}`)
  const first = await check(params ?? {})
  if (!first.ok) return refuse(target, 'invalid_params', `Invalid params for "${target}": ${first.reason}`)
  let callInput = first.value

  // 5. validateInput
  const validateInput = readMethod(tool, 'validateInput')
  if (validateInput instanceof Doubt) return refuse(target, 'invalid_params', `Invalid params for "${target}": ${validateInput.reason}`)
  if (validateInput) {
    let verdict: unknown
    try {
      verdict = await validateInput.call(tool, callInput, context)
    } catch (err) {
      return refuse(target, 'invalid_params', `Invalid params for "${target}": validateInput threw: ${message(err)}`)
    }
    if (verdict !== undefined && verdict !== null) {
      const result = readOwn(verdict, 'result')
      if (result !== true) {
        const why = readOwn(verdict, 'message')
        return refuse(target, 'invalid_params', `Invalid params for "${target}": ${typeof why === 'string' && why ? why : 'rejected by the tool'}`)
      }
    }
  }

  // 6. permissions: the tool's own check (missing = passthrough), then the host for ask/passthrough
  const checkPermissions = readMethod(tool, 'checkPermissions')
  let decision: Decision
  if (checkPermissions instanceof Doubt) decision = { behavior: 'deny', message: checkPermissions.reason, hasUpdatedInput: false }
  else if (!checkPermissions) decision = { behavior: 'passthrough', hasUpdatedInput: false }
  else {
    try {
      decision = readDecision(await checkPermissions.call(tool, callInput, context))
    } catch (err) {
      decision = { behavior: 'deny', message: `checkPermissions threw: ${message(err)}`, hasUpdatedInput: false }
    }
  }
  // An updatedInput that is the very value handed to the check is the validated input (a zod
  // transform's output need not parse again); any other value is validated again.
  const changed = (d: Decision) => d.hasUpdatedInput && d.updatedInput !== callInput
  if (decision.behavior === 'allow' && changed(decision)) {
    const again = await check(decision.updatedInput)
    if (!again.ok) return refuse(target, 'denied', `Permission to use "${target}" was denied: the permission check's updatedInput is invalid: ${again.reason}`)
    callInput = again.value
  }
  if (decision.behavior === 'ask' || decision.behavior === 'passthrough') {
    if (changed(decision)) {
      const again = await check(decision.updatedInput)
      if (!again.ok) return refuse(target, 'denied', `Permission to use "${target}" was denied: the permission check's updatedInput is invalid: ${again.reason}`)
      callInput = again.value
    }
    if (typeof canUseTool !== 'function') {
      decision = { behavior: 'deny', message: 'this tool needs permission and no permission prompt is available', hasUpdatedInput: false }
    } else {
      try {
        decision = readDecision(await canUseTool(tool, callInput, context, parentMessage))
      } catch (err) {
        decision = { behavior: 'deny', message: `the permission prompt threw: ${message(err)}`, hasUpdatedInput: false }
      }
      if (decision.behavior === 'allow' && changed(decision)) {
        const again = await check(decision.updatedInput)
        if (!again.ok) return refuse(target, 'denied', `Permission to use "${target}" was denied: the permission prompt's updatedInput is invalid: ${again.reason}`)
        callInput = again.value
      }
    }
  }
  // Fail closed: anything but an explicit allow refuses (a second ask/passthrough included).
  if (decision.behavior !== 'allow') {
    return refuse(target, 'denied', `Permission to use "${target}" was denied${decision.message ? `: ${decision.message}` : '.'}`)
  }

  // 7. call
  const result = await call.call(tool, callInput, context, canUseTool, parentMessage, onProgress)
  return { tool_name: target, result }
}

/** A separate index line over all tools (core included), so suggestions do not evict ToolSearch's. */
const suggestionCache = new ToolIndexCache()

/** Up to three close names; best effort (a hostile tool list gives none). Linear in the name. */
async function suggest(name: string, tools: readonly ToolLike[]): Promise<string[]> {
  const short = name.slice(0, MAX_SUGGEST_CHARS)
  if (!short.trim()) return []
  try {
    const words = short.replace(/^mcp__/, '').replace(/[_-]+/g, ' ').replace(/([a-z])([A-Z])/g, '$1 $2')
    const usable = tools.filter((t) => t !== null && typeof t === 'object' && typeof readOwn(t, 'name') === 'string')
    const out = await toolSearch({ query: words, max_results: 3 }, { tools: usable, coreTools: [], cache: suggestionCache })
    return out.matches
  } catch {
    return []
  }
}
