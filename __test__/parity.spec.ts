/** Compat mode through the package root reproduces every reference vector. */
import { describe, expect, test } from 'bun:test'
import { isDeepStrictEqual } from 'node:util'
import { buildToolIndex, parseToolName, searchTools, tokenize, tokenizeAndStem, ToolIndex } from '../dist/index.js'
import { diffRanked, loadParity, parityAvailable, type ParityVectors } from './helpers/parity'

const available = parityAvailable()
const v = (available ? loadParity() : { tokenize: [], parseToolName: [], catalog: [], search: [], keyword: [], hybrid: [] }) as ParityVectors

describe.skipIf(!available)('parity with the reference (compat)', () => {
  test(`tokenize / tokenizeAndStem: ${v.tokenize.length} vectors`, () => {
    const bad = v.tokenize.filter((c) => !isDeepStrictEqual(tokenize(c.text), c.tokens) || !isDeepStrictEqual(tokenizeAndStem(c.text), c.stemmed))
    expect(bad.map((c) => c.text).slice(0, 5)).toEqual([])
  })

  test(`parseToolName: ${v.parseToolName.length} vectors`, () => {
    const bad = v.parseToolName.filter((c) => !isDeepStrictEqual(parseToolName(c.name), { parts: c.parts, full: c.full, isMcp: c.isMcp }))
    expect(bad.map((c) => c.name).slice(0, 5)).toEqual([])
  })

  test(`searchTools over the async drop-in build: ${v.search.length} vectors`, async () => {
    const tools = v.catalog.map((t) => ({ name: t.name, searchHint: t.searchHint, prompt: async () => t.description }))
    const index = await buildToolIndex(tools, { coreTools: [] })
    expect(index.length).toBe(v.catalog.length)
    const bad = v.search
      .map((c) => ({ q: c.query, d: diffRanked(searchTools(c.query, index, c.limit), c.results) }))
      .filter((x) => x.d !== null)
    expect(bad.slice(0, 3)).toEqual([])
  })

  test('searchTools over ToolIndex.fromEntries gives the same', () => {
    const index = ToolIndex.fromEntries(v.catalog)
    const bad = v.search.filter((c) => diffRanked(index.search(c.query, c.limit), c.results) !== null)
    expect(bad.map((c) => c.query).slice(0, 3)).toEqual([])
  })
})
