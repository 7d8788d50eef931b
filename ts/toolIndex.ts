/// <reference lib="esnext.disposable" preserve="true" />
/**
 * The index: `ToolIndex`, a native index plus the JavaScript-side data (descriptions, schemas,
 * the caller's own name strings) it maps native ids back to. Building from a host's tool list
 * is `build.ts`; caching is `cache.ts`.
 */
import { binding, type NativeToolEntry, type NativeToolIndex } from './native'
import { ToolIndexError, invalidArg, native } from './errors'
import { DEFAULT_LIMIT, LIMITS, displayMinScore, tuningOf } from './config'
import { checkCallback, checkLength, checkToolArray, copyToolArray, checkScoring, noOptions, readOptionFields, readToolField as readField, readTuning, readingInput, stringList, typeName } from './input'
import { schemaText } from './schema'
import type { BuildOptions, Scoring, Tuning, ToolEntryInput, ToolIndexEntry, ToolSearchResult } from './types'

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
export function nameKey(name: string): string {
  return /[\uD800-\uDFFF]/.test(name) ? name.replace(LONE_SURROGATE, '\uFFFD') : name
}

/** Internal: one indexed tool, as the caller gave it. */
export interface Stored {
  name: string
  description: string
  searchHint: string | undefined
  isMcp: boolean
  inputSchema: object | undefined
  server: string | undefined
  /**
   * The schema's text for enhanced scoring, read from `inputSchema` once: a view rebuilt from
   * its snapshot reuses it instead of running the caller's getters again.
   */
  schemaText?: string
}

function toNative(e: Stored, scoring: Scoring): NativeToolEntry {
  const base: NativeToolEntry = { name: e.name, description: e.description, searchHint: e.searchHint, isMcp: e.isMcp }
  if (scoring === 'enhanced') {
    base.server = e.server
    base.schemaText = e.schemaText ??= schemaText(e.inputSchema)
  }
  return base
}

/** Internal: mutable state shared by the views `getToolIndex` hands out for one cache line. */
export interface State {
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


/** The states `newState` made: the only ones a `ToolIndex` is constructed over. */
const STATES = new WeakSet<object>()

/**
 * A built tool index. Array-like for code written against the reference (`length`,
 * iteration, `at`, `map`, `filter`, `find`, `some`, `forEach`): entries are materialized on
 * access, so searching never pays for them. Not shareable across threads or workers.
 */
export class ToolIndex implements Iterable<ToolIndexEntry> {
  /** @internal the live state; undefined once detached (see `takeState`) until next used. */
  #live: State | undefined
  #disposed = false
  /** @internal what this view indexed when its state was handed on, rebuilt on next use. */
  #snapshot: Snapshot | undefined
  /** @internal told when the holder changes the index (`upsert`, `remove`): see `watch`. */
  #onChange: (() => void) | undefined

  /** A method called on something that is not an index (`ToolIndex.prototype.search.call({})`) is `E_INVALID_ARG`. */
  static #brand(x: unknown): void {
    if (typeof x !== 'object' || x === null || !(#live in x)) {
      throw invalidArg('this is not a ToolIndex: call its methods on an index made by ToolIndex.fromEntries, buildToolIndex or getToolIndex')
    }
  }

  /**
   * Not for callers (an index comes from `ToolIndex.fromEntries`, `buildToolIndex` or
   * `getToolIndex`); `new ToolIndex()` throws `E_INVALID_ARG` from JavaScript.
   */
  private constructor(state: State) {
    if (!STATES.has(state)) {
      throw invalidArg('new ToolIndex() is not how an index is made: use ToolIndex.fromEntries(entries), buildToolIndex(tools) or getToolIndex(tools)')
    }
    this.#live = state
  }

  /** @internal the index over a state this module made (`newState`). */
  static of(state: State): ToolIndex {
    return new ToolIndex(state)
  }

  /** @internal */
  get #state(): State {
    if (this.#disposed) throw new ToolIndexError('E_DISPOSED', 'this ToolIndex was disposed; build or get a new one')
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
      // One read of the list: a Proxy whose length grows after the check walks no further.
      const list = copyToolArray<ToolEntryInput>(entries, 'entries')
      if (options !== undefined && options !== null && typeof options !== 'object') {
        throw invalidArg(`options must be an object, got ${typeName(options)}`)
      }
      const o = options ? readOptionFields<BuildOptions>(options, ['scoring', 'tuning'], 'options') : noOptions<BuildOptions>()
      const tuning = o.tuning === undefined || o.tuning === null ? undefined : readTuning(o.tuning, 'options.tuning')
      return { scoring: checkScoring(o.scoring), tuning, stored: list.map(checkEntry) }
    })
    return new ToolIndex(newState(stored, scoring, tuning))
  }

  /** Number of tools. */
  get length(): number {
    ToolIndex.#brand(this)
    return this.#state.native.length
  }

  /** Tools the build left out: an empty or oversize name, or a name an earlier tool has. */
  get skipped(): readonly SkippedTool[] {
    ToolIndex.#brand(this)
    return this.#state.skipped
  }

  /** The scoring mode. */
  get scoring(): Scoring {
    ToolIndex.#brand(this)
    return this.#state.scoring
  }

  /** Search; see `searchTools`. */
  search(query: string, limit: number = DEFAULT_LIMIT): ToolSearchResult[] {
    ToolIndex.#brand(this)
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
    keywordList?: readonly string[],
  ): RankedTool[] {
    ToolIndex.#brand(this)
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
    // Each name once, at most maxResults of them: a name's keyword rank is then its place here.
    const list = keywordList === undefined ? undefined : [...new Set(stringList(keywordList, 'keywordList'))].slice(0, Math.max(0, Math.trunc(maxResults)) || 0)
    const s = this.#state
    // The native side sees names with lone surrogates as U+FFFD: a name passes only when a tool
    // has exactly that name; any other is null there (outside the index, named here by its rank).
    const listed = list?.map((n) => {
      const id = s.byName.get(nameKey(n))
      return id !== undefined && s.byId[id]?.name === n ? n : null
    })
    const ranked = native(() =>
      s.native.toolSearchRank(query, maxResults, {
        keywordWeight: keyword,
        tfidfWeight: tfidf,
        minScore: displayMinScore(s.scoring),
        exactOutside,
        keywordList: listed,
      }),
    )
    return ranked.map((r) => ({
      // Names come from the caller's strings: ours by id, else the keyword list's (by rank) or exactOutside.
      name:
        r.id !== undefined && r.id !== null
          ? (s.byId[r.id] as Stored).name
          : list !== undefined && r.keywordRank !== undefined && r.keywordRank !== null
            ? (list[r.keywordRank] as string)
            : (exactOutside as string),
      score: r.score,
      keywordRank: r.keywordRank ?? undefined,
      tfidfScore: r.tfidfScore ?? undefined,
    }))
  }

  /**
   * The keyword half of ToolSearch with the path that answered: `exact`, `prefix` (unscored:
   * Infinity), `required` or `terms`. `termsOnly` runs the scoring path alone (no exact-name or
   * `mcp__`-prefix path), for tools kept outside the main index.
   */
  keywordRank(query: string, maxResults: number = DEFAULT_LIMIT, termsOnly = false): { path: 'exact' | 'prefix' | 'required' | 'terms'; hits: { name: string; score: number }[] } {
    ToolIndex.#brand(this)
    if (typeof query !== 'string') throw invalidArg(`query must be a string, got ${typeName(query)}`)
    checkLength(query, LIMITS.queryLength, 'query')
    if (typeof maxResults !== 'number') {
      throw new ToolIndexError('E_INVALID_LIMIT', `maxResults must be a number, got ${typeName(maxResults)}`)
    }
    if (typeof termsOnly !== 'boolean') throw invalidArg(`termsOnly must be a boolean, got ${typeName(termsOnly)}`)
    const s = this.#state
    const r = native(() => s.native.keywordRank(query, maxResults, termsOnly))
    return { path: r.path, hits: r.hits.map((h) => ({ name: (s.byId[h.id] as Stored).name, score: h.score })) }
  }

  /** The keyword half of ToolSearch alone: names best first (exact / prefix paths score Infinity). */
  keywordSearch(query: string, maxResults: number = DEFAULT_LIMIT): { name: string; score: number }[] {
    ToolIndex.#brand(this)
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
   * field), the name-match tier, and a note when it is not a result (then `score` is 0, as
   * below the display threshold `search` uses). `undefined` for an unknown name.
   */
  explain(query: string, name: string): Explanation | undefined {
    ToolIndex.#brand(this)
    if (typeof query !== 'string') throw invalidArg(`query must be a string, got ${typeName(query)}`)
    if (typeof name !== 'string') throw invalidArg(`name must be a string, got ${typeName(name)}`)
    checkLength(query, LIMITS.queryLength, 'query')
    // Only a tool of exactly this name (Rust sees lone surrogates as U+FFFD: another name).
    if (this.#idOf(name) === undefined) return undefined
    // Against the threshold `search` uses (the environment's display threshold included).
    const s = this.#state
    const e = native(() => s.native.explain(query, name, displayMinScore(s.scoring)))
    return e ? { ...e, name } : undefined
  }

  /** Add entries or replace same-named ones (in place); results equal a fresh build. */
  upsert(entries: readonly ToolEntryInput[]): void {
    ToolIndex.#brand(this)
    const stored = readingInput('the entries', () => {
      return copyToolArray<ToolEntryInput>(entries, 'entries').map(checkEntry)
    })
    const s = this.#state
    this.#onChange?.()
    upsertStored(s, stored)
  }

  /** Remove tools by name; returns how many were present. */
  remove(names: Iterable<string>): number {
    ToolIndex.#brand(this)
    const list = stringList(names, 'names')
    const s = this.#state
    this.#onChange?.()
    return removeNames(s, list)
  }

  /** Whether a tool of this name is indexed. */
  has(name: string): boolean {
    ToolIndex.#brand(this)
    return this.#idOf(name) !== undefined
  }

  /** The entry of a tool by name. */
  get(name: string): ToolIndexEntry | undefined {
    ToolIndex.#brand(this)
    const id = this.#idOf(name)
    return id === undefined ? undefined : this.#materialize(id)
  }

  /** Names in index order. */
  names(): string[] {
    ToolIndex.#brand(this)
    return this.#ids().map((id) => (this.#state.byId[id] as Stored).name)
  }

  /** The i-th entry (negative counts from the end), like `Array.prototype.at`. */
  at(i: number): ToolIndexEntry | undefined {
    ToolIndex.#brand(this)
    const ids = this.#ids()
    // As `Array.prototype.at`: NaN and undefined are 0.
    const t = Math.trunc(i) || 0
    const k = t < 0 ? ids.length + t : t
    return k >= 0 && k < ids.length ? this.#materialize(ids[k]) : undefined
  }

  /**
   * The tools in index order as they were when iteration began, each as it is when reached: a
   * tool removed before it is reached is skipped, one replaced is seen as it is now, one added
   * is not visited, and removals that renumber the ids change nothing else.
   */
  *[Symbol.iterator](): Iterator<ToolIndexEntry> {
    ToolIndex.#brand(this)
    const start = this.#state
    const names = this.#ids().map((id) => (start.byId[id] as Stored).name)
    for (const name of names) {
      // The state may have been handed on and rebuilt meanwhile: the tool's id now.
      const id = this.#idOf(name)
      if (id !== undefined) yield this.#materialize(id)
    }
  }

  /** All entries as a real array. */
  toArray(): ToolIndexEntry[] {
    ToolIndex.#brand(this)
    return [...this]
  }

  map<T>(fn: (entry: ToolIndexEntry, index: number) => T): T[] {
    ToolIndex.#brand(this)
    checkCallback(fn, 'map')
    return this.toArray().map(fn)
  }

  filter(fn: (entry: ToolIndexEntry, index: number) => unknown): ToolIndexEntry[] {
    ToolIndex.#brand(this)
    checkCallback(fn, 'filter')
    return this.toArray().filter(fn)
  }

  find(fn: (entry: ToolIndexEntry, index: number) => unknown): ToolIndexEntry | undefined {
    ToolIndex.#brand(this)
    checkCallback(fn, 'find')
    let i = 0
    for (const e of this) if (fn(e, i++)) return e
    return undefined
  }

  some(fn: (entry: ToolIndexEntry, index: number) => unknown): boolean {
    ToolIndex.#brand(this)
    checkCallback(fn, 'some')
    return this.find(fn) !== undefined
  }

  forEach(fn: (entry: ToolIndexEntry, index: number) => void): void {
    ToolIndex.#brand(this)
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

  /** Whether `dispose()` has been called. */
  get disposed(): boolean {
    ToolIndex.#brand(this)
    return this.#disposed
  }

  /**
   * Free the native index now instead of at garbage collection. Idempotent; any later use of
   * this object throws `E_DISPOSED`. (`getToolIndex` builds afresh when its cached index was
   * disposed.) Also `using index = ...` through `Symbol.dispose`.
   */
  dispose(): void {
    ToolIndex.#brand(this)
    if (this.#disposed) return
    this.#disposed = true
    const live = this.#live
    this.#live = undefined
    this.#snapshot = undefined
    if (live) freeNative(live.native)
  }

  [Symbol.dispose](): void {
    ToolIndex.#brand(this)
    this.dispose()
  }

  /**
   * @internal Call `onChange` before the holder of this view changes it (`upsert`, `remove`): a
   * cache that handed it out no longer holds the tools it was asked for.
   */
  static watch(index: ToolIndex, onChange: () => void): void {
    index.#onChange = onChange
  }

  /**
   * @internal Hand this view's state on to a newer view (which will update it in place): this
   * view keeps a snapshot of its entries and rebuilds its own index if it is used again, so an
   * index once returned never changes under its holder.
   */
  static takeState(index: ToolIndex): State | undefined {
    if (index.#disposed) return undefined
    const s = index.#state
    index.#snapshot = { stored: s.byId.filter((e): e is Stored => e !== undefined), scoring: s.scoring, tuning: s.tuning, skipped: s.skipped }
    index.#live = undefined
    return s
  }
}

/** Free the native index's memory now (the binding's `dispose()`). */
function freeNative(n: NativeToolIndex): void {
  native(() => n.dispose())
}

/** @internal */
export function newState(stored: Stored[], scoring: Scoring, tuning?: Tuning): State {
  // Reading the schemas runs the caller's getters: a throw there is the caller's input (E_INVALID_ARG).
  const entries = readingInput('the input schemas', () => stored.map((e) => toNative(e, scoring)))
  const options = { scoring, tuning: scoring === 'enhanced' ? tuningOf(tuning) : undefined }
  const nativeIndex = native(() => new binding.ToolIndex(entries, options))
  const byName = new Map<string, number>()
  stored.forEach((e, i) => byName.set(nameKey(e.name), i))
  const state: State = { native: nativeIndex, byId: stored.slice(), byName, generation: nativeIndex.generation, scoring, tuning, skipped: [] }
  STATES.add(state)
  return state
}

/** @internal */
export function upsertStored(s: State, stored: Stored[]): void {
  if (stored.length === 0) return
  const entries = readingInput('the input schemas', () => stored.map((e) => toNative(e, s.scoring)))
  const ids = native(() => s.native.upsert(entries))
  ids.forEach((id, i) => {
    s.byId[id] = stored[i]
    s.byName.set(nameKey(stored[i].name), id)
  })
}

/** @internal */
export function removeNames(s: State, names: string[]): number {
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

/** Internal: one entry read once and checked (`E_INVALID_ARG`, `E_TOO_LARGE`). */
export function checkEntry(e: ToolEntryInput, i: number): Stored {
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
