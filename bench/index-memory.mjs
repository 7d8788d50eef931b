// What a built index holds in memory, and how long a build takes from JavaScript, on the
// benchmark's catalogs:
//
//   node --expose-gc bench/index-memory.mjs [sizes, default 10k] [--addon PATH] [--keep N] [--builds N]
//   bun bench/index-memory.mjs 10k,100k
//
// Builds `--keep` indexes (default 5) of each catalog and keeps them all, collecting garbage
// before and after, and prints the RSS growth per index; then builds `--builds` more (default
// 25) in a loop, dropping each, and prints the median build time (the first three are warm-up).
// `--addon` loads another build of the addon (a `.node` file), to compare two builds
// alternately in separate processes. Nothing is asserted.
import { createRequire } from 'node:module'
import { parseArgs } from 'node:util'
import { buildCatalog } from './lib/data.mjs'
import { loadNative, runtimeName } from './lib/modules.mjs'

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    addon: { type: 'string' },
    keep: { type: 'string', default: '5' },
    builds: { type: 'string', default: '25' },
  },
})
const native = values.addon ? createRequire(import.meta.url)(values.addon) : loadNative()
const sizes = (positionals[0] ?? '10k').split(',').map((s) => Math.round(parseFloat(s) * (/k$/i.test(s) ? 1000 : 1)))
const keep = Number(values.keep)
const builds = Number(values.builds)

function collect() {
  if (typeof globalThis.Bun !== 'undefined') globalThis.Bun.gc(true)
  else if (typeof globalThis.gc === 'function') globalThis.gc()
  else throw new Error('run Node with --expose-gc')
}

for (const size of sizes) {
  const { entries } = buildCatalog(size)
  collect()
  const before = process.memoryUsage().rss
  const kept = []
  for (let i = 0; i < keep; i++) kept.push(new native.ToolIndex(entries))
  collect()
  const perIndex = (process.memoryUsage().rss - before) / keep / 2 ** 20
  kept.length = 0
  collect()
  const times = []
  for (let i = 0; i < builds + 3; i++) {
    const t = performance.now()
    new native.ToolIndex(entries)
    if (i >= 3) times.push(performance.now() - t)
  }
  times.sort((a, b) => a - b)
  const median = times[times.length >> 1]
  console.log(`${runtimeName}, ${size} tools: RSS growth ${perIndex.toFixed(2)} MB an index (${keep} kept); build ${median.toFixed(1)} ms (median of ${builds}, each dropped)`)
}
