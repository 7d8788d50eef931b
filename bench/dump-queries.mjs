// Write the quality sets as JSON for the Rust query-cost example (crates/core/examples/query_cost.rs):
//   node bench/dump-queries.mjs OUT.json [--split dev|holdout]
// OUT.json holds { corpora: { id: [{ name, description, server, schemaText }] },
// sets: [{ id, corpus, queries: [text] }] }: the tools as the native index receives them from
// the TypeScript layer (input schemas turned into text the same way), and each set's requests.
// Needs the data in ../shared/bench-data (or TOOL_INDEX_BENCH_DATA) and `npm run build:ts`.
import { writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { loadSets, SET_IDS } from './quality/data.mjs'

const args = process.argv.slice(2)
const out = args.find((a) => !a.startsWith('--'))
const at = args.indexOf('--split')
const split = at >= 0 ? args[at + 1] : 'dev'
if (!out || !['dev', 'holdout'].includes(split)) {
  console.error('usage: node bench/dump-queries.mjs OUT.json [--split dev|holdout]')
  process.exit(2)
}
const { schemaText } = createRequire(import.meta.url)('../dist/schema.js')
const { corpora, sets } = loadSets({ sets: SET_IDS, split })
const json = { corpora: {}, sets: [] }
for (const [id, tools] of Object.entries(corpora)) {
  json.corpora[id] = tools.map((t) => ({
    name: t.name,
    description: t.description ?? '',
    server: t.server ?? null,
    schemaText: schemaText(t.inputSchema && typeof t.inputSchema === 'object' ? t.inputSchema : undefined) ?? null,
  }))
}
for (const s of sets) json.sets.push({ id: s.id, corpus: s.corpus, queries: s.queries.map((q) => q.query) })
writeFileSync(out, JSON.stringify(json))
console.log(`${out}: ${sets.length} sets, ${json.sets.reduce((n, s) => n + s.queries.length, 0)} queries (${split})`)
