/**
 * What a claude-code-best host needs beyond the search and execute logic: the discovered tools
 * read back from the conversation (so discovery survives compaction), and the result shape of
 * its ExecuteExtraTool.
 */
import type { ExecuteToolOutput } from './executeTool'
import { readOwn } from './safeRead'

/** The line `formatToolSearchResult` writes and this module reads back. */
const DISCOVERED_LINE = /^Found \d+ deferred tool\(s\): (.+)\.$/gm

/** Messages and blocks looked at, at most (a conversation is far smaller). */
const MAX_MESSAGES = 100_000
const MAX_BLOCKS = 10_000

function own(obj: unknown, key: string): unknown {
  const r = readOwn<unknown>(obj, key)
  return r.ok ? r.value : undefined
}

function addNames(out: Set<string>, names: unknown): void {
  if (!Array.isArray(names)) return
  for (const n of names.slice(0, MAX_BLOCKS)) if (typeof n === 'string' && n) out.add(n)
}

function addFromText(out: Set<string>, text: string): void {
  for (const m of text.matchAll(DISCOVERED_LINE)) {
    for (const name of m[1].split(',')) {
      const n = name.trim()
      if (n) out.add(n)
    }
  }
}

function addFromToolResult(out: Set<string>, block: unknown): void {
  if (own(block, 'type') !== 'tool_result') return
  const content = own(block, 'content')
  if (typeof content === 'string') return addFromText(out, content)
  if (!Array.isArray(content)) return
  for (const item of content.slice(0, MAX_BLOCKS)) {
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
 * (its text result's `Found N deferred tool(s): …` line, or `tool_reference` blocks from older
 * sessions), names a compact boundary carried over (`compactMetadata.preCompactDiscoveredTools`),
 * and names a deferred-tools-delta attachment announced (`attachment.addedNames`). Malformed
 * messages are skipped; nothing here throws.
 */
export function extractDiscoveredToolNames(messages: unknown): Set<string> {
  const out = new Set<string>()
  if (!Array.isArray(messages)) return out
  const n = Math.min(messages.length, MAX_MESSAGES)
  for (let i = 0; i < n; i++) {
    let msg: unknown
    try {
      msg = messages[i]
    } catch {
      continue
    }
    const type = own(msg, 'type')
    if (type === 'system') {
      if (own(msg, 'subtype') === 'compact_boundary') addNames(out, own(own(msg, 'compactMetadata'), 'preCompactDiscoveredTools'))
    } else if (type === 'attachment') {
      const att = own(msg, 'attachment')
      if (own(att, 'type') === 'deferred_tools_delta') addNames(out, own(att, 'addedNames'))
    } else if (type === 'user') {
      const content = own(own(msg, 'message'), 'content')
      if (!Array.isArray(content)) continue
      for (const block of content.slice(0, MAX_BLOCKS)) addFromToolResult(out, block)
    }
  }
  return out
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
