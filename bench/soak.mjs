#!/usr/bin/env node
/**
 * Soak test: many build/drop cycles and many searches, compat and enhanced, with RSS sampled
 * at intervals after a forced GC. Reports RSS growth after warm-up (target: under 5%).
 *
 *   node --expose-gc bench/soak.mjs            # full: 10,000 cycles and 1,000,000 searches per mode
 *   bun bench/soak.mjs                          # same under Bun (Bun.gc(true) is used)
 *   node --expose-gc bench/soak.mjs --quick     # 1,000 cycles, 100,000 searches per mode
 *   ... --cycles N --searches N --samples N --max-growth PCT --gc-every N --modes compat,enhanced
 *       --phases build,search --json
 *
 * Dropped indexes are freed when the GC collects their wrappers, so between samples the
 * live set grows to the indexes built since the last GC; the RSS plateau reflects that
 * high-water mark (the allocator keeps the pages for reuse). `--gc-every N` also forces a GC
 * every N build/drop cycles, which keeps that plateau low.
 *
 *   node bench/soak.mjs --no-yield [--cycles N] [--tools N]
 *       build/drop cycles in a loop that never yields to the event loop (no timers, no I/O; the
 *       awaited variant only runs microtasks), with and without dispose(), each variant in its
 *       own child process of the same runtime; prints a table of RSS before and after
 *
 * Needs the built package (`npm run build`). Exit code 1 if a phase grows more than
 * --max-growth percent (default 5) after warm-up, or if GC cannot be forced (unless --no-gc-ok).
 */
import { createRequire } from 'node:module'
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const require = createRequire(import.meta.url)
const pkg = require(join(here, '..', 'dist', 'index.js'))
const { ToolIndex } = pkg

// ---------------------------------------------------------------------------------------------
// No-yield mode: one child process per variant, a table of RSS

/**
 * The variants of the no-yield soak: how an index is built, and whether it is disposed.
 * `minisearch` is the control: the same tools into a pure-JavaScript search library, which
 * shows what the runtime's own heap does in such a loop.
 */
const NO_YIELD_VARIANTS = ['native', 'native+dispose', 'fromEntries', 'fromEntries+dispose', 'buildToolIndex', 'buildToolIndex+dispose', 'minisearch']

/** Run `cycles` build/drop cycles of `size` tools without yielding; returns RSS figures in MB. */
async function noYieldChild(variant, cycles, size) {
  const mb = (b) => Math.round((b / 1048576) * 10) / 10
  const native = require(join(here, '..', 'native.js'))
  const all = JSON.parse(readFileSync(join(here, '..', 'catalog', 'default-catalog.json'), 'utf8')).tools
  const tools = []
  for (let i = 0; tools.length < size; i++) {
    const t = all[i % all.length]
    tools.push({ name: `${t.name}_${i}`, description: t.description ?? '', searchHint: t.searchHint })
  }
  const dispose = variant.endsWith('+dispose')
  const kind = variant.replace('+dispose', '')
  const MiniSearch = kind === 'minisearch' ? (await import('minisearch')).default : undefined
  const builders = {
    native: () => new native.ToolIndex(tools),
    fromEntries: () => pkg.ToolIndex.fromEntries(tools),
    buildToolIndex: () => pkg.buildToolIndex(tools),
    minisearch: () => {
      const m = new MiniSearch({ fields: ['name', 'description'], idField: 'name' })
      m.addAll(tools)
      return m
    },
  }
  const build = builders[kind]
  const limit = kind === 'minisearch' ? undefined : 5
  const rssStart = process.memoryUsage().rss
  let rssMax = rssStart
  let rssWarm = rssStart
  const warmAt = Math.floor(cycles * 0.2)
  const t0 = performance.now()
  for (let i = 0; i < cycles; i++) {
    const index = kind === 'buildToolIndex' ? await build() : build()
    index.search('create a github issue', limit)
    if (dispose) index.dispose()
    if (i % 500 === 499) rssMax = Math.max(rssMax, process.memoryUsage().rss)
    if (i === warmAt) rssWarm = process.memoryUsage().rss
  }
  const rssEnd = process.memoryUsage().rss
  return { variant, cycles, size, seconds: Math.round((performance.now() - t0) / 100) / 10, rssStartMB: mb(rssStart), rssWarmMB: mb(rssWarm), rssEndMB: mb(rssEnd), rssMaxMB: mb(Math.max(rssMax, rssEnd)), afterWarmPct: Math.round(((rssEnd - rssWarm) / rssWarm) * 1000) / 10, fromStartPct: Math.round(((rssEnd - rssStart) / rssStart) * 1000) / 10 }
}

if (process.argv.includes('--no-yield')) {
  const args = process.argv.slice(2)
  const num = (name, fallback) => {
    const i = args.indexOf(name)
    return i >= 0 && i + 1 < args.length ? Number(args[i + 1]) : fallback
  }
  const cycles = num('--cycles', 10_000)
  const size = num('--tools', 200)
  const child = args.indexOf('--child')
  if (child >= 0) {
    console.log(JSON.stringify(await noYieldChild(args[child + 1], cycles, size)))
    process.exit(0)
  }
  const { spawnSync } = await import('node:child_process')
  const rt = typeof Bun !== 'undefined' ? `bun ${Bun.version}` : `node ${process.version}`
  console.log(`no-yield soak (${rt}): ${cycles} build/drop cycles of ${size} tools, one child process per variant`)
  console.log('| variant | seconds | RSS start MB | RSS after 20% MB | RSS end MB | RSS max MB | growth after 20% | growth from start |')
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|')
  for (const variant of NO_YIELD_VARIANTS) {
    const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--no-yield', '--cycles', String(cycles), '--tools', String(size), '--child', variant], { encoding: 'utf8' })
    const line = r.stdout.trim().split('\n').pop() ?? ''
    let row
    try {
      row = JSON.parse(line)
    } catch {
      console.log(`| ${variant} | failed: status ${r.status} ${r.signal ?? ''} ${r.stderr.slice(0, 200).replace(/\n/g, ' ')} | | | | | | |`)
      continue
    }
    console.log(`| ${variant} | ${row.seconds} | ${row.rssStartMB} | ${row.rssWarmMB} | ${row.rssEndMB} | ${row.rssMaxMB} | ${row.afterWarmPct}% | ${row.fromStartPct}% |`)
  }
  process.exit(0)
}

// ---------------------------------------------------------------------------------------------
// Options

const argv = process.argv.slice(2)
const flag = (name) => argv.includes(name)
const opt = (name, fallback) => {
  const i = argv.indexOf(name)
  return i >= 0 && i + 1 < argv.length ? Number(argv[i + 1]) : fallback
}
const quick = flag('--quick')
const CYCLES = opt('--cycles', quick ? 1_000 : 10_000)
const SEARCHES = opt('--searches', quick ? 100_000 : 1_000_000)
const SAMPLES = opt('--samples', 20)
const MAX_GROWTH = opt('--max-growth', 5)
const WARMUP = opt('--warmup', 0.2) // share of a phase before the baseline sample
const GC_EVERY = opt('--gc-every', 0)
const strOpt = (name, fallback) => {
  const i = argv.indexOf(name)
  return i >= 0 && i + 1 < argv.length ? argv[i + 1].split(',') : fallback
}
const MODES = strOpt('--modes', ['compat', 'enhanced'])
const PHASES = strOpt('--phases', ['build', 'search'])
const JSON_OUT = flag('--json')
const runtime = typeof Bun !== 'undefined' ? `bun ${Bun.version}` : `node ${process.version}`

// ---------------------------------------------------------------------------------------------
// GC and memory

const gcFn = typeof Bun !== 'undefined' ? () => Bun.gc(true) : typeof globalThis.gc === 'function' ? () => globalThis.gc() : null
if (!gcFn && !flag('--no-gc-ok')) {
  console.error('soak: cannot force GC; run `node --expose-gc bench/soak.mjs` (or bun), or pass --no-gc-ok')
  process.exit(2)
}
const tick = () => new Promise((r) => setImmediate(r))
/** The addon hands freed pages back to the system 200 ms after the last build or free. */
const TRIM_WAIT_MS = 300
let settledMs = 0
/** Full GC, let native finalizers run, GC again, wait out the addon's trim; then read RSS. The
 * time spent here is kept out of the phases' times. */
async function settle() {
  const t0 = performance.now()
  if (gcFn) {
    gcFn()
    await tick()
    gcFn()
    await tick()
  }
  await new Promise((r) => setTimeout(r, TRIM_WAIT_MS))
  const m = process.memoryUsage()
  settledMs += performance.now() - t0
  return { rss: m.rss, heapUsed: m.heapUsed, external: m.external }
}
const mb = (b) => Math.round((b / 1048576) * 10) / 10

// ---------------------------------------------------------------------------------------------
// Data

const catalog = JSON.parse(readFileSync(join(here, '..', 'catalog', 'default-catalog.json'), 'utf8')).tools.map((t) => ({
  name: t.name,
  description: t.description ?? '',
  searchHint: t.searchHint,
  inputSchema: t.inputSchema,
}))
const extra = Array.from({ length: 24 }, (_, i) => ({
  name: `mcp__soak${i % 4}__tool_${i}`,
  description: `Soak tool ${i}: create, list and delete widgets; 解析文件 ${i}`,
  searchHint: i % 2 ? 'widgets' : undefined,
}))
const QUERIES = [
  'schedule a recurring prompt every morning',
  'create a github issue',
  'send a message to a slack channel',
  'read a pdf file',
  'list files in a directory',
  'search the web',
  'mcp__github__create_issue',
  '+slack send',
  'server:github pull request',
  '解析pdf文件',
  'CronCreate',
  'sheduled prmopt',
  'widgets',
  'what is the weather like',
  '',
  'x'.repeat(300),
]

// ---------------------------------------------------------------------------------------------
// Phases

/** Run `step(i)` n times, sampling RSS SAMPLES times; returns the samples. */
async function phase(label, n, step) {
  const samples = []
  const every = Math.max(1, Math.floor(n / SAMPLES))
  const t0 = performance.now()
  const settledBefore = settledMs
  for (let i = 0; i < n; i++) {
    step(i)
    if (GC_EVERY > 0 && label.startsWith('build') && (i + 1) % GC_EVERY === 0) await settle()
    if ((i + 1) % every === 0 || i + 1 === n) {
      const m = await settle()
      samples.push({ i: i + 1, ...m })
    }
  }
  const ms = performance.now() - t0 - (settledMs - settledBefore)
  const base = samples.find((s) => s.i >= n * WARMUP) ?? samples[0]
  const last = samples[samples.length - 1]
  const after = samples.filter((s) => s.i >= base.i)
  const max = Math.max(...after.map((s) => s.rss))
  const growth = ((last.rss - base.rss) / base.rss) * 100
  const maxGrowth = ((max - base.rss) / base.rss) * 100
  const result = {
    phase: label,
    n,
    seconds: Math.round(ms / 100) / 10,
    rssStartMB: mb(samples[0].rss),
    rssWarmMB: mb(base.rss),
    rssEndMB: mb(last.rss),
    rssMaxMB: mb(max),
    growthPct: Math.round(growth * 100) / 100,
    maxGrowthPct: Math.round(maxGrowth * 100) / 100,
    heapEndMB: mb(last.heapUsed),
    samplesMB: samples.map((s) => mb(s.rss)),
  }
  if (!JSON_OUT) {
    console.log(
      `${label.padEnd(26)} n=${String(n).padStart(9)}  ${String(result.seconds).padStart(6)} s  rss warm ${String(result.rssWarmMB).padStart(6)} MB → end ${String(result.rssEndMB).padStart(6)} MB (max ${result.rssMaxMB})  growth ${result.growthPct}% (max ${result.maxGrowthPct}%)`,
    )
  }
  return result
}

function buildDropCycle(scoring) {
  const entries = [...catalog, ...extra]
  return (i) => {
    let index = ToolIndex.fromEntries(entries, { scoring })
    index.search(QUERIES[i % QUERIES.length], 5)
    if (scoring === 'compat') {
      index.rankToolSearch(QUERIES[(i + 3) % QUERIES.length], 5)
      index.keywordSearch(QUERIES[(i + 5) % QUERIES.length], 5)
    }
    index.upsert([{ name: `mcp__soak__added_${i % 7}`, description: `added tool ${i}` }, { name: extra[i % extra.length].name, description: 'replaced' }])
    index.remove([catalog[i % catalog.length].name, 'not-there'])
    index.explain(QUERIES[i % QUERIES.length], entries[(i + 1) % entries.length].name)
    index.search(QUERIES[(i + 1) % QUERIES.length], 10)
    index = null // dropped: the native index is freed when the wrapper is collected
  }
}

function searchLoop(scoring) {
  const index = ToolIndex.fromEntries([...catalog, ...extra], { scoring })
  return (i) => {
    const q = QUERIES[i % QUERIES.length]
    if (scoring === 'compat' && i % 4 === 3) index.rankToolSearch(q, 5)
    else index.search(q, 5)
  }
}

const results = []
if (!JSON_OUT) console.log(`soak (${runtime}${quick ? ', quick' : ''}): ${CYCLES} build/drop cycles and ${SEARCHES} searches per mode; catalog ${catalog.length + extra.length} tools; RSS after forced GC, ${SAMPLES} samples a phase, baseline after ${WARMUP * 100}% warm-up${GC_EVERY ? `, GC every ${GC_EVERY} cycles` : ''}`)
await settle()
for (const scoring of MODES) {
  if (PHASES.includes('build')) results.push(await phase(`build/drop (${scoring})`, CYCLES, buildDropCycle(scoring)))
  if (PHASES.includes('search')) results.push(await phase(`search (${scoring})`, SEARCHES, searchLoop(scoring)))
}
const worst = Math.max(...results.map((r) => r.growthPct))
const ok = worst < MAX_GROWTH
if (JSON_OUT) console.log(JSON.stringify({ runtime, quick, cycles: CYCLES, searches: SEARCHES, gcEvery: GC_EVERY, maxGrowthPct: MAX_GROWTH, ok, results }, null, 2))
else console.log(`worst growth after warm-up: ${worst}% (limit ${MAX_GROWTH}%) → ${ok ? 'OK' : 'FAIL'}`)
process.exit(ok ? 0 : 1)
