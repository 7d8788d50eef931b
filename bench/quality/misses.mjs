#!/usr/bin/env node
// Misses of one system next to another, for reading (dev split only):
//
//   node bench/quality/misses.mjs --set metatool-single --system enhanced --vs minisearch [--all] [--limit 40]
//
// Prints each query the system misses (a step not covered in its top 5) and the other covers,
// with both top-5 lists and the relevant names; `--all` prints every miss of the system.
import { K, recallAt } from './metrics.mjs'
import { loadSets, selectSets } from './data.mjs'
import { makeSystems } from './systems.mjs'

const args = process.argv.slice(2)
const arg = (name, dflt) => {
  const i = args.indexOf(name)
  return i >= 0 ? args[i + 1] : dflt
}
const setIds = selectSets([arg('--set', 'metatool-single')])
const sysId = arg('--system', 'enhanced')
const vsId = arg('--vs', 'minisearch')
const all = args.includes('--all')
const limit = Number(arg('--limit', '40'))

const { corpora, sets } = loadSets({ sets: setIds, split: 'dev' })
const notes = new Set()
const systems = await makeSystems({ only: [sysId, vsId], notes, fusion: {} })
const a = systems.find((s) => s.id === sysId)
const b = systems.find((s) => s.id === vsId)
for (const set of sets) {
  const ha = await a.build(corpora[set.corpus])
  const hb = await b.build(corpora[set.corpus])
  if (a.prepare) await a.prepare(ha, set.queries.map((q) => q.query))
  if (b.prepare) await b.prepare(hb, set.queries.map((q) => q.query))
  let lost = 0
  let won = 0
  let shown = 0
  for (const q of set.queries) {
    const ra = await a.search(ha, q.query)
    const rb = await b.search(hb, q.query)
    if (set.infeasible) {
      if (ra.length > 0 && shown++ < limit) console.log(`ANSWERED ${JSON.stringify(q.query)}\n  ${sysId}: ${ra.slice(0, K).join(', ')}`)
      continue
    }
    const xa = recallAt(ra, q.judgement)
    const xb = recallAt(rb, q.judgement)
    if (xa < xb) lost++
    if (xa > xb) won++
    if ((all ? xa < 1 : xa < xb) && shown++ < limit) {
      console.log(`\n${JSON.stringify(q.query)}`)
      console.log(`  want: ${q.judgement.groups.map((g) => g.join('|')).join(' ; ')}`)
      console.log(`  ${sysId} (${xa.toFixed(2)}): ${ra.slice(0, K).join(', ') || '(nothing)'}`)
      console.log(`  ${vsId} (${xb.toFixed(2)}): ${rb.slice(0, K).join(', ') || '(nothing)'}`)
    }
  }
  console.log(`\n${set.id}: ${sysId} loses ${lost}, wins ${won} of ${set.queries.length} against ${vsId}`)
}
