#!/usr/bin/env node
// The benchmark suite: `node bench/run.mjs` or `bun bench/run.mjs` (see bench/README.md).
// Builds catalogs of 100 / 1k / 10k / 100k tools and measures, in one run, build time, query
// latency, memory growth and incremental update for this package, the reference port and the
// JS engines, plus the N-API floor; prints ratios and a markdown table. No assertions.
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync, mkdtempSync } from 'node:fs'
import { cpus, tmpdir } from 'node:os'
import { join } from 'node:path'
import { BENCH_DIR, DATA_DIR, REPO_DIR, loadQueries, loadReal } from './lib/data.mjs'
import { makeEngines } from './lib/engines.mjs'
import { hasGc, now, timeQueries } from './lib/measure.mjs'
import { isBun, loadNative, runtimeName } from './lib/modules.mjs'
import { printComparison, printReport } from './lib/report.mjs'

// ---------------------------------------------------------------------------------------------
// Options
// ---------------------------------------------------------------------------------------------

const HELP = `usage: node bench/run.mjs [options]     (or: bun bench/run.mjs [options])
  --quick                 CI smoke run: sizes 100,1k,10k, 60 queries, short budgets
  --sizes LIST            catalog sizes, e.g. 100,1k,10k,100k (default)
  --queries N             size of the fixed query sample (default 200; quick 60)
  --budget MS             query-timing budget per engine and size (default 800; quick 250)
  --build-budget MS       build-timing budget per engine and size (default 1000; quick 300)
  --slow-queries N        minimum queries for slow engines, e.g. the reference at 100k (default 10)
  --engines LIST          only these engine ids (native,native-ids,native-enhanced,dropin,reference,
                          reference-async,prompts,minisearch,orama,flexsearch)
  --async-100k            also run the reference's async build above 10k tools (slow)
  --no-incremental        skip the incremental-update test
  --seed N                PRNG seed for catalogs and queries (default 42)
  --json FILE             also write all figures as JSON
  --report FILE           print the report again from a --json file (one runtime, or both)
  --runtime R             current (default) | bun | node | both (runs bun, then node, then compares)
  --help`

function parseArgs(argv) {
  const o = {
    quick: false, sizes: null, queries: null, budget: null, buildBudget: null, slowQueries: null,
    engines: null, asyncAt100k: false, incremental: true, seed: 42, json: null, report: null, runtime: 'current',
  }
  const rest = [...argv]
  const val = name => {
    const v = rest.shift()
    if (v === undefined) throw new Error(`${name} needs a value`)
    return v
  }
  while (rest.length) {
    let a = rest.shift()
    if (a.includes('=') && a.startsWith('--')) {
      const [k, v] = a.split(/=(.*)/s)
      rest.unshift(v)
      a = k
    }
    switch (a) {
      case '--quick': o.quick = true; break
      case '--sizes': o.sizes = val(a).split(',').map(parseSize); break
      case '--queries': o.queries = Number(val(a)); break
      case '--budget': o.budget = Number(val(a)); break
      case '--build-budget': o.buildBudget = Number(val(a)); break
      case '--slow-queries': o.slowQueries = Number(val(a)); break
      case '--engines': o.engines = val(a).split(','); break
      case '--async-100k': o.asyncAt100k = true; break
      case '--no-incremental': o.incremental = false; break
      case '--seed': o.seed = Number(val(a)); break
      case '--json': o.json = val(a); break
      case '--report': o.report = val(a); break
      case '--runtime': o.runtime = val(a); break
      case '--help': case '-h': console.log(HELP); process.exit(0)
      default: throw new Error(`unknown option ${a}\n${HELP}`)
    }
  }
  o.sizes ??= o.quick ? [100, 1000, 10000] : [100, 1000, 10000, 100000]
  o.queries ??= o.quick ? 60 : 200
  o.budget ??= o.quick ? 250 : 800
  o.buildBudget ??= o.quick ? 300 : 1000
  o.slowQueries ??= o.quick ? 5 : 10
  return o
}
function parseSize(s) {
  const m = /^(\d+(?:\.\d+)?)([kKmM]?)$/.exec(s.trim())
  if (!m) throw new Error(`bad size ${s}`)
  return Math.round(Number(m[1]) * (m[2] ? (m[2].toLowerCase() === 'k' ? 1e3 : 1e6) : 1))
}

const argv = process.argv.slice(2)
const opts = parseArgs(argv)

if (opts.report) {
  const saved = JSON.parse(readFileSync(opts.report, 'utf8'))
  if (saved.sizes) printReport(saved)
  else {
    for (const rt of ['bun', 'node']) if (saved[rt]) printReport(saved[rt])
    if (saved.bun && saved.node) printComparison(saved.bun, saved.node)
  }
  process.exit(0)
}

// ---------------------------------------------------------------------------------------------
// --runtime: re-run under another runtime (or both, then compare)
// ---------------------------------------------------------------------------------------------

function bunBinary() {
  const local = join(REPO_DIR, 'node_modules', '.bin', process.platform === 'win32' ? 'bun.exe' : 'bun')
  return existsSync(local) ? local : 'bun'
}
function runUnder(runtime, extraArgs) {
  const passthrough = []
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--runtime' || argv[i] === '--json') { i++; continue }
    if (argv[i].startsWith('--runtime=') || argv[i].startsWith('--json=')) continue
    passthrough.push(argv[i])
  }
  const bin = runtime === 'bun' ? bunBinary() : 'node'
  const args = runtime === 'node' ? ['--expose-gc'] : []
  args.push(join(BENCH_DIR, 'run.mjs'), ...passthrough, ...extraArgs)
  const r = spawnSync(bin, args, { stdio: 'inherit' })
  if (r.error) throw r.error
  return r.status
}

if (opts.runtime !== 'current') {
  const current = isBun ? 'bun' : 'node'
  if (opts.runtime === current) {
    // fall through and run here
  } else if (opts.runtime === 'bun' || opts.runtime === 'node') {
    process.exit(runUnder(opts.runtime, opts.json ? ['--json', opts.json] : []) ?? 1)
  } else if (opts.runtime === 'both') {
    const dir = mkdtempSync(join(tmpdir(), 'tool-index-bench-'))
    const files = { bun: join(dir, 'bun.json'), node: join(dir, 'node.json') }
    for (const rt of ['bun', 'node']) {
      console.log(`\n${'='.repeat(100)}\n= ${rt.toUpperCase()}\n${'='.repeat(100)}`)
      const status = runUnder(rt, ['--json', files[rt]])
      if (status !== 0) console.log(`(${rt} run exited with status ${status})`)
    }
    const loaded = {}
    for (const rt of ['bun', 'node']) if (existsSync(files[rt])) loaded[rt] = JSON.parse(readFileSync(files[rt], 'utf8'))
    if (opts.json) writeFileSync(opts.json, JSON.stringify(loaded, null, 2))
    if (loaded.bun && loaded.node) printComparison(loaded.bun, loaded.node)
    process.exit(0)
  } else {
    throw new Error(`--runtime must be current, bun, node or both (got ${opts.runtime})`)
  }
}

// ---------------------------------------------------------------------------------------------
// The run
// ---------------------------------------------------------------------------------------------

const t0run = now()
const log = (...a) => console.log(...a)
const fmtMs = ms => (ms >= 100 ? ms.toFixed(0) : ms >= 1 ? ms.toFixed(2) : ms.toFixed(4))

const { engines, notes } = await makeEngines({ only: opts.engines })
const queries = loadQueries(opts.queries, opts.seed)
const queryTexts = queries.map(q => q.text)
const real = loadReal()

log(`tool-index benchmark — ${runtimeName} on ${process.platform}-${process.arch}, ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'})`)
log(`data: ${DATA_DIR} (${real.count} real tools); sizes ${opts.sizes.join(', ')}; ${queries.length} queries; seed ${opts.seed}`)
log(`forced GC between runs: ${hasGc ? 'yes' : 'NO (run node with --expose-gc)'}; engines: ${engines.map(e => e.id).join(', ')}`)
for (const n of notes) log(`note: ${n}`)

const results = {
  runtime: runtimeName,
  runtimeId: isBun ? 'bun' : 'node',
  cpus: cpus().length,
  date: new Date().toISOString(),
  options: opts,
  notes: [...notes],
  floor: null,
  sizes: {},
  incremental: null,
}

// --- the floor: a native call that returns five small result objects ---------------------------
{
  const { ToolIndex } = loadNative()
  const words = ['alpha', 'bravo', 'charlie', 'delta', 'echo']
  const tiny = new ToolIndex(words.map(w => ({ name: `mcp__floor__${w}`, description: `${w} tool` })))
  const q = words.join(' ')
  const hits = tiny.search(q, 5)
  if (hits.length !== 5) log(`warning: floor query returned ${hits.length} hits, not 5`)
  const qs = new Array(20).fill(q)
  const objects = await timeQueries(x => tiny.search(x, 5), qs, { budgetMs: opts.quick ? 200 : 600 })
  const ids = await timeQueries(x => tiny.searchIds(x, 5, 0.1), qs, { budgetMs: opts.quick ? 200 : 600 })
  results.floor = { search: objects.p50, searchIds: ids.p50 }
  log(`\nfloor: native search() returning 5 objects on a 5-tool index: ${(objects.p50 * 1000).toFixed(2)} µs; searchIds(): ${(ids.p50 * 1000).toFixed(2)} µs`)
}

// --- per size and engine, then the incremental update: each in a fresh process (worker.mjs) ---
function runWorker(task) {
  const args = isBun ? [] : ['--expose-gc']
  args.push(join(BENCH_DIR, 'worker.mjs'), JSON.stringify(task))
  const r = spawnSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 1 << 26 })
  const lines = (r.stdout ?? '').trim().split('\n')
  try {
    return JSON.parse(lines[lines.length - 1])
  } catch {
    const err = `${(r.stderr ?? '').trim().split('\n').slice(-4).join(' | ')}`.slice(0, 600)
    results.notes.push(`${task.engines.join('+')} @${task.size} (${task.kind}) failed: ${err || `status ${r.status}`}`)
    log(`  ${task.engines.join('+')} failed: ${err || `status ${r.status}`}`)
    return null
  }
}

// Engines measured in one process: an engine with the engines that query its index.
const groups = engines.filter(e => !e.shareIndexWith).map(e => [e, ...engines.filter(x => x.shareIndexWith === e.id)])
const common = { seed: opts.seed, queries: opts.queries, budget: opts.budget, buildBudget: opts.buildBudget, slowQueries: opts.slowQueries }
const mb = b => (b === undefined ? '' : b < 2 ** 19 ? '≈0 MB' : `${(b / 2 ** 20).toFixed(1)} MB`)

for (const size of opts.sizes) {
  log(`\n── ${size.toLocaleString('en-US')} tools ${'─'.repeat(80)}`)
  const sizeRes = (results.sizes[size] = { engines: {} })
  for (const group of groups) {
    if (group[0].id === 'reference-async' && size > 10000 && !opts.asyncAt100k) {
      if (size === Math.max(...opts.sizes)) results.notes.push(`reference async build skipped above 10k tools (the build target is at 10k; --async-100k runs it)`)
      continue
    }
    const res = runWorker({ kind: 'size', engines: group.map(e => e.id), size, ...common })
    if (!res) continue
    for (const e of group) {
      const row = { label: e.label, kind: e.kind, ...(res.engines[e.id] ?? {}) }
      if (!row.build && !row.query) continue
      sizeRes.engines[e.id] = row
      const b = row.build ? `build ${fmtMs(row.build.median)} ms (${row.build.reps}×)` : 'build (shared)'
      const q = row.query
        ? `query p50 ${(row.query.p50 * 1000).toFixed(2)} µs, mean ${(row.query.mean * 1000).toFixed(2)} µs, p99 ${(row.query.p99 * 1000).toFixed(2)} µs, ${row.query.n} queries × ${row.query.passes}`
        : ''
      const h = row.hit ? `, hit@5 ${row.hit.hit}/${row.hit.eligible}` : ''
      const m = row.mem ? `, RSS growth ${mb(row.mem.rss)}` : ''
      log(`  ${e.label.padEnd(28)} ${b.padEnd(24)} ${q}${h}${m}`)
    }
  }
}

if (opts.incremental) {
  const size = opts.sizes.includes(10000) ? 10000 : Math.max(...opts.sizes)
  log(`\n── incremental: one 20-tool MCP server added to a ${size.toLocaleString('en-US')}-tool index ${'─'.repeat(30)}`)
  const inc = (results.incremental = { size, engines: {} })
  for (const e of engines) {
    if (e.buildOnly || e.shareIndexWith || (!e.add && e.kind !== 'reference' && e.id !== 'dropin')) continue
    const res = runWorker({ kind: 'incremental', engines: [e.id], size, ...common })
    if (!res?.engines[e.id]) continue
    const row = { label: e.label, ...res.engines[e.id] }
    inc.engines[e.id] = row
    const parts = [`rebuild ${fmtMs(row.rebuild)} ms`]
    if (row.add !== undefined) parts.push(`add 20 ${fmtMs(row.add)} ms`, `remove 20 ${fmtMs(row.remove)} ms`, `rebuild/add ${(row.rebuild / row.add).toFixed(0)}×`)
    if (row.sameAsRebuild) parts.push(`results after add/remove = rebuild: ${row.sameAsRebuild}`)
    if (row.getToolIndexPlusServer !== undefined) parts.push(`getToolIndex(+20) ${fmtMs(row.getToolIndexPlusServer)} ms`)
    log(`  ${e.label.padEnd(28)} ${parts.join(', ')}`)
  }
}

results.elapsedSec = (now() - t0run) / 1000
printReport(results)
if (opts.json) writeFileSync(opts.json, JSON.stringify(results, null, 2))
