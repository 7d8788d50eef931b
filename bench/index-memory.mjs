// What a built index holds in memory, and how long a build takes from JavaScript, on the
// benchmark's catalogs:
//
//   node --expose-gc bench/index-memory.mjs [sizes, default 10k] [--addon PATH] [--keep N] [--builds N] [--dispose]
//     [--scoring compat|enhanced]
//   bun bench/index-memory.mjs 10k,100k
//
// Builds `--keep` indexes (default 5) of each catalog and keeps them all, collecting garbage
// before and after, and prints the RSS growth per index; then builds `--builds` more (default
// 25) in a loop, dropping each (or, with `--dispose`, disposing each, inside the timed span), and
// prints the median build time and the median CPU time of a build, all the process's threads
// together (the first three builds are warm-up).
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
    dispose: { type: 'boolean', default: false },
    scoring: { type: 'string', default: 'compat' },
  },
})
const native = values.addon ? createRequire(import.meta.url)(values.addon) : loadNative()
const sizes = (positionals[0] ?? '10k').split(',').map((s) => Math.round(parseFloat(s) * (/k$/i.test(s) ? 1000 : 1)))
const keep = Number(values.keep)
const builds = Number(values.builds)
if (!['compat', 'enhanced'].includes(values.scoring)) throw new Error(`--scoring: compat or enhanced, not ${values.scoring}`)
const options = values.scoring === 'enhanced' ? { scoring: 'enhanced' } : undefined

/** Collect garbage, then wait out the addon's trim delay (freed pages go back to the system
 * 200 ms after the last index is freed). */
async function collect() {
  if (typeof globalThis.Bun !== 'undefined') globalThis.Bun.gc(true)
  else if (typeof globalThis.gc === 'function') globalThis.gc()
  else throw new Error('run Node with --expose-gc')
  await new Promise((resolve) => setTimeout(resolve, 400))
}

for (const size of sizes) {
  const { entries } = buildCatalog(size)
  await collect()
  const before = process.memoryUsage().rss
  const kept = []
  for (let i = 0; i < keep; i++) kept.push(new native.ToolIndex(entries, options))
  await collect()
  const perIndex = (process.memoryUsage().rss - before) / keep / 2 ** 20
  kept.length = 0
  await collect()
  const times = []
  const cpu = []
  for (let i = 0; i < builds + 3; i++) {
    const c = process.cpuUsage()
    const t = performance.now()
    const index = new native.ToolIndex(entries, options)
    if (values.dispose) index.dispose()
    const ms = performance.now() - t
    const used = process.cpuUsage(c)
    if (i >= 3) times.push(ms), cpu.push((used.user + used.system) / 1000)
  }
  const median = (xs) => xs.sort((a, b) => a - b)[xs.length >> 1]
  console.log(
    `${runtimeName}, ${size} tools, ${values.scoring}: RSS growth ${perIndex.toFixed(2)} MB an index (${keep} kept); build ${median(times).toFixed(1)} ms, ` +
      `CPU ${median(cpu).toFixed(1)} ms, all threads (medians of ${builds}, each ${values.dispose ? 'disposed' : 'dropped'})`,
  )
}
