// Ranking metrics, the dev/holdout split and the seeded sampler of the quality command.
// Pure functions, no I/O: bench/quality/metrics.test.mjs checks them on hand-made rankings.

export const K = 5

// ---------------------------------------------------------------------------------------------
// Relevance judgements
// ---------------------------------------------------------------------------------------------

/**
 * A query's judgement: `relevant` (the union of every relevant name), `groups` (one group per
 * step; a step is covered when any of its members is retrieved) and `anyOf` (one right answer
 * suffices: the whole relevant list is a single group).
 *
 * - `relevant_groups` given (ETOM L3/L4): those groups, anyOf = false.
 * - `any_of: true` (ETOM L2), or `anyOf` forced by the caller (MetaTool single, whose few
 *   multi-label rows list overlapping alternatives): one group, anyOf = true.
 * - otherwise (ETOM L1, MetaTool multi): each relevant tool is its own group.
 */
export function judgement(q, { anyOf = false } = {}) {
  const relevantList = Array.isArray(q.relevant) ? q.relevant : []
  if (Array.isArray(q.relevant_groups) && q.relevant_groups.length > 0) {
    const groups = q.relevant_groups.map((g) => [...new Set(g)])
    const relevant = new Set([...relevantList, ...groups.flat()])
    return { relevant, groups, anyOf: false }
  }
  const relevant = new Set(relevantList)
  if (q.any_of === true || anyOf) return { relevant, groups: [[...relevant]], anyOf: true }
  return { relevant, groups: [...relevant].map((n) => [n]), anyOf: false }
}

/**
 * The first `k` entries of a ranking, positions kept; a name listed again is replaced by
 * `null` (an engine listing a tool twice gains nothing, and what it showed is still k slots).
 */
export function topK(ranked, k = K) {
  const seen = new Set()
  return ranked.slice(0, k).map((n) => {
    if (seen.has(n)) return null
    seen.add(n)
    return n
  })
}

/**
 * recall@k: the share of groups with at least one member in the top k (for anyOf and
 * single-tool queries: 1 on a hit, else 0).
 */
export function recallAt(ranked, j, k = K) {
  if (j.groups.length === 0) return 0
  const top = new Set(topK(ranked, k))
  let covered = 0
  for (const g of j.groups) if (g.some((n) => top.has(n))) covered++
  return covered / j.groups.length
}

/** MRR@k: 1 / rank of the first relevant name in the top k (union of all groups), else 0. */
export function mrrAt(ranked, j, k = K) {
  const top = topK(ranked, k)
  for (let i = 0; i < top.length; i++) if (j.relevant.has(top[i])) return 1 / (i + 1)
  return 0
}

const gain = (rank0) => 1 / Math.log2(rank0 + 2)

/**
 * nDCG@k with binary relevance.
 * - Graded over the union of relevant names: DCG = Σ_{i ≤ k, name_i relevant} 1/log2(i+1),
 *   IDCG = Σ_{i=1..min(|relevant|, k)} 1/log2(i+1).
 * - anyOf: only the first relevant name counts (one answer suffices, so the ideal list holds
 *   one relevant name at rank 1): nDCG = 1/log2(rank+1) of the first hit.
 */
export function ndcgAt(ranked, j, k = K) {
  const top = topK(ranked, k)
  if (j.relevant.size === 0) return 0
  if (j.anyOf) {
    for (let i = 0; i < top.length; i++) if (j.relevant.has(top[i])) return gain(i)
    return 0
  }
  let dcg = 0
  for (let i = 0; i < top.length; i++) if (j.relevant.has(top[i])) dcg += gain(i)
  let idcg = 0
  for (let i = 0; i < Math.min(j.relevant.size, k); i++) idcg += gain(i)
  return dcg / idcg
}

/** All three metrics of one ranking. */
export function scoreRanking(ranked, j, k = K) {
  return { recall: recallAt(ranked, j, k), mrr: mrrAt(ranked, j, k), ndcg: ndcgAt(ranked, j, k) }
}

/** Running means of per-query metrics. */
export class Accumulator {
  n = 0
  recall = 0
  mrr = 0
  ndcg = 0
  add(m) {
    this.n++
    this.recall += m.recall
    this.mrr += m.mrr
    this.ndcg += m.ndcg
  }
  result() {
    const d = this.n || 1
    return { n: this.n, recall: this.recall / d, mrr: this.mrr / d, ndcg: this.ndcg / d }
  }
}

// ---------------------------------------------------------------------------------------------
// Dev / holdout split
// ---------------------------------------------------------------------------------------------

const utf8 = new TextEncoder()

/** 32-bit FNV-1a over the UTF-8 bytes of `s`. */
export function fnv1a32(s) {
  let h = 0x811c9dc5
  for (const b of utf8.encode(s)) {
    h ^= b
    h = Math.imul(h, 0x01000193) >>> 0
  }
  return h >>> 0
}

/** A query is in the holdout part when FNV-1a(id) % 5 === 0 (about 20%), else in dev. */
export function isHoldout(id) {
  return fnv1a32(String(id)) % 5 === 0
}

/** `split`: 'dev' | 'holdout'. */
export function inSplit(id, split) {
  return split === 'holdout' ? isHoldout(id) : !isHoldout(id)
}

// ---------------------------------------------------------------------------------------------
// Seeded sampling
// ---------------------------------------------------------------------------------------------

/** mulberry32: a small 32-bit seeded PRNG; returns floats in [0, 1). */
export function mulberry32(seed) {
  let a = seed >>> 0
  return function next() {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** Fisher-Yates shuffle of a copy of `arr`, driven by `rand` (from mulberry32). */
export function shuffle(arr, rand) {
  const a = arr.slice()
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1))
    const t = a[i]
    a[i] = a[j]
    a[j] = t
  }
  return a
}

/** The first `n` of a seeded shuffle (all of `arr`, shuffled, when n >= length). */
export function sample(arr, n, seed) {
  return shuffle(arr, mulberry32(seed)).slice(0, n)
}
