// One measurement in a fresh process, driven by run.mjs:
//   <runtime> bench/worker.mjs '<json task>'
// task = { kind: 'size' | 'incremental', engines: [ids], size, seed, queries, budget, buildBudget,
//          slowQueries, mem }
// Prints one JSON line (the last line of stdout) with the figures.
//
// A fresh process per engine and size keeps one engine's heap, freed pages and JIT state out of
// the next one's figures, and lets the memory growth come from the same build that is timed.
import { buildCatalog, loadQueries, makeCatalog, newServers } from './lib/data.mjs'
import { makeEngines } from './lib/engines.mjs'
import { consume, gc, hasGc, isThenable, median, memUsage, now, sinkValue, timeBuild, timeQueries } from './lib/measure.mjs'

const task = JSON.parse(process.argv[2])
const { engines } = await makeEngines({ only: task.engines })
const out = { engines: {}, gc: hasGc }
const byId = Object.fromEntries(engines.map(e => [e.id, e]))
const settle = () => new Promise(r => setTimeout(r, 5))

/** JIT warm-up on a small catalog: a build, plus queries unless `buildOnly` (queries leave
 * garbage whose freed pages would hide the measured build's RSS growth). */
async function warmUp(e, queryTexts, { buildOnly = false } = {}) {
  const warm = buildCatalog(buildOnly ? 50 : 200, task.seed + 5)
  e.prepare?.(warm)
  let idx = e.build(warm)
  if (isThenable(idx)) idx = await idx
  const sharers = engines.filter(x => x.shareIndexWith === e.id)
  for (const x of [e, ...sharers]) {
    if (x.buildOnly || buildOnly) continue
    for (const q of queryTexts.slice(0, 20)) {
      let r = x.search(idx, q)
      if (isThenable(r)) r = await r
      consume(r)
    }
  }
}

function hitRate(engine, idx, cat, queries) {
  const names = new Set(cat.names)
  let eligible = 0
  let hit = 0
  const pending = []
  for (const q of queries) {
    if (!q.relevant.some(n => names.has(n))) continue
    eligible++
    const rel = new Set(q.relevant)
    const r = engine.search(idx, q.text)
    const score = res => {
      if (engine.top(res, cat).some(n => rel.has(n))) hit++
    }
    if (isThenable(r)) pending.push(r.then(score))
    else score(r)
  }
  return Promise.all(pending).then(() => ({ hit, eligible }))
}

if (task.kind === 'size') {
  const queries = loadQueries(task.queries, task.seed)
  const queryTexts = queries.map(q => q.text)
  const cat = buildCatalog(task.size, task.seed)
  const primary = engines.find(e => !e.shareIndexWith)
  primary.prepare?.(cat)
  await warmUp(primary, queryTexts, { buildOnly: true })

  // First build: memory growth (and the first timing sample).
  await settle()
  gc()
  const before = memUsage()
  const t0 = now()
  let first = primary.build(cat)
  if (isThenable(first)) first = await first
  const firstMs = now() - t0
  await settle()
  gc()
  const after = memUsage()
  const mem = { rss: after.rss - before.rss, heapUsed: after.heapUsed - before.heapUsed, external: after.external - before.external }

  // More builds while the budget lasts (a slow engine keeps its first, measured build).
  let idx = first
  let b = { median: firstMs, min: firstMs, reps: 1 }
  if (firstMs < task.buildBudget) {
    idx = first = null
    const r = await timeBuild(() => primary.build(cat), {
      budgetMs: task.buildBudget - firstMs,
      maxReps: task.size >= 100000 ? 3 : 15,
      first: firstMs,
    })
    b = r
    idx = r.index
  }
  first = null
  out.engines[primary.id] = { build: { median: b.median, min: b.min, reps: b.reps }, mem: primary.buildOnly ? undefined : mem }

  for (const e of [primary, ...engines.filter(x => x.shareIndexWith === primary.id)]) {
    if (e.buildOnly) continue
    gc()
    const q = await timeQueries(x => e.search(idx, x), queryTexts, { budgetMs: task.budget, minQueries: task.slowQueries })
    const row = (out.engines[e.id] ??= {})
    row.query = q
    // Relevance sanity over the queries timed (not a quality benchmark), when affordable.
    if (q.p50 * q.n < 3000) row.hit = await hitRate(e, idx, cat, queries.slice(0, q.n))
  }
} else if (task.kind === 'incremental') {
  const queryTexts = loadQueries(30, task.seed).map(q => q.text)
  const e = engines[0]
  const size = task.size
  const cat = buildCatalog(size, task.seed)
  const next = newServers(task.seed)
  const batches = []
  for (let i = 0; i < 24; i++) {
    const b = makeCatalog(next())
    b.docs.forEach((d, j) => (d.id = size + i * 20 + j))
    batches.push(b)
  }
  const plus = makeCatalog([...cat.tools, ...batches[0].tools])
  for (const c of [cat, plus, ...batches]) e.prepare?.(c)
  await warmUp(e, queryTexts)
  const row = {}
  const rb = await timeBuild(() => e.build(plus), { budgetMs: task.buildBudget / 2, maxReps: 5 })
  row.rebuild = rb.median
  const rebuilt = rb.index
  if (e.add) {
    let idx = e.build(cat)
    if (isThenable(idx)) idx = await idx
    const adds = []
    const removes = []
    const start = now()
    for (const b of batches.slice(1)) {
      if (adds.length >= 5 && now() - start > task.buildBudget / 2) break
      let t = now()
      let r = e.add(idx, b)
      if (isThenable(r)) await r
      adds.push(now() - t)
      t = now()
      r = e.remove(idx, b)
      if (isThenable(r)) await r
      removes.push(now() - t)
    }
    const r = e.add(idx, batches[0])
    if (isThenable(r)) await r
    row.add = median(adds)
    row.remove = median(removes)
    if (e.id.startsWith('native')) {
      // sanity: after the upserts and removes, results equal a fresh build's
      let same = 0
      for (const q of queryTexts) {
        const a = JSON.stringify(idx.search(q, 5).map(h => [h.name, h.score]))
        if (a === JSON.stringify(rebuilt.search(q, 5).map(h => [h.name, h.score]))) same++
      }
      row.sameAsRebuild = `${same}/${queryTexts.length}`
    }
  }
  if (e.id === 'dropin' && e.getToolIndex && e.clearToolIndexCache) {
    // the drop-in cache: getToolIndex(tools) primed, then the same tools plus one more server
    const times = []
    for (let i = 0; i < 3; i++) {
      e.clearToolIndexCache()
      await e.getToolIndex(cat.hostTools)
      const t = now()
      await e.getToolIndex([...cat.hostTools, ...batches[i + 1].hostTools])
      times.push(now() - t)
    }
    row.getToolIndexPlusServer = median(times)
    e.clearToolIndexCache()
  }
  out.engines[e.id] = row
} else {
  throw new Error(`unknown task kind ${task.kind}`)
}

out.sink = sinkValue()
console.log(JSON.stringify(out))
