/**
 * The loader's runtime check (`native.js`, `runtime.js`): which runtimes run the addon's
 * finalizers during garbage collection, which get them deferred, which are refused, and the
 * coded error when the addon cannot be loaded at all.
 */
import { describe, expect, test } from 'bun:test'
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { BUN, NODE } from './helpers/runtimes'

const ROOT = join(__dirname, '..')
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { finalizerMode } = require('../runtime.js') as { finalizerMode: (versions: unknown) => string }
const REPORTS = join(__dirname, 'fixtures', 'runtime', 'reports-version.cjs')

describe('finalizerMode', () => {
  // Measured: each "deferred" Node and Bun 1.3.14 aborted at the first collection of a dropped
  // index when the addon declared the experimental Node-API version; each "gc" one did not.
  const table: [Record<string, string> | unknown, string][] = [
    [{ node: '18.20.8' }, 'deferred'],
    [{ node: '19.9.0' }, 'deferred'],
    [{ node: '20.10.0' }, 'deferred'],
    [{ node: '20.18.2' }, 'deferred'],
    [{ node: '20.18.3' }, 'gc'],
    [{ node: '20.20.2' }, 'gc'],
    [{ node: '21.7.3' }, 'deferred'],
    [{ node: '22.12.0' }, 'deferred'],
    [{ node: '22.13.0' }, 'gc'],
    [{ node: '23.4.0' }, 'deferred'],
    [{ node: '23.5.0' }, 'gc'],
    [{ node: '24.0.0' }, 'gc'],
    [{ node: '26.3.1' }, 'gc'],
    [{ node: 'v22.13.1' }, 'gc'],
    [{ node: '22.13.0', bun: '1.3.14' }, 'unsupported'],
    [{ node: '24.3.0', bun: '1.4.0' }, 'gc'],
    [{ node: '24.3.0', bun: '1.4.4' }, 'gc'],
    [{ node: '24.3.0', bun: '2.0.0' }, 'gc'],
    [{ node: '24.3.0', bun: 'canary' }, 'unsupported'],
    [{ node: 'nightly' }, 'deferred'],
    [{}, 'deferred'],
    [null, 'deferred'],
    [undefined, 'deferred'],
  ]
  for (const [versions, mode] of table) {
    test(`${JSON.stringify(versions)} → ${mode}`, () => {
      expect(finalizerMode(versions)).toBe(mode)
    })
  }
})

function load(runtime: string, env: Record<string, string>, script: string) {
  const r = spawnSync(runtime, ['--require', REPORTS, '-e', script], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, ...env } })
  return { status: r.status, out: r.stdout.trim(), err: r.stderr }
}

const TRY_LOAD = `try { const n = require('./native.js'); console.log('loaded ' + typeof n.ToolIndex) } catch (e) { console.log(e.code + ' ' + e.name + ' ' + e.message) }`

describe('native.js', () => {
  test('an older Bun is refused at load with E_UNSUPPORTED_RUNTIME, not aborted later', () => {
    const r = load(NODE, { TI_REPORT_BUN: '1.3.14' }, TRY_LOAD)
    expect(r.out).toStartWith('E_UNSUPPORTED_RUNTIME ToolIndexError ')
    expect(r.out).toContain('Bun 1.4.0 or later (this is Bun 1.3.14)')
  })

  for (const [name, runtime] of [['node', NODE], ['bun', BUN]] as const) {
    test(`${name}: an addon that cannot be loaded is E_NATIVE_UNAVAILABLE, naming the platform`, () => {
      const r = load(runtime, { NAPI_RS_NATIVE_LIBRARY_PATH: join(ROOT, 'no-such-addon.node') }, TRY_LOAD)
      expect(r.out).toStartWith('E_NATIVE_UNAVAILABLE ToolIndexError ')
      expect(r.out).toContain(`on ${process.platform}-${process.arch}`)
    })

    test(`${name}: the tool-index binary says so in one line, exit status 1 [regression: a 60-line stack trace]`, () => {
      const r = spawnSync(runtime, [join(ROOT, 'dist', 'bin.js'), 'search', 'create an issue'], {
        cwd: ROOT,
        encoding: 'utf8',
        env: { ...process.env, NAPI_RS_NATIVE_LIBRARY_PATH: join(ROOT, 'no-such-addon.node') },
      })
      expect(r.status).toBe(1)
      const lines = r.stderr.trim().split('\n')
      expect(lines.length).toBe(1)
      expect(lines[0]).toStartWith('tool-index: the native addon of @ccb/tool-index-native could not be loaded')
      expect(lines[0].endsWith('[E_NATIVE_UNAVAILABLE]')).toBe(true)
      // And without the failure it runs the search.
      const ok = spawnSync(runtime, [join(ROOT, 'dist', 'bin.js'), 'search', 'create an issue'], { cwd: ROOT, encoding: 'utf8' })
      expect([ok.status, ok.stdout.split('\n')[1]]).toEqual([0, expect.stringContaining('mcp__github__create_issue')])
    })

    test(`${name}: native.mjs, the ./native export for ES modules, names every export of native.js [regression: Node's ES modules saw none]`, () => {
      const script = [
        "import * as esm from './native.mjs'",
        "import { createRequire } from 'node:module'",
        "const cjs = createRequire(import.meta.url)('./native.js')",
        "const named = Object.keys(esm).filter((k) => k !== 'default').sort()",
        'console.log(JSON.stringify({ named, cjs: Object.keys(cjs).sort(), same: esm.default === cjs, kind: typeof esm.ToolIndex }))',
      ].join('\n')
      const r = spawnSync(runtime, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' })
      expect(r.stderr).toBe('')
      const out = JSON.parse(r.stdout) as { named: string[]; cjs: string[]; same: boolean; kind: string }
      expect(out.named).toEqual(out.cjs)
      expect(out.same).toBe(true)
      expect(out.kind).toBe('function')
    })

    test(`${name}: the addon loads, and the variable it reads is not left behind`, () => {
      const r = load(runtime, { TI_REPORT_NODE: '20.10.0' }, `${TRY_LOAD}; console.log(String(process.env.TOOL_INDEX_DEFER_FINALIZERS))`)
      expect(r.out.split('\n')).toEqual(['loaded function', 'undefined'])
    })
  }

  test('node: on an older Node the finalizers wait for the event loop; on this one they run in the collection', () => {
    // 300 build/drop cycles of a 200-tool index in a loop that never yields: with the finalizers
    // deferred, every dropped index waits (about +100 MB); run during collection, they do not.
    const soak = (env: Record<string, string>) => {
      const r = spawnSync(NODE, ['--require', REPORTS, join(ROOT, 'bench', 'soak.mjs'), '--no-yield', '--cycles', '300', '--child', 'native'], {
        cwd: ROOT,
        encoding: 'utf8',
        env: { ...process.env, ...env },
      })
      expect(r.status).toBe(0)
      const row = JSON.parse(r.stdout.trim().split('\n').pop() ?? '') as { rssStartMB: number; rssMaxMB: number }
      return row.rssMaxMB - row.rssStartMB
    }
    const older = soak({ TI_REPORT_NODE: '20.10.0' })
    const current = soak({})
    console.log(`node: 300 dropped indexes without yielding: +${older.toFixed(1)} MB as Node 20.10.0, +${current.toFixed(1)} MB as ${process.versions.bun ? 'the Node on PATH' : process.version}`)
    expect(older).toBeGreaterThan(40)
    expect(current).toBeLessThan(20)
  }, 60_000)
})
