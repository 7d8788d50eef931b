// Catalogs and queries for the benchmark: real tools from ../shared/bench-data (ETOM + MetaTool),
// topped up with deterministic synthetic tools built from the real vocabulary.
import { readFileSync, existsSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

export const BENCH_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..')
export const REPO_DIR = resolve(BENCH_DIR, '..')
export const DATA_DIR = resolve(process.env.TOOL_INDEX_BENCH_DATA ?? join(REPO_DIR, '..', 'shared', 'bench-data'))

// ---------------------------------------------------------------------------------------------
// Seeded PRNG (mulberry32) and helpers
// ---------------------------------------------------------------------------------------------

export function rng(seed) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
const pick = (r, arr) => arr[Math.floor(r() * arr.length)]
function shuffle(r, arr) {
  const a = arr.slice()
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1))
    ;[a[i], a[j]] = [a[j], a[i]]
  }
  return a
}

// ---------------------------------------------------------------------------------------------
// Real data
// ---------------------------------------------------------------------------------------------

function readJson(rel) {
  const p = join(DATA_DIR, rel)
  if (!existsSync(p)) {
    throw new Error(`bench data not found: ${p} (set TOOL_INDEX_BENCH_DATA to the bench-data folder)`)
  }
  return JSON.parse(readFileSync(p, 'utf8'))
}

let realCache = null

/**
 * Real tools, grouped into servers. ETOM tools get their `mcp__<server>__<tool>` qualified name
 * (unique); MetaTool plugins keep their plain names and are built-in-like (isMcp false), one per group.
 */
export function loadReal() {
  if (realCache) return realCache
  const etom = readJson('etom/tools.json')
  const meta = readJson('metatool/tools.json')
  const nameMap = new Map() // dataset name -> catalog name (for query labels)
  const groups = new Map() // server slug -> tools
  const seen = new Set()
  for (const t of etom) {
    const name = t.qualified_name ?? t.name
    if (seen.has(name)) continue
    seen.add(name)
    nameMap.set(t.name, name)
    const slug = name.startsWith('mcp__') ? name.slice(5).split('__')[0] : String(t.server ?? name)
    const tool = {
      name,
      description: t.description ?? '',
      isMcp: name.startsWith('mcp__'),
      inputSchema: t.inputSchema ?? undefined,
      server: slug,
      toolName: t.tool_name ?? t.name,
    }
    if (!groups.has(slug)) groups.set(slug, [])
    groups.get(slug).push(tool)
  }
  for (const t of meta) {
    if (seen.has(t.name)) continue
    seen.add(t.name)
    nameMap.set(t.name, t.name)
    groups.set(`metatool:${t.name}`, [
      { name: t.name, description: t.description ?? '', isMcp: false, inputSchema: undefined, server: null, toolName: t.name },
    ])
  }
  realCache = { groups: [...groups.values()], nameMap, count: seen.size }
  return realCache
}

// ---------------------------------------------------------------------------------------------
// Synthetic vocabulary from the real data
// ---------------------------------------------------------------------------------------------

const SERVER_NOISE = new Set(['mcp', 'server', 'model', 'context', 'protocol', 'api', 'the', 'for', 'and', 'of'])

function splitIdent(s) {
  return s
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(p => p.length > 0)
}

let vocabCache = null
function vocab() {
  if (vocabCache) return vocabCache
  const { groups } = loadReal()
  const serverWords = new Set()
  const verbs = new Set()
  const nouns = new Set()
  const sentences = []
  const schemas = []
  for (const g of groups) {
    for (const t of g) {
      if (t.server) for (const w of splitIdent(t.server)) if (w.length > 2 && !SERVER_NOISE.has(w) && !/^\d+$/.test(w)) serverWords.add(w)
      const parts = splitIdent(t.toolName)
      if (parts.length >= 2) {
        verbs.add(parts[0])
        for (const p of parts.slice(1)) if (p.length > 2) nouns.add(p)
      }
      for (const s of t.description.split(/(?<=[.!?])\s+/)) {
        const trimmed = s.trim()
        if (trimmed.length > 15) sentences.push(trimmed)
      }
      if (t.inputSchema) schemas.push(t.inputSchema)
    }
  }
  vocabCache = {
    serverWords: [...serverWords].sort(),
    verbs: [...verbs].sort(),
    nouns: [...nouns].sort(),
    sentences,
    schemas,
  }
  return vocabCache
}

const cap = w => w.charAt(0).toUpperCase() + w.slice(1)

/**
 * A deterministic stream of synthetic MCP servers. `prefix` keeps streams disjoint
 * (the incremental-update servers use their own prefix, so they never collide with a catalog).
 */
export function syntheticServers(seed, prefix = '') {
  const v = vocab()
  const r = rng(seed)
  const usedServers = new Set()
  let serial = 0
  return function nextServer(fixedSize) {
    let slug
    do {
      slug = `${prefix}${pick(r, v.serverWords)}_${pick(r, v.serverWords)}`
      if (usedServers.has(slug)) slug = `${slug}${++serial}`
    } while (usedServers.has(slug))
    usedServers.add(slug)
    const product = slug.replace(prefix, '').split('_').map(cap).join(' ')
    const size = fixedSize ?? 5 + Math.floor(r() * 26) // 5..30 tools
    const toolNames = new Set()
    const tools = []
    while (tools.length < size) {
      let tool = `${pick(r, v.verbs)}_${pick(r, v.nouns)}`
      if (r() < 0.5) tool += `_${pick(r, v.nouns)}`
      if (toolNames.has(tool)) continue
      toolNames.add(tool)
      const n = 1 + Math.floor(r() * 3)
      const sents = []
      for (let i = 0; i < n; i++) sents.push(pick(r, v.sentences))
      let description = sents.join(' ')
      if (r() < 0.5) description = `${product}: ${description}`
      tools.push({
        name: `mcp__${slug}__${tool}`,
        description,
        isMcp: true,
        inputSchema: v.schemas.length ? pick(r, v.schemas) : undefined,
        server: slug,
        toolName: tool,
      })
    }
    return tools
  }
}

// ---------------------------------------------------------------------------------------------
// Catalogs
// ---------------------------------------------------------------------------------------------

/**
 * A catalog of exactly `size` tools: whole real servers in a seeded order (truncating the last),
 * then, once the real tools run out, synthetic servers.
 */
export function buildCatalog(size, seed = 42) {
  const real = loadReal()
  const order = shuffle(rng(seed), real.groups)
  const tools = []
  for (const g of order) {
    for (const t of g) {
      if (tools.length >= size) break
      tools.push(t)
    }
    if (tools.length >= size) break
  }
  const next = syntheticServers(seed + 1)
  while (tools.length < size) {
    for (const t of next()) {
      if (tools.length >= size) break
      tools.push(t)
    }
  }
  return makeCatalog(tools)
}

/** Turn tools into every input shape an engine takes (prepared once, outside any timing). */
export function makeCatalog(tools) {
  // The native index and the reference take plain entries.
  const entries = tools.map(t => ({ name: t.name, description: t.description, isMcp: t.isMcp }))
  // The drop-in (and the reference's async build) take host tools whose description comes from prompt().
  const hostTools = tools.map(t => {
    const description = t.description
    return {
      name: t.name,
      isMcp: t.isMcp,
      inputJSONSchema: t.inputSchema,
      prompt: async () => description,
    }
  })
  // The JS engines take documents; the name is given to them already split into words, as a
  // competent user would (their tokenizers do not split `mcp__github__create_issue` / CamelCase).
  const docs = tools.map((t, id) => ({ id, name: nameText(t.name), description: t.description, searchHint: '' }))
  const names = tools.map(t => t.name)
  return { size: tools.length, tools, entries, hostTools, docs, names }
}

export function nameText(name) {
  if (name.startsWith('mcp__')) return name.slice(5).replace(/_+/g, ' ').trim()
  return name.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/_/g, ' ').toLowerCase()
}

/** One synthetic 20-tool MCP server that is in no catalog (for the incremental-update test). */
export function newServers(seed = 42) {
  const next = syntheticServers(seed + 7919, 'new')
  return () => next(20)
}

// ---------------------------------------------------------------------------------------------
// Queries
// ---------------------------------------------------------------------------------------------

const L1_CLAUSE = /^(On|In|Using|With|Via) [^,]{1,60}, /

/**
 * A fixed, seeded sample of realistic queries: ETOM (all levels; half the L1 queries with the
 * "On <platform>, " clause stripped) and MetaTool, interleaved. `relevant` holds catalog names.
 */
export function loadQueries(count, seed = 42) {
  const { nameMap } = loadReal()
  const r = rng(seed + 3)
  const etom = shuffle(r, readJson('etom/queries.json'))
  const meta = shuffle(r, readJson('metatool/queries.json'))
  const nEtom = Math.round(count * 0.75)
  const out = []
  for (const q of etom.slice(0, nEtom)) {
    let text = q.query
    if (q.level === 1 && r() < 0.5) text = text.replace(L1_CLAUSE, '')
    out.push({ id: q.id, text, relevant: q.relevant.map(n => nameMap.get(n) ?? n) })
  }
  for (const q of meta.slice(0, count - nEtom)) {
    out.push({ id: q.id, text: q.query, relevant: q.relevant.map(n => nameMap.get(n) ?? n) })
  }
  return shuffle(r, out)
}
