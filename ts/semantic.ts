/**
 * The semantic channel: a per-tool vector store (native, int8-quantized, incremental) filled by
 * an `Embedder`, and a fused ranking of the lexical index and the vectors.
 *
 * Lexical search serves at once; tool vectors are computed in the background (off the JS thread
 * with the local encoder) and `searchFused` uses them once `ready` has resolved. The defaults of
 * the package's searches are unchanged: fusion is opt-in through this module.
 */
import { EncoderError, type Embedder } from './encoder'
import { LIMITS, MAX_TIMER_MS } from './config'
import { ToolIndexError, invalidArg, native } from './errors'
import { checkLength, checkScoring, copyToolArray, noOptions, readOptionFields, readToolField, readingInput, stringList, typeName } from './input'
import { fieldOrUndefined, ownElement } from './safeRead'
import { ToolIndex, checkEntry, nameKey, type Stored } from './toolIndex'
import { binding } from './native'
import { VectorChannel, type ChannelItem } from './vectorChannel'
import type { ToolEntryInput, ToolSearchResult, Tuning } from './types'

export * from './encoder'
export { MIN_READABLE_SHARE, readableShare, readsText } from './languages'
export { EMBED_BATCH } from './vectorChannel'

/** How the two rankings are combined. */
export interface FusionOptions {
  /**
   * `'weighted'` (default): `w · (s − s₀) / (s₁ − s₀) + (1 − w) · (cos − c₀) / (c₁ − c₀)` over
   * the candidates, where s₀, s₁ and c₀, c₁ are the lowest and highest lexical scores and
   * cosines among them (with `lexicalNorm: 'max'`, the lexical part is `s / s₁`).
   * `'rrf'`: reciprocal rank fusion, `w / (k + lexical rank) + (1 − w) / (k + vector rank)`.
   */
  method?: 'weighted' | 'rrf'
  /** Weight of the lexical channel, 0..1 (default tuned on the dev split: see FUSION_DEFAULTS). */
  lexicalWeight?: number
  /** Candidates taken from each channel (default 30). */
  candidates?: number
  /** RRF constant k (default 60). */
  rrfK?: number
  /**
   * How lexical scores are scaled in `'weighted'`: `'max'` (score / best score) or `'minmax'`
   * (`(score − lowest) / (best − lowest)` over the candidates, like the cosines).
   */
  lexicalNorm?: 'max' | 'minmax'
  /**
   * Multi-step requests: also embed each clause (`queryClauses`) and take each tool's best
   * cosine over the request and its clauses (default true; one encoder call, a few more texts).
   */
  perClause?: boolean
  /**
   * Answer with nothing when the request fits no tool (`ABSTAIN_RULE`, or a rule of your own;
   * default false). It applies only to catalogs of at least `candidates` tools.
   */
  abstain?: boolean | AbstainRule
  /**
   * A request the embedder cannot read (see `Embedder.languages`): `'gloss'` (default) embeds
   * its lexicon gloss (`lexiconGloss`: the Chinese words the lexicon knows, in English, with the
   * request's Latin words), `'lexical'` ranks it by the lexical channel alone.
   */
  unreadable?: 'lexical' | 'gloss'
}

/**
 * When a fused search answers with nothing: no tool's lexical score reaches `lexical` (no name
 * matched and the lexical evidence is weak), and the best tool's cosine stands less than `gap`
 * above `crowd` times the cosine of the `candidates`-th tool for the whole request (the request is
 * about as close to its best tool as to the crowd, or close to nothing at all). With `lexicalGap`,
 * the best lexical score must also stand less than `lexicalGap` above `lexicalCrowd` times the
 * `candidates`-th lexical score (0 when there are fewer lexical candidates): a request whose best
 * tool stands out of the lexical crowd is answered even when its cosines do not.
 */
export interface AbstainRule {
  lexical: number
  gap: number
  /**
   * How much of the crowd's cosine the best cosine is measured against (default 1: the plain
   * gap). Below 1, a low best cosine counts as weak evidence in itself.
   */
  crowd?: number
  /** The lexical crowd's gap (default: none, the lexical crowd is not looked at). */
  lexicalGap?: number
  /** How much of the lexical crowd's score the best lexical score is measured against (default 1). */
  lexicalCrowd?: number
}

/**
 * The abstain rule chosen on the dev split (`bench/quality/semantic-abstain.mjs --cv`): of its
 * grid, the rule that answers the most of ETOM's infeasible requests with nothing (54%) while no
 * set of the dev split loses more than half a point of recall@5 (0.49 at most; the sets: ETOM,
 * MetaTool with its 14,856 requests outside the sample, UltraTool, Seal-Tools).
 */
export const ABSTAIN_RULE: Readonly<AbstainRule> = Object.freeze({ lexical: 0.5, gap: 0.17, crowd: 0.75, lexicalGap: 0.25 })

/** An `AbstainRule`'s fields, in the order `abstains` and `readAbstain` read them. */
const ABSTAIN_FIELDS = ['lexical', 'gap', 'crowd', 'lexicalGap', 'lexicalCrowd'] as const

/**
 * Whether a fused search abstains (see `AbstainRule`): `lexical` the lexical candidates, best
 * first; `whole` the vector candidates of the whole request, best first; `best` the best cosine
 * over the request and its clauses.
 */
export function abstains(
  lexical: readonly { score: number }[],
  whole: readonly { score: number }[],
  best: number,
  candidates: number,
  rule: boolean | AbstainRule,
): boolean {
  const r = rule === true ? ABSTAIN_RULE : rule
  const k = Math.floor(candidates)
  if (!r || typeof r !== 'object' || !(k >= 1) || whole.length < k) return false
  // The rule's fields as `readAbstain` reads them (a class's getters count, the shared built-in
  // prototypes never do), and each list's scores by index within its length: a shorter list's
  // missing entry is no candidate, whatever a polluted prototype holds at that index.
  const field = (name: keyof AbstainRule) => fieldOrUndefined<number>(r, name)
  const [cut, gap, crowd = 1, lexicalGap, lexicalCrowd = 1] = ABSTAIN_FIELDS.map(field)
  if (cut === undefined || gap === undefined) return false
  const lex = scoreAt(lexical, 0) ?? 0
  const weak = lex < cut && best - crowd * (scoreAt(whole, k - 1) ?? Number.NaN) < gap
  return weak && (lexicalGap === undefined || lex - lexicalCrowd * (scoreAt(lexical, k - 1) ?? 0) < lexicalGap)
}

/** The score of a list's `i`-th entry, if the list holds one there (its own element, its own or class field). */
function scoreAt(list: readonly { score: number }[], i: number): number | undefined {
  return fieldOrUndefined<number>(ownElement(list, i), 'score')
}

/** Defaults of `FusionOptions`, tuned on the quality sets' dev split. */
export const FUSION_DEFAULTS: Readonly<Required<FusionOptions>> = Object.freeze({
  method: 'weighted',
  lexicalWeight: 0.5,
  candidates: 30,
  rrfK: 60,
  lexicalNorm: 'minmax',
  perClause: true,
  abstain: false,
  unreadable: 'gloss',
})

/** A ranked name with its channel scores (undefined: not among that channel's candidates). */
export interface FusedHit {
  name: string
  score: number
  lexical: number | undefined
  vector: number | undefined
}

/**
 * Fuse a lexical ranking and a vector ranking (each best first, with scores) into one list.
 * Pure function; ties keep the lexical order, then the vector order.
 *
 * `unjudged` names the tools the vector channel cannot judge (their text is mostly in scripts its
 * encoder was not trained on, so they have no vector): such a tool's lexical part stands in for
 * its vector part, so it is ranked by its lexical evidence alone, neither helped nor held back by
 * the other channel.
 */
export function fuse(
  lexical: readonly { name: string; score: number }[],
  vector: readonly { name: string; score: number }[],
  limit: number,
  options: FusionOptions = {},
  unjudged?: (name: string) => boolean,
): FusedHit[] {
  if (!Array.isArray(lexical) || !Array.isArray(vector)) {
    throw invalidArg(`fuse takes two arrays of { name, score }, got ${typeName(lexical)} and ${typeName(vector)}`)
  }
  const o = readingInput('the fusion options', () => ({ ...FUSION_DEFAULTS, ...options }))
  const w = Math.min(1, Math.max(0, Number.isFinite(o.lexicalWeight) ? o.lexicalWeight : FUSION_DEFAULTS.lexicalWeight))
  const lex = lexical.slice(0, o.candidates)
  const vec = vector.slice(0, o.candidates)
  const hits = new Map<string, FusedHit & { order: number }>()
  let order = 0
  const hit = (name: string) => {
    let h = hits.get(name)
    if (!h) {
      h = { name, score: 0, lexical: undefined, vector: undefined, order: order++ }
      hits.set(name, h)
    }
    return h
  }
  // Each name counts once a list, at its first (best) place.
  const lexRank = new Map<string, number>()
  const vecRank = new Map<string, number>()
  lex.forEach((r, i) => {
    if (lexRank.has(r.name)) return
    lexRank.set(r.name, i)
    hit(r.name).lexical = r.score
  })
  vec.forEach((r, i) => {
    if (vecRank.has(r.name)) return
    vecRank.set(r.name, i)
    hit(r.name).vector = r.score
  })
  // A tool the vector channel has no vector of and cannot judge: its lexical part stands for both.
  const alone = (h: FusedHit) => h.vector === undefined && unjudged !== undefined && unjudged(h.name) === true
  if (o.method === 'rrf') {
    for (const h of hits.values()) {
      const li = lexRank.get(h.name)
      const vi = vecRank.get(h.name)
      const lexical = li === undefined ? 0 : (alone(h) ? 1 : w) / (o.rrfK + li + 1)
      h.score = lexical + (vi === undefined ? 0 : (1 - w) / (o.rrfK + vi + 1))
    }
  } else {
    const lmax = lex.reduce((m, r) => Math.max(m, r.score), 0)
    const lmin = o.lexicalNorm === 'minmax' ? lex.reduce((m, r) => Math.min(m, r.score), Infinity) : 0
    const lspan = lmax - lmin
    let c0 = Infinity
    let c1 = -Infinity
    for (const r of vec) {
      c0 = Math.min(c0, r.score)
      c1 = Math.max(c1, r.score)
    }
    const span = c1 - c0
    // Equal cosines (a zero query vector, say) tell the candidates apart no better than none:
    // they get no vector credit, but a lone candidate that matches at all gets it in full.
    const flat = vec.length === 1 && c1 > 0 ? 1 : 0
    for (const h of hits.values()) {
      const l = h.lexical !== undefined && lmax > 0 ? (lspan > 0 ? (h.lexical - lmin) / lspan : 1) : 0
      const v = h.vector !== undefined ? (span > 0 ? (h.vector - c0) / span : flat) : alone(h) ? l : 0
      h.score = w * l + (1 - w) * v
    }
  }
  return [...hits.values()]
    .sort((a, b) => b.score - a.score || a.order - b.order)
    .slice(0, Math.max(0, limit))
    .map(({ order: _o, ...h }) => h)
}

/**
 * A request as an English encoder is given it when it cannot read the request itself: each word
 * of the Chinese lexicon in English, other CJK text dropped, the rest kept
 * (`帮我在 GitHub 上创建一个 issue` → `GitHub create issue`).
 */
export function lexiconGloss(query: string): string {
  checkQuery(query)
  return native(() => binding.lexiconGloss(query))
}

/**
 * What is embedded for a request, and by which encoder: the request itself, by the first of
 * `encoders` that reads it; else, with `unreadable: 'gloss'`, its lexicon gloss, by the first
 * that reads that; else nothing (`undefined`: the lexical ranking answers alone). The rule of
 * `SemanticToolIndex.searchFused`, exported for tools that mirror it.
 */
export function routeRequest<E>(
  query: string,
  encoders: readonly E[],
  reads: (encoder: E, text: string) => boolean,
  unreadable: 'lexical' | 'gloss',
): { encoder: E; text: string } | undefined {
  const reader = encoders.find((e) => reads(e, query))
  if (reader !== undefined) return { encoder: reader, text: query }
  if (unreadable !== 'gloss') return undefined
  const gloss = lexiconGloss(query)
  const glossReader = gloss ? encoders.find((e) => reads(e, gloss)) : undefined
  return glossReader !== undefined ? { encoder: glossReader, text: gloss } : undefined
}

/** The most clauses a request is embedded in (one vector per clause, plus the whole). */
export const MAX_QUERY_CLAUSES = 6

/**
 * The clauses of a multi-step request ("create a file …, then rename it and list the folder"),
 * as the enhanced ranking splits it; empty for a one-step request or one of more than
 * `MAX_QUERY_CLAUSES` steps.
 */
export function queryClauses(query: string): string[] {
  checkQuery(query)
  const parts = native(() => binding.splitClauses(query)).filter((c: string) => c.length > 0)
  return parts.length >= 2 && parts.length <= MAX_QUERY_CLAUSES ? parts : []
}

/**
 * Merge vector rankings of one request (the whole request's and each clause's) into one: a
 * tool scores its best cosine over them, so a tool close to any single step is a candidate
 * even when the request's pooled vector sits between its steps.
 */
export function mergeVectorHits(lists: readonly (readonly { name: string; score: number }[])[], limit: number): { name: string; score: number }[] {
  if (!Array.isArray(lists) || !lists.every(Array.isArray)) throw invalidArg(`mergeVectorHits takes an array of rankings (arrays), got ${typeName(lists)}`)
  const best = new Map<string, number>()
  for (const list of lists) {
    for (const r of list) {
      const b = best.get(r.name)
      if (b === undefined || r.score > b) best.set(r.name, r.score)
    }
  }
  return [...best.entries()]
    .map(([name, score]) => ({ name, score }))
    .sort((a, b) => b.score - a.score || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .slice(0, Math.max(0, limit))
}

/** Split a tool name into words: `mcp__github__create_issue` → `github create issue`, `getWalletBalance` → `get wallet balance`. */
export function nameWords(name: string): string {
  return String(name)
    .replace(/^mcp__/, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim()
    .toLowerCase()
}

/** A tool's search hint and description, joined (empty when it has neither). */
function toolProse(t: { description?: string | null; searchHint?: string | null }): string {
  return [t.searchHint, t.description].filter((s) => typeof s === 'string' && s.trim()).join('. ')
}

type ToolTexts = { name: string; description?: string | null; searchHint?: string | null }

/**
 * A tool's name, description and search hint, each read once (`E_INVALID_ARG` for anything but
 * an object with a string name, or a read that throws): what the exported text helpers read.
 */
function toolTexts(t: unknown): ToolTexts {
  if (t === null || typeof t !== 'object') throw invalidArg(`a tool must be an object, got ${typeName(t)}`)
  const name: unknown = readToolField(t, 'name', 0)
  if (typeof name !== 'string') throw invalidArg(`a tool's name must be a string, got ${typeName(name)}`)
  return { name, description: readToolField(t, 'description', 0), searchHint: readToolField(t, 'searchHint', 0) }
}

/** The text embedded for a tool: its name in words, then its description (and search hint). */
export function toolText(tool: ToolTexts): string {
  const t = toolTexts(tool)
  const desc = toolProse(t)
  return desc ? `${nameWords(t.name)}: ${desc}` : nameWords(t.name)
}

/**
 * The text whose scripts decide whether an encoder reads a tool (see `readableShare`): its
 * description and search hint, or its name in words when it has neither. Names are identifiers
 * in Latin letters whatever the tool's language (`file_write` of a tool described in Chinese), so
 * they say nothing of it.
 */
export function toolLanguageText(tool: ToolTexts): string {
  const t = toolTexts(tool)
  const desc = toolProse(t)
  return /\p{L}/u.test(desc) ? desc : nameWords(t.name)
}

/** Options of `SemanticToolIndex.create`. */
export interface SemanticIndexOptions {
  /** The encoder: the host's (`embedderFromFunction`) or the local one (`loadLocalEncoder()`). */
  embedder: Embedder
  /**
   * An encoder for the requests `embedder` cannot read (see `Embedder.languages`), for example
   * the local multilingual-e5-small beside all-MiniLM-L6-v2: every tool is embedded by both, and
   * a request by the first that reads it. Default: none (the `unreadable` rule of the fusion
   * options decides).
   */
  fallbackEmbedder?: Embedder
  /** Lexical scoring (default `'enhanced'`). */
  scoring?: 'compat' | 'enhanced'
  /** Lexical tuning (default: abstaining off, since fusion needs the lexical candidates). */
  tuning?: Tuning
  /** Fusion settings used by `searchFused` where a call gives none (read once, by `create`). */
  fusion?: FusionOptions
  /**
   * A call to the embedder that has not settled after this many ms per 1,000 texts (at least
   * once this long) fails with `E_ENCODE` (default 600,000, ten times what the local encoder
   * needs on 2 cores; 0 for none): one hung call then costs its tools their vectors (the next
   * `upsert` retries them), not the index its vector channel for good.
   */
  embedTimeoutMs?: number
  /**
   * A search request's embedding that has not settled after this many ms (default 10,000; 0 for
   * none) fails; a failed request embedding makes `searchFused` answer with the lexical ranking
   * (its error is kept in `queryError`).
   */
  queryTimeoutMs?: number
}

/** Default of `SemanticIndexOptions.embedTimeoutMs`. */
export const DEFAULT_EMBED_TIMEOUT_MS = 600_000

/** Default of `SemanticIndexOptions.queryTimeoutMs`. */
export const DEFAULT_QUERY_TIMEOUT_MS = 10_000

/**
 * Fusion options given over `base` (the defaults, or the index's as `readFusion` read them): the
 * given fields read once, never through `Object.prototype`, and checked; `wait` too when `what`
 * is a call's options.
 */
function readFusion(given: unknown, base: Readonly<Required<FusionOptions>>, what: 'options' | 'options.fusion'): Required<FusionOptions> & { wait: boolean } {
  if (given !== undefined && (given === null || typeof given !== 'object')) throw invalidArg(`${what} must be an object, got ${typeName(given)}`)
  const keys = ['method', 'lexicalWeight', 'candidates', 'rrfK', 'lexicalNorm', 'perClause', 'abstain', 'unreadable'] as const
  const read = what === 'options' ? [...keys, 'wait' as const] : keys
  const b = given ? readOptionFields<FusionOptions & { wait?: boolean }>(given, read, what) : noOptions<FusionOptions & { wait?: boolean }>()
  const o = { ...base } as Required<FusionOptions> & { wait: boolean }
  for (const k of keys) if (b[k] !== undefined) (o as Record<string, unknown>)[k] = b[k]
  o.wait = b.wait === true
  if (o.method !== 'weighted' && o.method !== 'rrf') throw invalidArg(`fusion method must be 'weighted' or 'rrf', got ${String(o.method)}`)
  if (o.lexicalNorm !== 'max' && o.lexicalNorm !== 'minmax') throw invalidArg(`lexicalNorm must be 'max' or 'minmax', got ${String(o.lexicalNorm)}`)
  if (typeof o.lexicalWeight !== 'number' || !(o.lexicalWeight >= 0 && o.lexicalWeight <= 1)) {
    throw new ToolIndexError('E_INVALID_NUMBER', `lexicalWeight must be a number from 0 to 1, got ${String(o.lexicalWeight)}`)
  }
  if (typeof o.candidates !== 'number' || !Number.isInteger(o.candidates) || o.candidates < 1 || o.candidates > LIMITS.toolCount) {
    throw new ToolIndexError('E_INVALID_LIMIT', `candidates must be a whole number from 1 to ${LIMITS.toolCount}, got ${String(o.candidates)}`)
  }
  if (typeof o.rrfK !== 'number' || !Number.isFinite(o.rrfK) || o.rrfK < 0) throw new ToolIndexError('E_INVALID_NUMBER', `rrfK must be a finite number >= 0, got ${String(o.rrfK)}`)
  if (typeof o.perClause !== 'boolean') throw invalidArg(`perClause must be true or false, got ${typeName(o.perClause)}`)
  o.abstain = readAbstain(o.abstain)
  if (o.unreadable !== 'lexical' && o.unreadable !== 'gloss') throw invalidArg(`unreadable must be 'lexical' or 'gloss', got ${String(o.unreadable)}`)
  return o
}

/** An abstain setting: `true`, `false`, or a rule whose own fields are read once and checked. */
function readAbstain(v: unknown): boolean | AbstainRule {
  if (typeof v === 'boolean') return v
  if (v === null || typeof v !== 'object') {
    throw invalidArg(`abstain must be true, false or { lexical, gap, crowd?, lexicalGap?, lexicalCrowd? }, got ${typeName(v)}`)
  }
  const r = readOptionFields<AbstainRule>(v, ABSTAIN_FIELDS, 'abstain')
  const rule: AbstainRule = { lexical: r.lexical as number, gap: r.gap as number }
  for (const k of ['crowd', 'lexicalGap', 'lexicalCrowd'] as const) if (r[k] !== undefined) rule[k] = r[k]
  for (const [k, x] of Object.entries(rule)) {
    if (typeof x !== 'number' || !Number.isFinite(x)) throw new ToolIndexError('E_INVALID_NUMBER', `abstain.${k} must be a finite number, got ${String(x)}`)
  }
  return Object.freeze(rule)
}

/** A deadline option: 0 (none) up to the longest timer. */
function checkTimeout(v: unknown, what: string): number {
  if (typeof v !== 'number' || !(v >= 0 && v <= MAX_TIMER_MS)) {
    throw new ToolIndexError('E_INVALID_NUMBER', `${what} must be a number from 0 to ${MAX_TIMER_MS} (0 = no limit), got ${String(v)}`)
  }
  return v
}

/** A search request: a string of at most `LIMITS.queryLength`, checked before it is embedded. */
function checkQuery(query: unknown): asserts query is string {
  if (typeof query !== 'string') throw invalidArg(`query must be a string, got ${typeName(query)}`)
  checkLength(query, LIMITS.queryLength, 'query')
}

/**
 * A result limit: a number >= 0, truncated; any limit above the most tools an index may hold
 * (`Infinity` included) means all of them (so a huge one never wraps in the native store's
 * 32-bit count).
 */
function checkLimit(limit: unknown): number {
  if (typeof limit !== 'number' || Number.isNaN(limit) || limit < 0) throw new ToolIndexError('E_INVALID_LIMIT', `limit must be a number >= 0, got ${String(limit)}`)
  return Math.min(Math.trunc(limit), LIMITS.toolCount)
}

/**
 * A lexical `ToolIndex` plus a vector store of the same tools per embedder (the embedder's, and
 * the fallback embedder's when there is one). Lexical search is ready at once; the tools' vectors
 * are computed in the background (`ready`).
 *
 * The stores key each tool by an id of its own (names are kept here, exactly as given), so a
 * result always names a tool the index holds now.
 */
export class SemanticToolIndex {
  #entries: Map<string, Stored>
  #lexical: ToolIndex
  /** Store id of each tool, and the tool of each id. */
  #idOf = new Map<string, string>()
  #nameOf = new Map<string, string>()
  #nextId = 0
  /** The embedder's channel, then the fallback embedder's (if any). */
  readonly #channels: readonly VectorChannel[]
  /** The index's fusion options, read and checked once, when it was created. */
  readonly #fusion: Readonly<Required<FusionOptions>>
  /** The last search request's embedding error (cleared by the next one that succeeds). */
  #queryError: unknown
  readonly #lexicalOptions: { scoring: 'compat' | 'enhanced'; tuning: Tuning }

  private constructor(entries: unknown, options: unknown) {
    if (options === null || typeof options !== 'object') throw new EncoderError('E_INVALID_ARG', 'options must be an object with an embedder')
    const o = readOptionFields<SemanticIndexOptions>(
      options,
      ['embedder', 'fallbackEmbedder', 'scoring', 'tuning', 'fusion', 'embedTimeoutMs', 'queryTimeoutMs'],
      'options',
    )
    const timeout = checkTimeout(o.embedTimeoutMs ?? DEFAULT_EMBED_TIMEOUT_MS, 'embedTimeoutMs')
    const queryTimeout = checkTimeout(o.queryTimeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS, 'queryTimeoutMs')
    const channels = [new VectorChannel(o.embedder, 'options.embedder', timeout, queryTimeout)]
    if (o.fallbackEmbedder !== undefined) channels.push(new VectorChannel(o.fallbackEmbedder, 'options.fallbackEmbedder', timeout, queryTimeout))
    this.#channels = channels
    this.#lexicalOptions = { scoring: checkScoring(o.scoring, 'enhanced'), tuning: o.tuning ?? { abstainCoverage: 0 } }
    const { wait: _wait, ...fusion } = readFusion(o.fusion, FUSION_DEFAULTS, 'options.fusion')
    this.#fusion = Object.freeze(fusion)
    const list = readEntries(entries)
    this.#entries = new Map(list.map((e) => [e.name, e]))
    this.#lexical = this.#buildLexical(this.#entries)
    for (const c of channels) c.enqueue(() => this.#items(list))
  }

  /** Build from plain entries; lexical search serves at once. */
  static create(entries: readonly ToolEntryInput[], options: SemanticIndexOptions): SemanticToolIndex {
    return new SemanticToolIndex(entries, options)
  }

  /** The lexical index over `entries` (throws, changing nothing, when they cannot be indexed). */
  #buildLexical(entries: Map<string, Stored>): ToolIndex {
    return ToolIndex.fromEntries([...entries.values()], this.#lexicalOptions)
  }

  /** The store id of `name`, made on first use. */
  #id(name: string): string {
    let id = this.#idOf.get(name)
    if (id === undefined) {
      id = `t${this.#nextId++}`
      this.#idOf.set(name, id)
      this.#nameOf.set(id, name)
    }
    return id
  }

  /** The tools as a channel embeds them: each one's text, and its id while it is held as it was. */
  #items(entries: readonly Stored[]): ChannelItem[] {
    return entries.map((e) => ({ text: toolText(e), language: toolLanguageText(e), held: () => (this.#entries.get(e.name) === e ? this.#id(e.name) : undefined) }))
  }

  /** The tools `channel` has no vector of, as they are now. */
  #missing(channel: VectorChannel): Stored[] {
    return [...this.#entries.values()].filter((e) => !channel.covers(this.#idOf.get(e.name) ?? ''))
  }

  /** True once `channel` holds a vector of every tool. */
  #complete(channel: VectorChannel): boolean {
    // A channel only ever counts ids of tools the index holds now (a removed or replaced tool's
    // id leaves it), so equal sizes mean every tool has its vector.
    return channel.size === this.#entries.size
  }

  /**
   * Resolves when every tool has its vectors; rejects with the error of an embedding that failed
   * (`E_DISPOSED` once the index is disposed, also while it is waited for).
   */
  get ready(): Promise<void> {
    return (async () => {
      // An upsert while one channel is waited for queues work on every channel: go round again
      // until all are complete at once (a channel that failed throws).
      for (;;) {
        for (const c of this.#channels) await this.#waitFor(c)
        if (this.vectorsReady) return
      }
    })()
  }

  /**
   * Wait until `channel` holds every tool's vector (rejecting as `ready` does); `E_DISPOSED`
   * instead, whatever the wait's outcome, when the index is or gets disposed.
   */
  async #waitFor(channel: VectorChannel): Promise<void> {
    this.#live()
    try {
      await channel.ready(() => this.#complete(channel))
    } finally {
      this.#live()
    }
  }

  /** True once every tool has its vectors (from each embedder). */
  get vectorsReady(): boolean {
    return this.#channels.every((c) => this.#complete(c))
  }

  /** The last search request's embedding error, if the last one failed (`searchFused` then answered lexically). */
  get queryError(): unknown {
    return this.#queryError
  }

  /** The lexical index (updated in place by `upsert`/`remove`). */
  get lexical(): ToolIndex {
    return this.#lexical
  }

  /** Number of tools. */
  get length(): number {
    return this.#entries.size
  }

  /**
   * Add or replace tools; their vectors are computed in the background (the promise, and
   * `ready`), with those of any tools an earlier embedding failed for (`upsert([])` retries
   * them). Entries that cannot be indexed throw and change nothing.
   */
  upsert(entries: readonly ToolEntryInput[]): Promise<void> {
    this.#live()
    const list = readEntries(entries)
    // A name the index holds in another form (`a\uD800` beside `a\uFFFD`) is a duplicate, not a
    // replacement. Only names with U+FFFD or a lone surrogate can have another form; the held
    // names' keys are listed once, when such a name comes.
    let heldKeys: Map<string, string> | undefined
    for (const e of list) {
      const key = nameKey(e.name)
      if (!key.includes('\uFFFD') || this.#entries.has(e.name)) continue
      heldKeys ??= new Map([...this.#entries.keys()].map((n) => [nameKey(n), n]))
      const held = heldKeys.get(key)
      if (held !== undefined) throw new ToolIndexError('E_DUPLICATE_NAME', `the name ${JSON.stringify(e.name)} is already held as ${JSON.stringify(held)}`)
    }
    const next = new Map(this.#entries)
    for (const e of list) next.set(e.name, e)
    this.#update(next, (lexical) => lexical.upsert(list))
    for (const e of list) {
      const id = this.#idOf.get(e.name)
      if (id !== undefined) for (const c of this.#channels) c.invalidate(id)
    }
    // Each batch also takes the tools an earlier, failed embedding left without vectors (so
    // `upsert([])` retries them), as they are when it starts.
    const batches = this.#channels.map((c) => c.enqueue(() => this.#items(this.#missing(c))))
    const all = Promise.all(batches).then(() => {})
    all.catch(() => {})
    return all
  }

  /** Remove tools by name (an iterable of strings; a string alone is not a list). */
  remove(names: Iterable<string>): void {
    this.#live()
    // Only names held exactly: the lexical index would also take `a\uD800` for a held
    // `a\uFFFD`, and the two indexes must change together.
    const list = stringList(names, 'names').filter((n) => this.#entries.has(n))
    const next = new Map(this.#entries)
    for (const n of list) next.delete(n)
    this.#update(next, (lexical) => lexical.remove(list))
    for (const n of list) {
      const id = this.#idOf.get(n)
      if (id === undefined) continue
      this.#idOf.delete(n)
      this.#nameOf.delete(id)
      for (const c of this.#channels) c.forget(id)
    }
  }

  /**
   * Change the lexical index in place (`change`) to hold `next`; should that fail, it is built
   * anew from the tools as they were, and the error thrown: nothing changes.
   */
  #update(next: Map<string, Stored>, change: (lexical: ToolIndex) => unknown): void {
    try {
      change(this.#lexical)
    } catch (err) {
      // A lexical index disposed through `lexical.dispose()` stays disposed.
      if ((err as { code?: unknown })?.code !== 'E_DISPOSED') this.#lexical = this.#buildLexical(this.#entries)
      throw err
    }
    this.#entries = next
  }

  #disposed = false

  /** `E_DISPOSED` after `dispose()`. */
  #live(): void {
    if (this.#disposed) throw new ToolIndexError('E_DISPOSED', 'this SemanticToolIndex was disposed; create a new one')
  }

  /**
   * Free the lexical index and the vector stores now instead of at garbage collection; any later
   * call but `dispose()` throws `E_DISPOSED`, and embeddings still running store nothing.
   */
  dispose(): void {
    if (this.#disposed) return
    this.#disposed = true
    this.#lexical.dispose()
    for (const c of this.#channels) c.dispose()
  }

  /** Lexical search only (synchronous). */
  search(query: string, limit = 5): ToolSearchResult[] {
    this.#live()
    return this.#lexical.search(query, limit)
  }

  /**
   * Store hits as tool names, leaving out ids whose tool is gone and vectors of a version of the
   * tool that was replaced since (its new vector, or its removal from the store, is on the way).
   */
  #named(channel: VectorChannel, hits: { name: string; score: number }[]): { name: string; score: number }[] {
    const out: { name: string; score: number }[] = []
    for (const h of hits) {
      const name = this.#nameOf.get(h.name)
      if (name !== undefined && this.#entries.has(name) && channel.hasVector(h.name)) out.push({ name, score: h.score })
    }
    return out
  }

  /**
   * The `limit` tools nearest to the query by vector alone, embedded by the first embedder that
   * reads it (the embedder when none does; tools it cannot read have no vector from it); waits until that embedder has every tool's vector
   * (rejects as `ready` does when its embedding failed).
   */
  async searchVector(query: string, limit = 5): Promise<{ name: string; score: number }[]> {
    this.#live()
    checkQuery(query)
    const k = checkLimit(limit)
    const channel = routeRequest(query, this.#channels, (c, text) => c.reads(text), 'lexical')?.encoder ?? this.#channels[0]
    await this.#waitFor(channel)
    const store = channel.store
    if (!store || k === 0) return []
    const [q] = await channel.requestVectors([query])
    this.#live()
    return this.#named(channel, channel.search(q, k)).slice(0, k)
  }

  /** True when an embedder (the embedder, or the fallback) reads most of the request's words (see `readableShare`). */
  readsRequest(query: string): boolean {
    checkQuery(query)
    return this.#channels.some((c) => c.reads(query))
  }

  /**
   * Fused search: lexical and vector candidates combined (see `fuse`). Until every tool has its
   * vector from the embedder the request goes to, it answers with the lexical ranking, unless
   * `wait` is true (then it waits for that embedder's vectors, rejecting as `ready` does).
   * A request mostly written in scripts the embedder was not trained on (`Embedder.languages`:
   * a Chinese request to an English model) is embedded by the fallback embedder if it reads it;
   * else its lexicon gloss is, or with `unreadable: 'lexical'` it is ranked by the lexical channel
   * alone. Tools work the same way: a tool whose text an embedder cannot read gets no vector from
   * it, and a search routed to that embedder ranks the tool by its lexical score alone (see
   * `fuse`'s `unjudged`), so a Chinese catalog under an English model is ranked lexically, not by
   * the model's noise.
   */
  async searchFused(query: string, limit = 5, options: FusionOptions & { wait?: boolean } = {}): Promise<FusedHit[]> {
    this.#live()
    checkQuery(query)
    const k = checkLimit(limit)
    const o = readFusion(options, this.#fusion, 'options')
    const route = routeRequest(query, this.#channels, (c, text) => c.reads(text), o.unreadable)
    if (o.wait && route !== undefined) await this.#waitFor(route.encoder)
    const lexicalOnly = () =>
      this.#lexical
        .search(query, o.candidates)
        .slice(0, k)
        .map((r) => ({ name: r.name, score: r.score, lexical: r.score, vector: undefined }))
    const store = route?.encoder.store
    if (route === undefined || !this.#complete(route.encoder) || !store) return lexicalOnly()
    const texts = [route.text, ...(o.perClause ? queryClauses(route.text) : [])]
    let qs: Float32Array[]
    try {
      qs = await route.encoder.requestVectors(texts)
      this.#queryError = undefined
    } catch (err) {
      // The embeddings API is down or slow: the lexical ranking still answers.
      this.#queryError = err
      return lexicalOnly()
    }
    // Taken after the wait: a tool removed meanwhile is in neither list.
    const lexical = this.#lexical.search(query, o.candidates)
    const lists = qs.map((q) => this.#named(route.encoder, route.encoder.search(q, o.candidates)).slice(0, o.candidates))
    const vector = mergeVectorHits(lists, o.candidates)
    if (abstains(lexical, lists[0] ?? [], vector[0]?.score ?? 0, o.candidates, o.abstain)) return []
    const unread = (name: string) => {
      const id = this.#idOf.get(name)
      return id !== undefined && route.encoder.cannotRead(id)
    }
    return fuse(lexical, vector, k, o, unread)
  }
}

/** Entries as the index keeps them: each read once and checked (`E_INVALID_ARG`, `E_TOO_LARGE`), no name twice (`E_DUPLICATE_NAME`). */
function readEntries(entries: unknown): Stored[] {
  const list = readingInput('the entries', () => copyToolArray<ToolEntryInput>(entries, 'entries').map(checkEntry))
  const seen = new Set<string>()
  for (const e of list) {
    const key = nameKey(e.name)
    if (seen.has(key)) throw new ToolIndexError('E_DUPLICATE_NAME', `the name ${JSON.stringify(e.name)} is given twice`)
    seen.add(key)
  }
  return list
}
