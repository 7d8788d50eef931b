// Self-check of the quality command's metrics, split and sampler: node --test bench/quality/
import test from 'node:test'
import assert from 'node:assert/strict'
import {
  fnv1a32,
  isHoldout,
  judgement,
  mrrAt,
  mulberry32,
  ndcgAt,
  recallAt,
  sample,
  scoreRanking,
  shuffle,
  topK,
  Accumulator,
} from './metrics.mjs'
import { PLATFORM_CLAUSE, selectSets } from './data.mjs'
import { splitName } from './systems.mjs'

const close = (a, b, msg) => assert.ok(Math.abs(a - b) < 1e-12, `${msg ?? ''} expected ${b}, got ${a}`)
const g = (r) => 1 / Math.log2(r + 1) // gain at 1-based rank r

test('single relevant tool: hit at rank 3', () => {
  const j = judgement({ relevant: ['a'] })
  const m = scoreRanking(['x', 'y', 'a', 'z'], j)
  assert.equal(m.recall, 1)
  close(m.mrr, 1 / 3)
  close(m.ndcg, 0.5) // 1/log2(4)
})

test('single relevant tool: rank 1 is perfect', () => {
  const m = scoreRanking(['a', 'x'], judgement({ relevant: ['a'] }))
  assert.deepEqual(m, { recall: 1, mrr: 1, ndcg: 1 })
})

test('relevant tool at rank 6 is outside the top 5', () => {
  const m = scoreRanking(['p', 'q', 'r', 's', 't', 'a'], judgement({ relevant: ['a'] }))
  assert.deepEqual(m, { recall: 0, mrr: 0, ndcg: 0 })
})

test('empty ranking scores zero', () => {
  assert.deepEqual(scoreRanking([], judgement({ relevant: ['a'] })), { recall: 0, mrr: 0, ndcg: 0 })
  assert.deepEqual(scoreRanking(['a'], judgement({ relevant: [] })), { recall: 0, mrr: 0, ndcg: 0 })
})

test('any_of: one hit suffices, only the first relevant name counts for nDCG', () => {
  const j = judgement({ relevant: ['a', 'b', 'c'], any_of: true })
  assert.equal(j.anyOf, true)
  const m = scoreRanking(['x', 'b', 'a'], j)
  assert.equal(m.recall, 1)
  close(m.mrr, 0.5)
  close(m.ndcg, g(2))
  assert.equal(ndcgAt(['a', 'b', 'c'], j), 1) // never above 1
  assert.equal(recallAt(['x', 'y'], j), 0)
})

test('anyOf can be forced (MetaTool single with overlapping labels)', () => {
  const j = judgement({ relevant: ['a', 'b'] }, { anyOf: true })
  assert.equal(recallAt(['b'], j), 1)
  assert.equal(ndcgAt(['b'], j), 1)
  const strict = judgement({ relevant: ['a', 'b'] }) // each tool its own step
  assert.equal(recallAt(['b'], strict), 0.5)
  close(ndcgAt(['b'], strict), 1 / (1 + g(2)))
})

test('relevant_groups: recall is the share of steps covered; nDCG over the union', () => {
  const j = judgement({ relevant: ['a', 'b', 'c', 'd'], relevant_groups: [['a'], ['b', 'c'], ['d']] })
  assert.equal(j.groups.length, 3)
  assert.equal(j.relevant.size, 4)
  const ranked = ['x', 'c', 'y', 'a', 'b']
  close(recallAt(ranked, j), 2 / 3) // a and {b,c} covered, d missing; b adds no new step
  close(mrrAt(ranked, j), 0.5)
  const dcg = g(2) + g(4) + g(5)
  const idcg = g(1) + g(2) + g(3) + g(4) // min(|union| = 4, 5) ideal slots
  close(ndcgAt(ranked, j), dcg / idcg)
})

test('nDCG ideal list is capped at k: five relevant names in the top 5 of 7 relevant is perfect', () => {
  const j = judgement({ relevant_groups: [['a', 'b', 'c'], ['d', 'e', 'f', 'g']] })
  assert.equal(ndcgAt(['a', 'd', 'b', 'e', 'c'], j), 1)
  close(ndcgAt(['a', 'x', 'b', 'e', 'c'], j), (g(1) + g(3) + g(4) + g(5)) / (g(1) + g(2) + g(3) + g(4) + g(5)))
})

test('relevant_groups without a relevant list still builds the union', () => {
  const j = judgement({ relevant_groups: [['a'], ['b']] })
  assert.deepEqual([...j.relevant].sort(), ['a', 'b'])
  assert.equal(recallAt(['b', 'a'], j), 1)
  assert.equal(ndcgAt(['b', 'a'], j), 1)
})

test('a name listed twice takes a slot but gains once', () => {
  assert.deepEqual(topK(['x', 'x', 'a', 'x', 'y', 'b'], 5), ['x', null, 'a', null, 'y'])
  const j = judgement({ relevant: ['a', 'b'] })
  close(recallAt(['a', 'a', 'a', 'a', 'a', 'b'], j), 0.5)
  close(ndcgAt(['a', 'a'], j), 1 / (1 + g(2)))
})

test('k is honoured', () => {
  const j = judgement({ relevant: ['a'] })
  assert.equal(recallAt(['x', 'a'], j, 1), 0)
  assert.equal(recallAt(['x', 'a'], j, 2), 1)
})

test('Accumulator averages', () => {
  const acc = new Accumulator()
  acc.add({ recall: 1, mrr: 1, ndcg: 1 })
  acc.add({ recall: 0, mrr: 0.5, ndcg: 0 })
  assert.deepEqual(acc.result(), { n: 2, recall: 0.5, mrr: 0.75, ndcg: 0.5 })
})

test('FNV-1a matches the published 32-bit test vectors', () => {
  assert.equal(fnv1a32(''), 0x811c9dc5)
  assert.equal(fnv1a32('a'), 0xe40c292c)
  assert.equal(fnv1a32('foobar'), 0xbf9cf968)
})

test('holdout split: deterministic, about a fifth', () => {
  const ids = Array.from({ length: 5000 }, (_, i) => `etom-L2-${i}`)
  const held = ids.filter(isHoldout)
  assert.ok(held.length > 850 && held.length < 1150, `holdout share ${held.length / 5000}`)
  assert.deepEqual(ids.filter(isHoldout), held)
  for (const id of ids.slice(0, 50)) assert.equal(isHoldout(id), fnv1a32(id) % 5 === 0)
})

test('mulberry32 is deterministic, seed-dependent and in [0, 1)', () => {
  const a = mulberry32(42)
  const b = mulberry32(42)
  const c = mulberry32(43)
  const xs = Array.from({ length: 1000 }, () => a())
  assert.deepEqual(Array.from({ length: 1000 }, () => b()), xs)
  assert.notDeepEqual(Array.from({ length: 1000 }, () => c()), xs)
  assert.ok(xs.every((x) => x >= 0 && x < 1))
  const mean = xs.reduce((s, x) => s + x, 0) / xs.length
  assert.ok(Math.abs(mean - 0.5) < 0.05, `mean ${mean}`)
})

test('Fisher-Yates shuffle is a permutation; sample is a deterministic prefix', () => {
  const arr = Array.from({ length: 100 }, (_, i) => i)
  const s = shuffle(arr, mulberry32(42))
  assert.deepEqual([...s].sort((x, y) => x - y), arr)
  assert.notDeepEqual(s, arr)
  assert.deepEqual(arr, Array.from({ length: 100 }, (_, i) => i)) // input untouched
  assert.deepEqual(sample(arr, 10, 42), s.slice(0, 10))
  assert.equal(sample(arr, 500, 42).length, 100)
})

test('platform clause stripping', () => {
  assert.equal('On Binance, get the BTC price.'.replace(PLATFORM_CLAUSE, ''), 'get the BTC price.')
  assert.equal('Using the GitHub API, open an issue'.replace(PLATFORM_CLAUSE, ''), 'open an issue')
  assert.equal('Once done, stop'.replace(PLATFORM_CLAUSE, ''), 'Once done, stop')
})

test('set selection', () => {
  assert.deepEqual(selectSets(['etom-l2']), ['etom-l2'])
  assert.deepEqual(selectSets(['metatool']), ['metatool-single', 'metatool-multi'])
  assert.deepEqual(selectSets(['etom-l1*']), ['etom-l1', 'etom-l1-stripped'])
  assert.throws(() => selectSets(['nope']))
})

test('name splitting for the JS engines', () => {
  assert.equal(splitName('mcp__heroku_mcp_server__list_apps'), 'mcp heroku mcp server list apps')
  assert.equal(splitName('getWalletBalance'), 'get wallet balance')
  assert.equal(splitName('MongoDBDatabase'), 'mongo db database')
  assert.equal(splitName('Download-Figma-Images'), 'download figma images')
})
