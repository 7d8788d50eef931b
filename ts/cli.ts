#!/usr/bin/env node
/**
 * `tool-index`: search a tool catalog from the command line.
 *
 *   tool-index search "<query>" [--catalog FILE] [--limit N] [--tfidf] [--all] [--json]
 *
 * With no --catalog it searches the bundled default catalog (ccb's deferred built-ins and
 * the tools of eight MCP servers). A catalog is our JSON (`{tools: [...]}` or a bare array)
 * or an MCP `tools/list` response (`{tools: [{name, description, inputSchema}]}` or
 * `{result: {tools: [...]}}`).
 */
import * as path from 'node:path'
import { parseArgs as utilParseArgs } from 'node:util'
import { parse as shellParse } from 'shell-quote'
import { ToolIndexError, buildToolIndex, toolSearch, type Scoring, type ToolLike } from './index'
import { mergeWeights } from './config'
import { runServe } from './gateway/serve'
import { RUN_MARKER_VAR, killPids, newRunMarker, processTree } from './gateway/processTree'
import { loadSdk, type Sdk } from './gateway/sdk'
import { checkedTool, listToolPages } from './gateway/upstream'
import { MAX_FILE_BYTES, readFileText } from './files'

/** Parsed command-line arguments. */
export interface Args {
  command?: string
  query?: string
  catalog?: string
  mcp?: string
  limit: number
  tfidf: boolean
  all: boolean
  json: boolean
  explain: boolean
  scoring: Scoring
}

const USAGE = `usage: tool-index search "<query>" [--catalog FILE | --mcp "COMMAND"] [options]
       tool-index serve --config FILE [options]   run the MCP gateway (tool-index serve --help)

  --catalog FILE   search this catalog (our JSON, or an MCP tools/list response)
                   instead of the bundled default catalog
  --mcp "COMMAND"  start this MCP server over stdio (e.g. "npx -y @modelcontextprotocol/server-memory")
                   and search its tools (needs @modelcontextprotocol/sdk installed)
  --scoring MODE   enhanced (default) or compat (the reference's ranking)
  --limit N        how many results (default 5)
  --tfidf          compat only: rank by the TF-IDF index alone (searchTools) instead of
                   the full ToolSearch ranking (keyword + TF-IDF)
  --all            index core tools too (no deferral filter)
  --explain        show each result's per-term score contributions
  --json           print JSON
Queries may use ToolSearch syntax: "select:A,B", "discover:<text>", "+required words".`

class UsageError extends Error {}
/** `--help`: the usage text on stdout, exit code 0. */
class HelpRequest extends Error {}
/** A problem with the user's input files: a message and exit code 1, no usage text. */
class InputError extends Error {}

const OPTIONS = {
  catalog: { type: 'string' },
  mcp: { type: 'string' },
  scoring: { type: 'string' },
  limit: { type: 'string' },
  tfidf: { type: 'boolean' },
  all: { type: 'boolean' },
  json: { type: 'boolean' },
  explain: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const

/** Flags via `node:util` parseArgs; the first positional is the subcommand, the rest the query. */
function parseArgs(argv: string[]): Args {
  let parsed: ReturnType<typeof utilParseArgs<{ args: string[]; options: typeof OPTIONS; allowPositionals: true }>>
  try {
    parsed = utilParseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true })
  } catch (e) {
    throw new UsageError((e as Error).message.split('\n', 1)[0])
  }
  const v = parsed.values
  if (v.help) throw new HelpRequest()
  const a: Args = {
    limit: 5,
    tfidf: v.tfidf === true,
    all: v.all === true,
    json: v.json === true,
    explain: v.explain === true,
    scoring: 'enhanced',
    catalog: v.catalog,
    mcp: v.mcp,
  }
  if (v.scoring !== undefined) {
    if (v.scoring !== 'compat' && v.scoring !== 'enhanced') throw new UsageError('--scoring takes compat or enhanced')
    a.scoring = v.scoring
  }
  if (v.limit !== undefined) {
    const n = Number(v.limit)
    if (!/^\d+$/.test(v.limit) || !Number.isSafeInteger(n)) throw new UsageError('--limit takes a whole number >= 0')
    a.limit = n
  }
  a.command = parsed.positionals[0]
  a.query = parsed.positionals.slice(1).join(' ')
  return a
}

interface CatalogTool {
  name: string
  description?: string
  searchHint?: string
  inputSchema?: object
  core?: boolean
}

/** Read a catalog file: our format, a bare array, or an MCP tools/list response. */
export function loadCatalog(file: string): CatalogTool[] {
  const text = readRegularFile(file, 'catalog')
  let data: unknown
  try {
    data = JSON.parse(text)
  } catch (e) {
    throw new InputError(`catalog ${file} is not valid JSON: ${(e as Error).message}`)
  }
  const d = data as { tools?: unknown; result?: { tools?: unknown } }
  const list = Array.isArray(data) ? data : Array.isArray(d?.tools) ? d.tools : Array.isArray(d?.result?.tools) ? d.result!.tools : undefined
  if (!Array.isArray(list)) throw new InputError(`catalog ${file} has no tool list (expected {tools: [...]}, an array, or an MCP tools/list result)`)
  return list.map((t, i) => {
    if (!t || typeof t !== 'object' || typeof (t as CatalogTool).name !== 'string') {
      throw new InputError(`catalog ${file}: tool #${i} has no string "name"`)
    }
    for (const key of ['description', 'searchHint'] as const) {
      const v = (t as CatalogTool)[key]
      if (v !== undefined && v !== null && typeof v !== 'string') throw new InputError(`catalog ${file}: tool #${i} has a "${key}" that is not a string`)
    }
    return t as CatalogTool
  })
}

/** The largest catalog file read. */
export const MAX_CATALOG_BYTES = MAX_FILE_BYTES

/** Read a catalog or other input file (see `files.ts`); a problem is an `InputError`. */
export function readRegularFile(file: string, what: string): string {
  return readFileText(file, what, (message) => new InputError(message))
}

/** Split `--mcp "COMMAND"` as a POSIX shell would (quotes, escapes); operators and globs are refused. */
export function splitCommand(command: string): string[] {
  const parts = shellParse(command, (name) => `$${name}`)
  const words: string[] = []
  for (const p of parts) {
    if (typeof p !== 'string') throw new UsageError(`--mcp takes one command with arguments, not shell syntax (${JSON.stringify(p)})`)
    words.push(p)
  }
  return words
}

/** Start an MCP server over stdio, list its tools, stop it. */
async function listMcpTools(command: string): Promise<CatalogTool[]> {
  let sdk: Sdk
  try {
    sdk = loadSdk()
  } catch {
    throw new InputError('--mcp needs the MCP SDK: npm install @modelcontextprotocol/sdk')
  }
  const parts = splitCommand(command)
  if (parts.length === 0) throw new UsageError('--mcp needs a command')
  const marker = newRunMarker()
  const transport = new sdk.StdioClientTransport({
    command: parts[0],
    args: parts.slice(1),
    // The user's own environment, as a shell would give the command (API keys exported for it).
    env: { ...(process.env as Record<string, string>), [RUN_MARKER_VAR]: marker },
    stderr: 'ignore',
  })
  const client = new sdk.Client({ name: 'tool-index-cli', version: '0.1.0' }, { capabilities: {} })
  try {
    await withDeadline(client.connect(transport), 30_000, `MCP server "${command}" did not start within 30 s`)
    // Every page, each tool checked on its own: one the SDK cannot take is left out, not the run.
    const pages = await withDeadline(listToolPages(client, 30_000), 30_000, `MCP server "${command}" did not list its tools within 30 s`)
    const listed = { tools: pages.tools.map(checkedTool).flatMap((c) => ('tool' in c ? [c.tool] : [])) }
    const info = client.getServerVersion?.() as { name?: string } | undefined
    const server = (info?.name ?? path.basename(parts[0])).toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_+|_+$/g, '') || 'mcp'
    return (listed.tools as { name: string; description?: string; inputSchema?: object }[]).map((t) => ({
      name: `mcp__${server}__${t.name}`,
      description: t.description ?? '',
      inputSchema: t.inputSchema,
    }))
  } catch (e) {
    if (e instanceof InputError || e instanceof UsageError) throw e
    throw new InputError(`MCP server "${command}" failed: ${(e as Error)?.message ?? e}`)
  } finally {
    // Listed before the close: a server started through npx outlives its wrapper otherwise.
    const tree = processTree(typeof transport.pid === 'number' ? transport.pid : undefined, marker)
    await client.close().catch(() => {})
    killPids(tree)
  }
}

function withDeadline<T>(p: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  return Promise.race([
    p,
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new InputError(message)), ms)
    }),
  ]).finally(() => clearTimeout(timer))
}

export function defaultCatalogPath(): string {
  return path.join(__dirname, '..', 'catalog', 'default-catalog.json')
}

function toTools(catalog: CatalogTool[]): ToolLike[] {
  return catalog.map((t) => ({
    name: t.name,
    searchHint: t.searchHint,
    description: t.description ?? '',
    inputJSONSchema: t.inputSchema,
  }))
}

/** A subcommand: gets the arguments after its name (it parses its own flags), returns the exit code. */
export type CommandHandler = (argv: string[]) => Promise<number>

/** Subcommands by name; add one by adding an entry. */
export const COMMANDS: Record<string, CommandHandler> = {
  search: (argv) => runSearch(parseArgs(['search', ...argv])),
  serve: (argv) => runServe(argv),
}

/**
 * Text for the terminal: control characters (C0, DEL, C1) shown as `\\uXXXX`, so a tool's name or
 * description cannot move the cursor, recolour or retitle the terminal, or start a forged row.
 */
function visible(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
}

async function main(argv: string[]): Promise<number> {
  const first = argv[0]
  if (first !== undefined && Object.hasOwn(COMMANDS, first)) return COMMANDS[first](argv.slice(1))
  // Flags before the subcommand (`--json search x`), help, or an unknown command.
  const args = parseArgs(argv)
  if (args.command === 'search') return runSearch(args)
  throw new UsageError(args.command ? `unknown command ${args.command}` : 'no command given')
}

async function runSearch(args: Args): Promise<number> {
  if (!args.query) throw new UsageError('search needs a query')
  if (args.catalog !== undefined && args.mcp !== undefined) throw new UsageError('give --catalog or --mcp, not both')
  // An empty value is a mistake, not a request for the bundled catalog.
  if (args.catalog === '') throw new UsageError('--catalog needs a file')
  if (args.mcp !== undefined && args.mcp.trim() === '') throw new UsageError('--mcp needs a command')
  if (args.tfidf && args.scoring !== 'compat') args.scoring = 'compat'
  let file = args.catalog ?? defaultCatalogPath()
  let catalog: CatalogTool[]
  if (args.mcp !== undefined) {
    catalog = await listMcpTools(args.mcp)
    file = `mcp: ${args.mcp}`
  } else {
    catalog = loadCatalog(file)
  }
  const tools = toTools(catalog)
  const coreTools = args.all ? [] : undefined
  const scoring = args.scoring
  const started = performance.now()
  let rows: { name: string; score?: number; description: string }[]
  let extra = ''
  // The first tool of a name is the one indexed (a later one is skipped), so its text is shown.
  const byName = new Map<string, CatalogTool>()
  for (const t of catalog) if (!byName.has(t.name)) byName.set(t.name, t)
  const describe = (name: string) => byName.get(name)?.description ?? ''
  const index = await buildToolIndex(tools, { coreTools, scoring })
  for (const s of index.skipped) process.stderr.write(`note: tool #${s.index} "${s.name}" left out (${s.reason.replace(/_/g, ' ')})\n`)
  if (args.tfidf) {
    rows = index.search(args.query, args.limit)
  } else if (/^(select|discover):/i.test(args.query)) {
    const out = await toolSearch({ query: args.query, max_results: args.limit }, { tools, coreTools, scoring })
    rows = out.matches.map((name) => ({ name, description: describe(name) }))
    if (out.already_loaded?.length) extra = `already loaded (core): ${out.already_loaded.join(', ')}`
    if (out.text) extra = out.text
  } else {
    const lower = args.query.toLowerCase().trim()
    const outside = tools.find((t) => t.name.toLowerCase() === lower && !index.has(t.name))?.name
    rows = index.rankToolSearch(args.query, args.limit, mergeWeights(), outside).map((r) => ({ ...r, description: describe(r.name) }))
  }
  const explanations = args.explain ? rows.map((r) => index.explain(args.query as string, r.name)) : []
  const ms = performance.now() - started
  if (args.json) {
    const results = args.explain ? rows.map((r, i) => ({ ...r, explain: explanations[i] })) : rows
    process.stdout.write(`${JSON.stringify({ query: args.query, catalog: file, scoring, results, note: extra || undefined }, null, 2)}\n`)
    return 0
  }
  const shown = args.mcp ? file : path.relative(process.cwd(), file) || file
  process.stdout.write(`${rows.length} result${rows.length === 1 ? '' : 's'} for "${visible(args.query)}" in ${visible(shown)} (${index.length} of ${catalog.length} tools searched${index.length < catalog.length ? (args.all ? '' : ', core tools left out') : ''}, ${scoring}, ${ms.toFixed(1)} ms incl. build)\n`)
  rows.forEach((r, i) => {
    const score = r.score === undefined ? '     ' : r.score.toFixed(3)
    const desc = r.description.split('\n', 1)[0]
    process.stdout.write(`${String(i + 1).padStart(2)}. ${score}  ${visible(r.name)}\n      ${visible(desc.length > 100 ? `${desc.slice(0, 97)}...` : desc)}\n`)
    const e = explanations[i]
    if (e) {
      const head = e.scoring === 'enhanced' ? `tier ${e.tier}, relevance ${e.relevance.toFixed(3)}, coverage ${(e.coverage ?? 0).toFixed(2)}` : `cosine ${e.relevance.toFixed(3)}${e.tier ? ', name boost' : ''}`
      process.stdout.write(`      explain: ${head}${e.note ? ` (${e.note})` : ''}\n`)
      for (const t of e.terms) {
        const fields = t.fields.length ? ` [${t.fields.join(', ')}]` : ''
        process.stdout.write(`        ${visible(t.term).padEnd(16)} +${t.contribution.toFixed(4)}${t.origin !== 'query' ? ` (${visible(t.origin)})` : ''}${fields}\n`)
      }
    }
  })
  if (extra) process.stdout.write(`${extra}\n`)
  return 0
}

/** Run the command line `argv` and exit with its status (the `tool-index` binary). */
export function run(argv: string[]): void {
  main(argv).then(
    (code) => process.exit(code),
    (err) => {
      if (err instanceof HelpRequest) {
        process.stdout.write(`${USAGE}\n`)
        process.exit(0)
      }
      if (err instanceof UsageError) {
        process.stderr.write(`tool-index: ${err.message}\n${USAGE}\n`)
        process.exit(2)
      }
      if (err instanceof InputError) {
        process.stderr.write(`tool-index: ${err.message}\n`)
        process.exit(1)
      }
      const code = err instanceof ToolIndexError ? ` [${err.code}]` : ''
      process.stderr.write(`tool-index: ${(err as Error)?.message ?? err}${code}\n`)
      process.exit(1)
    },
  )
}

if (require.main === module) run(process.argv.slice(2))
