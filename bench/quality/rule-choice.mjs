// How an abstain rule is chosen from a grid, and how that choice is cross-validated, for both
// abstain scripts (`semantic-abstain.mjs`, `lexical-abstain.mjs`). A `measure(rule, rows)` gives
// `{ empty, loss }`: the share of infeasible requests answered with nothing, and each feasible
// set's recall@5 loss in points. Rows carry `set` and `query`.
import { createHash } from 'node:crypto'

/**
 * One pass over `rows` (each with `set`, `infeasible`, `recall`): the share of infeasible requests
 * answered with nothing (`abstains(r)`), and each of the `feasible` sets' recall@5 loss in points
 * (the recall of the requests `costs(r)` empties).
 */
export function measureRows(rows, feasible, abstains, costs = abstains) {
  const lost = feasible.map(() => 0)
  const count = feasible.map(() => 0)
  let infeasible = 0
  let empty = 0
  for (const r of rows) {
    if (r.infeasible) {
      infeasible++
      if (abstains(r)) empty++
      continue
    }
    const i = feasible.indexOf(r.set)
    count[i]++
    if (costs(r)) lost[i] += r.recall
  }
  return { empty: empty / (infeasible || 1), loss: lost.map((x, i) => (100 * x) / (count[i] || 1)) }
}

/** The largest recall@5 loss, in points, a rule may cost any set of the rows it is chosen on. */
export const MAX_LOSS = 0.5

/** The grid's rule with the largest infeasible share and no set losing more than MAX_LOSS. */
export function chooseRule(grid, measure, rows) {
  let best
  for (const rule of grid) {
    const m = measure(rule, rows)
    const worst = Math.max(...m.loss)
    if (worst > MAX_LOSS) continue
    if (!best || m.empty > best.empty || (m.empty === best.empty && worst < best.worst)) best = { rule, empty: m.empty, worst }
  }
  return best
}

/**
 * Five folds of `rows` (by a hash of set and request): each fold's rule is chosen on the other
 * four and scored on it. Prints a markdown table (`label(rule)` names a rule) and the rule chosen
 * on all the rows.
 */
export function crossValidate({ rows, grid, measure, title, columns, label }) {
  const fold = (r) => createHash('md5').update(`${r.set}\u0000${r.query}`).digest().readUInt32LE(0) % 5
  const mean = (xs) => xs.reduce((a, x) => a + x, 0) / xs.length
  console.log(`\n${title}: five-fold cross-validation, no set losing more than ${MAX_LOSS} points where chosen`)
  console.log(`| fold | rule chosen on the other four (${columns}) | infeasible answered with nothing | largest loss (points) |`)
  console.log('|---:|---|---:|---:|')
  const outs = []
  for (let k = 0; k < 5; k++) {
    const chosen = chooseRule(grid, measure, rows.filter((r) => fold(r) !== k))
    const m = measure(chosen.rule, rows.filter((r) => fold(r) === k))
    outs.push({ empty: m.empty, worst: Math.max(...m.loss) })
    console.log(`| ${k} | ${label(chosen.rule)} | ${(100 * m.empty).toFixed(0)}% | ${Math.max(...m.loss).toFixed(2)} |`)
  }
  console.log(`| mean | | ${(100 * mean(outs.map((o) => o.empty))).toFixed(0)}% | ${mean(outs.map((o) => o.worst)).toFixed(2)} |`)
  const all = chooseRule(grid, measure, rows)
  console.log(`chosen on all of them: ${JSON.stringify(all.rule)}: ${(100 * all.empty).toFixed(0)}%, largest loss ${all.worst.toFixed(2)}`)
}
