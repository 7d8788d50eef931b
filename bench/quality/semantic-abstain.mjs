#!/usr/bin/env node
// The fused ranking's abstain rule (`ABSTAIN_RULE` in ts/semantic.ts) on the quality sets: the
// share of ETOM's infeasible requests answered with nothing, and what each feasible set loses
// in recall@5 against the same fused ranking without abstaining.
//
//   node bench/quality/semantic-abstain.mjs [--holdout] [--sweep]
//
// `--sweep` also prints, for a few lexical cuts, the curve over the cosine gap (dev split only:
// the rule is chosen there and checked once on the holdout). Needs the local encoder
// (`npm run build:encoder`, `bash scripts/fetch-model.sh`) and the built package.
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { loadSets, selectSets, REPO_ROOT } from './data.mjs'
import { K, recallAt } from './metrics.mjs'
import { entriesOf, vectorStoreOf } from './systems.mjs'

const split = process.argv.includes('--holdout') ? 'holdout' : 'dev'
const sweep = process.argv.includes('--sweep')
const api = await import(pathToFileURL(path.join(REPO_ROOT, 'dist', 'index.js')).href)
const sem = await import(pathToFileURL(path.join(REPO_ROOT, 'dist', 'semantic.js')).href)
const enc = sem.loadLocalEncoder()
const CAND = sem.FUSION_DEFAULTS.candidates
const { corpora, sets } = loadSets({ sets: selectSets(['etom', 'metatool']), split })

// Per corpus: the vector store and the lexical index the fused ranking uses (abstaining off).
const handles = {}
for (const [corpus, tools] of Object.entries(corpora)) {
  const store = await vectorStoreOf(api, sem, enc, tools)
  handles[corpus] = { store, idx: api.ToolIndex.fromEntries(entriesOf(tools), { scoring: 'enhanced', tuning: { abstainConfidence: 0 } }) }
}

// Per request: what the rule looks at, and the fused ranking's recall@5.
const rows = []
for (const set of sets) {
  const { store, idx } = handles[set.corpus]
  // Each request's texts: the whole request, then its clauses.
  const textsOf = new Map(set.queries.map((q) => [q.query, [q.query, ...sem.queryClauses(q.query)]]))
  const texts = [...new Set([...textsOf.values()].flat())]
  const vecs = await enc.embed(texts)
  const byText = new Map(texts.map((t, i) => [t, vecs[i]]))
  for (const q of set.queries) {
    const lexical = idx.search(q.query, CAND)
    const lists = textsOf.get(q.query).map((t) => store.search(Float32Array.from(byText.get(t)), CAND))
    const vector = sem.mergeVectorHits(lists, CAND)
    const fused = sem.fuse(lexical, vector, K).map((r) => r.name)
    rows.push({ set: set.id, infeasible: !!set.infeasible, lexical, whole: lists[0], best: vector[0]?.score ?? 0, recall: set.infeasible ? 0 : recallAt(fused, q.judgement) })
  }
}

const feasible = [...new Set(rows.map((r) => r.set))].filter((s) => !rows.find((r) => r.set === s).infeasible)
const infeasible = rows.filter((r) => r.infeasible)
/** Infeasible share answered with nothing, and each feasible set's recall loss in points. */
function measure(rule) {
  const off = (r) => sem.abstains(r.lexical, r.whole, r.best, CAND, rule)
  const empty = infeasible.filter(off).length / (infeasible.length || 1)
  const loss = feasible.map((s) => {
    const rs = rows.filter((r) => r.set === s)
    return (100 * rs.reduce((a, r) => a + (off(r) ? r.recall : 0), 0)) / rs.length
  })
  return { empty, loss }
}

const { empty, loss } = measure(sem.ABSTAIN_RULE)
console.log(`${split} split, rule ${JSON.stringify(sem.ABSTAIN_RULE)}, ${CAND} candidates`)
console.log(`| set | requests | recall@5 lost (points) |`)
console.log('|---|---:|---:|')
feasible.forEach((s, i) => console.log(`| ${s} | ${rows.filter((r) => r.set === s).length} | ${loss[i].toFixed(2)} |`))
console.log(`| etom-infeasible answered with nothing | ${infeasible.length} | ${(100 * empty).toFixed(0)}% |`)

if (sweep) {
  console.log('\nlexical cut, gap cut: infeasible empty share; max loss (points)')
  for (const lexical of [0.4, 0.5, 0.6]) {
    const cells = []
    for (let gap = 0.08; gap <= 0.1301; gap += 0.01) {
      const m = measure({ lexical, gap })
      cells.push(`${gap.toFixed(2)}: ${(100 * m.empty).toFixed(0)}%; ${Math.max(...m.loss).toFixed(2)}`)
    }
    console.log(`  ${lexical}  ${cells.join(' · ')}`)
  }
}
