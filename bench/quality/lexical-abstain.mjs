#!/usr/bin/env node
// The enhanced ranking's crowd rule (`tuning.crowdGap`, `crowdWeight`, `crowdConfidence`,
// `crowdCoverage`; `CROWD_ABSTAIN` in the package) on the quality sets, lexical only: the share of ETOM's
// infeasible requests answered with nothing, and what each feasible set loses in recall@5
// against the default enhanced ranking.
//
//   node bench/quality/lexical-abstain.mjs [--holdout] [--sweep] [--cv] [--set <ids>]
//
// `--set` scores other sets than ETOM and MetaTool's defaults (e.g. `--set unseen --holdout`).
// Each request is searched once with the rule off (its best 30 scores; enhanced search has no display threshold); the rule is
// then applied to those scores here, and the native rule is checked to answer the same requests
// with nothing. `--sweep` prints the grid's curve; `--cv` is how the rule was chosen (since stop 41 on
// `--set etom,metatool,unseen,ultratool,seal`): five folds
// of the dev split (by a hash of set and request); on four, the rule of the grid that answers the
// most infeasible requests with nothing while no set loses more than MAX_LOSS (`rule-choice.mjs`) points; scored on
// the fifth; it does so for the crowd alone and for the crowd with a cut on the best tool's
// coverage (the rule kept since stop 47). Both on dev only: the rule is chosen there, and the
// holdout only checks it.
// Needs the built package (`npm run build`).
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { loadSets, refuseScoredOnly, setsFromArgv, REPO_ROOT } from './data.mjs'
import { K, recallAt } from './metrics.mjs'
import { entriesOf } from './systems.mjs'
import { crossValidate, measureRows } from './rule-choice.mjs'

const split = process.argv.includes('--holdout') ? 'holdout' : 'dev'
const sweep = process.argv.includes('--sweep')
const cv = process.argv.includes('--cv')
const api = await import(pathToFileURL(path.join(REPO_ROOT, 'dist', 'index.js')).href)
const { CROWD_ABSTAIN } = api
const RANK = 30
const { corpora, sets } = loadSets({ sets: setsFromArgv(process.argv, ['etom', 'metatool']), split })
refuseScoredOnly(sets, sweep || cv)

const handles = {}
for (const [corpus, tools] of Object.entries(corpora)) {
  const entries = entriesOf(tools)
  handles[corpus] = {
    plain: api.ToolIndex.fromEntries(entries, { scoring: 'enhanced' }),
    crowd: api.ToolIndex.fromEntries(entries, { scoring: 'enhanced', tuning: CROWD_ABSTAIN }),
  }
}

// Per request: the best RANK scores with the rule off, the default ranking's recall@5, and
// whether the native rule (CROWD_ABSTAIN) answered with nothing.
const rows = []
for (const set of sets) {
  const { plain, crowd } = handles[set.corpus]
  for (const q of set.queries) {
    const top = plain.search(q.query, RANK) // enhanced: display threshold 0
    rows.push({
      set: set.id,
      query: q.query,
      infeasible: !!set.infeasible,
      scores: top.map((h) => h.score),
      // The share of the request's IDF mass the best tool matches (read for requests with 30
      // matches or more, the only ones the rule looks at).
      coverage: top.length >= RANK ? plain.explain(q.query, top[0].name)?.coverage ?? 0 : 0,
      recall: set.infeasible ? 0 : recallAt(top.slice(0, K).map((h) => h.name), q.judgement),
      nativeEmpty: crowd.search(q.query, K).length === 0,
    })
  }
}

/** The crowd rule on a request's best scores and its best tool's coverage (no scores: the
 * request already abstained). A rule without `crowdCoverage` does not look at coverage. */
function abstains({ scores, coverage }, rule) {
  if (scores.length === 0) return true
  if (!(rule.crowdGap > 0) || scores.length < RANK) return false
  const best = scores[0]
  return (
    best < Math.min(rule.crowdConfidence, 1) &&
    best - rule.crowdWeight * scores[RANK - 1] < rule.crowdGap &&
    !(coverage >= (rule.crowdCoverage ?? Infinity))
  )
}

const feasible = [...new Set(rows.map((r) => r.set))].filter((s) => !rows.find((r) => r.set === s).infeasible)
/** Infeasible share answered with nothing, and each feasible set's recall loss in points (a request
 * the default abstain already emptied loses nothing to the rule). */
function measure(rule, of = rows) {
  return measureRows(of, feasible, (r) => abstains(r, rule), (r) => r.scores.length > 0 && abstains(r, rule))
}

const mismatched = rows.filter((r) => abstains(r, CROWD_ABSTAIN) !== r.nativeEmpty).length
const { loss } = measure(CROWD_ABSTAIN)
console.log(`${split} split, CROWD_ABSTAIN ${JSON.stringify(CROWD_ABSTAIN)}; requests where the native rule and this script disagree: ${mismatched}`)
console.log('| set | requests | recall@5 lost (points) |')
console.log('|---|---:|---:|')
feasible.forEach((s, i) => console.log(`| ${s} | ${rows.filter((r) => r.set === s).length} | ${loss[i].toFixed(2)} |`))
for (const set of sets.filter((s) => s.infeasible)) {
  const of = rows.filter((r) => r.set === set.id)
  const share = (rule) => `${((100 * of.filter((r) => abstains(r, rule)).length) / (of.length || 1)).toFixed(0)}%`
  console.log(`| ${set.id} answered with nothing (rule off: ${share({ crowdGap: 0 })}) | ${of.length} | ${share(CROWD_ABSTAIN)} |`)
}

if (sweep) {
  console.log('\nconfidence cut, crowd weight; gap: infeasible empty share; max loss (points)')
  for (const crowdConfidence of [0.35, 0.4, 0.45]) {
    for (const crowdWeight of [0.25, 0.5, 0.75, 1]) {
      const cells = []
      for (let i = 0; i < 6; i++) {
        const crowdGap = 0.2 + 0.02 * i - 0.1 * (crowdWeight - 0.5)
        const m = measure({ crowdGap, crowdWeight, crowdConfidence })
        cells.push(`${crowdGap.toFixed(3)}: ${(100 * m.empty).toFixed(0)}%; ${Math.max(...m.loss).toFixed(2)}`)
      }
      console.log(`  ${crowdConfidence}, ${crowdWeight}  ${cells.join(' · ')}`)
    }
  }
}

const GRID = []
for (const crowdConfidence of [0.35, 0.4, 0.45, 0.5])
  for (const crowdWeight of [0.25, 0.5, 0.75, 1])
    for (let g = 0; g <= 80; g++) GRID.push({ crowdConfidence, crowdWeight, crowdGap: g / 200 })

// The same grid with a cut on the best tool's coverage (the rule then abstains only on a best
// tool that matches little of the request).
const COVERAGE_GRID = []
for (const rule of GRID) for (let c = 6; c <= 14; c++) COVERAGE_GRID.push({ ...rule, crowdCoverage: c / 20 })

if (cv) {
  crossValidate({ rows, grid: GRID, measure, title: `crowd rule, ${split}`, columns: 'gap / weight / confidence', label: (r) => `${r.crowdGap} / ${r.crowdWeight} / ${r.crowdConfidence}` })
  crossValidate({
    rows,
    grid: COVERAGE_GRID,
    measure,
    title: `crowd rule and the best tool's coverage, ${split}`,
    columns: 'gap / weight / confidence / coverage',
    label: (r) => `${r.crowdGap} / ${r.crowdWeight} / ${r.crowdConfidence} / ${r.crowdCoverage}`,
  })
}
