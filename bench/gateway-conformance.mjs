#!/usr/bin/env node
// Run the official MCP conformance runner (@modelcontextprotocol/conformance, server mode) against
// the HTTP gateway over the three npm servers, plus a fixture server with the tools the
// tools-call-* scenarios call (exposed directly: alwaysLoad, unprefixed), and print the summary.
// The runner needs Node >= 22 (fs.globSync); on older Node it is run with the repo's Bun.
// Usage: npm run build && npm run conformance [-- --out DIR]
import { spawn, spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { CLI, ROOT, threeServerConfig } from './gateway-lib.mjs'

const outIdx = process.argv.indexOf('--out')
const fixture = path.join(ROOT, '__test__', 'fixtures', 'gateway', 'conformance-tools-server.mjs')
const { file, dir } = threeServerConfig({ conformance: { command: 'node', args: [fixture], alwaysLoad: true, prefix: false } })
const out = outIdx > 0 ? path.resolve(process.argv[outIdx + 1]) : path.join(dir, 'results')

const gw = spawn(process.execPath, [CLI, 'serve', '--config', file, '--http', '0', '--json-logs'], { stdio: ['ignore', 'ignore', 'pipe'] })
let log = ''
const url = await new Promise((resolve, reject) => {
  const timer = setTimeout(() => reject(new Error(`the gateway did not start:\n${log}`)), 60_000)
  gw.stderr.on('data', (d) => {
    log += d
    for (const line of log.split('\n')) {
      if (!line.startsWith('{')) continue
      const o = JSON.parse(line)
      if (o.event === 'started') {
        const listening = log.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l)).find((x) => x.event === 'listening')
        clearTimeout(timer)
        resolve(listening.url)
      }
    }
  })
  gw.once('exit', (c) => reject(new Error(`the gateway exited (${c}):\n${log}`)))
})

const runner = path.join(ROOT, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js')
const major = Number(process.versions.node.split('.')[0])
const cmd = major >= 22 ? [process.execPath, runner] : [path.join(ROOT, 'node_modules', '.bin', 'bun'), runner]
console.log(`conformance: ${path.basename(cmd[0])} ${path.relative(ROOT, runner)} server --url ${url}`)
const r = spawnSync(cmd[0], [cmd[1], 'server', '--url', url, '-o', out], { encoding: 'utf8', timeout: 300_000 })
const text = `${r.stdout}${r.stderr}`
const summary = text.slice(text.indexOf('=== SUMMARY ==='))
console.log(summary.trim())
if (outIdx > 0) console.log(`\nper-scenario checks: ${out}`)
gw.kill('SIGTERM')
await new Promise((res) => gw.once('exit', res))
if (outIdx < 0) fs.rmSync(dir, { recursive: true, force: true })
