/**
 * The adversarial probe runner: lists the probes of a probe file, and registers one test a
 * probe under Bun and under Node, each in its own child process with a deadline, so an abort
 * (signal, non-zero exit) or a hang is a test failure, never a dead runner.
 */
import { describe, expect, test } from 'bun:test'
import { spawnSync } from 'node:child_process'
import { BUN, NODE } from './runtimes'

const DEADLINE_MS = 20_000

/** Register the probes of `file` under both runtimes; returns their names. */
export function probeSuite(file: string, title: string, pending: Record<string, string> = {}): string[] {
  const list = (): string[] => {
    const r = spawnSync(NODE, [file, '--list'], { encoding: 'utf8', timeout: DEADLINE_MS })
    if (r.status !== 0) throw new Error(`cannot list probes: ${r.stderr}`)
    return r.stdout.split('\n').filter(Boolean)
  }
  const runProbe = (runtime: 'bun' | 'node', name: string): { verdict: string; ms: number } => {
    const exe = runtime === 'bun' ? BUN : NODE
    const args = runtime === 'node' ? ['--expose-gc', file, name] : [file, name]
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
  describe.each(['bun', 'node'] as const)(`${title} under %s`, (runtime) => {
    for (const name of probes) {
      const why = pending[name]
      if (why || (runtime === 'node' && !hasNode)) {
        test.skip(`${name} [${why ?? 'node not on PATH'}]`, () => {})
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
  return probes
}
