/**
 * `@ccb/tool-index-native`: a drop-in, native replacement for claude-code-best's tool index
 * (`buildToolIndex`, `searchTools`, `getToolIndex`, ...), plus the native index class.
 *
 * Search runs in Rust; this layer awaits each tool's `prompt()`, keeps the JavaScript-side
 * data (descriptions, schemas, the original name strings) and maps native ids back to it.
 */
import { binding, type NativeToolEntry, type NativeToolIndex } from './native'
import { ToolIndexError, invalidArg, native } from './errors'
import { ENV, envList, envNumber } from './config'
import { inputSchemaOf, schemaText } from './schema'
import type {
  BuildOptions,
  Scoring,
  Tuning,
  ToolEntryInput,
  ToolIndexEntry,
  ToolLike,
  ToolSearchResult,
} from './types'

export { ToolIndexError } from './errors'
export type { ToolIndexErrorCode } from './errors'
export type {
  BuildOptions,
  Scoring,
  Tuning,
  ToolEntryInput,
  ToolIndexEntry,
  ToolLike,
  ToolSearchResult,
} from './types'

/** Documented input caps; larger inputs throw `E_TOO_LARGE` (nothing is truncated). */
export const LIMITS = Object.freeze({
  /** Longest tool name, in UTF-16 code units. */
  nameLength: 4096,
  /** Longest description or searchHint, in UTF-16 code units (16 Mi). */
  textLength: 16 * 1024 * 1024,
  /** Longest query, in UTF-16 code units (4 Mi). */
  queryLength: 4 * 1024 * 1024,
})

const DEFAULT_LIMIT = 5
const DEFAULT_MIN_SCORE = 0.1
const DEFAULT_PROMPT_TIMEOUT_MS = 5000

export { CORE_TOOLS, CCB_CORE_TOOLS, CCB_TOOL_NAMES, SEED_TOOL_NAMES, type ToolNames } from './presets'
import { CORE_TOOLS } from './presets'

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

// ---------------------------------------------------------------------------------------------
// The index
// ---------------------------------------------------------------------------------------------

/** Why a tool scored what it did (see `ToolIndex.explain`). */
export type Explanation = import('../index').Explanation

/** One merged ToolSearch result. */
export interface RankedTool {
  name: string
  /** Keyword part + TF-IDF part. */
  score: number
  /** 0-based rank in the keyword list, when the keyword search found the tool. */
  keywordRank?: number
  /** The unweighted TF-IDF score, when the TF-IDF search found the tool. */
  tfidfScore?: number
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g

/**
 * The name as the native side sees it: lone UTF-16 surrogates become U+FFFD (N-API's UTF-8
 * conversion). Two names equal under this key are one tool to the index.
 */
function nameKey(name: string): string {
  return /[\uD800-\uDFFF]/.test(name) ? name.replace(LONE_SURROGATE, '\uFFFD') : name
}

interface Stored {
  name: string
  description: string
  searchHint: string | undefined
  isMcp: boolean
  inputSchema: object | undefined
  server: string | undefined
}

function toNative(e: Stored, scoring: Scoring): NativeToolEntry {
  const base: NativeToolEntry = { name: e.name, description: e.description, searchHint: e.searchHint, isMcp: e.isMcp }
  if (scoring === 'enhanced') {
    base.server = e.server
    base.schemaText = schemaText(e.inputSchema)
  }
  return base
}

/** Mutable state shared by the views `getToolIndex` hands out for one cache line. */
interface State {
  tuning: Tuning | undefined
  /** Tools the last build or update left out (see `planBuild`). */
  skipped: SkippedTool[]
  native: NativeToolIndex
  byId: (Stored | undefined)[]
  byName: Map<string, number>
  generation: number
  scoring: Scoring
}

/** A tool `buildToolIndex` / `getToolIndex` left out, and why. */
export interface SkippedTool {
  /** Its position in the tool list. */
  index: number
  /** Its name (the first 200 characters of an oversize one). */
  name: string
  reason: 'duplicate_name' | 'name_too_long' | 'empty_name'
}

/** What a detached view indexed. */
interface Snapshot {
  skipped: SkippedTool[]
  stored: Stored[]
  scoring: Scoring
  tuning: Tuning | undefined
}

let envTuning: Tuning | undefined | null = null

/** `TOOL_INDEX_TUNING` (JSON), for experiments; explicit options win. */
function tuningOf(explicit: Tuning | undefined): Tuning | undefined {
  if (explicit) return explicit
  if (envTuning === null) {
    const raw = typeof process !== 'undefined' ? process.env.TOOL_INDEX_TUNING : undefined
    try {
      envTuning = raw ? (JSON.parse(raw) as Tuning) : undefined
    } catch {
      throw new ToolIndexError('E_INVALID_ARG', 'TOOL_INDEX_TUNING is not valid JSON')
    }
  }
  return envTuning
}

/**
 * A built tool index. Array-like for code written against the reference (`length`,
 * iteration, `at`, `map`, `filter`, `find`, `some`, `forEach`): entries are materialized on
 * access, so searching never pays for them. Not shareable across threads or workers.
 */
export class ToolIndex implements Iterable<ToolIndexEntry> {
  /** @internal the live state; undefined once detached (see `takeState`) until next used. */
  #live: State | undefined
  /** @internal what this view indexed when its state was handed on, rebuilt on next use. */
  #snapshot: Snapshot | undefined

  /** @internal use `ToolIndex.fromEntries`, `buildToolIndex` or `getToolIndex`. */
  constructor(state: State) {
    this.#live = state
  }

  /** @internal */
  get #state(): State {
    if (this.#live === undefined) {
      const snap = this.#snapshot as Snapshot
      this.#live = newState(snap.stored, snap.scoring, snap.tuning)
      this.#live.skipped = snap.skipped
      this.#snapshot = undefined
    }
    return this.#live
  }

  /** Build synchronously from plain entries (all are indexed; no deferral filter). */
  static fromEntries(entries: readonly ToolEntryInput[], options?: Pick<BuildOptions, 'scoring' | 'tuning'>): ToolIndex {
    const { stored, scoring, tuning } = readingInput('the entries', () => {
      if (!Array.isArray(entries)) throw invalidArg(`entries must be an array, got ${typeName(entries)}`)
      if (options !== undefined && options !== null && typeof options !== 'object') {
        throw invalidArg(`options must be an object, got ${typeName(options)}`)
      }
      return { scoring: checkScoring(options?.scoring), tuning: options?.tuning, stored: entries.map(checkEntry) }
    })
    return new ToolIndex(newState(stored, scoring, tuning))
  }

  /** Number of tools. */
  get length(): number {
    return this.#state.native.length
  }

  /** Tools the build left out: an empty or oversize name, or a name an earlier tool has. */
  get skipped(): readonly SkippedTool[] {
    return this.#state.skipped
  }

  /** The scoring mode. */
  get scoring(): Scoring {
    return this.#state.scoring
  }

  /** Search; see `searchTools`. */
  search(query: string, limit: number = DEFAULT_LIMIT): ToolSearchResult[] {
    if (typeof query !== 'string') throw invalidArg(`query must be a string, got ${typeName(query)}`)
    checkLength(query, LIMITS.queryLength, 'query')
    if (typeof limit !== 'number') {
      throw new ToolIndexError('E_INVALID_LIMIT', `limit must be a number, got ${typeName(limit)}`)
    }
    const s = this.#state
    const flat = native(() => s.native.searchIds(query, limit, displayMinScore(s.scoring)))
    const out: ToolSearchResult[] = new Array(flat.length / 2)
    for (let i = 0, j = 0; i < flat.length; i += 2, j++) {
      const e = s.byId[flat[i]] as Stored
      out[j] = {
        name: e.name,
        description: e.description,
        searchHint: e.searchHint,
        score: flat[i + 1],
        isMcp: e.isMcp,
        isDeferred: true,
        inputSchema: e.inputSchema,
      }
    }
    return out
  }

  /**
   * The whole ToolSearch ranking (keyword + TF-IDF merge, SPEC §6) in one native call.
   * `exactOutside` names a non-indexed tool whose lowercased name equals the query.
   */
  rankToolSearch(
    query: string,
    maxResults: number = DEFAULT_LIMIT,
    weights: { keyword: number; tfidf: number } = { keyword: 0.4, tfidf: 0.6 },
    exactOutside?: string,
  ): RankedTool[] {
    if (typeof query !== 'string') throw invalidArg(`query must be a string, got ${typeName(query)}`)
    checkLength(query, LIMITS.queryLength, 'query')
    if (typeof maxResults !== 'number') {
      throw new ToolIndexError('E_INVALID_LIMIT', `maxResults must be a number, got ${typeName(maxResults)}`)
    }
    if (weights === null || typeof weights !== 'object') throw invalidArg(`weights must be an object, got ${typeName(weights)}`)
    const { keyword, tfidf } = readingInput('weights', () => ({ keyword: weights.keyword, tfidf: weights.tfidf }))
    // A missing weight keeps its default; a non-number is a wrong type; NaN/Infinity are E_INVALID_NUMBER.
    for (const [k, v] of [['keyword', keyword], ['tfidf', tfidf]] as const) {
      if (v !== undefined && typeof v !== 'number') throw invalidArg(`weights.${k} must be a number, got ${typeName(v)}`)
    }
    if (exactOutside !== undefined && typeof exactOutside !== 'string') {
      throw invalidArg(`exactOutside must be a string, got ${typeName(exactOutside)}`)
    }
    const s = this.#state
    const ranked = native(() =>
      s.native.toolSearchRank(query, maxResults, {
        keywordWeight: keyword,
        tfidfWeight: tfidf,
        minScore: displayMinScore(s.scoring),
        exactOutside,
      }),
    )
    return ranked.map((r) => ({
      // Names come from the caller's strings: ours by id, or the exactOutside argument.
      name: r.id === undefined || r.id === null ? (exactOutside as string) : (s.byId[r.id] as Stored).name,
      score: r.score,
      keywordRank: r.keywordRank ?? undefined,
      tfidfScore: r.tfidfScore ?? undefined,
    }))
  }

  /** The keyword half of ToolSearch alone: names best first (exact / prefix paths score Infinity). */
  keywordSearch(query: string, maxResults: number = DEFAULT_LIMIT): { name: string; score: number }[] {
    if (typeof query !== 'string') throw invalidArg(`query must be a string, got ${typeName(query)}`)
    checkLength(query, LIMITS.queryLength, 'query')
    if (typeof maxResults !== 'number') {
      throw new ToolIndexError('E_INVALID_LIMIT', `maxResults must be a number, got ${typeName(maxResults)}`)
    }
    const s = this.#state
    return native(() => s.native.keywordSearch(query, maxResults)).map((h) => ({ name: (s.byId[h.id] as Stored).name, score: h.score }))
  }

  /**
   * Why a tool scored what it did for a query: per-term contributions (and, enhanced, per
   * field), the name-match tier, and a note when it is not a result. `undefined` for an
   * unknown name.
   */
  explain(query: string, name: string): Explanation | undefined {
    if (typeof query !== 'string') throw invalidArg(`query must be a string, got ${typeName(query)}`)
    if (typeof name !== 'string') throw invalidArg(`name must be a string, got ${typeName(name)}`)
    checkLength(query, LIMITS.queryLength, 'query')
    const e = native(() => this.#state.native.explain(query, name))
    // The caller's own string (Rust sees lone surrogates as U+FFFD).
    return e ? { ...e, name } : undefined
  }

  /** Add entries or replace same-named ones (in place); results equal a fresh build. */
  upsert(entries: readonly ToolEntryInput[]): void {
    const stored = readingInput('the entries', () => {
      if (!Array.isArray(entries)) throw invalidArg(`entries must be an array, got ${typeName(entries)}`)
      return entries.map(checkEntry)
    })
    upsertStored(this.#state, stored)
  }

  /** Remove tools by name; returns how many were present. */
  remove(names: Iterable<string>): number {
    return removeNames(this.#state, stringList(names, 'names'))
  }

  /** Whether a tool of this name is indexed. */
  has(name: string): boolean {
    return this.#idOf(name) !== undefined
  }

  /** The entry of a tool by name. */
  get(name: string): ToolIndexEntry | undefined {
    const id = this.#idOf(name)
    return id === undefined ? undefined : this.#materialize(id)
  }

  /** Names in index order. */
  names(): string[] {
    return this.#ids().map((id) => (this.#state.byId[id] as Stored).name)
  }

  /** The i-th entry (negative counts from the end), like `Array.prototype.at`. */
  at(i: number): ToolIndexEntry | undefined {
    const ids = this.#ids()
    const k = Math.trunc(i) < 0 ? ids.length + Math.trunc(i) : Math.trunc(i)
    return k >= 0 && k < ids.length ? this.#materialize(ids[k]) : undefined
  }

  *[Symbol.iterator](): Iterator<ToolIndexEntry> {
    for (const id of this.#ids()) yield this.#materialize(id)
  }

  /** All entries as a real array. */
  toArray(): ToolIndexEntry[] {
    return [...this]
  }

  map<T>(fn: (entry: ToolIndexEntry, index: number) => T): T[] {
    checkCallback(fn, 'map')
    return this.toArray().map(fn)
  }

  filter(fn: (entry: ToolIndexEntry, index: number) => unknown): ToolIndexEntry[] {
    checkCallback(fn, 'filter')
    return this.toArray().filter(fn)
  }

  find(fn: (entry: ToolIndexEntry, index: number) => unknown): ToolIndexEntry | undefined {
    checkCallback(fn, 'find')
    let i = 0
    for (const e of this) if (fn(e, i++)) return e
    return undefined
  }

  some(fn: (entry: ToolIndexEntry, index: number) => unknown): boolean {
    checkCallback(fn, 'some')
    return this.find(fn) !== undefined
  }

  forEach(fn: (entry: ToolIndexEntry, index: number) => void): void {
    checkCallback(fn, 'forEach')
    let i = 0
    for (const e of this) fn(e, i++)
  }

  /** The id of the tool with exactly this name (the caller's string, surrogates and all). */
  #idOf(name: string): number | undefined {
    if (typeof name !== 'string') return undefined
    const id = this.#state.byName.get(nameKey(name))
    return id !== undefined && this.#state.byId[id]?.name === name ? id : undefined
  }

  #ids(): number[] {
    return native(() => this.#state.native.ids())
  }

  #materialize(id: number): ToolIndexEntry {
    const s = this.#state
    const e = s.byId[id] as Stored
    const terms = native(() => s.native.entryTerms(id))
    const tfVector = new Map<string, number>()
    const tokens = terms?.tokens ?? []
    tokens.forEach((t, i) => tfVector.set(t, (terms as { weights: number[] }).weights[i]))
    return {
      name: e.name,
      normalizedName: native(() => s.native.normalizedName(id)) ?? '',
      description: e.description,
      searchHint: e.searchHint,
      isMcp: e.isMcp,
      isDeferred: true,
      inputSchema: e.inputSchema,
      tokens,
      tfVector,
    }
  }

  /**
   * @internal Hand this view's state on to a newer view (which will update it in place): this
   * view keeps a snapshot of its entries and rebuilds its own index if it is used again, so an
   * index once returned never changes under its holder.
   */
  static takeState(index: ToolIndex): State {
    const s = index.#state
    index.#snapshot = { stored: s.byId.filter((e): e is Stored => e !== undefined), scoring: s.scoring, tuning: s.tuning, skipped: s.skipped }
    index.#live = undefined
    return s
  }
}

function newState(stored: Stored[], scoring: Scoring, tuning?: Tuning): State {
  const nativeIndex = native(
    () =>
      new binding.ToolIndex(
        stored.map((e) => toNative(e, scoring)),
        { scoring, tuning: scoring === 'enhanced' ? tuningOf(tuning) : undefined },
      ),
  )
  const byName = new Map<string, number>()
  stored.forEach((e, i) => byName.set(nameKey(e.name), i))
  return { native: nativeIndex, byId: stored.slice(), byName, generation: nativeIndex.generation, scoring, tuning, skipped: [] }
}

function upsertStored(s: State, stored: Stored[]): void {
  if (stored.length === 0) return
  const ids = native(() => s.native.upsert(stored.map((e) => toNative(e, s.scoring))))
  ids.forEach((id, i) => {
    s.byId[id] = stored[i]
    s.byName.set(nameKey(stored[i].name), id)
  })
}

function removeNames(s: State, names: string[]): number {
  const removed = native(() => s.native.remove(names))
  for (const n of names) {
    const key = nameKey(n)
    const id = s.byName.get(key)
    if (id !== undefined) {
      s.byId[id] = undefined
      s.byName.delete(key)
    }
  }
  if (s.native.generation !== s.generation) {
    // Removals renumbered the ids: rebuild the id map from the native order (native names
    // are the well-formed forms, which are our keys).
    const byKey = new Map<string, Stored>()
    for (const e of s.byId) if (e) byKey.set(nameKey(e.name), e)
    const ids = s.native.ids()
    const names2 = s.native.names()
    s.byId = []
    s.byName = new Map()
    ids.forEach((id, i) => {
      const e = byKey.get(names2[i]) as Stored
      s.byId[id] = e
      s.byName.set(names2[i], id)
    })
    s.generation = s.native.generation
  }
  return removed
}

// ---------------------------------------------------------------------------------------------
// The reference's module API
// ---------------------------------------------------------------------------------------------

/**
 * Build the index over the deferred tools of `tools` (drop-in for the reference): awaits each
 * tool's `prompt()` concurrently (a throw or a timeout gives `""`), takes the input schema from
 * `inputJSONSchema` or the zod `inputSchema`. Compat scoring unless `options.scoring` says
 * otherwise. Never throws for one bad tool, as ccb's does not: a tool with an empty or oversize
 * name, or a name an earlier indexed tool has, is left out and listed in `index.skipped`.
 */
export async function buildToolIndex(tools: readonly ToolLike[], options: BuildOptions = {}): Promise<ToolIndex> {
  const plan = planBuild(tools, options)
  const stored = await collect(plan.indexable, tools, options)
  const state = newState(stored, plan.scoring, options.tuning)
  state.skipped = plan.skipped
  return new ToolIndex(state)
}

/**
 * Search the index: results best first, ties in index order, scores at or above
 * `TOOL_SEARCH_DISPLAY_MIN_SCORE` (default 0.10). `limit` defaults to 5; a fraction is truncated;
 * NaN, a negative number or a non-number throws `E_INVALID_LIMIT`.
 * `index` may also be an array of reference-shaped entries (built natively on first use).
 */
export function searchTools(query: string, index: ToolIndex | readonly ToolIndexEntry[], limit: number = DEFAULT_LIMIT): ToolSearchResult[] {
  if (index instanceof ToolIndex) return index.search(query, limit)
  if (Array.isArray(index)) return fromArray(index).search(query, limit)
  throw invalidArg(`searchTools: index must be a ToolIndex or an array of entries, got ${typeName(index)}`)
}

const arrayIndexes = new WeakMap<readonly ToolIndexEntry[], { length: number; index: ToolIndex }>()

function fromArray(entries: readonly ToolIndexEntry[]): ToolIndex {
  const hit = arrayIndexes.get(entries)
  if (hit && hit.length === entries.length) return hit.index
  const index = ToolIndex.fromEntries(entries)
  arrayIndexes.set(entries, { length: entries.length, index })
  return index
}

interface CacheLine {
  /** The names of the tools the line was asked for, in the order given... */
  ordered: string[]
  /** ...and as a set (the key is order-independent). */
  names: Set<string>
  count: number
  optionsKey: string
  pending: Promise<ToolIndex>
  /** Values derived from this line's tool list (see `ToolIndexCache.memo`). */
  memo: Map<string, unknown>
}

/**
 * One cached index line: the same object while the set of tool names (the reference's key:
 * the sorted, comma-joined names) and the options hold; when they change, the previous index
 * is updated incrementally. Checking the key costs one set look-up per tool, not a sort.
 */
export class ToolIndexCache {
  #line: CacheLine | null = null
  /** How many full builds and incremental updates this cache has done. */
  readonly stats = { builds: 0, updates: 0 }

  get(tools: readonly ToolLike[], options: BuildOptions = {}): Promise<ToolIndex> {
    const optionsKey = optionsKeyOf(options)
    const cur = this.#line
    if (cur && cur.optionsKey === optionsKey && sameInOrder(cur, tools)) return cur.pending
    const names = toolNames(tools)
    if (cur && cur.optionsKey === optionsKey && sameNames(cur, names)) {
      cur.ordered = names
      return cur.pending
    }
    const previous = cur && cur.optionsKey === optionsKey ? cur : null
    const line: CacheLine = {
      ordered: names,
      names: new Set(names),
      count: names.length,
      optionsKey,
      pending: Promise.resolve(null as unknown as ToolIndex),
      memo: new Map(),
    }
    line.pending = (async () => {
      const base = previous ? await previous.pending.then(ToolIndex.takeState, () => undefined) : undefined
      if (base) {
        await updateState(base, tools, options)
        this.stats.updates++
        return new ToolIndex(base)
      }
      this.stats.builds++
      return buildToolIndex(tools, options)
    })()
    line.pending.catch(() => {
      if (this.#line === line) this.#line = null
    })
    this.#line = line
    return line.pending
  }

  /**
   * A value derived from the tool list of the current line (the last `get`), computed once
   * per line: valid while the tool names hold.
   */
  memo<T>(key: string, compute: () => T): T {
    const line = this.#line
    if (!line) return compute()
    if (!line.memo.has(key)) line.memo.set(key, compute())
    return line.memo.get(key) as T
  }

  /** Forget the cached index. */
  clear(): void {
    this.#line = null
  }
}

/** The same names in the same order as last time: one string comparison per tool. */
function sameInOrder(line: CacheLine, tools: readonly ToolLike[]): boolean {
  if (!Array.isArray(tools) || tools.length !== line.count) return false
  const ordered = line.ordered
  try {
    for (let i = 0; i < tools.length; i++) if (tools[i]?.name !== ordered[i]) return false
  } catch {
    return false
  }
  return true
}

function toolNames(tools: readonly ToolLike[]): string[] {
  if (!Array.isArray(tools)) throw invalidArg(`tools must be an array, got ${typeName(tools)}`)
  const out = new Array<string>(tools.length)
  try {
    for (let i = 0; i < tools.length; i++) {
      const n = tools[i]?.name
      out[i] = typeof n === 'string' ? n : `\u0000${i}`
    }
  } catch {
    // a throwing getter: find which, for the error message
    for (let i = 0; i < tools.length; i++) if (tools[i] && typeof tools[i] === 'object') readField(tools[i], 'name', i)
  }
  return out
}

function sameNames(line: CacheLine, names: string[]): boolean {
  if (names.length !== line.count) return false
  for (const n of names) if (!line.names.has(n)) return false
  return true
}

const dropInCache = new ToolIndexCache()

/**
 * Cached `buildToolIndex`: returns the same object while the sorted, comma-joined names of
 * `tools` (and the options) stay the same. When they change (an MCP server connected or
 * disconnected) the index is updated incrementally (only new tools' prompts are awaited)
 * and a new object is returned; results equal a fresh build.
 */
export function getToolIndex(tools: readonly ToolLike[], options: BuildOptions = {}): Promise<ToolIndex> {
  return dropInCache.get(tools, options)
}

/** Drop the `getToolIndex` cache. */
export function clearToolIndexCache(): void {
  dropInCache.clear()
}

async function updateState(s: State, tools: readonly ToolLike[], options: BuildOptions): Promise<void> {
  const plan = planBuild(tools, options)
  s.skipped = plan.skipped
  const wanted = new Set(plan.indexable.map((i) => nameKey(plan.names[i])))
  const removed = [...s.byName.keys()].filter((n) => !wanted.has(n))
  const added = plan.indexable.filter((i) => !s.byName.has(nameKey(plan.names[i])))
  const stored = await collect(added, tools, options)
  if (removed.length) removeNames(s, removed)
  upsertStored(s, stored)
}

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

interface Plan {
  names: string[]
  indexable: number[]
  scoring: Scoring
  skipped: SkippedTool[]
}

/**
 * Which tools to index. A tool that would be indexed but has an empty or oversize name, or a
 * name an earlier indexed tool already has, is left out and reported in `skipped` (as ccb's own
 * lookup finds the first tool of a name, the first one is kept): one bad tool never stops the
 * rest from being searched.
 */
function planBuild(tools: readonly ToolLike[], options: BuildOptions): Plan {
  const { names, alwaysLoad, scoring, core, exclude, force } = readingInput('the tools and options', () => readPlanInput(tools, options))
  const keep = native(() => binding.selectIndexable(names, alwaysLoad, core, exclude, force))
  const indexable: number[] = []
  const skipped: SkippedTool[] = []
  const seen = new Set<string>()
  keep.forEach((k, i) => {
    if (!k) return
    const name = names[i]
    if (name.length === 0 || name.length > LIMITS.nameLength) {
      skipped.push({ index: i, name: name.slice(0, 200), reason: name.length === 0 ? 'empty_name' : 'name_too_long' })
      return
    }
    const key = nameKey(name)
    if (seen.has(key)) {
      skipped.push({ index: i, name, reason: 'duplicate_name' })
      return
    }
    seen.add(key)
    indexable.push(i)
  })
  return { names, indexable, scoring, skipped }
}

function readPlanInput(tools: readonly ToolLike[], options: BuildOptions) {
  if (!Array.isArray(tools)) throw invalidArg(`tools must be an array, got ${typeName(tools)}`)
  if (options === null || typeof options !== 'object') throw invalidArg(`options must be an object, got ${typeName(options)}`)
  const scoring = checkScoring(options.scoring)
  const names: string[] = new Array(tools.length)
  const alwaysLoad: boolean[] = new Array(tools.length)
  tools.forEach((tool, i) => {
    if (tool === null || typeof tool !== 'object') throw invalidArg(`tools[${i}] must be an object, got ${typeName(tool)}`)
    const name = readField(tool, 'name', i)
    if (typeof name !== 'string') throw invalidArg(`tools[${i}].name must be a string, got ${typeName(name)}`)
    names[i] = name
    alwaysLoad[i] = readField(tool, 'alwaysLoad', i) === true
  })
  const core = options.coreTools === undefined ? undefined : stringList(options.coreTools, 'coreTools')
  const exclude = [...envList(ENV.exclude), ...(options.exclude ? stringList(options.exclude, 'exclude') : [])]
  const force = [...envList(ENV.includeForce), ...(options.includeForce ? stringList(options.includeForce, 'includeForce') : [])]
  return { names, alwaysLoad, scoring, core, exclude, force }
}

async function collect(indices: number[], tools: readonly ToolLike[], options: BuildOptions): Promise<Stored[]> {
  const timeout = readingInput('options.promptTimeoutMs', () => options.promptTimeoutMs) ?? DEFAULT_PROMPT_TIMEOUT_MS
  if (typeof timeout !== 'number' || !Number.isFinite(timeout) || timeout < 0) {
    throw new ToolIndexError('E_INVALID_NUMBER', `promptTimeoutMs must be a finite number >= 0 (0 = no limit), got ${String(timeout)}`)
  }
  const context = options.promptContext ?? defaultPromptContext(tools)
  const descriptions = await Promise.all(indices.map((i) => describe(tools[i], context, timeout)))
  return indices.map((i, k) => {
    const tool = tools[i]
    const name = tool.name
    const hint = readField(tool, 'searchHint', i)
    const isMcp = readField(tool, 'isMcp', i)
    let inputSchema: object | undefined
    try {
      inputSchema = inputSchemaOf(tool)
    } catch {
      inputSchema = undefined
    }
    const description = descriptions[k]
    checkLength(description, LIMITS.textLength, `tools[${i}] description`)
    const searchHint = typeof hint === 'string' ? hint : undefined
    if (searchHint !== undefined) checkLength(searchHint, LIMITS.textLength, `tools[${i}].searchHint`)
    const server = readField(tool, 'server', i)
    return {
      name,
      description,
      searchHint,
      isMcp: typeof isMcp === 'boolean' ? isMcp : name.startsWith('mcp__'),
      inputSchema,
      server: typeof server === 'string' ? server : undefined,
    }
  })
}

async function describe(tool: ToolLike, context: unknown, timeoutMs: number): Promise<string> {
  try {
    let pending: unknown
    if (typeof tool.prompt === 'function') pending = tool.prompt(context)
    else if (typeof tool.description === 'string') return tool.description
    else if (typeof tool.description === 'function') pending = tool.description({}, context)
    else return ''
    const value = await withTimeout(Promise.resolve(pending), timeoutMs)
    return typeof value === 'string' ? value : ''
  } catch {
    return ''
  }
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T | undefined> {
  if (ms === 0) return p
  return new Promise<T | undefined>((resolve, reject) => {
    const timer = setTimeout(() => resolve(undefined), ms)
    p.then(
      (v) => {
        clearTimeout(timer)
        resolve(v)
      },
      (e) => {
        clearTimeout(timer)
        reject(e)
      },
    )
  })
}

function defaultPromptContext(tools: readonly ToolLike[]): unknown {
  return {
    getToolPermissionContext: async () => ({
      mode: 'default',
      additionalWorkingDirectories: new Map(),
      alwaysAllowRules: {},
      alwaysDenyRules: {},
      alwaysAskRules: {},
      isBypassPermissionsModeAvailable: false,
    }),
    tools,
    agents: [],
  }
}

function checkEntry(e: ToolEntryInput, i: number): Stored {
  if (e === null || typeof e !== 'object') throw invalidArg(`entries[${i}] must be an object, got ${typeName(e)}`)
  const name = readField(e, 'name', i)
  if (typeof name !== 'string') throw invalidArg(`entries[${i}].name must be a string, got ${typeName(name)}`)
  checkName(name, i)
  const description = readField(e, 'description', i) ?? ''
  if (typeof description !== 'string') throw invalidArg(`entries[${i}].description must be a string, got ${typeName(description)}`)
  checkLength(description, LIMITS.textLength, `entries[${i}].description`)
  const hint = readField(e, 'searchHint', i) ?? undefined
  if (hint !== undefined && typeof hint !== 'string') throw invalidArg(`entries[${i}].searchHint must be a string, got ${typeName(hint)}`)
  if (hint !== undefined) checkLength(hint, LIMITS.textLength, `entries[${i}].searchHint`)
  const isMcp = readField(e, 'isMcp', i)
  if (isMcp !== undefined && typeof isMcp !== 'boolean') throw invalidArg(`entries[${i}].isMcp must be a boolean, got ${typeName(isMcp)}`)
  const schema = readField(e, 'inputSchema', i)
  const server = readField(e, 'server', i) ?? undefined
  if (server !== undefined && typeof server !== 'string') throw invalidArg(`entries[${i}].server must be a string, got ${typeName(server)}`)
  return {
    name,
    description,
    searchHint: hint,
    isMcp: isMcp ?? name.startsWith('mcp__'),
    inputSchema: schema !== null && typeof schema === 'object' ? schema : undefined,
    server,
  }
}

function checkName(name: string, i: number): void {
  if (name.length === 0) throw invalidArg(`tools[${i}].name must not be empty`)
  checkLength(name, LIMITS.nameLength, `tools[${i}].name`)
}

function checkLength(s: string, max: number, what: string): void {
  if (s.length > max) throw new ToolIndexError('E_TOO_LARGE', `${what} is ${s.length} characters; the limit is ${max}`)
}

function checkScoring(scoring: unknown, fallback: Scoring = 'compat'): Scoring {
  if (scoring === undefined) return fallback
  if (scoring === 'compat' || scoring === 'enhanced') return scoring
  throw new ToolIndexError('E_INVALID_SCORING', `unknown scoring mode ${JSON.stringify(scoring)}; expected 'compat' or 'enhanced'`)
}

/**
 * Run the part of a call that reads the caller's input: any error that is not already a
 * `ToolIndexError` (a throwing getter or Proxy trap, a non-iterable) becomes `E_INVALID_ARG`.
 */
export function readingInput<T>(what: string, fn: () => T): T {
  try {
    return fn()
  } catch (err) {
    if (err instanceof ToolIndexError) throw err
    throw new ToolIndexError('E_INVALID_ARG', `reading ${what} threw: ${String((err as Error)?.message ?? err)}`, { cause: err })
  }
}

function checkCallback(fn: unknown, what: string): void {
  if (typeof fn !== 'function') throw invalidArg(`${what}: the callback must be a function, got ${typeName(fn)}`)
}

/** Read a property, turning a throwing getter into `E_INVALID_ARG`. */
function readField(obj: object, key: string, i: number): any {
  try {
    return (obj as Record<string, unknown>)[key]
  } catch (err) {
    throw new ToolIndexError('E_INVALID_ARG', `reading ${key} of tool #${i} threw: ${String((err as Error)?.message ?? err)}`, { cause: err })
  }
}

export function stringList(v: Iterable<string>, what: string): string[] {
  if (v === null || typeof v !== 'object' || typeof (v as Iterable<string>)[Symbol.iterator] !== 'function' || typeof v === 'string') {
    throw invalidArg(`${what} must be an iterable of strings, got ${typeName(v)}`)
  }
  const out = [...v]
  for (const s of out) if (typeof s !== 'string') throw invalidArg(`${what} must hold only strings, got ${typeName(s)}`)
  return out
}

/**
 * The display threshold, read at each search: compat uses `TOOL_SEARCH_DISPLAY_MIN_SCORE`
 * (default 0.10, the reference's); enhanced uses `TOOL_SEARCH_ENHANCED_MIN_SCORE` (default 0:
 * its abstain rule, not a score cut, drops queries no tool answers). Unparsable values mean
 * the default.
 */
export function displayMinScore(scoring: Scoring = 'compat'): number {
  return scoring === 'enhanced' ? envNumber(ENV.enhancedMinScore, 0) : envNumber(ENV.displayMinScore, DEFAULT_MIN_SCORE)
}

function optionsKeyOf(o: BuildOptions): string {
  if (o === null || typeof o !== 'object') throw invalidArg(`options must be an object, got ${typeName(o)}`)
  const list = (v: Iterable<string> | undefined, what: string) => (v === undefined ? null : stringList(v, what))
  return readingInput('the options', () => JSON.stringify([
    list(o.coreTools, 'coreTools'),
    o.scoring ?? 'compat',
    list(o.exclude, 'exclude'),
    list(o.includeForce, 'includeForce'),
    o.promptTimeoutMs ?? null,
    envList(ENV.exclude),
    envList(ENV.includeForce),
  ]))
}

function typeName(v: unknown): string {
  if (v === null) return 'null'
  if (Array.isArray(v)) return 'array'
  if (typeof v === 'number' && Number.isNaN(v)) return 'NaN'
  return typeof v
}

/** The raw napi-rs binding, for callers who want the native class directly. */
export { binding as nativeBinding }

export {
  toolSearch,
  formatToolSearchResult,
  ToolSearchSession,
  type ToolSearchInput,
  type ToolSearchContext,
  type ToolSearchOutput,
  type ToolResultBlock,
} from './toolSearch'
export { executeTool, type ExecuteToolInput, type ExecuteToolOutput, type ExecuteToolOptions } from './executeTool'
export { type FormatOptions } from './toolSearch'
export { type ExecuteToolRefusal } from './executeTool'
export { extractDiscoveredToolNames, toExtraToolResult, type ExtraToolResult, type ExecuteRefusal } from './ccb'
export { isToolSearchEnabled, toolSearchMode, type ToolSearchMode } from './config'
export { MAX_INPUT_DEPTH, MAX_INPUT_NODES } from './validate'
export { searchToolPrompt, executeToolPrompt, executeToolDescription } from './prompts'
