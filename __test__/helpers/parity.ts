import * as fs from 'node:fs'
import * as path from 'node:path'

export interface ParityVectors {
  tokenize: { text: string; tokens: string[]; stemmed: string[] }[]
  parseToolName: { name: string; parts: string[]; full: string; isMcp: boolean }[]
  catalog: { name: string; description: string; searchHint?: string }[]
  search: { query: string; limit: number; results: { name: string; score: number }[] }[]
  keyword: { query: string; maxResults: number; results: string[] }[]
  hybrid: { query: string; maxResults: number; results: { name: string; score: number }[] }[]
}

/** `TOOL_INDEX_PARITY` or the vendored `__test__/fixtures/parity/reference-vectors.json`. */
export function parityPath(): string {
  return process.env.TOOL_INDEX_PARITY ?? path.resolve(__dirname, '..', 'fixtures', 'parity', 'reference-vectors.json')
}

/**
 * Whether the vectors are present. They ship in the repository; a suite that needs them skips
 * with a message where they are absent (a trimmed package, a bad override), unless
 * `TOOL_INDEX_REQUIRE_PARITY=1` (our CI) makes their absence a failure.
 */
export function parityAvailable(): boolean {
  const present = fs.existsSync(parityPath())
  if (!present && process.env.TOOL_INDEX_REQUIRE_PARITY === '1') {
    throw new Error(`parity vectors required but missing at ${parityPath()} (set TOOL_INDEX_PARITY)`)
  }
  if (!present) console.warn(`skipped: no parity vectors at ${parityPath()} (set TOOL_INDEX_PARITY)`)
  return present
}

let cached: ParityVectors | undefined
export function loadParity(): ParityVectors {
  cached ??= JSON.parse(fs.readFileSync(parityPath(), 'utf8')) as ParityVectors
  return cached
}

/** Names and scores equal (scores within 1e-9); returns a description of the first difference. */
export function diffRanked(got: { name: string; score: number }[], want: { name: string; score: number }[]): string | null {
  if (got.length !== want.length) return `length ${got.length} != ${want.length}`
  for (let i = 0; i < got.length; i++) {
    if (got[i].name !== want[i].name) return `#${i}: ${got[i].name} != ${want[i].name}`
    if (Math.abs(got[i].score - want[i].score) > 1e-9) return `#${i} ${got[i].name}: ${got[i].score} != ${want[i].score}`
  }
  return null
}
