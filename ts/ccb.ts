/**
 * What a claude-code-best host needs beyond the search and execute logic: the discovered tools
 * read back from the conversation (so discovery survives compaction), and the result shape of
 * its ExecuteExtraTool.
 */
import type { ExecuteToolOutput } from './executeTool'
import { CCB_CORE_TOOLS, CCB_TOOL_NAMES, CORE_TOOLS, SEED_TOOL_NAMES } from './presets'
import { readField, readOwn } from './safeRead'

/**
 * The line `formatToolSearchResult` writes first and this module reads back. Only a result's
 * first line counts: a tool description or a file shown further down cannot pass for it.
 */
const DISCOVERED_LINE = /^Found (\d+) deferred tool\(s\): (.+)\.$/

/** Options of `extractDiscoveredToolNames`. */
export interface ExtractDiscoveredOptions {
  /**
   * The search tool's names. Given, a tool result whose `tool_use` the conversation shows under
   * another name is not read. Left out, the search tool is `ToolSearch`, `SearchExtraTools` or a
   * host's own, and the results not read are those of the other core tools (Read, Bash, WebFetch,
   * ...) and of MCP tools (`mcp__…`), the tools that bring outside text into a conversation.
   */
  searchToolNames?: Iterable<string>
}

/** Messages and blocks looked at, at most (a conversation is far smaller). */
const MAX_MESSAGES = 100_000
const MAX_BLOCKS = 10_000
/**
 * Elements read in all, messages and blocks of both passes together: the caps above alone would
 * allow 10^9 reads (100,000 messages sharing one 10,000-block list: 15 s of a blocked event
 * loop). Past it, the rest of the conversation is not read (it discovers nothing).
 */
const MAX_READS = 1_000_000
/** Reads left to the running `extractDiscoveredToolNames` (it is synchronous). */
let readsLeft = 0

function own(obj: unknown, key: string): unknown {
  const r = readOwn<unknown>(obj, key)
  return r.ok ? r.value : undefined
}

function addNames(out: Set<string>, names: unknown): void {
  for (const n of readList(names, MAX_BLOCKS)) if (typeof n === 'string' && n) out.add(n)
}

/**
 * The names of a `Found N deferred tool(s): A, B.` first line. The line is read only when it
 * splits into exactly N non-empty names: a tool whose name holds a comma makes it ambiguous
 * (`notes_app, mcp__bank__transfer` would read as two tools, one of them never found), and an
 * ambiguous line discovers nothing.
 */
function addFromText(out: Set<string>, text: string): void {
  const end = text.search(/\r?\n|\r/)
  const m = DISCOVERED_LINE.exec(end < 0 ? text : text.slice(0, end))
  if (!m) return
  const names = m[2].split(',').map((name) => name.trim())
  if (names.length !== Number(m[1]) || names.some((n) => !n)) return
  for (const n of names) out.add(n)
}

/**
 * The first `max` elements of an array, each read once; `[]` for anything else. An element, a
 * length or an `Array.isArray` that throws (a getter, a Proxy trap, a revoked Proxy) is left
 * out, as a malformed message is.
 */
function readList(list: unknown, max: number): unknown[] {
  let n: number
  try {
    if (!Array.isArray(list)) return []
    n = Math.min(list.length, max, readsLeft)
  } catch {
    return []
  }
  readsLeft -= n
  const out: unknown[] = []
  for (let i = 0; i < n; i++) {
    try {
      out.push(list[i])
    } catch {
      // skipped
    }
  }
  return out
}

/** `tool_use` id → tool name, from the assistant messages. */
function toolUses(messages: readonly unknown[]): Map<string, unknown> {
  const uses = new Map<string, unknown>()
  for (const msg of messages) {
    if (own(msg, 'type') !== 'assistant') continue
    for (const block of readList(own(own(msg, 'message'), 'content'), MAX_BLOCKS)) {
      const id = own(block, 'id')
      if (own(block, 'type') === 'tool_use' && typeof id === 'string') uses.set(id, own(block, 'name'))
    }
  }
  return uses
}

/** The search tool's names, and whether the host gave them (else any tool but the core and MCP ones may be it). */
interface SearchNames {
  names: ReadonlySet<string>
  given: boolean
}

/** Whether the result of a call to `tool` may name discovered tools. */
function fromSearch(tool: unknown, search: SearchNames): boolean {
  if (typeof tool !== 'string') return false
  if (search.names.has(tool)) return true
  if (search.given) return false
  return !CORE_TOOLS.has(tool) && !CCB_CORE_TOOLS.has(tool) && !tool.startsWith('mcp__')
}

function addFromToolResult(out: Set<string>, block: unknown, uses: Map<string, unknown>, search: SearchNames): void {
  if (own(block, 'type') !== 'tool_result') return
  // The result of a call the conversation shows going to another tool is that tool's output.
  const id = own(block, 'tool_use_id')
  if (typeof id === 'string' && uses.has(id) && !fromSearch(uses.get(id), search)) return
  const content = own(block, 'content')
  if (typeof content === 'string') return addFromText(out, content)
  for (const item of readList(content, MAX_BLOCKS)) {
    const type = own(item, 'type')
    if (type === 'tool_reference') {
      const name = own(item, 'tool_name')
      if (typeof name === 'string' && name) out.add(name)
    } else if (type === 'text') {
      const text = own(item, 'text')
      if (typeof text === 'string') addFromText(out, text)
    }
  }
}

/**
 * The tools the model has discovered in a ccb conversation: names the search tool returned
 * (the `Found N deferred tool(s): …` first line of its text result, or `tool_reference` blocks
 * from older sessions), names a compact boundary carried over
 * (`compactMetadata.preCompactDiscoveredTools`), and names a deferred-tools-delta attachment
 * announced (`attachment.addedNames`). A tool result is read unless the conversation shows its
 * `tool_use` going to a tool that is not the search tool (see `searchToolNames`). Malformed
 * messages are skipped, options that throw when read discover nothing, and nothing here throws.
 */
export function extractDiscoveredToolNames(messages: unknown, options?: ExtractDiscoveredOptions): Set<string> {
  const out = new Set<string>()
  const search = searchNames(options)
  // Options that cannot be read discover nothing: a doubt about discovery is a refusal.
  if (!search) return out
  const outer = readsLeft
  readsLeft = MAX_READS
  try {
    scan(out, messages, search)
  } finally {
    readsLeft = outer
  }
  return out
}

/** Both passes over the messages (see `extractDiscoveredToolNames`), within `readsLeft`. */
function scan(out: Set<string>, messages: unknown, search: SearchNames): void {
  // Read once: both passes see the same messages, however their getters answer.
  const list = readList(messages, MAX_MESSAGES)
  const uses = toolUses(list)
  for (const msg of list) {
    const type = own(msg, 'type')
    if (type === 'system') {
      if (own(msg, 'subtype') === 'compact_boundary') addNames(out, own(own(msg, 'compactMetadata'), 'preCompactDiscoveredTools'))
    } else if (type === 'attachment') {
      const att = own(msg, 'attachment')
      if (own(att, 'type') === 'deferred_tools_delta') addNames(out, own(att, 'addedNames'))
    } else if (type === 'user') {
      for (const block of readList(own(own(msg, 'message'), 'content'), MAX_BLOCKS)) addFromToolResult(out, block, uses, search)
    }
  }
}

/** The search tool's names: the option's strings (one string is one name), else the two defaults; undefined when the option cannot be read. */
function searchNames(options: ExtractDiscoveredOptions | undefined): SearchNames | undefined {
  const names = new Set<string>()
  try {
    const read = readField<unknown>(options, 'searchToolNames')
    if (!read.ok) return undefined
    const given = read.value
    if (typeof given === 'string') names.add(given)
    else if (given !== undefined && given !== null && typeof given === 'object' && Symbol.iterator in given) {
      let seen = 0
      for (const name of given as Iterable<unknown>) {
        if (typeof name === 'string') names.add(name)
        if (++seen >= MAX_BLOCKS) break
      }
    }
  } catch {
    return undefined
  }
  if (names.size > 0) return { names, given: true }
  return { names: new Set([SEED_TOOL_NAMES.search, CCB_TOOL_NAMES.search]), given: false }
}

/** Why an ExecuteExtraTool call did not run, kept beside ccb's result shape. */
export interface ExecuteRefusal {
  reason: NonNullable<ExecuteToolOutput['refused']>
  message: string
  suggestions?: string[]
}

/** ccb's ExecuteExtraTool result: `data` as ccb's output schema has it, plus what ccb's runtime reads. */
export interface ExtraToolResult {
  data: { result: unknown; tool_name: string }
  newMessages?: unknown[]
  /** Present on a refusal (not enumerable, so ccb's shape and equality checks are unchanged). */
  readonly refusal?: ExecuteRefusal
  [key: string]: unknown
}

/**
 * `executeTool`'s outcome in ccb's ExecuteExtraTool shape. A call that ran returns the target's
 * own result with its `data` wrapped: `{...targetResult, data: {result: targetResult.data,
 * tool_name}}`, so the target's `newMessages` and `contextModifier` reach ccb's runtime. A
 * refusal returns `data: {result: null, tool_name}` and the message for the model as a user
 * message made by the host's `createUserMessage`; the reason and suggestions are on `refusal`.
 */
export function toExtraToolResult(out: ExecuteToolOutput, createUserMessage: (m: { content: string }) => unknown): ExtraToolResult {
  const tool_name = out.tool_name
  if (out.refused === undefined) {
    const target = out.result
    if (target !== null && typeof target === 'object' && !Array.isArray(target)) {
      return { ...(target as Record<string, unknown>), data: { result: own(target, 'data'), tool_name } }
    }
    return { data: { result: target, tool_name } }
  }
  const message = out.message ?? `Tool "${tool_name}" was not run.`
  const result: ExtraToolResult = { data: { result: null, tool_name }, newMessages: [createUserMessage({ content: message })] }
  const refusal: ExecuteRefusal = { reason: out.refused, message, ...(out.suggestions?.length ? { suggestions: out.suggestions } : {}) }
  Object.defineProperty(result, 'refusal', { value: refusal, enumerable: false })
  return result
}
