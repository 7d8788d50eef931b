/**
 * The reference's module API (claude-code-best's `toolIndex.ts` and `localSearch.ts` exports):
 * `buildToolIndex`, `searchTools`, `getToolIndex`, `isDeferredTool`, the tokenizer.
 */
import { binding } from './native'
import { invalidArg, native } from './errors'
import { DEFAULT_LIMIT, LIMITS, dropInScoring } from './config'
import { checkLength, checkToolArray, copyToolArray, readToolField as readField, readingInput, stringList, typeName } from './input'
import { ToolIndex } from './toolIndex'
import type { BuildOptions, ToolIndexEntry, ToolLike, ToolSearchResult } from './types'

export { buildToolIndex } from './build'
export { getToolIndex, clearToolIndexCache } from './cache'


/** Split a tool name into lowercased parts: `mcp__github__create_issue` → github, create, issue. */
export function parseToolName(name: string): { parts: string[]; full: string; isMcp: boolean } {
  if (typeof name !== 'string') throw invalidArg(`parseToolName: name must be a string, got ${typeName(name)}`)
  return native(() => binding.parseToolName(name))
}

/** The reference tokenizer: lowercased CJK bigrams and ASCII words, stop words dropped. */
export function tokenize(text: string): string[] {
  if (typeof text !== 'string') throw invalidArg(`tokenize: text must be a string, got ${typeName(text)}`)
  checkLength(text, LIMITS.textLength, 'text')
  return native(() => binding.tokenize(text))
}

/** `tokenize` followed by the reference's suffix stemmer. */
export function tokenizeAndStem(text: string): string[] {
  if (typeof text !== 'string') throw invalidArg(`tokenizeAndStem: text must be a string, got ${typeName(text)}`)
  checkLength(text, LIMITS.textLength, 'text')
  return native(() => binding.tokenizeAndStem(text))
}

/**
 * Reference `isDeferredTool`: `alwaysLoad === true` → false; a core tool → false; else true.
 * `options.coreTools` replaces the core set.
 */
export function isDeferredTool(tool: Pick<ToolLike, 'name' | 'alwaysLoad'>, options?: Pick<BuildOptions, 'coreTools'>): boolean {
  if (tool === null || typeof tool !== 'object') throw invalidArg(`isDeferredTool: tool must be an object, got ${typeName(tool)}`)
  const name = readField(tool, 'name', 0)
  if (typeof name !== 'string') throw invalidArg(`isDeferredTool: tool.name must be a string, got ${typeName(name)}`)
  const core = options?.coreTools === undefined ? undefined : stringList(options.coreTools, 'coreTools')
  return native(() => binding.isDeferredTool({ name, alwaysLoad: readField(tool, 'alwaysLoad', 0) === true }, core))
}

/**
 * Search the index: results best first, ties in index order, scores at or above
 * `TOOL_SEARCH_DISPLAY_MIN_SCORE` (default 0.10). `limit` defaults to 5; a fraction is truncated;
 * NaN, a negative number or a non-number throws `E_INVALID_LIMIT`.
 * `index` may also be an array of reference-shaped entries (built natively on first use).
 */
export function searchTools(query: string, index: ToolIndex | readonly ToolIndexEntry[], limit: number = DEFAULT_LIMIT): ToolSearchResult[] {
  // `instanceof` and `Array.isArray` throw on a revoked Proxy: E_INVALID_ARG.
  const kind = readingInput('the index', () => (index instanceof ToolIndex ? 'index' : Array.isArray(index) ? 'array' : 'other'))
  if (kind === 'index') return (index as ToolIndex).search(query, limit)
  if (kind === 'array') return fromArray(index as readonly ToolIndexEntry[]).search(query, limit)
  throw invalidArg(`searchTools: index must be a ToolIndex or an array of entries, got ${typeName(index)}`)
}

/** What an array was indexed from: its elements then, so any replacement is noticed. */
const arrayIndexes = new WeakMap<readonly ToolIndexEntry[], { elements: ToolIndexEntry[]; index: ToolIndex }>()

/**
 * The index of an array of entries, built on first use and rebuilt when the array changed:
 * another length, or any element replaced in place (one identity check per element, far less
 * than the search). Entries changed field by field are not noticed: replace the entry.
 */
function fromArray(entries: readonly ToolIndexEntry[]): ToolIndex {
  const hit = arrayIndexes.get(entries)
  if (hit && sameElements(hit.elements, entries)) return hit.index
  const elements = copyToolArray<ToolIndexEntry>(entries, 'entries')
  const index = ToolIndex.fromEntries(elements, { scoring: dropInScoring() })
  hit?.index.dispose()
  arrayIndexes.set(entries, { elements, index })
  return index
}

function sameElements(a: readonly ToolIndexEntry[], b: readonly ToolIndexEntry[]): boolean {
  if (a.length !== b.length) return false
  try {
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  } catch {
    return false
  }
  return true
}
