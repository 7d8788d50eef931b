#!/usr/bin/env node
// Ranking quality: recall@5, MRR@5 and nDCG@5 (binary relevance) of this package's compat and
// enhanced rankings and of three JS search engines, on the public ETOM and MetaTool sets.
// See bench/QUALITY.md. Runs under node and bun:
//
//   node bench/quality.mjs                      dev split, default sizes (< 3 min on 2 cores)
//   node bench/quality.mjs --holdout            the holdout split (look once, at the end)
//   node bench/quality.mjs --set etom-l2,etom-l4 --systems compat-tfidf,enhanced
//   node bench/quality.mjs --quick              300 queries per set (CI smoke)
//   node bench/quality.mjs --all-metatool       all 20,544 MetaTool single queries
//   node bench/quality.mjs --json               machine-readable results on stdout
import { performance } from 'node:perf_hooks'
import { DATA_DIR, QUICK_PER_SET, SET_IDS, loadSets, selectSets } from './quality/data.mjs'
import { Accumulator, K, scoreRanking } from './quality/metrics.mjs'
import { EXTRA_SYSTEM_IDS, SYSTEM_IDS, makeSystems } from './quality/systems.mjs'

const USAGE = `usage: node bench/quality.mjs [options]
  --set <ids>        comma list of sets (repeatable): ${SET_IDS.join(', ')};
                     also 'etom', 'metatool', 'zh' (Chinese requests), 'zh-unseen' (Chinese requests translated later, holdout only; 'zh-unseen-alt' a second translation of them), 'unseen' (MetaTool requests outside the sample) or a prefix ending in '*'
  --systems <ids>    comma list of systems: ${SYSTEM_IDS.join(', ')}; by name only: ${EXTRA_SYSTEM_IDS.join(', ')}
  --fusion <k=v,..>  fusion settings of the fused systems (method, lexicalWeight, candidates, rrfK)
  --holdout          score the holdout split (default: dev)
  --all-metatool     MetaTool single: all queries instead of the 2,000-query sample (seed 42)
  --quick            at most ${QUICK_PER_SET} queries per set (seeded sample), for CI smoke runs
  --json             print the results as JSON only
  --help             this text`

function parseArgs(argv) {
  const o = { sets: [], systems: [], holdout: false, allMetatool: false, quick: false, json: false, fusion: {} }
  const list = (v) => (v ?? '').split(',').map((s) => s.trim()).filter(Boolean)
  for (let i = 0; i < argv.length; i++) {
    let a = argv[i]
    let v
    const eq = a.indexOf('=')
    if (a.startsWith('--') && eq > 0) {
      v = a.slice(eq + 1)
      a = a.slice(0, eq)
    }
    const value = () => {
      if (v !== undefined) return v
      if (i + 1 >= argv.length) throw new Error(`${a} needs a value`)
      return argv[++i]
    }
    switch (a) {
      case '--set':
      case '--sets':
        o.sets.push(...list(value()))
        break
      case '--system':
      case '--systems':
        o.systems.push(...list(value()))
        break
      case '--fusion': {
        // e.g. --fusion method=rrf,lexicalWeight=0.5,candidates=50
        for (const kv of list(value())) {
          const [k, x] = kv.split('=')
          o.fusion[k] = k === 'method' || k === 'lexicalNorm' ? x : Number(x)
        }
        break
      }
      case '--holdout':
        o.holdout = true
        break
      case '--all-metatool':
        o.allMetatool = true
        break
      case '--quick':
        o.quick = true
        break
      case '--json':
        o.json = true
        break
      case '-h':
      case '--help':
        o.help = true
        break
      default:
        throw new Error(`unknown argument ${JSON.stringify(argv[i])}\n${USAGE}`)
    }
  }
  for (const s of o.systems) {
    if (!SYSTEM_IDS.includes(s) && !EXTRA_SYSTEM_IDS.includes(s)) {
      throw new Error(`unknown system ${JSON.stringify(s)}; systems: ${[...SYSTEM_IDS, ...EXTRA_SYSTEM_IDS].join(', ')}`)
    }
  }
  return o
}

const runtime = typeof globalThis.Bun !== 'undefined' ? `bun ${globalThis.Bun.version}` : `node ${process.versions.node}`
const f3 = (x) => x.toFixed(3)
const pct = (x) => `${(100 * x).toFixed(0)}%`
const pad = (s, n) => String(s).padEnd(n)
const lpad = (s, n) => String(s).padStart(n)

function formatMicros(us) {
  return us >= 1000 ? `${(us / 1000).toFixed(2)} ms` : `${us.toFixed(1)} µs`
}

async function main() {
  const opts = parseArgs(process.argv.slice(2))
  if (opts.help) {
    console.log(USAGE)
    return
  }
  const t0 = performance.now()
  const split = opts.holdout ? 'holdout' : 'dev'
  const setIds = selectSets(opts.sets)
  const { corpora, sets } = loadSets({ sets: setIds, split, allMetatool: opts.allMetatool, quick: opts.quick })
  const notes = new Set()
  const systems = await makeSystems({ only: opts.systems, notes, fusion: opts.fusion })
  const log = opts.json ? () => {} : (...a) => console.error(...a)

  const threshold = process.env.TOOL_SEARCH_DISPLAY_MIN_SCORE ?? '0.10 (default)'
  log(
    `tool-index quality · ${runtime} · split ${split} · top ${K} · display threshold ${threshold}` +
      `${opts.quick ? ` · quick (≤ ${QUICK_PER_SET}/set)` : ''}\n` +
      `data ${DATA_DIR}: ${Object.entries(corpora)
        .map(([c, t]) => `${c} ${t.length} tools`)
        .join(', ')}`,
  )

  const results = [] // { system, set, n, recall, mrr, ndcg } or infeasible { emptyShare, meanCount }
  const timing = {} // system -> { queries, ms, buildMs }
  for (const sys of systems) {
    if (!sys.available) {
      log(`  ${pad(sys.id, 20)} n/a: ${sys.reason}`)
      continue
    }
    const tsys = performance.now()
    const t = (timing[sys.id] = { queries: 0, searchMs: 0, buildMs: {} })
    const handles = {}
    for (const set of sets) {
      if (!handles[set.corpus]) {
        const b0 = performance.now()
        handles[set.corpus] = await sys.build(corpora[set.corpus])
        t.buildMs[set.corpus] = performance.now() - b0
      }
      const h = handles[set.corpus]
      if (sys.prepare) await sys.prepare(h, set.queries.map((q) => q.query))
      const acc = new Accumulator()
      let empty = 0
      let count = 0
      for (const q of set.queries) {
        const s0 = performance.now()
        let ranked = sys.search(h, q.query)
        if (ranked && typeof ranked.then === 'function') ranked = await ranked
        t.searchMs += performance.now() - s0
        t.queries++
        if (set.infeasible) {
          if (ranked.length === 0) empty++
          count += Math.min(ranked.length, K)
        } else {
          acc.add(scoreRanking(ranked, q.judgement, K))
        }
      }
      const n = set.queries.length
      results.push(
        set.infeasible
          ? { system: sys.id, set: set.id, n, emptyShare: n ? empty / n : 0, meanCount: n ? count / n : 0 }
          : { system: sys.id, set: set.id, ...acc.result() },
      )
    }
    log(`  ${pad(sys.id, 20)} done in ${((performance.now() - tsys) / 1000).toFixed(1)} s`)
  }
  const totalS = (performance.now() - t0) / 1000

  if (opts.json) {
    console.log(
      JSON.stringify(
        {
          runtime,
          split,
          k: K,
          quick: opts.quick,
          allMetatool: opts.allMetatool,
          displayThreshold: process.env.TOOL_SEARCH_DISPLAY_MIN_SCORE ?? null,
          dataDir: DATA_DIR,
          sets: sets.map((s) => ({ id: s.id, title: s.title, n: s.queries.length, inSplit: s.inSplit, note: s.note })),
          systems: systems.map((s) => ({
            id: s.id,
            label: s.label,
            available: s.available,
            reason: s.reason ?? undefined,
            meanQueryMicros: timing[s.id] ? (1000 * timing[s.id].searchMs) / (timing[s.id].queries || 1) : undefined,
            buildMs: timing[s.id]?.buildMs,
          })),
          results,
          notes: [...notes],
          seconds: totalS,
        },
        null,
        2,
      ),
    )
    return
  }

  const get = (sys, set) => results.find((r) => r.system === sys && r.set === set)
  const out = []
  out.push('')
  out.push(`Sets (${split}):`)
  for (const s of sets) {
    out.push(`  ${pad(s.id, 18)} ${lpad(s.queries.length, 5)} queries  ${s.title}${s.note ? ` — ${s.note}` : ''}`)
  }

  // Per-system compact tables.
  for (const sys of systems) {
    out.push('')
    if (!sys.available) {
      out.push(`${sys.id}: n/a (${sys.reason})`)
      continue
    }
    const t = timing[sys.id]
    const builds = Object.entries(t.buildMs)
      .map(([c, ms]) => `${c} ${ms.toFixed(0)} ms`)
      .join(', ')
    out.push(`${sys.id} — ${sys.label}`)
    out.push(`  mean query ${formatMicros((1000 * t.searchMs) / (t.queries || 1))} over ${t.queries} queries; build ${builds}`)
    out.push(`  ${pad('set', 18)} ${lpad('n', 5)}  ${lpad('R@5', 6)} ${lpad('MRR@5', 6)} ${lpad('nDCG@5', 6)}`)
    for (const s of sets) {
      const r = get(sys.id, s.id)
      if (!r) continue
      if (s.infeasible) {
        out.push(`  ${pad(s.id, 18)} ${lpad(r.n, 5)}  empty ${pct(r.emptyShare)}, mean ${r.meanCount.toFixed(2)} results`)
      } else {
        out.push(`  ${pad(s.id, 18)} ${lpad(r.n, 5)}  ${lpad(f3(r.recall), 6)} ${lpad(f3(r.mrr), 6)} ${lpad(f3(r.ndcg), 6)}`)
      }
    }
  }

  // Markdown for the README.
  out.push('')
  out.push(`Markdown (${split} split; cells: recall@5 / MRR@5 / nDCG@5; infeasible: share of empty results · mean result count):`)
  out.push('')
  const cols = systems
  out.push(`| set | n | ${cols.map((s) => `\`${s.id}\``).join(' | ')} |`)
  out.push(`|---|---:|${cols.map(() => '---|').join('')}`)
  for (const s of sets) {
    const cells = cols.map((sys) => {
      if (!sys.available) return 'n/a'
      const r = get(sys.id, s.id)
      if (!r) return ''
      return s.infeasible ? `${pct(r.emptyShare)} · ${r.meanCount.toFixed(1)}` : `${r.recall.toFixed(2)} / ${r.mrr.toFixed(2)} / ${r.ndcg.toFixed(2)}`
    })
    out.push(`| ${s.title} | ${s.queries.length} | ${cells.join(' | ')} |`)
  }
  const lat = cols.map((sys) => (timing[sys.id] ? formatMicros((1000 * timing[sys.id].searchMs) / (timing[sys.id].queries || 1)) : 'n/a'))
  out.push(`| mean query latency | | ${lat.join(' | ')} |`)

  if (notes.size) {
    out.push('')
    out.push('Notes:')
    for (const n of notes) out.push(`  - ${n}`)
  }
  out.push('')
  out.push(`Total ${totalS.toFixed(1)} s (${runtime}).`)
  console.log(out.join('\n'))
}

main().catch((e) => {
  console.error(process.env.DEBUG ? (e?.stack ?? String(e)) : `quality: ${e?.message ?? e}`)
  process.exitCode = 1
})
