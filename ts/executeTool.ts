/**
 * ExecuteTool (SPEC §7): run a tool by name after every check that can stop it, in
 * claude-code-best's order: found → discovered → enabled → input (the schema's own library,
 * then the tool's `validateInput`) → permission → call. A stopped tool never runs.
 */
import { ToolIndexError, invalidArg } from './errors'
import { checkInput } from './validate'
import { decidePermission, isEnabled, toolAcceptsInput } from './policy'
import { CORE_TOOLS, toolNames, type ToolNames } from './presets'
import { fieldOrUndefined, readField } from './safeRead'
import { ToolIndexCache } from './cache'
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

/** The tool named `name` (by `name`, then by `aliases`); tools whose fields throw are skipped. */
function findTool(tools: readonly unknown[], name: string): object | undefined {
  const n = tools.length
  if (n > MAX_TOOLS) throw new ToolIndexError('E_TOO_LARGE', `executeTool: ${n} tools exceed the limit of ${MAX_TOOLS}`)
  for (let i = 0; i < n; i++) {
    const t = tools[i]
    if (t !== null && typeof t === 'object' && fieldOrUndefined(t, 'name') === name) return t
  }
  for (let i = 0; i < n; i++) {
    const t = tools[i]
    if (t === null || typeof t !== 'object') continue
    const aliases = fieldOrUndefined(t, 'aliases')
    if (!Array.isArray(aliases) || aliases.length > 1000) continue
    try {
      if (aliases.includes(name)) return t
    } catch {
      // a hostile aliases array: not this tool
    }
  }
  return undefined
}

function isDeferred(tool: object, core: ReadonlySet<string>, name: string): boolean {
  return fieldOrUndefined(tool, 'alwaysLoad') !== true && !core.has(name)
}

function wasDiscovered(name: string, options: ExecuteToolOptions): boolean {
  // Own options only: a polluted Object.prototype.discovered or .session discovers nothing.
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
    if (d instanceof Set) return d.has(name)
    for (const n of d as Iterable<string>) if (n === name) return true
  } catch {
    // the host's record cannot be read: not discovered
  }
  return false
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
  const toolsRead = readField<unknown>(fieldOrUndefined(context, 'options'), 'tools')
  const tools = toolsRead.ok ? toolsRead.value : undefined
  if (!Array.isArray(tools)) throw invalidArg('executeTool: context.options.tools must be the host tool list')
  const names = toolNames(fieldOrUndefined<ToolNames>(options, 'names'))

  // 1. found
  const tool = findTool(tools, name)
  const call = tool ? readField<unknown>(tool, 'call') : undefined
  if (!tool || !call?.ok || typeof call.value !== 'function') {
    const suggestions = await suggest(name, tools)
    const hint = suggestions.length ? ` Did you mean: ${suggestions.join(', ')}?` : ''
    return refuse(name, 'not_found', `Tool "${name}" not found. Use ${names.search} to discover available tools.${hint}`, { suggestions })
  }
  const targetName = fieldOrUndefined(tool, 'name')
  const target = typeof targetName === 'string' ? targetName : name

  // 2. discovered
  if (fieldOrUndefined(options, 'requireDiscovered') === true) {
    const coreTools = fieldOrUndefined<Iterable<string>>(options, 'coreTools')
    let core: ReadonlySet<string> = CORE_TOOLS
    if (coreTools !== undefined) {
      try {
        core = new Set([...coreTools].filter((n) => typeof n === 'string'))
      } catch {
        throw invalidArg('executeTool: options.coreTools must be an iterable of names')
      }
    }
    if (isDeferred(tool, core, target) && !wasDiscovered(target, options)) {
      return refuse(
        target,
        'not_discovered',
        `Tool "${target}" has not been discovered yet. Find it with ${names.search} first, then run it.\n\nFor example: ${names.search}("select:${target}")`,
      )
    }
  }

  // 3. enabled
  if (!(await isEnabled(tool))) {
    return refuse(target, 'disabled', `Tool "${target}" is disabled and cannot be executed.`)
  }

  // 4. input: schema, then the tool's own check
  const given = paramsRead.value === undefined || paramsRead.value === null ? {} : paramsRead.value
  const checked = await checkInput(tool, given)
  if (!checked.ok) return refuse(target, 'invalid_params', `Invalid params for "${target}": ${checked.message}`)
  const own = await toolAcceptsInput(tool, checked.value, context)
  if (own) return refuse(target, 'invalid_params', `Invalid params for "${target}": ${own.message}`)

  // 5. permission
  const permission = await decidePermission(tool, checked.value, context, canUseTool, parentMessage)
  if (permission.stopped) return refuse(target, 'denied', `Permission to use "${target}" was denied: ${permission.message}`)
  let callInput = checked.value
  if (permission.updated) {
    // A replaced input is checked again, as if the model had sent it.
    const again = await checkInput(tool, permission.input)
    if (!again.ok) return refuse(target, 'invalid_params', `Invalid params for "${target}" after the permission decision: ${again.message}`)
    callInput = again.value
  }

  // 6. call
  const result = await (call.value as (...a: unknown[]) => unknown).call(tool, callInput, context, canUseTool, parentMessage, onProgress)
  return { tool_name: target, result }
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
