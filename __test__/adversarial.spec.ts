/**
 * Adversarial probes against ExecuteTool and the index, each in its own child process under
 * both Bun and Node, with a deadline: an abort (signal, non-zero exit) or a hang (the deadline)
 * is a test failure, never a dead runner. The probes live in fixtures/adversarial/probe.mjs;
 * each prints `HELD ...` when the package held and `BROKEN ...` when it did not.
 */
import { expect, test } from 'bun:test'
import * as path from 'node:path'
import { probeSuite } from './helpers/probes'

const probes = probeSuite(path.join(__dirname, 'fixtures', 'adversarial', 'probe.mjs'), 'adversarial probes')

test('the probe list covers every class', () => {
  for (const prefix of ['zod_', 'schema_', 'enabled_', 'perm_', 'updated_input_', 'pollute_', 'getter_', 'proxy_', 'regex_', 'sparse_', 'cyclic_', 'bigint_', 'deep_', 'id_collision', 'draft04_', 'long_unknown_name', 'zod_heap_flat']) {
    expect(probes.some((p) => p.startsWith(prefix))).toBe(true)
  }
})
