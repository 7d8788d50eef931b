#!/usr/bin/env node
// The fused ranking's abstain rule (`ABSTAIN_RULE` in ts/semantic.ts) on the quality sets: the
// share of ETOM's infeasible requests answered with nothing, and what each feasible set loses
// in recall@5 against the same fused ranking without abstaining.
//
//   node bench/quality/semantic-abstain.mjs [--holdout] [--sweep] [--cv] [--set <ids>]
//
// `--set` scores other sets than ETOM and MetaTool's defaults (e.g. `--set unseen --holdout`:
// the MetaTool requests outside the sample, for the loss on requests not seen).
// `--sweep` also prints, for a few lexical cuts and crowd weights, the curve over the cosine
// gap. `--cv` is how the rule was chosen (since stop 41 on `--set etom,metatool,unseen,ultratool,seal`): five folds of the dev split (by a hash of set and
// request); on four, the rule of the grid that answers the most infeasible requests with nothing
// while no set loses more than MAX_LOSS (`rule-choice.mjs`) points; scored on the fifth. Both on dev only: the rule
// is chosen there, and the holdout only checks it. Needs the local encoder
// (`npm run build:encoder`, `bash scripts/fetch-model.sh`) and the built package.
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { loadSets, refuseScoredOnly, setsFromArgv, REPO_ROOT } from './data.mjs'
import { K, recallAt } from './metrics.mjs'
import { entriesOf, readableVectorStoreOf } from './systems.mjs'
import { crossValidate, measureRows } from './rule-choice.mjs'

const split = process.argv.includes('--holdout') ? 'holdout' : 'dev'
const sweep = process.argv.includes('--sweep')
const cv = process.argv.includes('--cv')
const api = await import(pathToFileURL(path.join(REPO_ROOT, 'dist', 'index.js')).href)
const sem = await import(pathToFileURL(path.join(REPO_ROOT, 'dist', 'semantic.js')).href)
const enc = sem.loadLocalEncoder()
const CAND = sem.FUSION_DEFAULTS.candidates
const { corpora, sets } = loadSets({ sets: setsFromArgv(process.argv, ['etom', 'metatool']), split })
refuseScoredOnly(sets, sweep || cv)

// Per corpus: the vector store and the lexical index the fused ranking uses (abstaining off).
const handles = {}
for (const [corpus, tools] of Object.entries(corpora)) {
  const store = await readableVectorStoreOf(api, sem, enc, tools)
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
    const fused = sem.fuse(lexical, vector, K, {}, (name) => store.unread.has(name)).map((r) => r.name)
    rows.push({ set: set.id, query: q.query, infeasible: !!set.infeasible, lexical, whole: lists[0], best: vector[0]?.score ?? 0, recall: set.infeasible ? 0 : recallAt(fused, q.judgement) })
  }
}

const feasible = [...new Set(rows.map((r) => r.set))].filter((s) => !rows.find((r) => r.set === s).infeasible)
/** Infeasible share answered with nothing, and each feasible set's recall loss in points. */
function measure(rule, of = rows) {
  return measureRows(of, feasible, (r) => sem.abstains(r.lexical, r.whole, r.best, CAND, rule))
}
const infeasible = rows.filter((r) => r.infeasible)

const { loss } = measure(sem.ABSTAIN_RULE)
console.log(`${split} split, rule ${JSON.stringify(sem.ABSTAIN_RULE)}, ${CAND} candidates`)
console.log(`| set | requests | recall@5 lost (points) |`)
console.log('|---|---:|---:|')
feasible.forEach((s, i) => console.log(`| ${s} | ${rows.filter((r) => r.set === s).length} | ${loss[i].toFixed(2)} |`))
for (const set of sets.filter((s) => s.infeasible)) {
  const of = infeasible.filter((r) => r.set === set.id)
  const n = of.filter((r) => sem.abstains(r.lexical, r.whole, r.best, CAND, sem.ABSTAIN_RULE)).length
  console.log(`| ${set.id} answered with nothing | ${of.length} | ${((100 * n) / (of.length || 1)).toFixed(0)}% |`)
}

if (sweep) {
  console.log('\nlexical cut, crowd weight; gap cut: infeasible empty share; max loss (points)')
  for (const crowd of [1, 0.75, 0.5]) {
    for (const lexical of [0.4, 0.5, 0.6]) {
      const cells = []
      const from = crowd === 1 ? 0.08 : crowd === 0.75 ? 0.135 : 0.185
      for (let i = 0; i < 6; i++) {
        const gap = from + 0.01 * i
        const m = measure({ lexical, gap, crowd })
        cells.push(`${gap.toFixed(3)}: ${(100 * m.empty).toFixed(0)}%; ${Math.max(...m.loss).toFixed(2)}`)
      }
      console.log(`  ${lexical}, ${crowd}  ${cells.join(' · ')}`)
    }
  }
}

// The grid: lexical cut, crowd weight and gap; then the same with the lexical crowd's gap
// (`lexicalGap`, against `lexicalCrowd` times the lexical crowd's score) as a further condition.
const GRID = []
for (const lexical of [0.4, 0.45, 0.5, 0.55, 0.6])
  for (const crowd of [1, 0.875, 0.75, 0.625, 0.5])
    for (let g = 10; g <= 60; g++) {
      GRID.push({ lexical, crowd, gap: g / 200 })
      for (const lexicalCrowd of [0.5, 0.75, 1])
        for (const lexicalGap of [0.2, 0.25, 0.3, 0.35, 0.4]) GRID.push({ lexical, crowd, gap: g / 200, lexicalGap, lexicalCrowd })
    }

if (cv) {
  const grids = {
    'gap only (crowd 1)': GRID.filter((r) => r.crowd === 1 && r.lexicalGap === undefined),
    'gap and crowd weight': GRID.filter((r) => r.lexicalGap === undefined),
    'gap, crowd weight and the lexical crowd': GRID,
  }
  const label = (r) => `${r.lexical} / ${r.gap} / ${r.crowd} / ${r.lexicalGap ?? '–'} / ${r.lexicalCrowd ?? '–'}`
  for (const [name, grid] of Object.entries(grids)) {
    crossValidate({ rows, grid, measure, title: `${name}, ${split}`, columns: 'lexical / gap / crowd / lexical gap / lexical crowd', label })
  }
}
