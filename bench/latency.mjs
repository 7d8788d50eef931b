#!/usr/bin/env node
/**
 * Query latency of the two scorings side by side, per quality set: the same `ToolIndex.search`
 * call (limit 5) over every query of the dev split, compat vs enhanced, in one process.
 *
 *   node bench/latency.mjs [--reps N] [--split dev|holdout] [--dump FILE]
 *   node bench/latency.mjs --catalog 10k [--reps N]
 *   bun bench/latency.mjs
 *
 * `--catalog SIZE` times the benchmark catalog of that size and its 200 queries instead (the
 * catalog and queries of `bench/run.mjs`): compat and enhanced alternate query by query, each
 * search timed on its own, and the median and the mean of each are printed with their ratios
 * (`bench/run.mjs` times each engine in a process of its own, where the machine's load can
 * differ from one to the other).
 * `--dump FILE` writes each query's enhanced top 5 (names and scores), so two builds can be
 * compared for identical rankings with `cmp`. Needs the built package and the public sets in
 * `../shared/bench-data` (or `$TOOL_INDEX_BENCH_DATA`). Wall-clock figures on a shared machine
 * are noisy: compare ratios from one run.
 */
import { createRequire } from 'node:module'
import { writeFileSync } from 'node:fs'
import { loadSets, SET_IDS } from './quality/data.mjs'
import { entriesOf } from './quality/systems.mjs'
import { buildCatalog, loadQueries } from './lib/data.mjs'
import { mean as meanOf, median } from './lib/measure.mjs'

const require = createRequire(import.meta.url)
const api = require('../dist/index.js')

const args = process.argv.slice(2)
const arg = (name, fallback) => {
  const i = args.indexOf(name)
  return i >= 0 && i + 1 < args.length ? args[i + 1] : fallback
}
const reps = Number(arg('--reps', '3'))
const split = arg('--split', 'dev')
const dump = arg('--dump', undefined)
const catalogSize = arg('--catalog', undefined)
const SCORINGS = ['compat', 'enhanced']
const runtime = typeof Bun !== 'undefined' ? `bun ${Bun.version}` : `node ${process.version}`

if (catalogSize !== undefined) {
  const size = Math.round(parseFloat(catalogSize) * (/k$/i.test(catalogSize) ? 1000 : 1))
  const { entries } = buildCatalog(size)
  const queries = loadQueries(200).map((q) => q.text)
  const index = Object.fromEntries(SCORINGS.map((s) => [s, api.ToolIndex.fromEntries(entries, { scoring: s })]))
  const times = Object.fromEntries(SCORINGS.map((s) => [s, []]))
  for (const q of queries) for (const s of SCORINGS) index[s].search(q, 5)
  for (let r = 0; r < reps; r++) {
    for (const q of queries) {
      for (const s of SCORINGS) {
        const t0 = process.hrtime.bigint()
        index[s].search(q, 5)
        times[s].push(Number(process.hrtime.bigint() - t0) / 1000)
      }
    }
  }
  const [c, e] = SCORINGS.map((s) => ({ p50: median(times[s]), mean: meanOf(times[s]) }))
  console.log(`query latency, the ${size.toLocaleString('en-US')}-tool catalog's ${queries.length} queries, ${reps} passes, alternating (${runtime}); µs per search(q, 5)`)
  console.log('| | compat | enhanced | enhanced / compat |')
  console.log('|---|---:|---:|---:|')
  console.log(`| median | ${c.p50.toFixed(1)} | ${e.p50.toFixed(1)} | ${(e.p50 / c.p50).toFixed(2)}× |`)
  console.log(`| mean | ${c.mean.toFixed(1)} | ${e.mean.toFixed(1)} | ${(e.mean / c.mean).toFixed(2)}× |`)
  process.exit(0)
}

const { corpora, sets } = loadSets({ sets: SET_IDS, split })
const indexes = new Map()
for (const [corpus, tools] of Object.entries(corpora)) {
  for (const scoring of SCORINGS) indexes.set(`${corpus}/${scoring}`, api.ToolIndex.fromEntries(entriesOf(tools), { scoring }))
}

/** Mean microseconds per query of `search(q, 5)` over `queries`, after a short warm-up. */
function timeSearch(index, queries) {
  for (const q of queries.slice(0, 50)) index.search(q.query, 5)
  const t0 = process.hrtime.bigint()
  for (let r = 0; r < reps; r++) for (const q of queries) index.search(q.query, 5)
  return Number(process.hrtime.bigint() - t0) / 1000 / (reps * queries.length)
}

console.log(`query latency, ${split} split, ${reps} passes (${runtime}); µs per search(q, 5)`)
console.log('| set | queries | compat | enhanced | enhanced / compat |')
console.log('|---|---:|---:|---:|---:|')
const total = { compat: 0, enhanced: 0, n: 0 }
const lines = []
for (const set of sets) {
  const us = {}
  for (const scoring of SCORINGS) {
    us[scoring] = timeSearch(indexes.get(`${set.corpus}/${scoring}`), set.queries)
    total[scoring] += us[scoring] * set.queries.length
  }
  total.n += set.queries.length
  console.log(`| ${set.id} | ${set.queries.length} | ${us.compat.toFixed(1)} | ${us.enhanced.toFixed(1)} | ${(us.enhanced / us.compat).toFixed(2)}× |`)
  if (dump) {
    const index = indexes.get(`${set.corpus}/enhanced`)
    for (const q of set.queries) {
      const top = index.search(q.query, 5).map((h) => `${h.name}:${h.score.toFixed(9)}`)
      lines.push(`${set.id}\t${q.query}\t${top.join(' ')}`)
    }
  }
}
const mean = (s) => total[s] / total.n
console.log(`| all | ${total.n} | ${mean('compat').toFixed(1)} | ${mean('enhanced').toFixed(1)} | ${(mean('enhanced') / mean('compat')).toFixed(2)}× |`)
if (dump) writeFileSync(dump, `${lines.join('\n')}\n`)
