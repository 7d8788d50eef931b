/**
 * ToolSearch (SPEC §6): `select:`, `discover:`, and keyword + TF-IDF ranking in one native
 * call, over the deferred tools of the host's tool list.
 */
import { ToolIndexError, invalidArg } from './errors'
import { CORE_TOOLS, LIMITS, ToolIndex, ToolIndexCache, readingInput, stringList } from './index'
import { inputSchemaOf } from './schema'
import type { BuildOptions, Scoring, ToolLike } from './types'

/** The ToolSearch tool's input. */
export interface ToolSearchInput {
  query: string
  max_results?: number
}

/** What `toolSearch` needs from the host. */
export interface ToolSearchContext {
  /** The host's full tool list (core and deferred, built-in and MCP). */
  tools: readonly ToolLike[]
  /** MCP servers still connecting (named when nothing matches). */
  pendingMcpServers?: readonly string[]
  /** Replaces the core set. */
  coreTools?: Iterable<string>
  /** `'enhanced'` (the default) or `'compat'` (the reference's keyword + TF-IDF merge). */
  scoring?: Scoring
  /** Records what this search returned, for `executeTool`'s `requireDiscovered`. */
  session?: ToolSearchSession
  /** The index cache to use (a module-wide one by default). */
  cache?: ToolIndexCache
  /** Passed to the index build (prompt timeout, prompt context, exclude / includeForce). */
  buildOptions?: Omit<BuildOptions, 'coreTools' | 'scoring'>
}

/** The ToolSearch tool's output (the reference's shape, plus `text` for `discover:`). */
export interface ToolSearchOutput {
  matches: string[]
  query: string
  total_deferred_tools: number
  pending_mcp_servers?: string[]
  already_loaded?: string[]
  /** `discover:` only: each match's name, score, description and JSON schema. */
  text?: string
}

/** Remembers which tools ToolSearch has returned in a session. */
export class ToolSearchSession {
  readonly discovered = new Set<string>()
  record(names: Iterable<string>): void {
    for (const n of names) this.discovered.add(n)
  }
}

/** The scoring `toolSearch` uses when the context names none. */
export const DEFAULT_TOOLSEARCH_SCORING: Scoring = 'compat'

const sharedCache = new ToolIndexCache()

const DEFAULT_MAX_RESULTS = 5

function envWeight(name: string, fallback: number): number {
  const raw = typeof process !== 'undefined' ? process.env[name] : undefined
  if (raw === undefined || raw.trim() === '') return fallback
  const v = Number(raw)
  return Number.isFinite(v) ? v : fallback
}

/** The merge weights, from env `TOOL_SEARCH_WEIGHT_KEYWORD` / `TOOL_SEARCH_WEIGHT_TFIDF`. */
export function mergeWeights(): { keyword: number; tfidf: number } {
  return { keyword: envWeight('TOOL_SEARCH_WEIGHT_KEYWORD', 0.4), tfidf: envWeight('TOOL_SEARCH_WEIGHT_TFIDF', 0.6) }
}

function findByName(tools: readonly ToolLike[], name: string): ToolLike | undefined {
  for (const t of tools) {
    if (t.name === name) return t
  }
  for (const t of tools) {
    if (Array.isArray(t.aliases) && t.aliases.includes(name)) return t
  }
  return undefined
}

/** Run a ToolSearch query over the host's tools. */
export async function toolSearch(input: ToolSearchInput, ctx: ToolSearchContext): Promise<ToolSearchOutput> {
  if (input === null || typeof input !== 'object') throw invalidArg(`toolSearch: input must be an object, got ${input === null ? 'null' : typeof input}`)
  if (ctx === null || typeof ctx !== 'object') throw invalidArg('toolSearch: ctx must be an object')
  const { query, max, tools, coreList, session } = readingInput('the ToolSearch input', () => ({
    query: input.query,
    max: input.max_results ?? DEFAULT_MAX_RESULTS,
    tools: ctx.tools,
    coreList: ctx.coreTools === undefined ? undefined : stringList(ctx.coreTools, 'ctx.coreTools'),
    session: ctx.session,
  }))
  if (typeof query !== 'string') throw invalidArg(`toolSearch: query must be a string, got ${typeof query}`)
  if (query.length > LIMITS.queryLength) {
    throw new ToolIndexError('E_TOO_LARGE', `query is ${query.length} characters; the limit is ${LIMITS.queryLength}`)
  }
  if (typeof max !== 'number' || Number.isNaN(max) || max < 0) {
    throw new ToolIndexError('E_INVALID_LIMIT', `max_results must be a number >= 0, got ${String(max)}`)
  }
  const maxResults = Math.trunc(max)
  if (!Array.isArray(tools)) throw invalidArg('toolSearch: ctx.tools must be an array of tools')
  if (session !== undefined && !(session instanceof ToolSearchSession)) {
    throw invalidArg('toolSearch: ctx.session must be a ToolSearchSession')
  }
  const coreOpt = coreList === undefined ? undefined : { coreTools: coreList }
  // isDeferredTool's rule, with one set look-up a tool instead of one native call a tool.
  const core: ReadonlySet<string> = coreOpt ? new Set(coreOpt.coreTools) : CORE_TOOLS
  const isDeferred = (t: ToolLike) => t?.alwaysLoad !== true && !core.has(t?.name)
  const cache = ctx.cache ?? sharedCache
  const indexPromise = cache.get(tools, {
    ...ctx.buildOptions,
    ...(coreOpt ?? {}),
    scoring: ctx.scoring ?? DEFAULT_TOOLSEARCH_SCORING,
  })
  // Per tool list (while its names hold): the deferred count, and the tools by lowercased
  // name for the exact-name path (the native side prefers an indexed tool).
  const derived = cache.memo(`toolSearch:${coreOpt ? JSON.stringify(coreOpt.coreTools) : ''}`, () => {
    let count = 0
    const byLower = new Map<string, string>()
    for (const t of tools) {
      if (isDeferred(t)) count++
      if (typeof t?.name === 'string' && !byLower.has(t.name.toLowerCase())) byLower.set(t.name.toLowerCase(), t.name)
    }
    return { count, byLower }
  })
  const deferredCount = derived.count
  const pending = ctx.pendingMcpServers?.length ? [...ctx.pendingMcpServers] : undefined
  const base = { query, total_deferred_tools: deferredCount }
  const finish = (out: ToolSearchOutput): ToolSearchOutput => {
    if (out.matches.length === 0 && pending) out.pending_mcp_servers = pending
    session?.record(out.matches)
    return out
  }

  const select = /^select:(.+)$/i.exec(query)
  if (select) {
    const found: string[] = []
    const already: string[] = []
    for (const want of select[1].split(',').map((s) => s.trim())) {
      if (!want) continue
      const d = findByName(tools.filter(isDeferred), want)
      const tool = d ?? findByName(tools, want)
      if (!tool || found.includes(tool.name)) continue
      found.push(tool.name)
      if (!d) already.push(tool.name)
    }
    const out: ToolSearchOutput = { matches: found, ...base }
    if (already.length) out.already_loaded = already
    return finish(out)
  }

  const index = await indexPromise

  const discover = /^discover:([\s\S]*)$/i.exec(query)
  if (discover) {
    const hits = index.search(discover[1], maxResults)
    const text = hits.length
      ? hits
          .map(
            (h) =>
              `${h.name} (score: ${h.score.toFixed(2)})\n${h.description}\n` +
              `Input schema: ${h.inputSchema ? JSON.stringify(h.inputSchema) : '(none)'}`,
          )
          .join('\n\n')
      : `No deferred tools match "${discover[1].trim()}".`
    return finish({ matches: hits.map((h) => h.name), ...base, text })
  }

  if (query.trim() === '') return finish({ matches: [], ...base })
  // The reference's exact-name path looks in the deferred tools, then in all tools: pass the
  // first non-indexed tool with that lowercased name; the native side prefers an indexed one.
  const lower = query.toLowerCase().trim()
  const outside = derived.byLower.get(lower)
  const exactOutside = outside !== undefined && !index.has(outside) ? outside : undefined
  const ranked = index.rankToolSearch(query, maxResults, mergeWeights(), exactOutside)
  return finish({ matches: ranked.map((r) => r.name), ...base })
}

/** One `tool_result` content block for the model. */
export interface ToolResultBlock {
  type: 'tool_result'
  tool_use_id: string
  content: string | { type: 'tool_reference'; tool_name: string }[]
}

/**
 * Render a ToolSearch output for the model: `tool_reference` blocks where the provider
 * supports them, else text that names the matches (with descriptions and schemas when
 * `tools` is given), marks core tools as already loaded, and says how to call ExecuteTool.
 */
export function formatToolSearchResult(
  output: ToolSearchOutput,
  toolUseId: string,
  options: { supportsToolReference: boolean; tools?: readonly ToolLike[]; executeToolName?: string },
): ToolResultBlock {
  if (output === null || typeof output !== 'object' || !Array.isArray(output.matches)) {
    throw invalidArg('formatToolSearchResult: output must be a toolSearch output ({ matches: string[], ... })')
  }
  if (options === null || typeof options !== 'object') throw invalidArg('formatToolSearchResult: options must be an object')
  const block = (content: ToolResultBlock['content']): ToolResultBlock => ({ type: 'tool_result', tool_use_id: toolUseId, content })
  if (output.matches.length === 0) {
    let text = 'No matching deferred tools found'
    if (output.pending_mcp_servers?.length) {
      text += `. Some MCP servers are still connecting: ${output.pending_mcp_servers.join(', ')}. Their tools will become available shortly; try searching again.`
    }
    return block(text)
  }
  if (output.text !== undefined) return block(output.text)
  if (options.supportsToolReference) {
    return block(output.matches.map((name) => ({ type: 'tool_reference' as const, tool_name: name })))
  }
  const exec = options.executeToolName ?? 'ExecuteTool'
  const loaded = new Set(output.already_loaded ?? [])
  const lines = output.matches.map((name) => {
    const tool = options.tools ? findByName(options.tools, name) : undefined
    const desc = typeof tool?.description === 'string' ? ` — ${firstLine(tool.description)}` : ''
    if (loaded.has(name)) return `- ${name} (already loaded: call it directly)${desc}`
    const schema = tool ? inputSchemaOf(tool) : undefined
    return `- ${name}${desc}${schema ? `\n  params schema: ${JSON.stringify(schema)}` : ''}`
  })
  const deferredCount = output.matches.filter((n) => !loaded.has(n)).length
  const how =
    deferredCount > 0
      ? `\nTo run one of these, call ${exec} with {"tool_name": "<name>", "params": {...}}, params matching the tool's schema.`
      : ''
  return block(`Found ${output.matches.length} tool${output.matches.length === 1 ? '' : 's'}:\n${lines.join('\n')}${how}`)
}

function firstLine(s: string): string {
  const line = s.split('\n', 1)[0]
  return line.length > 200 ? `${line.slice(0, 197)}...` : line
}

export type { ToolIndex }
