// Printing: ratio lines, the informational target check, and paste-ready markdown tables.

const us = ms => (ms === undefined || Number.isNaN(ms) ? '–' : fmtNum(ms * 1000))
const msf = ms => (ms === undefined || Number.isNaN(ms) ? '–' : fmtNum(ms))
// Below half a megabyte (or negative: pages handed back) RSS growth is noise: shown as ≈0.
const mb = b => (b === undefined ? '–' : b < 2 ** 19 ? '≈0' : (b / 2 ** 20).toFixed(1))
export function fmtNum(x) {
  if (x === undefined || Number.isNaN(x)) return '–'
  if (x >= 100) return Math.round(x).toLocaleString('en-US')
  if (x >= 10) return x.toFixed(1)
  if (x >= 1) return x.toFixed(2)
  return x.toPrecision(2)
}
export function ratio(x) {
  if (!Number.isFinite(x)) return '–'
  if (x >= 20) return `${Math.round(x).toLocaleString('en-US')}×`
  return `${x.toFixed(1)}×`
}
/** "12× faster than X" or, when this package is slower, "3.0× slower than X". */
const vs = (r, label) => (!Number.isFinite(r) ? `– vs ${label}` : r >= 1 ? `${ratio(r)} faster than ${label}` : `${ratio(1 / r)} slower than ${label}`)
/** native RSS growth as a share of another's: 0.32× */
const share = x => (Number.isFinite(x) ? `${x.toFixed(2)}×` : '–')
const sizeLabel = n => (n >= 1000 && n % 1000 === 0 ? `${n / 1000}k` : String(n))

function fastest(engines, kind, pick) {
  let best = null
  for (const [id, row] of Object.entries(engines)) {
    if (row.kind !== kind) continue
    const v = pick(row)
    if (v === undefined || Number.isNaN(v)) continue
    if (!best || v < best.v) best = { id, label: row.label, v }
  }
  return best
}
const qp50 = row => row?.query?.p50
const bmed = row => row?.build?.median

/** The headline figures of one run, shared by the report and the Bun/Node comparison. */
export function figures(res) {
  const out = {}
  for (const [size, s] of Object.entries(res.sizes)) {
    const e = s.engines
    const nat = e.native
    const ref = e.reference
    const js = fastest(e, 'js', qp50)
    const jsBuild = fastest(e, 'js', bmed)
    const f = {}
    if (nat?.query) {
      f.queryP50 = nat.query.p50
      if (ref?.query) f.queryVsRef = ref.query.p50 / nat.query.p50
      if (js) { f.queryVsJs = js.v / nat.query.p50; f.fastestJs = js.label }
      if (res.floor) f.p50OverFloor = nat.query.p50 / res.floor.search
    }
    if (nat?.build && ref?.build) f.buildVsRef = ref.build.median / nat.build.median
    if (nat?.build && jsBuild) {
      f.buildVsJs = jsBuild.v / nat.build.median
      f.fastestJsBuild = jsBuild.label
      f.buildVsEveryJs = Math.min(...Object.values(e).filter(r => r.kind === 'js' && r.build).map(r => r.build.median / nat.build.median))
    }
    if (e.dropin?.build && e['reference-async']?.build) f.dropinBuildVsRef = e['reference-async'].build.median / e.dropin.build.median
    if (e.dropin?.build && jsBuild) f.dropinBuildVsJs = jsBuild.v / e.dropin.build.median
    // RSS moves in pages and allocator arenas: below 1 MB of growth the ratio is noise.
    const MB = 2 ** 20
    if (nat?.mem && ref?.mem && nat.mem.rss >= MB && ref.mem.rss >= MB) f.rssShare = nat.mem.rss / ref.mem.rss
    out[size] = f
  }
  return out
}

function line(s) {
  console.log(s)
}

export function printReport(res) {
  const sizes = Object.keys(res.sizes).map(Number)
  const figs = figures(res)
  line(`\n${'═'.repeat(100)}\nRATIOS — ${res.runtime} (medians; absolute times on a shared machine are noise, the ratios are the figures)`)
  if (res.floor) line(`floor (native search() returning 5 result objects): ${us(res.floor.search)} µs; searchIds(): ${us(res.floor.searchIds)} µs`)
  for (const size of sizes) {
    const e = res.sizes[size].engines
    const f = figs[size]
    const nat = e.native
    const L = sizeLabel(size)
    if (nat?.query) {
      const parts = []
      if (e.reference?.query) parts.push(vs(f.queryVsRef, 'reference'))
      const jsRows = Object.entries(e).filter(([, r]) => r.kind === 'js' && r.query).sort((a, b) => a[1].query.p50 - b[1].query.p50)
      for (const [, r] of jsRows) parts.push(vs(r.query.p50 / nat.query.p50, r.label))
      if (e.dropin?.query) parts.push(`drop-in p50 ${us(e.dropin.query.p50)} µs`)
      if (e['native-enhanced']?.query) parts.push(`enhanced p50 ${us(e['native-enhanced'].query.p50)} µs`)
      line(`query @${L}: native p50 ${us(nat.query.p50)} µs (${ratio(f.p50OverFloor)} the floor) — ${parts.join(', ')}`)
    }
    if (nat?.build) {
      const parts = []
      if (e.reference?.build) parts.push(vs(f.buildVsRef, 'reference'))
      const jsRows = Object.entries(e).filter(([, r]) => r.kind === 'js' && r.build).sort((a, b) => a[1].build.median - b[1].build.median)
      for (const [, r] of jsRows) parts.push(vs(r.build.median / nat.build.median, r.label))
      let s = `build @${L}: native from entries ${msf(nat.build.median)} ms — ${parts.join(', ')}`
      if (e.dropin?.build) {
        s += `; drop-in async ${msf(e.dropin.build.median)} ms`
        if (f.dropinBuildVsRef) s += ` — ${vs(f.dropinBuildVsRef, 'reference async')}`
        if (e.prompts?.build) s += ` (awaiting the prompts alone: ${msf(e.prompts.build.median)} ms)`
      }
      line(s)
    }
    if (nat?.mem) {
      const parts = Object.entries(e)
        .filter(([id, r]) => r.mem && id !== 'native')
        .map(([, r]) => `${r.label} ${mb(r.mem.rss)} MB`)
      line(`memory @${L}: native RSS growth ${mb(nat.mem.rss)} MB (JS heap ${mb(nat.mem.heapUsed)} MB)${f.rssShare ? `, ${share(f.rssShare)} the reference's` : ''} — ${parts.join(', ')}`)
    }
  }
  const has = n => sizes.includes(n)
  let growth = null
  if (has(10000) && has(100000)) {
    const n10 = res.sizes[10000].engines, n100 = res.sizes[100000].engines
    growth = {
      native: qp50(n100.native) / qp50(n10.native),
      reference: qp50(n100.reference) / qp50(n10.reference),
    }
    line(`query growth 10k→100k tools: native ×${fmtNum(growth.native)}, reference ×${fmtNum(growth.reference)}` +
      Object.entries(n100).filter(([, r]) => r.kind === 'js' && r.query).map(([id, r]) => `, ${r.label} ×${fmtNum(r.query.p50 / qp50(n10[id]))}`).join(''))
  }
  const inc = res.incremental
  if (inc?.engines.native?.add !== undefined) {
    const n = inc.engines.native
    const parts = [`native rebuild ${msf(n.rebuild)} ms (${ratio(n.rebuild / n.add)})`]
    if (inc.engines.reference) parts.push(`reference rebuild ${msf(inc.engines.reference.rebuild)} ms (${ratio(inc.engines.reference.rebuild / n.add)})`)
    if (inc.engines.dropin) parts.push(`drop-in rebuild ${msf(inc.engines.dropin.rebuild)} ms (${ratio(inc.engines.dropin.rebuild / n.add)})`)
    for (const [, r] of Object.entries(inc.engines)) {
      if (r.add !== undefined && r !== n && !r.label.startsWith('native')) parts.push(`${r.label} add ${msf(r.add)} ms`)
    }
    line(`incremental @${sizeLabel(inc.size)} +20-tool server: native upsert ${msf(n.add)} ms (remove ${msf(n.remove)} ms) vs ${parts.join(', ')}`)
    if (inc.engines.dropin?.getToolIndexPlusServer !== undefined) line(`  drop-in getToolIndex(cached tools + 20): ${msf(inc.engines.dropin.getToolIndexPlusServer)} ms`)
  }

  // Informational check against the issue's targets (no assertion; nothing fails).
  line(`\nissue #4 targets (informational):`)
  const chk = (label, value, ok, shown) => {
    if (value === undefined || Number.isNaN(value)) line(`  ·  ${label}: not measured`)
    else line(`  ${ok ? '✓' : '✗'}  ${label}: ${shown}`)
  }
  const f10 = figs[10000] ?? {}
  const f100 = figs[100000] ?? {}
  chk('query @10k ≥ 2,000× faster than reference', f10.queryVsRef, f10.queryVsRef >= 2000, ratio(f10.queryVsRef))
  chk('query @10k ≥ 10× faster than the fastest JS engine', f10.queryVsJs, f10.queryVsJs >= 10, `${ratio(f10.queryVsJs)} (${f10.fastestJs})`)
  chk('query p50 @10k within 5× the floor', f10.p50OverFloor, f10.p50OverFloor <= 5, ratio(f10.p50OverFloor))
  chk('query @100k ≥ 10,000× faster than reference', f100.queryVsRef, f100.queryVsRef >= 10000, ratio(f100.queryVsRef))
  chk('query growth 10k→100k ≤ ×3', growth?.native, growth?.native <= 3, `×${fmtNum(growth?.native)}`)
  chk('build @10k via drop-in async ≥ 15× faster than reference async', f10.dropinBuildVsRef, f10.dropinBuildVsRef >= 15, ratio(f10.dropinBuildVsRef))
  chk('build @10k from entries ≥ 30× faster than reference', f10.buildVsRef, f10.buildVsRef >= 30, ratio(f10.buildVsRef))
  chk('build @10k ≥ 5× faster than every JS engine', f10.buildVsEveryJs, f10.buildVsEveryJs >= 5, `${ratio(f10.buildVsEveryJs)} (the closest)`)
  chk('RSS growth @100k ≤ 1/5 of the reference', f100.rssShare, f100.rssShare <= 0.2, `${share(f100.rssShare)} the reference's`)
  const incR = inc?.engines.native ? inc.engines.native.rebuild / inc.engines.native.add : undefined
  chk('+20-tool server @10k ≥ 50× faster than a rebuild', incR, incR >= 50, ratio(incR))
  line(`\nissue #12 targets (informational; its query-vs-JS target is the one above):`)
  chk('query @10k ≥ 5,000× faster than reference', f10.queryVsRef, f10.queryVsRef >= 5000, ratio(f10.queryVsRef))
  chk('build @10k from entries ≥ 10× faster than reference', f10.buildVsRef, f10.buildVsRef >= 10, ratio(f10.buildVsRef))

  printMarkdown(res, figs)
  for (const n of res.notes) line(`note: ${n}`)
  line(`\n(${res.runtime}; ${res.elapsedSec.toFixed(0)} s)`)
}

export function printMarkdown(res, figs = figures(res)) {
  const sizes = Object.keys(res.sizes).map(Number)
  line(`\n#### ${res.runtime}, ${res.cpus} CPUs — markdown\n`)
  line(`Floor (native \`search\` returning 5 objects): ${us(res.floor?.search)} µs.\n`)
  line('| Tools | Engine | Build (ms) | Query p50 (µs) | Query mean (µs) | Query p99 (µs) | Queries | RSS growth (MB) | JS heap growth (MB) | hit@5 |')
  line('|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|')
  for (const size of sizes) {
    for (const [, r] of Object.entries(res.sizes[size].engines)) {
      const hit = r.hit && r.hit.eligible ? `${(r.hit.hit / r.hit.eligible).toFixed(2)} (${r.hit.eligible})` : '–'
      line(`| ${sizeLabel(size)} | ${r.label} | ${r.build ? msf(r.build.median) : '–'} | ${us(r.query?.p50)} | ${us(r.query?.mean)} | ${us(r.query?.p99)} | ${r.query?.n ?? '–'} | ${mb(r.mem?.rss)} | ${mb(r.mem?.heapUsed)} | ${hit} |`)
    }
  }
  line('\n| Tools | Query p50 vs reference | vs fastest JS engine | p50 / floor | Build vs reference (entries) | Drop-in build vs reference (async) | Build vs fastest JS engine | RSS growth / reference\'s |')
  line('|---:|---:|---:|---:|---:|---:|---:|---:|')
  for (const size of sizes) {
    const f = figs[size] ?? {}
    line(`| ${sizeLabel(size)} | ${ratio(f.queryVsRef)} | ${ratio(f.queryVsJs)}${f.fastestJs ? ` (${f.fastestJs})` : ''} | ${ratio(f.p50OverFloor)} | ${ratio(f.buildVsRef)} | ${ratio(f.dropinBuildVsRef)} | ${ratio(f.buildVsJs)}${f.fastestJsBuild ? ` (${f.fastestJsBuild})` : ''} | ${share(f.rssShare)} |`)
  }
  line('\nRatios: how many times faster (or smaller) this package is; below 1× it is slower. RSS: native growth as a share of the reference\'s.')
  const inc = res.incremental
  if (inc && Object.keys(inc.engines).length) {
    line(`\n| +20-tool server into ${sizeLabel(inc.size)} tools | Add (ms) | Remove (ms) | Rebuild (ms) | Rebuild / add |`)
    line('|---|---:|---:|---:|---:|')
    for (const [, r] of Object.entries(inc.engines)) {
      line(`| ${r.label} | ${msf(r.add)} | ${msf(r.remove)} | ${msf(r.rebuild)} | ${r.add !== undefined ? ratio(r.rebuild / r.add) : '–'} |`)
    }
  }
}

/** Bun vs Node, from the two JSON results. */
export function printComparison(bun, node) {
  line(`\n${'═'.repeat(100)}\nBUN vs NODE — ${bun.runtime} / ${node.runtime}\n`)
  line('| Tools | Engine | Query p50 Bun (µs) | Query p50 Node (µs) | Node / Bun | Build Bun (ms) | Build Node (ms) | Node / Bun |')
  line('|---:|---|---:|---:|---:|---:|---:|---:|')
  let worst = null
  for (const size of Object.keys(bun.sizes)) {
    const b = bun.sizes[size]?.engines ?? {}
    const n = node.sizes[size]?.engines ?? {}
    for (const id of Object.keys(b)) {
      const rb = b[id], rn = n[id]
      if (!rn) continue
      const qr = rn.query && rb.query ? rn.query.p50 / rb.query.p50 : NaN
      const br = rn.build && rb.build ? rn.build.median / rb.build.median : NaN
      line(`| ${sizeLabel(Number(size))} | ${rb.label} | ${us(rb.query?.p50)} | ${us(rn.query?.p50)} | ${ratio(qr)} | ${msf(rb.build?.median)} | ${msf(rn.build?.median)} | ${ratio(br)} |`)
      if (id === 'native' && rb.query && rn.query) {
        for (const k of ['p50', 'mean', 'p99']) {
          const r = rn.query[k] / rb.query[k]
          if (!worst || r > worst.r) worst = { r, what: `${k} @${sizeLabel(Number(size))}` }
        }
      }
    }
  }
  const fr = node.floor && bun.floor ? node.floor.search / bun.floor.search : NaN
  line(`\nfloor: Bun ${us(bun.floor?.search)} µs, Node ${us(node.floor?.search)} µs (Node/Bun ${ratio(fr)})`)
  if (worst) line(`${worst.r <= 2 ? '✓' : '✗'}  Node within 2× of Bun on every native query figure (informational): worst Node/Bun ${ratio(worst.r)} (${worst.what})`)
  const fb = figures(bun), fnode = figures(node)
  line('\n| Tools | Runtime | Query vs reference | vs fastest JS | p50 / floor | Build vs reference | Drop-in build vs reference async | RSS growth / reference\'s |')
  line('|---:|---|---:|---:|---:|---:|---:|---:|')
  for (const size of Object.keys(bun.sizes)) {
    for (const [name, f] of [['Bun', fb[size]], ['Node', fnode[size]]]) {
      if (!f) continue
      line(`| ${sizeLabel(Number(size))} | ${name} | ${ratio(f.queryVsRef)} | ${ratio(f.queryVsJs)} | ${ratio(f.p50OverFloor)} | ${ratio(f.buildVsRef)} | ${ratio(f.dropinBuildVsRef)} | ${share(f.rssShare)} |`)
    }
  }
}
