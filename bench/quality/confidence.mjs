#!/usr/bin/env node
// The enhanced ranking's confidence (its score below 1; a name match adds 1 to 3) against
// relevance, on the quality sets:
//
//   node bench/quality/confidence.mjs [--holdout]
//
// 1. Calibration: for the top result of every feasible query, binned by confidence, the share
//    that is relevant (per corpus, since the share depends on how many tools there are).
// 2. Cuts: for a confidence cut c, the share of infeasible requests whose best result falls
//    below c (a host that answers those with nothing), and each set's recall@5 when requests
//    whose best result is below c get nothing.
import { loadSets, selectSets } from './data.mjs'
import { K, recallAt } from './metrics.mjs'
import { REPO_ROOT } from './data.mjs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'

const split = process.argv.includes('--holdout') ? 'holdout' : 'dev'
const api = await import(pathToFileURL(path.join(REPO_ROOT, 'dist', 'index.js')).href)
const { corpora, sets } = loadSets({ sets: selectSets(['etom', 'metatool']), split })
const idx = {}
const rows = [] // { set, corpus, infeasible, judgement, hits: [{ name, score }] }
for (const set of sets) {
  idx[set.corpus] ??= api.ToolIndex.fromEntries(
    corpora[set.corpus].map((t) => ({ name: t.name, description: t.description ?? '', inputSchema: t.inputSchema, server: t.server })),
    // Abstaining off: the cuts below are what a host would apply to the results.
    { scoring: 'enhanced', tuning: { abstainConfidence: 0 } },
  )
  for (const q of set.queries) {
    rows.push({ set: set.id, corpus: set.corpus, infeasible: !!set.infeasible, judgement: q.judgement, hits: idx[set.corpus].search(q.query, K) })
  }
}
const conf = (h) => (h.score >= 1 ? 1 : h.score)

console.log(`Calibration (${split}): top result's confidence vs. the share of top results that are relevant`)
const bins = [0, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 1.0001]
for (const corpus of ['etom', 'metatool']) {
  const top = rows.filter((r) => r.corpus === corpus && !r.infeasible && r.hits.length > 0)
  const cells = []
  for (let b = 0; b + 1 < bins.length; b++) {
    const inBin = top.filter((r) => conf(r.hits[0]) >= bins[b] && conf(r.hits[0]) < bins[b + 1])
    if (inBin.length === 0) continue
    const rel = inBin.filter((r) => r.judgement.relevant.has(r.hits[0].name)).length
    cells.push(`[${bins[b].toFixed(1)}, ${Math.min(1, bins[b + 1]).toFixed(1)}) ${((100 * rel) / inBin.length).toFixed(0)}% of ${inBin.length}`)
  }
  console.log(`  ${corpus}: ${cells.join(' · ')}`)
}

console.log(`\nCuts (${split}): requests whose best result is below the cut get nothing: infeasible share so answered; recall@5 of each set`)
const setIds = [...new Set(rows.map((r) => r.set))].filter((s) => s !== 'etom-infeasible')
console.log(`  cut    infeasible  ${setIds.map((s) => s.replace('etom-', '').replace('metatool-', 'mt-').padStart(12)).join('')}`)
for (const cut of [0, 0.1, 0.2, 0.25, 0.3, 0.35, 0.375, 0.38, 0.39, 0.4, 0.45, 0.5]) {
  const inf = rows.filter((r) => r.infeasible)
  const answered = (r) => r.hits.length > 0 && conf(r.hits[0]) >= cut
  const empty = inf.filter((r) => !answered(r)).length / (inf.length || 1)
  const cells = setIds.map((s) => {
    const rs = rows.filter((r) => r.set === s)
    const rec = rs.reduce((a, r) => a + (answered(r) ? recallAt(r.hits.map((h) => h.name), r.judgement) : 0), 0) / rs.length
    return rec.toFixed(3).padStart(12)
  })
  console.log(`  ${cut.toFixed(3)}  ${(100 * empty).toFixed(0).padStart(9)}%  ${cells.join('')}`)
}
