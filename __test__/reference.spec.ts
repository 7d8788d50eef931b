import { describe, test, expect } from 'bun:test'
import * as fs from 'node:fs'
import {
  buildToolIndexFromEntries,
  hybridSearch,
  parseToolName,
  searchTools,
  searchToolsWithKeywords,
  STOP_WORDS,
  tokenize,
  tokenizeAndStem,
  type KeywordTool,
  type ReferenceEntry,
} from '../reference'

import { parityAvailable, parityPath } from './helpers/parity'

const VECTORS_PATH = parityPath()
const available = parityAvailable()

interface Vectors {
  tokenize: { text: string; tokens: string[]; stemmed: string[] }[]
  parseToolName: { name: string; parts: string[]; full: string; isMcp: boolean }[]
  catalog: KeywordTool[]
  search: { query: string; limit: number; results: { name: string; score: number }[] }[]
  keyword: { query: string; maxResults: number; results: string[] }[]
  hybrid: { query: string; maxResults: number; results: { name: string; score: number }[] }[]
}

const vectors: Vectors = available
  ? JSON.parse(fs.readFileSync(VECTORS_PATH, 'utf8'))
  : { tokenize: [], parseToolName: [], catalog: [], search: [], keyword: [], hybrid: [] }
const SCORE_TOLERANCE = 1e-9
const MAX_REPORTED = 5
// The reference is deliberately unoptimized (full scan per query); give the groups room.
const SLOW_GROUP_TIMEOUT_MS = 180_000

function sameArray(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i])
}

function sameScored(
  actual: { name: string; score: number }[],
  expected: { name: string; score: number }[],
): boolean {
  return (
    actual.length === expected.length &&
    actual.every(
      (r, i) => r.name === expected[i]!.name && Math.abs(r.score - expected[i]!.score) <= SCORE_TOLERANCE,
    )
  )
}

function report(group: string, total: number, mismatches: string[]): string {
  if (mismatches.length === 0) return ''
  return (
    `${group}: ${mismatches.length}/${total} vectors mismatch; first ${Math.min(MAX_REPORTED, mismatches.length)}:\n` +
    mismatches.slice(0, MAX_REPORTED).join('\n')
  )
}

const fmt = (x: unknown) => JSON.stringify(x)

let index: ReferenceEntry[] | undefined
function getIndex(): ReferenceEntry[] {
  index ??= buildToolIndexFromEntries(vectors.catalog)
  return index
}

describe.skipIf(!available)('reference port vs parity vectors', () => {
  test('vector file is loaded and non-empty', () => {
    expect(vectors.catalog.length).toBeGreaterThan(0)
    expect(vectors.tokenize.length).toBeGreaterThan(0)
    expect(STOP_WORDS.size).toBe(114)
  })

  test('tokenize[] — tokens and stemmed', () => {
    const mismatches: string[] = []
    for (const v of vectors.tokenize) {
      const tokens = tokenize(v.text)
      const stemmed = tokenizeAndStem(v.text)
      if (!sameArray(tokens, v.tokens) || !sameArray(stemmed, v.stemmed)) {
        mismatches.push(
          `  text=${fmt(v.text)}\n    tokens   got ${fmt(tokens)} want ${fmt(v.tokens)}\n    stemmed  got ${fmt(stemmed)} want ${fmt(v.stemmed)}`,
        )
      }
    }
    expect(report('tokenize', vectors.tokenize.length, mismatches)).toBe('')
  })

  test('parseToolName[]', () => {
    const mismatches: string[] = []
    for (const v of vectors.parseToolName) {
      const got = parseToolName(v.name)
      if (!sameArray(got.parts, v.parts) || got.full !== v.full || got.isMcp !== v.isMcp) {
        mismatches.push(`  name=${fmt(v.name)}\n    got  ${fmt(got)}\n    want ${fmt({ parts: v.parts, full: v.full, isMcp: v.isMcp })}`)
      }
    }
    expect(report('parseToolName', vectors.parseToolName.length, mismatches)).toBe('')
  })

  test('search[] — searchTools(query, index of whole catalog, 10)', () => {
    const idx = getIndex()
    const mismatches: string[] = []
    for (const v of vectors.search) {
      const got = searchTools(v.query, idx, v.limit ?? 10).map(r => ({ name: r.name, score: r.score }))
      if (!sameScored(got, v.results)) {
        mismatches.push(`  query=${fmt(v.query)}\n    got  ${fmt(got)}\n    want ${fmt(v.results)}`)
      }
    }
    expect(report('search', vectors.search.length, mismatches)).toBe('')
  }, SLOW_GROUP_TIMEOUT_MS)

  test('keyword[] — catalog as deferred and full list, maxResults 10', () => {
    const mismatches: string[] = []
    for (const v of vectors.keyword) {
      const got = searchToolsWithKeywords(v.query, vectors.catalog, vectors.catalog, v.maxResults ?? 10)
      if (!sameArray(got, v.results)) {
        mismatches.push(`  query=${fmt(v.query)}\n    got  ${fmt(got)}\n    want ${fmt(v.results)}`)
      }
    }
    expect(report('keyword', vectors.keyword.length, mismatches)).toBe('')
  }, SLOW_GROUP_TIMEOUT_MS)

  test('hybrid[] — keyword + TF-IDF merge, maxResults 5', () => {
    const idx = getIndex()
    const mismatches: string[] = []
    for (const v of vectors.hybrid) {
      const got = hybridSearch(v.query, vectors.catalog, idx, v.maxResults ?? 5)
      if (!sameScored(got, v.results)) {
        mismatches.push(`  query=${fmt(v.query)}\n    got  ${fmt(got)}\n    want ${fmt(v.results)}`)
      }
    }
    expect(report('hybrid', vectors.hybrid.length, mismatches)).toBe('')
  }, SLOW_GROUP_TIMEOUT_MS)
})
