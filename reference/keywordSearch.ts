/**
 * Reference (compat) port of the upstream ToolSearch keyword search and the
 * keyword + TF-IDF merge. Behaviour contract: shared/spec/SPEC.md §6.
 */
import { parseToolName, searchTools, type ReferenceEntry } from './toolIndex'

export interface KeywordTool {
  name: string
  description: string
  searchHint?: string
}

export interface HybridWeights {
  keyword: number
  tfidf: number
}

export interface HybridResult {
  name: string
  score: number
}

function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&')
}

/** `\bterm\b` with JavaScript's ASCII word boundaries (no `u`, no `i` flag). */
function compileTermPatterns(terms: string[]): Map<string, RegExp> {
  const patterns = new Map<string, RegExp>()
  for (const term of terms) {
    if (!patterns.has(term)) patterns.set(term, new RegExp(`\\b${escapeRegExp(term)}\\b`))
  }
  return patterns
}

export function searchToolsWithKeywords(
  query: string,
  deferredTools: KeywordTool[],
  allTools: KeywordTool[],
  maxResults: number,
): string[] {
  const queryLower = query.toLowerCase().trim()

  // Fast path: exact tool name (deferred first, then all tools).
  const exact =
    deferredTools.find(t => t.name.toLowerCase() === queryLower) ??
    allTools.find(t => t.name.toLowerCase() === queryLower)
  if (exact) return [exact.name]

  // MCP prefix path.
  if (queryLower.startsWith('mcp__') && queryLower.length > 5) {
    const prefixMatches = deferredTools
      .filter(t => t.name.toLowerCase().startsWith(queryLower))
      .slice(0, maxResults)
      .map(t => t.name)
    if (prefixMatches.length > 0) return prefixMatches
  }

  const queryTerms = queryLower.split(/\s+/).filter(t => t.length > 0)
  const requiredTerms: string[] = []
  const optionalTerms: string[] = []
  for (const term of queryTerms) {
    if (term.startsWith('+') && term.length > 1) requiredTerms.push(term.slice(1))
    else optionalTerms.push(term)
  }
  const scoringTerms = requiredTerms.length > 0 ? [...requiredTerms, ...optionalTerms] : queryTerms
  const patterns = compileTermPatterns(scoringTerms)

  let candidates = deferredTools
  if (requiredTerms.length > 0) {
    candidates = deferredTools.filter(tool => {
      const parsed = parseToolName(tool.name)
      const desc = (tool.description ?? '').toLowerCase()
      const hint = tool.searchHint?.toLowerCase() ?? ''
      return requiredTerms.every(term => {
        const pattern = patterns.get(term)!
        return (
          parsed.parts.includes(term) ||
          parsed.parts.some(part => part.includes(term)) ||
          pattern.test(desc) ||
          (hint.length > 0 && pattern.test(hint))
        )
      })
    })
  }

  const scored = candidates.map(tool => {
    const parsed = parseToolName(tool.name)
    const desc = (tool.description ?? '').toLowerCase()
    const hint = tool.searchHint?.toLowerCase() ?? ''
    let score = 0
    for (const term of scoringTerms) {
      const pattern = patterns.get(term)!
      if (parsed.parts.includes(term)) {
        score += parsed.isMcp ? 12 : 10
      } else if (parsed.parts.some(part => part.includes(term))) {
        score += parsed.isMcp ? 6 : 5
      }
      if (score === 0 && parsed.full.includes(term)) score += 3
      if (hint.length > 0 && pattern.test(hint)) score += 4
      if (pattern.test(desc)) score += 2
    }
    return { name: tool.name, score }
  })

  return scored
    .filter(s => s.score > 0)
    .sort((a, b) => b.score - a.score)
    .slice(0, maxResults)
    .map(s => s.name)
}

/**
 * ToolSearch merge: keyword hit at 0-based rank r of n scores (n - r)/n × wK,
 * TF-IDF score × wT, summed per name, sorted descending (stable), first maxResults.
 */
export function hybridSearch(
  query: string,
  deferredTools: KeywordTool[],
  index: ReferenceEntry[],
  maxResults: number,
  weights: HybridWeights = { keyword: 0.4, tfidf: 0.6 },
): HybridResult[] {
  const keywordHits = searchToolsWithKeywords(query, deferredTools, deferredTools, maxResults)
  const tfidfHits = searchTools(query, index, maxResults)

  const merged = new Map<string, number>()
  const n = keywordHits.length
  keywordHits.forEach((name, r) => {
    merged.set(name, (merged.get(name) ?? 0) + ((n - r) / n) * weights.keyword)
  })
  for (const hit of tfidfHits) {
    merged.set(hit.name, (merged.get(hit.name) ?? 0) + hit.score * weights.tfidf)
  }

  return [...merged.entries()]
    .map(([name, score]) => ({ name, score }))
    .sort((a, b) => b.score - a.score)
    .slice(0, maxResults)
}
