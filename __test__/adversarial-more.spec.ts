/**
 * The second adversarial pass: the classes of adversarial.spec.ts through other paths (name
 * variants and look-alikes, a tool list or name that changes while a check is pending, host
 * records that lie, aborts and deadlines, zod and JSON Schema features draft-07 would ignore,
 * params that are not JSON data, huge and lying inputs to search, the gateway's execute_tool,
 * the CLI). Same runner: each probe in its own Bun and Node process with a deadline; the probes
 * live in fixtures/adversarial/probe-more.mjs.
 */
import { describe, expect, test } from 'bun:test'
import { spawnSync } from 'node:child_process'
import * as path from 'node:path'

const PROBE = path.join(import.meta.dir, 'fixtures', 'adversarial', 'probe-more.mjs')
const BUN = process.execPath
const NODE = 'node'
const DEADLINE_MS = 20_000

/** Probes whose guard is not on this branch yet, with the missing guard named (none today). */
const PENDING: Record<string, string> = {}

function list(): string[] {
  const r = spawnSync(NODE, [PROBE, '--list'], { encoding: 'utf8', timeout: DEADLINE_MS })
  if (r.status !== 0) throw new Error(`cannot list probes: ${r.stderr}`)
  return r.stdout.split('\n').filter(Boolean)
}

function runProbe(runtime: 'bun' | 'node', name: string): { verdict: string; ms: number } {
  const exe = runtime === 'bun' ? BUN : NODE
  const args = runtime === 'node' ? ['--expose-gc', PROBE, name] : [PROBE, name]
  const t0 = performance.now()
  const r = spawnSync(exe, args, { encoding: 'utf8', timeout: DEADLINE_MS, maxBuffer: 1 << 20 })
  const ms = performance.now() - t0
  if (r.error && (r.error as NodeJS.ErrnoException).code === 'ETIMEDOUT') return { verdict: `HANG after ${DEADLINE_MS} ms`, ms }
  if (r.signal) return { verdict: `ABORT by ${r.signal}: ${r.stderr.slice(-300)}`, ms }
  if (r.status !== 0) return { verdict: `EXIT ${r.status}: ${r.stderr.slice(-300)}`, ms }
  return { verdict: r.stdout.trim(), ms }
}

const probes = list()
const hasNode = spawnSync(NODE, ['--version'], { encoding: 'utf8' }).status === 0

describe.each(['bun', 'node'] as const)('more adversarial probes under %s', (runtime) => {
  for (const name of probes) {
    const pending = PENDING[name]
    if (pending || (runtime === 'node' && !hasNode)) {
      test.skip(`${name} [${pending ?? 'node not on PATH'}]`, () => {})
      continue
    }
    test(
      name,
      () => {
        const { verdict, ms } = runProbe(runtime, name)
        if (/HELD_(MS|KB)/.test(verdict)) console.log(`  ${runtime} ${name}: ${verdict.replace('HELD ', '')} (process ${ms.toFixed(0)} ms)`)
        expect(verdict).toStartWith('HELD')
      },
      DEADLINE_MS + 5_000,
    )
  }
})

test('the probe list covers every class', () => {
  for (const prefix of ['name_', 'list_', 'discovered_', 'perm_', 'zod_', 'json_', 'params_', 'big_', 'code_', 'gateway_', 'cli_']) {
    expect(probes.filter((p) => p.startsWith(prefix)).length).toBeGreaterThanOrEqual(4)
  }
})
