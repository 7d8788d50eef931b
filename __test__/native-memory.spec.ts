/**
 * A dropped index's native memory comes back without dispose(), even in a loop that never yields
 * to the event loop: each runtime runs `bench/soak.mjs --no-yield` build/drop cycles of a
 * 200-tool index in a child process, with dispose() and without, and the growth without it
 * must stay within a few MB (under Node the finalizers used to wait for the event loop, so
 * 2,000 such cycles grew RSS by about 950 MB; then V8's external-memory pace let about 100 MB
 * wait). Times are printed, not asserted.
 */
import { describe, expect, test } from 'bun:test'
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { BUN, NODE } from './helpers/runtimes'

const SOAK = join(__dirname, '..', 'bench', 'soak.mjs')
const CYCLES = 2000

type Row = { variant: string; seconds: number; rssStartMB: number; rssEndMB: number; rssMaxMB: number }

function run(runtime: string, variant: string): Row {
  const r = spawnSync(runtime, [SOAK, '--no-yield', '--cycles', String(CYCLES), '--child', variant], { encoding: 'utf8' })
  expect(r.status).toBe(0)
  return JSON.parse(r.stdout.trim().split('\n').pop() ?? '') as Row
}

describe('native memory without dispose(), no-yield loop', () => {
  for (const [name, runtime] of [['node', NODE], ['bun', BUN]] as const) {
    test(`${name}: ${CYCLES} build/drop cycles stay within a few MB`, () => {
      const disposed = run(runtime, 'native+dispose')
      const dropped = run(runtime, 'native')
      const wrapped = run(runtime, 'fromEntries')
      const grew = (r: Row) => r.rssMaxMB - r.rssStartMB
      console.log(
        `${name}: with dispose +${grew(disposed).toFixed(1)} MB (${disposed.seconds} s); without +${grew(dropped).toFixed(1)} MB (${dropped.seconds} s); fromEntries without +${grew(wrapped).toFixed(1)} MB (${wrapped.seconds} s)`,
      )
      // Left to the engines' own pace, Node let about 100 MB of dropped indexes wait (V8's
      // 64 MB external-memory step); the addon asks for a collection every 2 MB built.
      expect(grew(dropped)).toBeLessThan(30)
      expect(grew(wrapped)).toBeLessThan(30)
      expect(grew(disposed)).toBeLessThan(20)
    }, 180_000)
  }
})

describe('search results without yielding', () => {
  // `search` crosses the boundary as a Float64Array. Backed by Rust memory, its finalizer
  // waited for the event loop under Node: 400k searches in a loop that never yields grew RSS
  // by about 144 MB. Copied into engine-owned memory, GC frees it in the loop.
  const script = `
    const { ToolIndex } = require(${JSON.stringify(join(__dirname, '..', 'dist', 'index.js'))})
    const { tools } = require(${JSON.stringify(join(__dirname, '..', 'catalog', 'default-catalog.json'))})
    const index = ToolIndex.fromEntries(tools.map((t) => ({ name: t.name, description: t.description ?? '' })))
    let hits = 0
    let start = 0
    for (let i = 0; i < 400000; i++) {
      hits += index.search('create a github issue', 5).length
      if (i === 40000) start = process.memoryUsage().rss
    }
    console.log(JSON.stringify({ hits, grewMB: (process.memoryUsage().rss - start) / 1048576 }))`
  for (const [name, runtime] of [['node', NODE], ['bun', BUN]] as const) {
    test(`${name}: 400k searches stay bounded`, () => {
      const r = spawnSync(runtime, ['-e', script], { encoding: 'utf8' })
      expect(r.status).toBe(0)
      const row = JSON.parse(r.stdout.trim().split('\n').pop() ?? '') as { hits: number; grewMB: number }
      console.log(`${name}: 400k searches without yielding, RSS +${row.grewMB.toFixed(1)} MB`)
      expect(row.hits).toBeGreaterThan(0)
      expect(row.grewMB).toBeLessThan(40)
    }, 120_000)
  }
})
