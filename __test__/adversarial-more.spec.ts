/**
 * The second adversarial pass: the classes of adversarial.spec.ts through other paths (name
 * variants and look-alikes, a tool list or name that changes while a check is pending, host
 * records that lie, aborts and deadlines, zod and JSON Schema features draft-07 would ignore,
 * params that are not JSON data, huge and lying inputs to search, the gateway's execute_tool,
 * the CLI). Same runner: each probe in its own Bun and Node process with a deadline; the probes
 * live in fixtures/adversarial/probe-more.mjs.
 */
import { expect, test } from 'bun:test'
import * as path from 'node:path'
import { probeSuite } from './helpers/probes'

const probes = probeSuite(path.join(__dirname, 'fixtures', 'adversarial', 'probe-more.mjs'), 'more adversarial probes')

test('the probe list covers every class', () => {
  for (const prefix of ['name_', 'list_', 'discovered_', 'perm_', 'zod_', 'json_', 'params_', 'big_', 'code_', 'gateway_', 'cli_']) {
    expect(probes.filter((p) => p.startsWith(prefix)).length).toBeGreaterThanOrEqual(4)
  }
})
