// Timing, GC and memory helpers shared by run.mjs and mem-child.mjs.
import v8 from 'node:v8'
import vm from 'node:vm'

export const now = () => performance.now()

/** A forcing GC, or null: Bun.gc, --expose-gc's gc, or the v8 flag trick on Node. */
function findGc() {
  if (typeof globalThis.Bun !== 'undefined') return () => globalThis.Bun.gc(true)
  if (typeof globalThis.gc === 'function') return () => globalThis.gc()
  try {
    v8.setFlagsFromString('--expose-gc')
    const g = vm.runInNewContext('gc')
    if (typeof g === 'function') return () => g()
  } catch {}
  return null
}
const gcFn = findGc()
export const hasGc = gcFn !== null
export function gc() {
  if (gcFn) {
    gcFn()
    gcFn()
  }
}

export const isThenable = v => v !== null && typeof v === 'object' && typeof v.then === 'function'

export function median(xs) {
  if (xs.length === 0) return NaN
  const s = xs.slice().sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}
/** Nearest-rank percentile. */
export function percentile(xs, p) {
  if (xs.length === 0) return NaN
  const s = xs.slice().sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]
}
export const mean = xs => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN)

let sink = 0
export const consume = v => {
  sink ^= v === undefined || v === null ? 1 : typeof v.length === 'number' ? v.length : 2
}
export const sinkValue = () => sink

/**
 * Build `reps` times (median), until `budgetMs` is spent (at least minReps, at most maxReps).
 * Returns { median, min, reps, index } with the last index built (kept alive for the queries).
 */
export async function timeBuild(build, { budgetMs, minReps = 1, maxReps = 15, first }) {
  const times = first === undefined ? [] : [first] // a sample taken by the caller
  let index = null
  const start = now()
  while (times.length < maxReps) {
    if (times.length >= Math.max(1, minReps) && now() - start >= budgetMs) break
    index = null
    gc()
    const t0 = now()
    let r = build()
    if (isThenable(r)) r = await r
    times.push(now() - t0)
    index = r
  }
  return { median: median(times), min: Math.min(...times), reps: times.length, index }
}

/**
 * Per-query latency. Each query is run in batches of k back-to-back calls (k sized so a batch
 * lasts ~targetBatchMs, amortizing the timer), over repeated passes until `budgetMs` is spent;
 * a query's latency is the median of its per-call batch means. Slow engines cover a prefix of
 * the (shuffled) query list, at least `minQueries` queries. Times in milliseconds.
 */
export async function timeQueries(fn, queries, { budgetMs, minQueries = 10, maxPasses = 25, targetBatchMs = 0.05, maxBatch = 2000 }) {
  let first = fn(queries[0])
  const async = isThenable(first)
  if (async) first = await first
  consume(first)

  const call = async
    ? async (q, k) => {
        const t0 = now()
        for (let i = 0; i < k; i++) consume(await fn(q))
        return (now() - t0) / k
      }
    : (q, k) => {
        const t0 = now()
        for (let i = 0; i < k; i++) consume(fn(q))
        return (now() - t0) / k
      }

  // Warm up (and calibrate k): one call per query, unless the engine is slow.
  const n = queries.length
  const k = new Array(n).fill(1)
  const samples = Array.from({ length: n }, () => [])
  const t1 = async ? await call(queries[0], 1) : call(queries[0], 1)
  const slow = t1 * n > budgetMs / 4
  const start = now()
  if (!slow) {
    for (let i = 0; i < n; i++) {
      let t = async ? await call(queries[i], 1) : call(queries[i], 1)
      if (t < targetBatchMs / 4) t = async ? await call(queries[i], 8) : call(queries[i], 8) // finer
      k[i] = Math.max(1, Math.min(maxBatch, Math.ceil(targetBatchMs / Math.max(t, 1e-6))))
    }
  } else {
    samples[0].push(t1) // the warm-up of a slow engine counts as its first sample
  }

  const deadline = (slow ? now() : start) + budgetMs
  let passes = 0
  outer: for (let p = 0; p < maxPasses; p++) {
    for (let i = 0; i < n; i++) {
      if (p === 0 && slow && i === 0) continue
      if (now() > deadline && (p > 0 || i >= minQueries)) break outer
      samples[i].push(async ? await call(queries[i], k[i]) : call(queries[i], k[i]))
    }
    passes++
    if (now() > deadline) break
  }
  const lat = []
  for (let i = 0; i < n; i++) if (samples[i].length) lat.push(median(samples[i]))
  return {
    mean: mean(lat),
    p50: percentile(lat, 50),
    p99: percentile(lat, 99),
    n: lat.length,
    passes: Math.max(1, passes),
    async,
  }
}

export function memUsage() {
  const m = process.memoryUsage()
  return { rss: m.rss, heapUsed: m.heapUsed, external: m.external ?? 0, arrayBuffers: m.arrayBuffers ?? 0 }
}
