/**
 * Adversarial probes against ExecuteTool and the index, each in its own child process under
 * both Bun and Node, with a deadline: an abort (signal, non-zero exit) or a hang (the deadline)
 * is a test failure, never a dead runner. The probes live in fixtures/adversarial/probe.mjs;
 * each prints `HELD ...` when the package held and `BROKEN ...` when it did not.
 */
import { describe, expect, test } from 'bun:test'
import { spawnSync } from 'node:child_process'
import * as path from 'node:path'

const PROBE = path.join(import.meta.dir, 'fixtures', 'adversarial', 'probe.mjs')
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

describe.each(['bun', 'node'] as const)('adversarial probes under %s', (runtime) => {
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
  for (const prefix of ['zod_', 'schema_', 'enabled_', 'perm_', 'updated_input_', 'pollute_', 'getter_', 'proxy_', 'regex_', 'sparse_', 'cyclic_', 'bigint_', 'deep_', 'id_collision', 'draft04_', 'long_unknown_name', 'zod_heap_flat']) {
    expect(probes.some((p) => p.startsWith(prefix))).toBe(true)
  }
})
