/**
 * Killing a started MCP server together with what it started. A server launched through `npx`,
 * `uvx` or a shell script runs as a grandchild: SIGKILL to the direct child leaves the real
 * server running (and spinning, if it hung). The SDK starts servers in our own process group, so
 * the group cannot be signalled either; the descendants are found from the process table and
 * killed one by one. Synchronous, so it also runs in an `exit` handler.
 */
import { spawnSync } from 'node:child_process'
import * as fs from 'node:fs'

/** Parent pid by pid, from `/proc` (Linux) or `ps` (macOS, BSD); empty when neither answers. */
function parents(): Map<number, number> {
  const out = new Map<number, number>()
  try {
    for (const entry of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue
      try {
        const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8')
        // pid (comm) state ppid …: comm may hold spaces and parentheses, so read after the last ')'.
        const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
        if (Number.isInteger(ppid)) out.set(Number(entry), ppid)
      } catch {
        // the process ended while the table was read
      }
    }
    if (out.size > 0) return out
  } catch {
    // no /proc: ask ps
  }
  const r = spawnSync('ps', ['-A', '-o', 'pid=,ppid='], { encoding: 'utf8', timeout: 5_000 })
  if (r.status !== 0 || typeof r.stdout !== 'string') return out
  for (const line of r.stdout.split('\n')) {
    const [pid, ppid] = line.trim().split(/\s+/).map(Number)
    if (Number.isInteger(pid) && Number.isInteger(ppid)) out.set(pid, ppid)
  }
  return out
}

/** `pid` and every process below it, parents first. */
export function processTree(pid: number): number[] {
  const children = new Map<number, number[]>()
  for (const [child, parent] of parents()) {
    const list = children.get(parent)
    if (list) list.push(child)
    else children.set(parent, [child])
  }
  const tree = [pid]
  for (let i = 0; i < tree.length && tree.length < 10_000; i++) {
    for (const c of children.get(tree[i]) ?? []) if (!tree.includes(c)) tree.push(c)
  }
  return tree
}

/** SIGKILL each of `pids` (listed earlier with [`processTree`]; Windows: `taskkill /T /F`). Never throws. */
export function killPids(pids: readonly number[]): void {
  for (const p of pids) {
    if (!Number.isInteger(p) || p <= 0 || p === process.pid) continue
    if (process.platform === 'win32') {
      spawnSync('taskkill', ['/pid', String(p), '/T', '/F'], { stdio: 'ignore', timeout: 5_000 })
      continue
    }
    try {
      process.kill(p, 'SIGKILL')
    } catch {
      // already gone
    }
  }
}

/**
 * SIGKILL `pid` and its descendants. The whole tree is listed before any kill: a killed
 * parent's children would be re-parented and no longer found.
 */
export function killTree(pid: number): void {
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) return
  killPids(processTree(pid))
}
