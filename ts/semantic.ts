/**
 * The semantic channel: a per-tool vector store (native, int8-quantized, incremental) filled by
 * an `Embedder`, and a fused ranking of the lexical index and the vectors.
 *
 * Lexical search serves at once; tool vectors are computed in the background (off the JS thread
 * with the local encoder) and `searchFused` uses them once `ready` has resolved. The defaults of
 * the package's searches are unchanged: fusion is opt-in through this module.
 */
import { EncoderError, type Embedder } from './encoder'
import { native } from './errors'
import { ToolIndex } from './index'
import { binding } from './native'
import type { ToolEntryInput, ToolSearchResult, Tuning } from './types'

export * from './encoder'

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
}

/**
 * When a fused search answers with nothing: no tool's lexical score reaches `lexical` (no name
 * matched and the lexical evidence is weak), and the best tool's cosine stands less than `gap`
 * above `crowd` times the cosine of the `candidates`-th tool for the whole request (the request is
 * about as close to its best tool as to the crowd, or close to nothing at all).
 */
export interface AbstainRule {
  lexical: number
  gap: number
  /**
   * How much of the crowd's cosine the best cosine is measured against (default 1: the plain
   * gap). Below 1, a low best cosine counts as weak evidence in itself.
   */
  crowd?: number
}

/**
 * The abstain rule chosen on the dev split (`bench/quality/semantic-abstain.mjs --cv`): of its
 * grid, the rule that answers the most of ETOM's infeasible requests with nothing (56%) while no
 * set loses more than half a point of recall@5 (0.49 at most).
 */
export const ABSTAIN_RULE: Readonly<AbstainRule> = Object.freeze({ lexical: 0.45, gap: 0.14, crowd: 0.875 })

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
  if (!r || typeof r !== 'object' || candidates < 1 || whole.length < candidates) return false
  const lex = lexical[0]?.score ?? 0
  const crowd = r.crowd === undefined ? 1 : r.crowd
  return lex < r.lexical && best - crowd * whole[candidates - 1].score < r.gap
}

/** Defaults of `FusionOptions`, tuned on the quality sets' dev split. */
export const FUSION_DEFAULTS: Readonly<Required<FusionOptions>> = Object.freeze({
  method: 'weighted',
  lexicalWeight: 0.55,
  candidates: 30,
  rrfK: 60,
  lexicalNorm: 'minmax',
  perClause: true,
  abstain: false,
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
 */
export function fuse(
  lexical: readonly { name: string; score: number }[],
  vector: readonly { name: string; score: number }[],
  limit: number,
  options: FusionOptions = {},
): FusedHit[] {
  const o = { ...FUSION_DEFAULTS, ...options }
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
  for (const r of lex) if (hit(r.name).lexical === undefined) hit(r.name).lexical = r.score
  for (const r of vec) if (hit(r.name).vector === undefined) hit(r.name).vector = r.score
  if (o.method === 'rrf') {
    lex.forEach((r, i) => (hit(r.name).score += w / (o.rrfK + i + 1)))
    vec.forEach((r, i) => (hit(r.name).score += (1 - w) / (o.rrfK + i + 1)))
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
    for (const h of hits.values()) {
      const l = h.lexical !== undefined && lmax > 0 ? (lspan > 0 ? (h.lexical - lmin) / lspan : 1) : 0
      const v = h.vector !== undefined ? (span > 0 ? (h.vector - c0) / span : 1) : 0
      h.score = w * l + (1 - w) * v
    }
  }
  return [...hits.values()]
    .sort((a, b) => b.score - a.score || a.order - b.order)
    .slice(0, Math.max(0, limit))
    .map(({ order: _o, ...h }) => h)
}

/** The most clauses a request is embedded in (one vector per clause, plus the whole). */
export const MAX_QUERY_CLAUSES = 6

/**
 * The clauses of a multi-step request ("create a file …, then rename it and list the folder"),
 * as the enhanced ranking splits it; empty for a one-step request or one of more than
 * `MAX_QUERY_CLAUSES` steps.
 */
export function queryClauses(query: string): string[] {
  const parts = native(() => binding.splitClauses(query)).filter((c: string) => c.length > 0)
  return parts.length >= 2 && parts.length <= MAX_QUERY_CLAUSES ? parts : []
}

/**
 * Merge vector rankings of one request (the whole request's and each clause's) into one: a
 * tool scores its best cosine over them, so a tool close to any single step is a candidate
 * even when the request's pooled vector sits between its steps.
 */
export function mergeVectorHits(lists: readonly (readonly { name: string; score: number }[])[], limit: number): { name: string; score: number }[] {
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

/** The text embedded for a tool: its name in words, then its description (and search hint). */
export function toolText(t: { name: string; description?: string | null; searchHint?: string | null }): string {
  const desc = [t.searchHint, t.description].filter((s) => typeof s === 'string' && s.trim()).join('. ')
  return desc ? `${nameWords(t.name)}: ${desc}` : nameWords(t.name)
}

/** Options of `SemanticToolIndex.create`. */
export interface SemanticIndexOptions {
  /** The encoder: the host's (`embedderFromFunction`) or the local one (`loadLocalEncoder()`). */
  embedder: Embedder
  /** Lexical scoring (default `'enhanced'`). */
  scoring?: 'compat' | 'enhanced'
  /** Lexical tuning (default: abstaining off, since fusion needs the lexical candidates). */
  tuning?: Tuning
  /** Fusion settings used by `searchFused` when a call gives none. */
  fusion?: FusionOptions
}

type VectorStore = InstanceType<typeof binding.NativeVectorStore>

/**
 * A lexical `ToolIndex` plus a vector store of the same tools. Lexical search is ready at once;
 * the tools' vectors are computed in the background (`ready`).
 */
export class SemanticToolIndex {
  #entries: Map<string, ToolEntryInput>
  #lexical: ToolIndex
  #store: VectorStore | undefined
  #pending: Promise<void>
  #ready = false
  #error: unknown
  readonly #opts: SemanticIndexOptions

  private constructor(entries: readonly ToolEntryInput[], opts: SemanticIndexOptions) {
    if (!opts || typeof opts.embedder?.embed !== 'function') throw new EncoderError('E_INVALID_ARG', 'options.embedder must be an Embedder')
    this.#opts = opts
    this.#entries = new Map(entries.map((e) => [e.name, e]))
    this.#lexical = this.#buildLexical()
    this.#pending = this.#embed([...this.#entries.values()])
    this.#pending.catch(() => {}) // reported through `ready` and `searchFused`
  }

  /** Build from plain entries; lexical search serves at once. */
  static create(entries: readonly ToolEntryInput[], options: SemanticIndexOptions): SemanticToolIndex {
    return new SemanticToolIndex(entries, options)
  }

  #buildLexical(): ToolIndex {
    return ToolIndex.fromEntries([...this.#entries.values()], {
      scoring: this.#opts.scoring ?? 'enhanced',
      tuning: this.#opts.tuning ?? { abstainCoverage: 0 },
    })
  }

  async #embed(entries: readonly ToolEntryInput[]): Promise<void> {
    if (entries.length === 0) {
      this.#ready = this.#store !== undefined || this.#ready
      return
    }
    const vecs = await this.#opts.embedder.embed(entries.map(toolText))
    if (vecs.length !== entries.length) throw new EncoderError('E_ENCODE', `embedder returned ${vecs.length} vectors for ${entries.length} tools`)
    const dim = vecs[0]?.length ?? 0
    if (!this.#store) this.#store = native(() => new binding.NativeVectorStore(dim))
    const store = this.#store
    const flat = new Float32Array(vecs.length * store.dim)
    vecs.forEach((v, i) => {
      if (v.length !== store.dim) throw new EncoderError('E_ENCODE', `vector ${i} has ${v.length} floats, expected ${store.dim}`)
      flat.set(v as ArrayLike<number>, i * store.dim)
    })
    // Skip tools removed or replaced while embedding ran.
    const names: string[] = []
    const keep: number[] = []
    entries.forEach((e, i) => {
      if (this.#entries.get(e.name) === e) {
        names.push(e.name)
        keep.push(i)
      }
    })
    const rows = new Float32Array(keep.length * store.dim)
    keep.forEach((i, j) => rows.set(flat.subarray(i * store.dim, (i + 1) * store.dim), j * store.dim))
    native(() => store.upsertMany(names, rows))
    this.#ready = true
  }

  /** Resolves when every tool has its vector; rejects with the embedder's error. */
  get ready(): Promise<void> {
    return this.#pending
  }

  /** True once the vectors of the tools added so far are stored. */
  get vectorsReady(): boolean {
    return this.#ready && this.#error === undefined
  }

  /** The lexical index (rebuilt on `upsert`/`remove`). */
  get lexical(): ToolIndex {
    return this.#lexical
  }

  /** Number of tools. */
  get length(): number {
    return this.#entries.size
  }

  /** Add or replace tools; their vectors are computed in the background (see `ready`). */
  upsert(entries: readonly ToolEntryInput[]): Promise<void> {
    for (const e of entries) this.#entries.set(e.name, e)
    this.#lexical = this.#buildLexical()
    const prev = this.#pending
    this.#pending = prev.catch(() => {}).then(() => this.#embed(entries))
    this.#pending.catch(() => {})
    return this.#pending
  }

  /** Remove tools by name. */
  remove(names: readonly string[]): void {
    for (const n of names) {
      this.#entries.delete(n)
      this.#store?.remove(n)
    }
    this.#lexical = this.#buildLexical()
  }

  /** Lexical search only (synchronous). */
  search(query: string, limit = 5): ToolSearchResult[] {
    return this.#lexical.search(query, limit)
  }

  /** The `limit` tools nearest to the query by vector alone (waits for `ready`). */
  async searchVector(query: string, limit = 5): Promise<{ name: string; score: number }[]> {
    await this.#pending
    const [q] = await this.#opts.embedder.embed([query])
    const store = this.#store
    if (!store || !q) return []
    return native(() => store.search(Float32Array.from(q as ArrayLike<number>), limit))
  }

  /**
   * Fused search: lexical and vector candidates combined (see `fuse`). Until the tool vectors
   * are ready it answers with the lexical ranking, unless `wait` is true.
   */
  async searchFused(query: string, limit = 5, options: FusionOptions & { wait?: boolean } = {}): Promise<FusedHit[]> {
    const o = { ...FUSION_DEFAULTS, ...this.#opts.fusion, ...options }
    if (o.wait) await this.#pending
    const lexical = this.#lexical.search(query, o.candidates)
    if (!this.#ready || !this.#store) {
      return lexical.slice(0, limit).map((r) => ({ name: r.name, score: r.score, lexical: r.score, vector: undefined }))
    }
    const store = this.#store
    const texts = [query, ...(o.perClause ? queryClauses(query) : [])]
    const qs = await this.#opts.embedder.embed(texts)
    const lists = qs.map((q) => native(() => store.search(Float32Array.from(q as ArrayLike<number>), o.candidates)))
    const vector = mergeVectorHits(lists, o.candidates)
    if (abstains(lexical, lists[0] ?? [], vector[0]?.score ?? 0, o.candidates, o.abstain)) return []
    return fuse(lexical, vector, limit, o)
  }
}
