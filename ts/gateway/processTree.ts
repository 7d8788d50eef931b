/**
 * Killing a started MCP server together with what it started. A server launched through `npx`,
 * `uvx` or a shell script runs as a grandchild: SIGKILL to the direct child leaves the real
 * server running (and spinning, if it hung). The SDK starts servers in our own process group, so
 * the group cannot be signalled either; the descendants are found from the process table and
 * killed one by one. A process whose parent already exited (`sh -c "server & exit"`) is no longer
 * below the server; where `/proc` shows environments (Linux), it is found by the run marker every
 * started server gets in its environment and hands down, as long as it stayed in the gateway's
 * session and process group (a program that detached on purpose is left alone). Synchronous, so
 * it also runs in an `exit` handler.
 */
import { spawnSync } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import * as fs from 'node:fs'

/** The environment variable that marks the processes of one started server (inherited by their children). */
export const RUN_MARKER_VAR = 'TOOL_INDEX_RUN'

/** A new run marker: the value of `RUN_MARKER_VAR` for one started server. */
export function newRunMarker(): string {
  return `${process.pid}-${randomUUID()}`
}

/** Processes listed, at most (a fork bomb's table is not walked to the end). */
const MAX_PROCESSES = 10_000

/** A process as listed: its pid and, where `/proc` tells it, its start time (to spot a reused pid). */
export interface ProcessRef {
  pid: number
  start?: string
}

/** What the process table tells of a process: its parent, and where `/proc` tells them, its start time, process group and session. */
interface ProcInfo {
  ppid: number
  start?: string
  pgrp?: number
  session?: number
}

/** One `/proc/<pid>/stat` line, or undefined when it cannot be read. */
function statOf(pid: number | 'self'): ProcInfo | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
    // pid (comm) state ppid pgrp session … starttime (field 22): comm may hold spaces and
    // parentheses, so the fields are read after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    const ppid = Number(fields[1])
    return Number.isInteger(ppid) ? { ppid, start: fields[19], pgrp: Number(fields[2]), session: Number(fields[3]) } : undefined
  } catch {
    return undefined
  }
}

/** A process's start time as `/proc` tells it (Linux), or undefined (gone, or no `/proc`). */
export function startTimeOf(pid: number): string | undefined {
  return statOf(pid)?.start
}

/** Parent and start time by pid, from `/proc` (Linux) or `ps` (macOS, BSD); empty when neither answers. */
function table(): Map<number, ProcInfo> {
  const out = new Map<number, ProcInfo>()
  try {
    for (const entry of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue
      const st = statOf(Number(entry))
      if (st) out.set(Number(entry), st)
    }
    if (out.size > 0) return out
  } catch {
    // no /proc: ask ps
  }
  const r = spawnSync('ps', ['-A', '-o', 'pid=,ppid='], { encoding: 'utf8', timeout: 5_000 })
  if (r.status !== 0 || typeof r.stdout !== 'string') return out
  for (const line of r.stdout.split('\n')) {
    const [pid, ppid] = line.trim().split(/\s+/).map(Number)
    if (Number.isInteger(pid) && Number.isInteger(ppid)) out.set(pid, { ppid })
  }
  return out
}

/**
 * `pid` and every process below it, parents first; with a `marker`, also every process whose
 * environment carries it (Linux), wherever its parent went. Without a `pid` (the server itself
 * has exited), only those.
 */
export function processTree(pid: number | undefined, marker?: string): ProcessRef[] {
  const procs = table()
  const children = new Map<number, number[]>()
  for (const [child, { ppid }] of procs) {
    const list = children.get(ppid)
    if (list) list.push(child)
    else children.set(ppid, [child])
  }
  const seen = new Set<number>()
  const tree: ProcessRef[] = []
  if (pid !== undefined) {
    seen.add(pid)
    tree.push({ pid, start: procs.get(pid)?.start })
  }
  // A program that detached on purpose (setsid: a tmux server, an agent, a daemon) is left
  // running, with what it started, even while its parent runs; where the session is not known
  // (no `/proc`), every descendant is taken.
  const self = statOf('self')
  const detached = (p: number) => self?.session !== undefined && procs.get(p)?.session !== undefined && procs.get(p)?.session !== self.session
  for (let i = 0; i < tree.length && tree.length < MAX_PROCESSES; i++) {
    for (const c of children.get(tree[i].pid) ?? []) {
      if (seen.has(c)) continue
      seen.add(c)
      if (detached(c)) continue
      tree.push({ pid: c, start: procs.get(c)?.start })
    }
  }
  if (marker) {
    // Only a process still in this gateway's session and process group, as a server's children
    // are unless they detach (see above). The environment, whose read can wait on a busy
    // process, is read only for those few.
    const needle = Buffer.from(`${RUN_MARKER_VAR}=${marker}\0`)
    for (const [p, info] of procs) {
      if (seen.has(p) || p === process.pid || tree.length >= MAX_PROCESSES) continue
      if (self?.session === undefined || info.session !== self.session || info.pgrp !== self.pgrp) continue
      if (environHas(p, needle)) tree.push({ pid: p, start: info.start })
    }
  }
  return tree
}

/** Whether `/proc/<pid>/environ` holds `needle` (false where it cannot be read: another user's process, no `/proc`). */
function environHas(pid: number, needle: Buffer): boolean {
  try {
    return fs.readFileSync(`/proc/${pid}/environ`).includes(needle)
  } catch {
    return false
  }
}

/**
 * SIGKILL each listed process that still runs (Windows: `taskkill /T /F`). A pid whose start time
 * changed since it was listed belongs to another process now and is left alone. Never throws.
 */
export function killPids(procs: readonly ProcessRef[]): void {
  for (const { pid, start } of procs) {
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) continue
    if (process.platform === 'win32') {
      spawnSync('taskkill', ['/pid', String(pid), '/T', '/F'], { stdio: 'ignore', timeout: 5_000 })
      continue
    }
    if (start !== undefined && statOf(pid)?.start !== start) continue
    try {
      process.kill(pid, 'SIGKILL')
    } catch {
      // already gone
    }
  }
}

/**
 * SIGKILL `pid` and its descendants (and, with a `marker`, the processes that carry it). The whole tree is listed before any kill: a killed
 * parent's children would be re-parented and no longer found.
 */
export function killTree(pid: number | undefined, marker?: string): void {
  const valid = pid !== undefined && Number.isInteger(pid) && pid > 0 && pid !== process.pid
  if (!valid && !marker) return
  killPids(processTree(valid ? pid : undefined, marker))
}
