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
import * as fs from 'node:fs'
import * as path from 'node:path'
import { ToolIndexError, buildToolIndex, toolSearch, type ToolLike } from './index'
import { mergeWeights } from './toolSearch'

interface Args {
  command?: string
  query?: string
  catalog?: string
  limit: number
  tfidf: boolean
  all: boolean
  json: boolean
}

const USAGE = `usage: tool-index search "<query>" [--catalog FILE] [--limit N] [--tfidf] [--all] [--json]

  --catalog FILE  search this catalog (our JSON, or an MCP tools/list response)
                  instead of the bundled default catalog
  --limit N       how many results (default 5)
  --tfidf         rank by the TF-IDF index alone (searchTools) instead of the
                  full ToolSearch ranking (keyword + TF-IDF)
  --all           index core tools too (no deferral filter)
  --json          print JSON
Queries may use ToolSearch syntax: "select:A,B", "discover:<text>", "+required words".`

class UsageError extends Error {}
/** A problem with the user's input files: a message and exit code 1, no usage text. */
class InputError extends Error {}

function parseArgs(argv: string[]): Args {
  const a: Args = { limit: 5, tfidf: false, all: false, json: false }
  const rest: string[] = []
  for (let i = 0; i < argv.length; i++) {
    const v = argv[i]
    const next = () => {
      const n = argv[++i]
      if (n === undefined) throw new UsageError(`${v} needs a value`)
      return n
    }
    if (v === '--catalog') a.catalog = next()
    else if (v === '--limit') {
      const n = Number(next())
      if (!Number.isInteger(n) || n < 0) throw new UsageError('--limit takes a whole number >= 0')
      a.limit = n
    } else if (v === '--tfidf') a.tfidf = true
    else if (v === '--all') a.all = true
    else if (v === '--json') a.json = true
    else if (v === '-h' || v === '--help') throw new UsageError('')
    else if (v.startsWith('--')) throw new UsageError(`unknown option ${v}`)
    else rest.push(v)
  }
  a.command = rest[0]
  a.query = rest.slice(1).join(' ')
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
  let text: string
  try {
    text = fs.readFileSync(file, 'utf8')
  } catch (e) {
    throw new InputError(`cannot read catalog ${file}: ${(e as Error).message}`)
  }
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
    return t as CatalogTool
  })
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

async function main(argv: string[]): Promise<number> {
  const args = parseArgs(argv)
  if (args.command !== 'search') throw new UsageError(args.command ? `unknown command ${args.command}` : '')
  if (!args.query) throw new UsageError('search needs a query')
  const file = args.catalog ?? defaultCatalogPath()
  const catalog = loadCatalog(file)
  const tools = toTools(catalog)
  const coreTools = args.all ? [] : undefined
  const started = performance.now()
  let rows: { name: string; score?: number; description: string }[]
  let extra = ''
  const byName = new Map(catalog.map((t) => [t.name, t]))
  const describe = (name: string) => byName.get(name)?.description ?? ''
  if (args.tfidf) {
    const index = await buildToolIndex(tools, { coreTools })
    rows = index.search(args.query, args.limit)
  } else if (/^(select|discover):/i.test(args.query)) {
    const out = await toolSearch({ query: args.query, max_results: args.limit }, { tools, coreTools })
    rows = out.matches.map((name) => ({ name, description: describe(name) }))
    if (out.already_loaded?.length) extra = `already loaded (core): ${out.already_loaded.join(', ')}`
    if (out.text) extra = out.text
  } else {
    const index = await buildToolIndex(tools, { coreTools })
    const lower = args.query.toLowerCase().trim()
    const outside = tools.find((t) => t.name.toLowerCase() === lower && !index.has(t.name))?.name
    rows = index.rankToolSearch(args.query, args.limit, mergeWeights(), outside).map((r) => ({ ...r, description: describe(r.name) }))
  }
  const ms = performance.now() - started
  if (args.json) {
    process.stdout.write(`${JSON.stringify({ query: args.query, catalog: file, results: rows, note: extra || undefined }, null, 2)}\n`)
    return 0
  }
  const shown = path.relative(process.cwd(), file) || file
  process.stdout.write(`${rows.length} result${rows.length === 1 ? '' : 's'} for "${args.query}" in ${shown} (${catalog.length} tools, ${ms.toFixed(1)} ms incl. build)\n`)
  rows.forEach((r, i) => {
    const score = r.score === undefined ? '     ' : r.score.toFixed(3)
    const desc = r.description.split('\n', 1)[0]
    process.stdout.write(`${String(i + 1).padStart(2)}. ${score}  ${r.name}\n      ${desc.length > 100 ? `${desc.slice(0, 97)}...` : desc}\n`)
  })
  if (extra) process.stdout.write(`${extra}\n`)
  return 0
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err) => {
      if (err instanceof UsageError) {
        process.stderr.write(err.message ? `tool-index: ${err.message}\n${USAGE}\n` : `${USAGE}\n`)
        process.exit(err.message ? 2 : 0)
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
