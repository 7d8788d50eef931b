#!/usr/bin/env node
// The Bun suites again, under Node's own test runner (`npm run test:node`): TypeScript through
// tsx, `bun:test` through __test__/node/bun-test.ts. Left out are the suites that already start
// each case under both runtimes in child processes (running them from Node would only repeat
// them); the Node smoke test runs too. Exit status: non-zero when any test fails.
import { spawnSync } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = join(fileURLToPath(import.meta.url), '..', '..')
const TESTS = join(ROOT, '__test__')

/** Suites whose every case already runs under Bun and under Node in child processes. */
const BOTH_RUNTIMES_ALREADY = new Set([
  'adversarial.spec.ts',
  'adversarial-more.spec.ts',
  'adversarial-cli.spec.ts',
  'native-memory.spec.ts',
  'install.spec.ts',
])

const specs = (dir) =>
  readdirSync(dir)
    .filter((f) => f.endsWith('.spec.ts') && !BOTH_RUNTIMES_ALREADY.has(f))
    .sort()
    .map((f) => relative(ROOT, join(dir, f)))

const runs = [
  { label: 'package suites', files: [...specs(TESTS), '__test__/node/smoke.node.mjs'], env: {} },
  // The ccb tool files resolve `src/*` and the package name through their own tsconfig paths.
  { label: 'ccb suites', files: specs(join(TESTS, 'ccb')), env: { TSX_TSCONFIG_PATH: '__test__/ccb/tsconfig.json' } },
]

let failed = false
for (const { label, files, env } of runs) {
  console.log(`\n# ${label} under Node ${process.version}: ${files.length} files`)
  const r = spawnSync(
    process.execPath,
    ['--import', 'tsx', '--require', './__test__/node/register.cjs', '--expose-gc', '--test', ...files],
    { cwd: ROOT, stdio: 'inherit', env: { ...process.env, ...env } },
  )
  if (r.status !== 0) failed = true
}
process.exit(failed ? 1 : 0)
