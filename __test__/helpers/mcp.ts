/**
 * Real MCP servers over stdio for the end-to-end suite.
 *
 * Spawns `@modelcontextprotocol/server-everything`, `-filesystem` (on a fresh, populated temp dir)
 * and `-memory` (MEMORY_FILE_PATH in a temp dir) with `node`, connects `@modelcontextprotocol/sdk`'s
 * `Client` through `StdioClientTransport`, and turns each server's `tools/list` into ccb-style
 * deferred tools named `mcp__<server>__<tool>`. Nothing touches the network.
 */
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { createRequire } from 'node:module'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js'

const requireHere = createRequire(__filename)

export type ServerKind = 'everything' | 'filesystem' | 'memory'

/** The ccb-shaped deferred tool built from one MCP tool (structurally a ToolLike). */
export interface McpToolLike {
  name: string
  isMcp: true
  /** The server-side tool name (without the `mcp__<server>__` prefix). */
  mcpToolName: string
  serverName: string
  inputJSONSchema: Record<string, unknown>
  description: string
  prompt: (ctx?: unknown) => Promise<string>
  isEnabled: () => boolean
  isReadOnly: () => boolean
  checkPermissions: (input: any, ctx?: unknown) => Promise<{ behavior: 'allow'; updatedInput: any } | { behavior: 'deny'; message: string }>
  call: (input: any, ctx?: unknown, canUseTool?: unknown, parentMessage?: unknown, onProgress?: unknown) => Promise<McpCallResult>
}

/** What `call` resolves to: the MCP result's content blocks, plus the raw result. */
export interface McpCallResult {
  content: McpContent[]
  isError: boolean
  structuredContent?: unknown
}

export type McpContent = { type: string; text?: string; [k: string]: unknown }

export interface McpServerHandle {
  /** Short server name used in the tool prefix (`mcp__<name>__...`). */
  name: string
  kind: ServerKind
  client: Client
  transport: StdioClientTransport
  pid: number | null
  /** Raw `tools/list` result. */
  listedTools: { name: string; description?: string; inputSchema: Record<string, unknown> }[]
  /** The ccb-style deferred tools. */
  tools: McpToolLike[]
  /** Temp directories this server owns (removed on stop). */
  tempDirs: string[]
  /** For filesystem: the allowed root; for memory: the memory file. */
  root?: string
  memoryFile?: string
  /** The server's stderr, collected (for failure messages). */
  stderr: () => string
  /** Number of real `tools/call` requests sent to the server through `call`. */
  callCount: () => number
  stopped: boolean
}

/** Absolute path of a server package's `bin` entry in node_modules. */
export function serverEntry(pkg: string): string {
  const pkgJsonPath = requireHere.resolve(`${pkg}/package.json`)
  const pkgJson = JSON.parse(fs.readFileSync(pkgJsonPath, 'utf8')) as { bin?: string | Record<string, string>; main?: string }
  const bin = typeof pkgJson.bin === 'string' ? pkgJson.bin : pkgJson.bin ? Object.values(pkgJson.bin)[0] : pkgJson.main
  if (!bin) throw new Error(`${pkg}: no bin entry in package.json`)
  const entry = path.resolve(path.dirname(pkgJsonPath), bin)
  if (!fs.existsSync(entry)) throw new Error(`${pkg}: bin entry ${entry} does not exist`)
  return entry
}

const PACKAGES: Record<ServerKind, string> = {
  everything: '@modelcontextprotocol/server-everything',
  filesystem: '@modelcontextprotocol/server-filesystem',
  memory: '@modelcontextprotocol/server-memory',
}

export interface StartOptions {
  /** Tool-name prefix server name; defaults to the kind. */
  name?: string
  /** Filesystem: files to write into the fresh root (relative path → content). */
  files?: Record<string, string>
  /** Per-request timeout in ms for `callTool` (default 30 s). */
  requestTimeoutMs?: number
}

/** The files a filesystem server's root gets unless `files` is given. */
export const DEFAULT_FILES: Record<string, string> = {
  'hello.txt': 'Hello from the e2e suite!\nSecond line.\n',
  'notes/todo.md': '# TODO\n- wire ToolSearch\n- wire ExecuteTool\n',
}

function mkTemp(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix))
}

/** Start one real MCP server over stdio and connect a client to it. */
export async function startServer(kind: ServerKind, opts: StartOptions = {}): Promise<McpServerHandle> {
  const name = opts.name ?? kind
  const entry = serverEntry(PACKAGES[kind])
  const tempDirs: string[] = []
  const env: Record<string, string> = { ...getDefaultEnvironment() }
  const args = [entry]
  let root: string | undefined
  let memoryFile: string | undefined

  if (kind === 'everything') {
    args.push('stdio')
  } else if (kind === 'filesystem') {
    // realpath: on macOS /tmp is a symlink and the server compares resolved paths.
    root = fs.realpathSync(mkTemp('ccb-e2e-fs-'))
    tempDirs.push(root)
    for (const [rel, content] of Object.entries(opts.files ?? DEFAULT_FILES)) {
      const p = path.join(root, rel)
      fs.mkdirSync(path.dirname(p), { recursive: true })
      fs.writeFileSync(p, content)
    }
    args.push(root)
  } else {
    const dir = mkTemp('ccb-e2e-memory-')
    tempDirs.push(dir)
    memoryFile = path.join(dir, 'memory.jsonl')
    env.MEMORY_FILE_PATH = memoryFile
  }

  const transport = new StdioClientTransport({ command: 'node', args, env, stderr: 'pipe', cwd: tempDirs[0] ?? os.tmpdir() })
  let errText = ''
  transport.stderr?.on('data', (chunk: Buffer) => {
    if (errText.length < 64 * 1024) errText += chunk.toString()
  })
  const client = new Client({ name: 'ccb-tool-index-e2e', version: '0.0.0' }, { capabilities: {} })
  try {
    await client.connect(transport)
  } catch (err) {
    await transport.close().catch(() => {})
    for (const d of tempDirs) fs.rmSync(d, { recursive: true, force: true })
    throw new Error(`starting MCP server ${kind} failed: ${(err as Error).message}\nstderr:\n${errText}`)
  }

  let calls = 0
  const listed = await client.listTools()
  const listedTools = listed.tools.map((t) => ({
    name: t.name,
    description: t.description,
    inputSchema: t.inputSchema as Record<string, unknown>,
  }))
  const requestTimeoutMs = opts.requestTimeoutMs ?? 30_000

  const handle: McpServerHandle = {
    name,
    kind,
    client,
    transport,
    pid: transport.pid,
    listedTools,
    tools: [],
    tempDirs,
    root,
    memoryFile,
    stderr: () => errText,
    callCount: () => calls,
    stopped: false,
  }

  handle.tools = listedTools.map((t) => {
    const description = t.description ?? ''
    const tool: McpToolLike = {
      name: `mcp__${name}__${t.name}`,
      isMcp: true,
      mcpToolName: t.name,
      serverName: name,
      inputJSONSchema: t.inputSchema,
      description,
      prompt: async () => description,
      isEnabled: () => !handle.stopped,
      isReadOnly: () => false,
      checkPermissions: async (input: any) => ({ behavior: 'allow', updatedInput: input }),
      call: async (params: any) => {
        calls++
        const res = await client.callTool({ name: t.name, arguments: params ?? {} }, undefined, { timeout: requestTimeoutMs })
        return {
          content: (res.content ?? []) as McpContent[],
          isError: res.isError === true,
          structuredContent: res.structuredContent,
        }
      },
    }
    return tool
  })
  return handle
}

function alive(pid: number | null): boolean {
  if (!pid) return false
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** Close the client, make sure the process is gone, remove temp dirs. Idempotent. */
export async function stopServer(h: McpServerHandle): Promise<void> {
  if (h.stopped) return
  h.stopped = true
  try {
    await h.client.close()
  } catch {
    /* already closed */
  }
  try {
    await h.transport.close()
  } catch {
    /* already closed */
  }
  // The transport sends SIGTERM/SIGKILL after grace periods; make sure, by pid, that it is gone.
  for (let i = 0; i < 50 && alive(h.pid); i++) await new Promise((r) => setTimeout(r, 50))
  if (alive(h.pid)) {
    try {
      process.kill(h.pid as number, 'SIGKILL')
    } catch {
      /* gone */
    }
  }
  for (const d of h.tempDirs) fs.rmSync(d, { recursive: true, force: true })
}

export interface McpFleet {
  servers: Record<ServerKind, McpServerHandle>
  /** All MCP tools of the servers still running. */
  tools: () => McpToolLike[]
  stop: (kind: ServerKind) => Promise<void>
  stopAll: () => Promise<void>
}

/** Start the three servers concurrently. If one fails, the others are stopped before rethrowing. */
export async function startAll(opts: Partial<Record<ServerKind, StartOptions>> = {}): Promise<McpFleet> {
  const kinds: ServerKind[] = ['everything', 'filesystem', 'memory']
  const settled = await Promise.allSettled(kinds.map((k) => startServer(k, opts[k])))
  const failed = settled.find((s) => s.status === 'rejected') as PromiseRejectedResult | undefined
  if (failed) {
    await Promise.all(settled.map((s) => (s.status === 'fulfilled' ? stopServer(s.value) : undefined)))
    throw failed.reason
  }
  const servers = Object.fromEntries(
    kinds.map((k, i) => [k, (settled[i] as PromiseFulfilledResult<McpServerHandle>).value]),
  ) as Record<ServerKind, McpServerHandle>
  return {
    servers,
    tools: () => kinds.flatMap((k) => (servers[k].stopped ? [] : servers[k].tools)),
    stop: (k) => stopServer(servers[k]),
    stopAll: async () => {
      await Promise.all(kinds.map((k) => stopServer(servers[k])))
    },
  }
}

/** Whether a server process is still running (for the cleanup assertions). */
export function isRunning(h: McpServerHandle): boolean {
  return alive(h.pid)
}

/** Text of an MCP call result's text blocks, joined by newlines. */
export function textOf(result: unknown): string {
  const content = (result as { content?: McpContent[] } | null)?.content ?? (Array.isArray(result) ? (result as McpContent[]) : [])
  return content
    .filter((c) => c && c.type === 'text' && typeof c.text === 'string')
    .map((c) => c.text as string)
    .join('\n')
}
