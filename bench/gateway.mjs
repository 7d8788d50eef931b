#!/usr/bin/env node
// The gateway's cost and benefit for one real config (server-everything, -filesystem, -memory):
//   1. the size of tools/list through the gateway against the sum of the upstreams' (bytes, and
//      tokens with gpt-tokenizer's o200k_base encoding, plus bytes/4);
//   2. execute_tool's latency against a direct call of the same tool, interleaved in one run, as
//      a ratio of medians.
// Usage: npm run build && node bench/gateway.mjs [--calls N]
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { encode } from 'gpt-tokenizer'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { CLI, threeServerConfig } from './gateway-lib.mjs'

const argN = process.argv.indexOf('--calls')
const CALLS = argN > 0 ? Number(process.argv[argN + 1]) : 300

const { file, dir, files, servers } = threeServerConfig()
const sizeOf = (obj) => {
  const json = JSON.stringify(obj)
  return { bytes: Buffer.byteLength(json), tokens: encode(json).length, est: Math.round(Buffer.byteLength(json) / 4) }
}

async function connect(command, args, env) {
  const c = new Client({ name: 'gateway-bench', version: '1' })
  await c.connect(new StdioClientTransport({ command, args, env: env ? { ...process.env, ...env } : undefined, stderr: 'ignore' }))
  return c
}

const direct = {}
const rows = []
let sum = { bytes: 0, tokens: 0, est: 0, tools: 0 }
for (const [name, s] of Object.entries(servers)) {
  direct[name] = await connect(s.command, s.args, s.env)
  const listed = await direct[name].listTools()
  const sz = sizeOf(listed)
  rows.push([`${name} (direct)`, listed.tools.length, sz])
  sum = { bytes: sum.bytes + sz.bytes, tokens: sum.tokens + sz.tokens, est: sum.est + sz.est, tools: sum.tools + listed.tools.length }
}
const gw = await connect('node', [CLI, 'serve', '--config', file])
const gwList = await gw.listTools()
const gwSize = sizeOf(gwList)
const search = await gw.callTool({ name: 'search_tools', arguments: { query: 'read a text file' } })
const searchSize = sizeOf(search)

const pct = (a, b) => `${((100 * a) / b).toFixed(1)} %`
console.log('\n## tools/list size (one config: everything + filesystem + memory)\n')
console.log('| tools/list of | tools | bytes | tokens (o200k) | tokens (bytes/4) |')
console.log('|---|---:|---:|---:|---:|')
for (const [n, k, s] of rows) console.log(`| ${n} | ${k} | ${s.bytes} | ${s.tokens} | ${s.est} |`)
console.log(`| **sum of the upstreams** | ${sum.tools} | ${sum.bytes} | ${sum.tokens} | ${sum.est} |`)
console.log(`| **the gateway** | ${gwList.tools.length} | ${gwSize.bytes} (${pct(gwSize.bytes, sum.bytes)}) | ${gwSize.tokens} (${pct(gwSize.tokens, sum.tokens)}) | ${gwSize.est} |`)
console.log(`| one search_tools result ("read a text file", 5 hits) | - | ${searchSize.bytes} | ${searchSize.tokens} | ${searchSize.est} |`)

// execute_tool overhead: the same calls, direct and through the gateway, interleaved.
await gw.callTool({ name: 'search_tools', arguments: { query: 'select:mcp__memory__read_graph,mcp__filesystem__read_text_file,mcp__everything__echo' } })
const cases = [
  ['memory read_graph', () => direct.memory.callTool({ name: 'read_graph', arguments: {} }), () => gw.callTool({ name: 'execute_tool', arguments: { tool_name: 'mcp__memory__read_graph', arguments: {} } })],
  [
    'filesystem read_text_file',
    () => direct.filesystem.callTool({ name: 'read_text_file', arguments: { path: path.join(files, 'hello.txt') } }),
    () => gw.callTool({ name: 'execute_tool', arguments: { tool_name: 'mcp__filesystem__read_text_file', arguments: { path: path.join(files, 'hello.txt') } } }),
  ],
  ['everything echo', () => direct.everything.callTool({ name: 'echo', arguments: { message: 'hi' } }), () => gw.callTool({ name: 'execute_tool', arguments: { tool_name: 'mcp__everything__echo', arguments: { message: 'hi' } } })],
]
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)]
}
const p95 = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.95)]
console.log(`\n## execute_tool overhead (${CALLS} calls each, interleaved, after 30 warm-up calls)\n`)
console.log('| tool | direct p50 (ms) | via gateway p50 (ms) | ratio p50 | direct p95 | gateway p95 | added p50 (ms) |')
console.log('|---|---:|---:|---:|---:|---:|---:|')
for (const [label, d, g] of cases) {
  for (let i = 0; i < 30; i++) {
    await d()
    await g()
  }
  const td = []
  const tg = []
  for (let i = 0; i < CALLS; i++) {
    let t = performance.now()
    await d()
    td.push(performance.now() - t)
    t = performance.now()
    const r = await g()
    tg.push(performance.now() - t)
    if (r.isError) throw new Error(`${label}: ${JSON.stringify(r)}`)
  }
  const md = median(td)
  const mg = median(tg)
  console.log(`| ${label} | ${md.toFixed(3)} | ${mg.toFixed(3)} | ${(mg / md).toFixed(2)}x | ${p95(td).toFixed(3)} | ${p95(tg).toFixed(3)} | ${(mg - md).toFixed(3)} |`)
}
const ts = []
for (let i = 0; i < CALLS; i++) {
  const t = performance.now()
  await gw.callTool({ name: 'search_tools', arguments: { query: i % 2 ? 'create entities in the knowledge graph' : 'list files in a directory' } })
  ts.push(performance.now() - t)
}
console.log(`\nsearch_tools round trip through the gateway: p50 ${median(ts).toFixed(3)} ms, p95 ${p95(ts).toFixed(3)} ms`)
console.log(`(node ${process.version}, ${process.platform} ${process.arch}, ${new Date().toISOString()})`)

await gw.close()
for (const c of Object.values(direct)) await c.close()
fs.rmSync(dir, { recursive: true, force: true })
