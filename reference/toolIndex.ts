/**
 * Reference (compat) port of the upstream claude-code-best TypeScript tool index.
 *
 * This is deliberately plain and unoptimized: every search scans every entry and
 * recomputes IDF from the index entries, exactly like the original. It is the
 * baseline that benchmarks and differential tests compare the native package against.
 * Behaviour contract: shared/spec/SPEC.md §2–§5.
 */

// ---------------------------------------------------------------------------
// §1 Core tools
// ---------------------------------------------------------------------------

export const CORE_TOOLS: readonly string[] = [
  'Bash', 'PowerShell', 'Read', 'Edit', 'Write', 'Glob', 'Grep', 'NotebookEdit', 'Agent',
  'AskUserQuestion', 'SendMessage', 'TeamCreate', 'TeamDelete', 'TaskOutput', 'TaskStop',
  'TaskCreate', 'TaskGet', 'TaskList', 'TaskUpdate', 'TodoWrite', 'EnterPlanMode',
  'ExitPlanMode', 'VerifyPlanExecution', 'WebFetch', 'WebSearch', 'LSP', 'Skill', 'Sleep',
  'ToolSearch', 'ExecuteTool', 'SyntheticOutput',
]

// ---------------------------------------------------------------------------
// §2 parseToolName
// ---------------------------------------------------------------------------

export interface ParsedToolName {
  parts: string[]
  full: string
  isMcp: boolean
}

export function parseToolName(name: string): ParsedToolName {
  if (name.startsWith('mcp__')) {
    const rest = name.slice('mcp__'.length).toLowerCase()
    const parts: string[] = []
    for (const segment of rest.split('__')) {
      for (const piece of segment.split('_')) {
        if (piece.length > 0) parts.push(piece)
      }
    }
    const full = rest.replace(/__/g, ' ').replace(/_/g, ' ')
    return { parts, full, isMcp: true }
  }
  const spaced = name
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/_/g, ' ')
    .toLowerCase()
  const parts = spaced.split(/\s+/).filter(p => p.length > 0)
  return { parts, full: parts.join(' '), isMcp: false }
}

// ---------------------------------------------------------------------------
// §3 Tokenizer
// ---------------------------------------------------------------------------

export const STOP_WORDS: ReadonlySet<string> = new Set([
  'a', 'an', 'the', 'is', 'are', 'was', 'were', 'be', 'been', 'being',
  'have', 'has', 'had', 'do', 'does', 'did', 'will', 'would', 'could',
  'should', 'may', 'might', 'shall', 'can', 'need', 'dare', 'ought',
  'used', 'to', 'of', 'in', 'for', 'on', 'with', 'at', 'by', 'from',
  'as', 'into', 'through', 'during', 'before', 'after', 'above', 'below',
  'between', 'out', 'off', 'over', 'under', 'again', 'further', 'then',
  'once', 'here', 'there', 'when', 'where', 'why', 'how', 'all', 'each',
  'every', 'both', 'few', 'more', 'most', 'other', 'some', 'such', 'no',
  'nor', 'not', 'only', 'own', 'same', 'so', 'than', 'too', 'very',
  'just', 'because', 'but', 'and', 'or', 'if', 'while', 'this', 'that',
  'these', 'those', 'it', 'its', 'i', 'me', 'my', 'we', 'our', 'you',
  'your', 'he', 'him', 'his', 'she', 'her', 'they', 'them', 'their',
  'what', 'which', 'who', 'whom', 'use', 'using',
])

function isCjkChar(ch: string): boolean {
  const c = ch.charCodeAt(0)
  return (c >= 0x4e00 && c <= 0x9fff) || (c >= 0x3400 && c <= 0x4dbf)
}

function isWordStart(ch: string): boolean {
  return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9')
}

function isWordChar(ch: string): boolean {
  return isWordStart(ch) || ch === '_' || ch === '-'
}

export function tokenize(text: string): string[] {
  const lower = text.toLowerCase()
  const tokens: string[] = []
  let i = 0
  while (i < lower.length) {
    const ch = lower[i]!
    if (isCjkChar(ch)) {
      let j = i
      while (j < lower.length && isCjkChar(lower[j]!)) j++
      for (let k = i; k + 1 < j; k++) {
        tokens.push(lower[k]! + lower[k + 1]!)
      }
      i = j
    } else if (isWordStart(ch)) {
      let j = i
      while (j < lower.length && isWordChar(lower[j]!)) j++
      const word = lower.slice(i, j).replace(/^[-_]+/, '').replace(/[-_]+$/, '')
      if (word.length > 0 && !STOP_WORDS.has(word)) tokens.push(word)
      i = j
    } else {
      i++
    }
  }
  return tokens
}

interface StemRule {
  suffix: string
  minLength: number // word.length must be > minLength
  drop: number
  notSuffix?: string
}

const STEM_RULES: StemRule[] = [
  { suffix: 'ing', minLength: 5, drop: 3 },
  { suffix: 'tion', minLength: 5, drop: 4 },
  { suffix: 'ness', minLength: 5, drop: 4 },
  { suffix: 'ment', minLength: 5, drop: 4 },
  { suffix: 'ers', minLength: 4, drop: 1 },
  { suffix: 'er', minLength: 4, drop: 2 },
  { suffix: 'es', minLength: 4, drop: 2 },
  { suffix: 's', minLength: 3, drop: 1, notSuffix: 'ss' },
  { suffix: 'ed', minLength: 4, drop: 2 },
  { suffix: 'ly', minLength: 4, drop: 2 },
]

export function stem(word: string): string {
  if (word.length > 0 && isCjkChar(word[0]!)) return word
  for (const rule of STEM_RULES) {
    if (
      word.endsWith(rule.suffix) &&
      word.length > rule.minLength &&
      (rule.notSuffix === undefined || !word.endsWith(rule.notSuffix))
    ) {
      return word.slice(0, word.length - rule.drop)
    }
  }
  return word
}

export function tokenizeAndStem(text: string): string[] {
  return tokenize(text).map(stem)
}

// ---------------------------------------------------------------------------
// §4 Index
// ---------------------------------------------------------------------------

export interface ReferenceEntry {
  name: string
  normalizedName: string
  description: string
  searchHint: string | undefined
  isMcp: boolean
  isDeferred: boolean
  inputSchema: unknown
  tokens: string[]
  tfVector: Map<string, number>
}

export interface IndexInputEntry {
  name: string
  description: string
  searchHint?: string
  isMcp?: boolean
  inputSchema?: unknown
}

export interface SearchResult {
  name: string
  description: string
  searchHint: string | undefined
  score: number
  isMcp: boolean
  isDeferred: boolean
  inputSchema: unknown
}

const NAME_WEIGHT = 3.0
const HINT_WEIGHT = 2.5
const DESC_WEIGHT = 1.0

function fieldTf(tokens: string[], weight: number, into: Map<string, number>): void {
  const counts = new Map<string, number>()
  for (const t of tokens) counts.set(t, (counts.get(t) ?? 0) + 1)
  let maxCount = 1
  for (const c of counts.values()) if (c > maxCount) maxCount = c
  for (const [term, count] of counts) {
    const value = (count / maxCount) * weight
    const prev = into.get(term)
    if (prev === undefined || value > prev) into.set(term, value)
  }
}

function computeIdf(entries: { tokens: string[] }[]): Map<string, number> {
  const df = new Map<string, number>()
  for (const entry of entries) {
    for (const term of new Set(entry.tokens)) df.set(term, (df.get(term) ?? 0) + 1)
  }
  const n = entries.length
  const idf = new Map<string, number>()
  for (const [term, count] of df) idf.set(term, Math.log(n / count))
  return idf
}

export function buildToolIndexFromEntries(entries: IndexInputEntry[]): ReferenceEntry[] {
  const staged = entries.map(entry => {
    const parsed = parseToolName(entry.name)
    const description = entry.description ?? ''
    const nameTokens = tokenizeAndStem(parsed.parts.join(' '))
    const hintTokens = tokenizeAndStem(entry.searchHint ?? '')
    const descTokens = tokenizeAndStem(description)
    const seen = new Set<string>()
    const tokens: string[] = []
    for (const t of [...nameTokens, ...hintTokens, ...descTokens]) {
      if (!seen.has(t)) {
        seen.add(t)
        tokens.push(t)
      }
    }
    const tf = new Map<string, number>()
    fieldTf(nameTokens, NAME_WEIGHT, tf)
    fieldTf(hintTokens, HINT_WEIGHT, tf)
    fieldTf(descTokens, DESC_WEIGHT, tf)
    return { entry, parsed, description, tokens, tf }
  })

  const idf = computeIdf(staged)

  return staged.map(({ entry, parsed, description, tokens, tf }) => {
    const tfVector = new Map<string, number>()
    for (const [term, value] of tf) tfVector.set(term, value * (idf.get(term) ?? 0))
    return {
      name: entry.name,
      normalizedName: parsed.full,
      description,
      searchHint: entry.searchHint,
      isMcp: entry.isMcp ?? parsed.isMcp,
      isDeferred: true,
      inputSchema: entry.inputSchema,
      tokens,
      tfVector,
    }
  })
}

/** Minimal shape of a host tool, as the original index consumed it. */
export interface ReferenceTool {
  name: string
  prompt?: (ctx?: unknown) => Promise<string> | string
  description?: string
  searchHint?: string
  isMcp?: boolean
  alwaysLoad?: boolean
  inputJSONSchema?: unknown
}

export interface BuildToolIndexOptions {
  /** Replaces CORE_TOOLS as the set of never-deferred tool names. */
  coreTools?: Iterable<string>
  /** Passed to each tool's prompt(). */
  promptContext?: unknown
}

export function isDeferredTool(tool: ReferenceTool, coreTools: ReadonlySet<string> = new Set(CORE_TOOLS)): boolean {
  if (tool.alwaysLoad === true) return false
  if (coreTools.has(tool.name)) return false
  return true
}

export async function buildToolIndex(
  tools: ReferenceTool[],
  opts: BuildToolIndexOptions = {},
): Promise<ReferenceEntry[]> {
  const core = new Set(opts.coreTools ?? CORE_TOOLS)
  const deferred = tools.filter(t => isDeferredTool(t, core))
  const entries: IndexInputEntry[] = []
  for (const tool of deferred) {
    let description = ''
    try {
      if (typeof tool.prompt === 'function') {
        description = await tool.prompt(opts.promptContext ?? {})
      } else if (typeof tool.description === 'string') {
        description = tool.description
      }
    } catch {
      description = ''
    }
    if (typeof description !== 'string') description = ''
    entries.push({
      name: tool.name,
      description,
      searchHint: tool.searchHint,
      isMcp: tool.isMcp,
      inputSchema: tool.inputJSONSchema ?? undefined,
    })
  }
  return buildToolIndexFromEntries(entries)
}

// ---------------------------------------------------------------------------
// §5 searchTools
// ---------------------------------------------------------------------------

export function searchTools(
  query: string,
  index: ReferenceEntry[],
  limit = 5,
  minScore = 0.1,
): SearchResult[] {
  if (index.length === 0 || query.trim().length === 0) return []
  const queryTokens = tokenizeAndStem(query)
  if (queryTokens.length === 0) return []

  // IDF recomputed from the index on every search, as the original did.
  const idf = computeIdf(index)

  const counts = new Map<string, number>()
  for (const t of queryTokens) counts.set(t, (counts.get(t) ?? 0) + 1)
  let maxCount = 1
  for (const c of counts.values()) if (c > maxCount) maxCount = c
  const queryVector = new Map<string, number>()
  for (const [term, count] of counts) {
    queryVector.set(term, (count / maxCount) * (idf.get(term) ?? 0))
  }
  let queryNormSq = 0
  for (const v of queryVector.values()) queryNormSq += v * v
  const queryNorm = Math.sqrt(queryNormSq)

  const cjkQueryTokens = queryTokens.filter(t => isCjkChar(t[0]!))
  const nonCjkQueryTokens = queryTokens.filter(t => !isCjkChar(t[0]!))
  const boostQuery = query.toLowerCase().replace(/[-_]/g, ' ')

  const scored: SearchResult[] = []
  for (const entry of index) {
    let dot = 0
    for (const [term, qv] of queryVector) {
      const dv = entry.tfVector.get(term)
      if (dv !== undefined) dot += qv * dv
    }
    let docNormSq = 0
    for (const v of entry.tfVector.values()) docNormSq += v * v
    const docNorm = Math.sqrt(docNormSq)
    const denom = queryNorm * docNorm
    let score = denom === 0 ? 0 : dot / denom

    if (cjkQueryTokens.length > 0 && score > 0) {
      let cjkHits = 0
      for (const t of cjkQueryTokens) if (entry.tfVector.has(t)) cjkHits++
      const anyNonCjk = nonCjkQueryTokens.some(t => entry.tfVector.has(t))
      if (cjkHits < 2 && !anyNonCjk) score = 0
    }

    if (boostQuery.includes(entry.normalizedName)) score = Math.max(score, 0.75)

    if (score >= minScore) {
      scored.push({
        name: entry.name,
        description: entry.description,
        searchHint: entry.searchHint,
        score,
        isMcp: entry.isMcp,
        isDeferred: entry.isDeferred,
        inputSchema: entry.inputSchema,
      })
    }
  }
  scored.sort((a, b) => b.score - a.score)
  return scored.slice(0, limit)
}
