// Write the benchmark's catalogs and query sample as JSON, for the Rust examples:
//   node bench/dump-catalog.mjs OUT_DIR [sizes, default 10k,100k] [seed, default 42]
// OUT_DIR/catalog-<n>.json holds the entries ({ name, description, isMcp }) the native rows
// build from; OUT_DIR/queries.json the 200 query texts.
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { buildCatalog, loadQueries } from './lib/data.mjs'

const [out, sizesArg = '10k,100k', seedArg = '42'] = process.argv.slice(2)
if (!out) {
  console.error('usage: node bench/dump-catalog.mjs OUT_DIR [sizes] [seed]')
  process.exit(2)
}
const seed = Number(seedArg)
const sizes = sizesArg.split(',').map(s => Math.round(parseFloat(s) * (/k$/i.test(s) ? 1000 : 1)))
mkdirSync(out, { recursive: true })
for (const n of sizes) {
  const cat = buildCatalog(n, seed)
  writeFileSync(join(out, `catalog-${n}.json`), JSON.stringify(cat.entries))
  console.log(`${join(out, `catalog-${n}.json`)}: ${cat.entries.length} tools`)
}
writeFileSync(join(out, 'queries.json'), JSON.stringify(loadQueries(200, seed).map(q => q.text)))
console.log(`${join(out, 'queries.json')}: 200 queries`)
