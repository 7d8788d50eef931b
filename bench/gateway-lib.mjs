// Shared by bench/gateway.mjs and bench/gateway-conformance.mjs: a config over the three npm
// servers (everything, filesystem on a temp dir, memory on a temp file).
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { fileURLToPath } from 'node:url'

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
export const CLI = path.join(ROOT, 'dist', 'cli.js')

export function binOf(pkg) {
  const pj = path.join(ROOT, 'node_modules', pkg, 'package.json')
  const json = JSON.parse(fs.readFileSync(pj, 'utf8'))
  const bin = typeof json.bin === 'string' ? json.bin : Object.values(json.bin)[0]
  return path.resolve(path.dirname(pj), bin)
}

/** Write the three-server config to a temp dir; returns { file, dir, servers }. */
export function threeServerConfig(extra = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tool-index-gateway-bench-'))
  const files = path.join(dir, 'files')
  fs.mkdirSync(files)
  fs.writeFileSync(path.join(files, 'hello.txt'), 'hello from the gateway bench\n')
  const servers = {
    everything: { command: 'node', args: [binOf('@modelcontextprotocol/server-everything'), 'stdio'] },
    filesystem: { command: 'node', args: [binOf('@modelcontextprotocol/server-filesystem'), files] },
    memory: { command: 'node', args: [binOf('@modelcontextprotocol/server-memory')], env: { MEMORY_FILE_PATH: path.join(dir, 'memory.jsonl') } },
  }
  const file = path.join(dir, 'config.json')
  fs.writeFileSync(file, JSON.stringify({ mcpServers: { ...servers, ...extra } }, null, 2))
  return { file, dir, files, servers }
}
