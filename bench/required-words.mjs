// What a required word (`+word`) costs a search, against the same words without the `+`:
//
//   node bench/required-words.mjs [sizes, default 10k,40k] [--reps N] [--addon PATH]
//   bun bench/required-words.mjs 40k
//
// For each catalog size and each scoring, every query is searched as written ("file data") and
// with its first word required ("+file data"), alternately, `--reps` times each (default 200,
// after 20 warm-up searches), and the median time of each form is printed with their ratio and
// the number of results; by `search`, and by `toolSearchRank` (the ToolSearch merge, whose
// keyword half reads `+` in compat too). A `+word` keeps only the tools that have the word, so its cost should
// follow that word's postings, not the number of tools. `--addon` loads another build of the
// addon (a `.node` file), to compare two builds. Nothing is asserted.
import { createRequire } from 'node:module'
import { parseArgs } from 'node:util'
import { buildCatalog } from './lib/data.mjs'
import { median } from './lib/measure.mjs'
import { loadNative, runtimeName } from './lib/modules.mjs'

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { reps: { type: 'string', default: '200' }, addon: { type: 'string' } },
})
const native = values.addon ? createRequire(import.meta.url)(values.addon) : loadNative()
const sizes = (positionals[0] ?? '10k,40k').split(',').map((s) => Math.round(parseFloat(s) * (/k$/i.test(s) ? 1000 : 1)))
const reps = Number(values.reps)
const QUERIES = ['file data', 'github issue', 'send message', 'calendar event']

const fmt = (ms) => (ms < 1 ? `${(ms * 1000).toFixed(1)} µs` : `${ms.toFixed(2)} ms`)

console.log(`${runtimeName}, ${reps} searches of each form, median`)
console.log('| tools | scoring | call | query | as written | results | first word required | results | required / as written |')
console.log('|---:|---|---|---|---:|---:|---:|---:|---:|')
for (const size of sizes) {
  const { entries } = buildCatalog(size)
  for (const scoring of ['compat', 'enhanced']) {
    const index = new native.ToolIndex(entries, { scoring })
    const calls = { search: (f) => index.search(f, 5), toolSearchRank: (f) => index.toolSearchRank(f, 5) }
    for (const [call, run] of Object.entries(calls)) {
      for (const q of QUERIES) {
        const forms = [q, `+${q}`]
        const times = [[], []]
        const counts = forms.map((f) => run(f).length)
        for (let i = 0; i < 20; i++) for (const f of forms) run(f)
        for (let i = 0; i < reps; i++) {
          for (let j = 0; j < 2; j++) {
            const t0 = performance.now()
            run(forms[j])
            times[j].push(performance.now() - t0)
          }
        }
        const [plain, required] = times.map(median)
        console.log(`| ${size.toLocaleString('en-US')} | ${scoring} | \`${call}\` | \`${q}\` | ${fmt(plain)} | ${counts[0]} | ${fmt(required)} | ${counts[1]} | ${(required / plain).toFixed(2)}× |`)
      }
    }
    index.dispose()
  }
}
