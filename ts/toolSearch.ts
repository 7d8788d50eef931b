/**
 * ToolSearch (SPEC §6): `select:`, `discover:`, and keyword + TF-IDF ranking in one native
 * call, over the deferred tools of the host's tool list.
 */
import { ToolIndexError, invalidArg } from './errors'
import { DEFAULT_LIMIT, LIMITS, envScoring, mergeWeights } from './config'
import { copyToolArray, readBuildOptions, readOptionFields, readingInput, stringList, typeName } from './input'
import { CORE_TOOLS, toolNames, type ToolNames } from './presets'
import { buildLoadedIndex, shortDescription } from './build'
import type { ToolIndex } from './toolIndex'
import { byLowercasedName, isDeferredBy, toolLookup } from './lookup'
import { fieldOrUndefined } from './safeRead'
import { ToolIndexCache } from './cache'
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
  /**
   * `'compat'` (the reference's keyword + TF-IDF merge) or `'enhanced'` (BM25F). Left out, the
   * one `TOOL_INDEX_SCORING` (or ccb's `SEARCH_EXTRA_TOOLS_SCORING`) names, as for the drop-in
   * functions, else `DEFAULT_TOOLSEARCH_SCORING` (`'compat'`).
   */
  scoring?: Scoring
  /** Records what this search returned, for `executeTool`'s `requireDiscovered`. */
  session?: ToolSearchSession
  /** The index cache to use (a module-wide one by default). */
  cache?: ToolIndexCache
  /** Passed to the index build (prompt timeout, prompt context, exclude / includeForce). */
  buildOptions?: Omit<BuildOptions, 'coreTools' | 'scoring'>
  /**
   * Also score the tools that are already loaded (core and `alwaysLoad` tools) by the keyword
   * rules, as claude-code-best's SearchExtraTools does today: when every query word is optional
   * (no `+word`, no exact name, no `mcp__` prefix of a deferred tool), the keyword list is the
   * best of all tools, ties in the order of `tools`. Loaded tools among the matches are named in
   * `already_loaded`, and `core_tool_guidance` gives each one's description and input schema.
   * Compat ranking only (enhanced ranks the deferred tools alone). Default `false`: the seed's
   * ToolSearch, whose keyword search sees the deferred tools only.
   */
  searchLoaded?: boolean
  /** The search and execute tools' names, for `core_tool_guidance` (default `ToolSearch` / `ExecuteTool`). */
  names?: ToolNames
}

/** The ToolSearch tool's output (the reference's shape, plus `text` for `discover:`). */
export interface ToolSearchOutput {
  matches: string[]
  query: string
  total_deferred_tools: number
  pending_mcp_servers?: string[]
  already_loaded?: string[]
  /**
   * With `searchLoaded`: how to call each of `already_loaded` directly (its description and
   * input schema), for the model; `formatToolSearchResult` puts it in the text.
   */
  core_tool_guidance?: string
  /** `discover:` only: each match's name, score, description and JSON schema. */
  text?: string
  /** Tools that could not be indexed (an empty, oversize or repeated name): left out, not fatal. */
  skipped_tools?: string[]
}

/** Remembers which tools ToolSearch has returned in a session. */
export class ToolSearchSession {
  readonly discovered = new Set<string>()
  record(names: Iterable<string>): void {
    for (const n of names) this.discovered.add(n)
  }
}

/** The scoring `toolSearch` uses when neither the context nor `TOOL_INDEX_SCORING` names one. */
export const DEFAULT_TOOLSEARCH_SCORING: Scoring = 'compat'

const sharedCache = new ToolIndexCache()

/**
 * Forget the index (with the tools' prompts) that `toolSearch` keeps between calls when the
 * context brings no `cache` of its own; the next search builds it again. For a host's "clear the
 * session" command (ccb's `/clear` clears its search tool's description cache this way).
 */
export function clearToolSearchCache(): void {
  sharedCache.clear()
}

/** @deprecated import `mergeWeights` from the package root (it lives in `config`). */
export { mergeWeights }

/**
 * Name look-ups for `select:`: a requested name (or alias) to the tool's name, among the
 * deferred tools and among all tools. The first tool of a name wins, names before aliases, as a
 * scan in order would find it. Tools whose fields cannot be read are skipped.
 */
function selectLookup(tools: readonly ToolLike[], isDeferred: (t: ToolLike) => boolean): { deferred: Map<string, string>; all: Map<string, string> } {
  const deferred = new Map<string, string>()
  const all = new Map<string, string>()
  const aliasesDeferred = new Map<string, string>()
  const aliasesAll = new Map<string, string>()
  const names = new Set<string>()
  for (const t of tools) {
    const name = fieldOrUndefined<unknown>(t, 'name')
    if (typeof name !== 'string') continue
    names.add(name)
    let d = false
    try {
      d = isDeferred(t)
    } catch {
      continue
    }
    if (!all.has(name)) all.set(name, name)
    if (d && !deferred.has(name)) deferred.set(name, name)
    const aliases = fieldOrUndefined<unknown>(t, 'aliases')
    if (!Array.isArray(aliases)) continue
    for (const a of aliases.slice(0, 1000)) {
      if (typeof a !== 'string') continue
      if (!aliasesAll.has(a)) aliasesAll.set(a, name)
      if (d && !aliasesDeferred.has(a)) aliasesDeferred.set(a, name)
    }
  }
  // An alias never shadows a real name: a deferred tool's alias `Bash` must not answer
  // `select:Bash` while a (core) tool is named Bash.
  for (const [a, n] of aliasesAll) if (!all.has(a)) all.set(a, n)
  for (const [a, n] of aliasesDeferred) if (!deferred.has(a) && !names.has(a)) deferred.set(a, n)
  return { deferred, all }
}

/** JSON for a message: a schema that cannot be serialized (a cycle, a BigInt) says so. */
function safeJson(value: unknown): string {
  try {
    const s = JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))
    return s === undefined ? '(none)' : s.length > 20_000 ? `${s.slice(0, 20_000)}…` : s
  } catch {
    return '(a schema that cannot be shown as JSON)'
  }
}

/** MCP servers still connecting named in one answer, at most. */
const MAX_PENDING_SERVERS = 1000

/** `ctx.pendingMcpServers`, checked: an array of strings (`E_INVALID_ARG` otherwise), copied. */
function pendingServers(v: unknown): string[] {
  if (v === undefined || v === null) return []
  if (!Array.isArray(v)) throw invalidArg(`toolSearch: ctx.pendingMcpServers must be an array of server names, got ${typeName(v)}`)
  if (v.length > MAX_PENDING_SERVERS) {
    throw new ToolIndexError('E_TOO_LARGE', `ctx.pendingMcpServers has ${v.length} entries; the limit is ${MAX_PENDING_SERVERS}`)
  }
  const out: string[] = []
  for (let i = 0; i < v.length; i++) {
    const name = v[i]
    if (typeof name !== 'string') throw invalidArg(`toolSearch: ctx.pendingMcpServers[${i}] must be a string, got ${typeName(name)}`)
    out.push(name)
  }
  return out
}

/** Run a ToolSearch query over the host's tools. */
export async function toolSearch(input: ToolSearchInput, ctx: ToolSearchContext): Promise<ToolSearchOutput> {
  if (input === null || typeof input !== 'object') throw invalidArg(`toolSearch: input must be an object, got ${input === null ? 'null' : typeof input}`)
  if (ctx === null || typeof ctx !== 'object') throw invalidArg('toolSearch: ctx must be an object')
  // Each field read once, never through Object.prototype (a polluted `max_results` or
  // `coreTools` is not an option); a throwing getter is E_INVALID_ARG naming the field.
  const given = readOptionFields<ToolSearchInput>(input, ['query', 'max_results'], 'input')
  const c = readOptionFields<ToolSearchContext>(
    ctx,
    ['tools', 'pendingMcpServers', 'coreTools', 'scoring', 'session', 'cache', 'buildOptions', 'searchLoaded', 'names'],
    'ctx',
  )
  const searchLoaded = c.searchLoaded === true
  const names = readingInput('ctx.names', () => toolNames(c.names))
  const query = given.query
  const max = given.max_results ?? DEFAULT_LIMIT
  const coreList = c.coreTools === undefined ? undefined : stringList(c.coreTools, 'ctx.coreTools')
  const { session, cache: cacheOpt } = c
  const pendingList = readingInput('ctx.pendingMcpServers', () => pendingServers(c.pendingMcpServers))
  const buildOptions = c.buildOptions === undefined || c.buildOptions === null ? {} : readBuildOptions(c.buildOptions, 'ctx.buildOptions')
  if (typeof query !== 'string') throw invalidArg(`toolSearch: query must be a string, got ${typeof query}`)
  if (query.length > LIMITS.queryLength) {
    throw new ToolIndexError('E_TOO_LARGE', `query is ${query.length} characters; the limit is ${LIMITS.queryLength}`)
  }
  if (typeof max !== 'number' || Number.isNaN(max) || max < 0) {
    throw new ToolIndexError('E_INVALID_LIMIT', `max_results must be a number >= 0, got ${String(max)}`)
  }
  const maxResults = Math.trunc(max)
  const tools = copyToolArray<ToolLike>(c.tools, 'toolSearch: ctx.tools')
  if (session !== undefined && !(session instanceof ToolSearchSession)) {
    throw invalidArg('toolSearch: ctx.session must be a ToolSearchSession')
  }
  const coreOpt = coreList === undefined ? undefined : { coreTools: coreList }
  // isDeferredTool's rule, with one set look-up a tool instead of one native call a tool.
  const core: ReadonlySet<string> = coreOpt ? new Set(coreOpt.coreTools) : CORE_TOOLS
  const isDeferred = (t: ToolLike) => isDeferredBy(t, core)
  if (cacheOpt !== undefined && !(cacheOpt instanceof ToolIndexCache)) {
    throw invalidArg('toolSearch: ctx.cache must be a ToolIndexCache')
  }
  const cache = cacheOpt ?? sharedCache
  const indexPromise = cache.get(tools, {
    ...buildOptions,
    coreTools: coreOpt?.coreTools,
    scoring: c.scoring ?? envScoring() ?? DEFAULT_TOOLSEARCH_SCORING,
  })
  // Bound to this call's cache line now: a concurrent call for other tools may make its own
  // line current before the awaits below.
  const memo = cache.memoOfCurrent()
  // Per tool list (while its names hold): the deferred count, and the tools by lowercased
  // name for the exact-name path (the native side prefers an indexed tool).
  const coreKey = coreOpt ? JSON.stringify(coreOpt.coreTools) : ''
  const derived = memo(`toolSearch:${coreKey}`, () => {
    // Each tool's name read once ('' for one that is not a string), whether it is
    // deferred, and the first position of each name.
    const names: string[] = new Array(tools.length)
    const loaded: boolean[] = new Array(tools.length).fill(false)
    const deferredNames = new Set<string>()
    const position = new Map<string, number>()
    let count = 0
    tools.forEach((t, i) => {
      const name = fieldOrUndefined<unknown>(t, 'name')
      names[i] = typeof name === 'string' ? name : ''
      if (typeof name !== 'string') return
      let d: boolean
      try {
        d = isDeferred(t)
      } catch {
        return
      }
      if (d) {
        count++
        deferredNames.add(name)
      } else loaded[i] = true
      if (!position.has(name)) position.set(name, i)
    })
    return { count, byLower: byLowercasedName(tools), names, loaded, deferredNames, position }
  })
  /**
   * The already-loaded tools' own index (keyword rules, guidance), built once per tool list. One
   * that cannot be built (a prompt over the text limit) leaves the loaded tools out of the keyword
   * search, as without `searchLoaded`: the search itself still answers.
   */
  const loadedIndex = (): Promise<ToolIndex | undefined> =>
    memo(`toolSearch:loaded:${coreKey}`, () => buildLoadedIndex(tools, derived.names, derived.loaded, buildOptions).catch(() => undefined))
  const guidance = async (already: string[]): Promise<string | undefined> => {
    if (!searchLoaded || already.length === 0) return undefined
    const schemas = await loadedIndex()
    if (!schemas) return undefined
    const sections = await Promise.all(
      already.map(async (name) => {
        const i = derived.position.get(name)
        const entry = schemas.get(name)
        if (i === undefined || !entry) return undefined
        return guidanceFor(name, await shortDescription(tools[i], i, tools, buildOptions), entry.inputSchema, names)
      }),
    )
    const found = sections.filter((x): x is string => x !== undefined)
    return found.length ? found.join('\n\n') : undefined
  }
  const deferredCount = derived.count
  const pending = pendingList.length ? pendingList : undefined
  const base: ToolSearchOutput = { matches: [], query, total_deferred_tools: deferredCount }
  const finish = (out: ToolSearchOutput): ToolSearchOutput => {
    if (out.matches.length === 0 && pending) out.pending_mcp_servers = pending
    session?.record(out.matches)
    return out
  }

  const select = /^select:(.+)$/i.exec(query)
  if (select) {
    // One pass over the tools builds the look-ups (memoized per tool list); each requested
    // name is then O(1): linear in names + tools.
    const lookup = memo(`select:${coreOpt ? JSON.stringify(coreOpt.coreTools) : ''}`, () => selectLookup(tools, isDeferred))
    const found: string[] = []
    const foundSet = new Set<string>()
    const already: string[] = []
    for (const part of select[1].split(',')) {
      const want = part.trim()
      if (!want) continue
      const d = lookup.deferred.get(want)
      const name = d ?? lookup.all.get(want)
      if (name === undefined || foundSet.has(name)) continue
      found.push(name)
      foundSet.add(name)
      if (d === undefined) already.push(name)
    }
    const out: ToolSearchOutput = { ...base, matches: found }
    if (already.length) out.already_loaded = already
    const help = await guidance(already)
    if (help) out.core_tool_guidance = help
    return finish(out)
  }

  const index = await indexPromise
  if (index.skipped.length) base.skipped_tools = index.skipped.map((t) => t.name)

  // The reference's pattern: one line with something after the prefix (an empty or
  // multi-line `discover:` query is a keyword query, as there).
  const discover = /^discover:(.+)$/i.exec(query)
  if (discover) {
    const hits = index.search(discover[1].trim(), maxResults)
    const names = hits.map((h) => h.name)
    // The first line is the one the discovered-tools scan reads back (`extractDiscoveredToolNames`),
    // so what a session records and what the conversation shows agree.
    const text = hits.length
      ? `${foundLine(names)}\n\n` +
        hits
          .map(
            (h) =>
              `${h.name} (score: ${h.score.toFixed(2)})\n${h.description}\n` +
              `Input schema: ${h.inputSchema ? safeJson(h.inputSchema) : '(none)'}`,
          )
          .join('\n\n')
      : `No deferred tools match "${discover[1].trim()}".`
    return finish({ ...base, matches: names, text })
  }

  if (query.trim() === '') return finish({ ...base })
  // The reference's exact-name path looks in the deferred tools, then in all tools: pass the
  // first non-indexed tool with that lowercased name; the native side prefers an indexed one.
  const lower = query.toLowerCase().trim()
  const outside = derived.byLower.get(lower)
  const exactOutside = outside !== undefined && !index.has(outside) ? outside : undefined
  let keywordList: string[] | undefined
  if (searchLoaded && index.scoring === 'compat' && exactOutside === undefined) {
    // The keyword half is computed here once and handed on, so the native merge need not
    // search again; on the terms path the loaded tools' hits join it.
    const own = index.keywordRank(query, maxResults)
    keywordList = own.hits.map((h) => h.name)
    if (own.path === 'terms') {
      const loaded = await loadedIndex()
      if (loaded?.length) keywordList = bestOfBoth(own.hits, loaded.keywordRank(query, maxResults, true).hits, derived.position, maxResults)
    }
  }
  const ranked = index.rankToolSearch(query, maxResults, mergeWeights(), exactOutside, keywordList)
  const matches = ranked.map((r) => r.name)
  const out: ToolSearchOutput = { ...base, matches }
  // A match that is not deferred (a core tool named exactly, or a loaded tool's keyword hit).
  const already = matches.filter((m) => !derived.deferredNames.has(m))
  if (already.length) out.already_loaded = already
  const help = await guidance(already)
  if (help) out.core_tool_guidance = help
  return finish(out)
}

/**
 * Two keyword lists (each best first) as one: score descending, ties in the order of the host's
 * tool list, as one scored pass over all tools in that order would rank them.
 */
function bestOfBoth(a: readonly KeywordHit[], b: readonly KeywordHit[], position: ReadonlyMap<string, number>, max: number): string[] {
  const at = (n: string) => position.get(n) ?? Number.MAX_SAFE_INTEGER
  return [...a, ...b]
    .sort((x, y) => y.score - x.score || at(x.name) - at(y.name))
    .slice(0, Math.max(0, max))
    .map((h) => h.name)
}

type KeywordHit = { name: string; score: number }

/** How to call one already-loaded match: its description and input schema. */
function guidanceFor(name: string, description: string, schema: object | undefined, names: Required<ToolNames>): string {
  return [
    `${name} is already loaded: call directly, as ${name} itself, with input that fits its schema.`,
    `Description: ${firstChars(description, 4000) || '(none)'}`,
    `Input schema: ${schema ? safeJson(schema) : '(none)'}`,
    `Do not guess parameters, do not wrap it in ${names.execute}, and do not look for it with Bash or another command line.`,
  ].join('\n')
}

function firstChars(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n - 1)}…` : s
}

/** One `tool_result` content block for the model. */
export interface ToolResultBlock {
  type: 'tool_result'
  tool_use_id: string
  content: string | { type: 'tool_reference'; tool_name: string }[]
}

/** Options of `formatToolSearchResult`. */
export interface FormatOptions {
  /** Answer with `tool_reference` blocks (providers that support them) instead of text. */
  supportsToolReference: boolean
  /** The host's tools: the text then gives each match's description and input schema. */
  tools?: readonly ToolLike[]
  /** The search and execute tools' names in the text (default `ToolSearch` / `ExecuteTool`). */
  names?: ToolNames
  /** @deprecated use `names.execute`. */
  executeToolName?: string
}

/**
 * Render a ToolSearch output for the model: `tool_reference` blocks where the provider
 * supports them, else text. The text's first line is `Found N deferred tool(s): A, B.`, the line
 * `extractDiscoveredToolNames` reads back from the conversation; then one line a match (with
 * the schema and, when it is a string, the description, when `tools` is given; core tools marked
 * as already loaded), and how to call the execute tool.
 */
export function formatToolSearchResult(output: ToolSearchOutput, toolUseId: string, options: FormatOptions): ToolResultBlock {
  if (output === null || typeof output !== 'object' || !Array.isArray(output.matches)) {
    throw invalidArg('formatToolSearchResult: output must be a toolSearch output ({ matches: string[], ... })')
  }
  if (options === null || typeof options !== 'object') throw invalidArg('formatToolSearchResult: options must be an object')
  const { matches, pending, text, loadedList, guide, supportsRef, tools, names } = readingInput('the ToolSearch output', () => ({
    matches: output.matches.slice(0, 10_000).map((m) => String(m)),
    pending: Array.isArray(output.pending_mcp_servers) ? output.pending_mcp_servers.slice(0, 1000).map((m) => String(m)) : [],
    text: typeof output.text === 'string' ? output.text : undefined,
    loadedList: Array.isArray(output.already_loaded) ? output.already_loaded.slice(0, 10_000).map((m) => String(m)) : [],
    guide: typeof output.core_tool_guidance === 'string' && output.core_tool_guidance ? output.core_tool_guidance.slice(0, 200_000) : undefined,
    supportsRef: options.supportsToolReference === true,
    tools: Array.isArray(options.tools) ? copyToolArray<ToolLike>(options.tools, 'options.tools') : undefined,
    names: toolNames({ search: options.names?.search, execute: options.names?.execute ?? options.executeToolName }),
  }))
  const block = (content: ToolResultBlock['content']): ToolResultBlock => ({ type: 'tool_result', tool_use_id: toolUseId, content })
  if (matches.length === 0) {
    let t = 'No matching deferred tools found'
    if (pending.length) {
      t += `. MCP servers still connecting: ${pending.join(', ')}. Their tools appear once they are connected; search again then.`
    }
    return block(t)
  }
  if (text !== undefined) return block(text)
  if (supportsRef) return block(matches.map((name) => ({ type: 'tool_reference' as const, tool_name: name })))
  const loaded = new Set(loadedList)
  const deferred = matches.filter((n) => !loaded.has(n))
  // One pass over the tools, then one look-up a match (10k matches over 100k tools stay linear).
  const lookup = tools ? toolLookup(tools) : undefined
  const lines = matches.map((name) => {
    const tool = lookup?.(name)
    const d = tool ? fieldOrUndefined<unknown>(tool, 'description') : undefined
    const desc = typeof d === 'string' && d ? ` — ${firstLine(d)}` : ''
    if (loaded.has(name)) return `- ${name} (already loaded: call it directly, not through ${names.execute})${desc}`
    let schema: object | undefined
    try {
      schema = tool ? inputSchemaOf(tool) : undefined
    } catch {
      schema = undefined
    }
    return `- ${name}${desc}${schema ? `\n  params schema: ${safeJson(schema)}` : ''}`
  })
  const head =
    deferred.length > 0
      ? foundLine(deferred)
      : `No deferred tools found: ${[...loaded].join(', ')} ${loaded.size === 1 ? 'is' : 'are'} already loaded. ${names.search} only finds tools that are not in your tool list.`
  const how =
    deferred.length > 0
      ? `\nTo run one of these, call ${names.execute} with {"tool_name": "<name>", "params": {...}}, params matching the tool's schema.`
      : ''
  return block(`${head}\n${lines.join('\n')}${guide ? `\n\n${guide}` : ''}${how}`)
}

/**
 * The line that names the tools a search found: `extractDiscoveredToolNames` reads it back,
 * splitting at commas and trimming each name. A name that would not read back as itself (one
 * with a comma, a line or paragraph break, or blanks at its ends: `"mcp__bank__pay.\nnotes"`
 * would end the line after `mcp__bank__pay.`) gets a line the reader does not take, so the
 * result discovers nothing rather than another tool.
 */
function foundLine(names: readonly string[]): string {
  if (!names.every(readsBack)) return `Found ${names.length} deferred tool(s), listed below.`
  return `Found ${names.length} deferred tool(s): ${names.join(', ')}.`
}

/** Whether a name in the found line reads back as exactly itself (see `foundLine`). */
function readsBack(name: string): boolean {
  return name.length > 0 && name === name.trim() && !/[,\r\n\u0085\u2028\u2029]/.test(name)
}

function firstLine(s: string): string {
  const line = s.split('\n', 1)[0]
  return line.length > 200 ? `${line.slice(0, 197)}...` : line
}

