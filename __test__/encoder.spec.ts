/**
 * The semantic channel: the native vector store, the fusion, the host-encoder path, and the local
 * encoder with the real all-MiniLM-L6-v2 weights. Without the companion addon or the model (a
 * bare clone) the local-encoder tests are skipped with a printed message: build it with
 * `npm run build:encoder` and fetch the model with `bash scripts/fetch-model.sh`.
 */
import { describe, expect, test } from 'bun:test'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { nativeBinding } from '../dist/index.js'
import {
  ABSTAIN_RULE,
  EncoderError,
  FUSION_DEFAULTS,
  abstains,
  SemanticToolIndex,
  defaultModelDir,
  embedderFromFunction,
  fuse,
  mergeVectorHits,
  queryClauses,
  hasModel,
  loadLocalEncoder,
  localEncoderAvailable,
  nameWords,
  toolText,
} from '../dist/semantic.js'

const { NativeVectorStore } = nativeBinding

const cos = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let d = 0
  let na = 0
  let nb = 0
  for (let i = 0; i < a.length; i++) {
    d += a[i] * b[i]
    na += a[i] * a[i]
    nb += b[i] * b[i]
  }
  return d / Math.sqrt(na * nb)
}

const TOOLS = [
  { name: 'book_restaurant', description: 'Reserve a table at a restaurant for a given date, time and party size' },
  { name: 'get_weather', description: 'Current weather conditions and forecast for a city' },
  { name: 'send_email', description: 'Send an email message to one or more recipients' },
  { name: 'create_issue', description: 'Open a new issue in a GitHub repository' },
  { name: 'convert_currency', description: 'Convert an amount of money from one currency to another at the latest exchange rate' },
  { name: 'translate_text', description: 'Translate text between languages' },
]

describe('NativeVectorStore', () => {
  test('upsert, search, replace, remove', () => {
    const s = new NativeVectorStore(3)
    s.upsert('a', new Float32Array([1, 0, 0]))
    s.upsertMany(['b', 'c'], new Float32Array([0, 1, 0, 0, 0, 1]))
    expect(s.size).toBe(3)
    expect(s.search(new Float32Array([0.9, 0.1, 0]), 2).map((h) => h.name)).toEqual(['a', 'b'])
    const top = s.search(new Float32Array([0, 0, 2]), 1)[0]
    expect(top.name).toBe('c')
    expect(top.score).toBeGreaterThan(0.99)
    s.upsert('a', new Float32Array([0, 0, -1]))
    expect(s.search(new Float32Array([1, 0, 0]), 3).map((h) => h.name)).not.toContain(undefined)
    expect(s.remove('a')).toBe(true)
    expect(s.remove('a')).toBe(false)
    expect(s.has('a')).toBe(false)
    expect(s.search(new Float32Array([1, 1, 1]), 10).length).toBe(2)
  })

  test('bad input is a coded error, never a crash', () => {
    expect(() => new NativeVectorStore(0)).toThrow(expect.objectContaining({ code: 'E_INVALID_ARG' }))
    const s = new NativeVectorStore(2)
    expect(() => s.upsert('x', new Float32Array([1, 2, 3]))).toThrow(expect.objectContaining({ code: 'E_INVALID_ARG' }))
    expect(() => s.upsert('x', new Float32Array([NaN, 1]))).toThrow(expect.objectContaining({ code: 'E_INVALID_NUMBER' }))
    expect(() => s.upsertMany(['x', 'y'], new Float32Array([1, 2, 3]))).toThrow(expect.objectContaining({ code: 'E_INVALID_ARG' }))
    expect(() => s.search(new Float32Array([1]), 1)).toThrow(expect.objectContaining({ code: 'E_INVALID_ARG' }))
    expect(s.size).toBe(0)
  })
})

describe('fuse', () => {
  const lex = [
    { name: 'a', score: 10 },
    { name: 'b', score: 5 },
  ]
  const vec = [
    { name: 'c', score: 0.8 },
    { name: 'b', score: 0.6 },
    { name: 'a', score: 0.2 },
  ]
  test('weighted: lexical weight 1 keeps the lexical order, 0 the vector order', () => {
    expect(fuse(lex, vec, 3, { lexicalWeight: 1 }).map((h) => h.name).slice(0, 2)).toEqual(['a', 'b'])
    expect(fuse(lex, vec, 3, { lexicalWeight: 0 }).map((h) => h.name)).toEqual(['c', 'b', 'a'])
  })
  test('weighted: a tool high in both channels wins in between', () => {
    const out = fuse(lex, vec, 3, { lexicalWeight: 0.5, lexicalNorm: 'max' })
    expect(out[0].name).toBe('b') // 0.25 + 0.333 beats a (0.5 + 0) and c (0 + 0.5)
    expect(out[0]).toMatchObject({ lexical: 5, vector: 0.6 })
  })
  test('weighted: equal cosines give no vector credit, so tools no lexical match found do not pass one it found [regression: each got full credit]', () => {
    const lexical = [
      { name: 'email_draft', score: 3 },
      { name: 'send_email', score: 1 },
    ]
    const flat = ['email_draft', 'send_email', 'unrelated_0', 'unrelated_1'].map((name) => ({ name, score: 0 }))
    expect(fuse(lexical, flat, 3, { lexicalWeight: 0.5 }).map((h) => h.name)).toEqual(['email_draft', 'send_email', 'unrelated_0'])
    expect(fuse(lexical, flat, 4, { lexicalWeight: 0.5 }).map((h) => h.score)).toEqual([0.5, 0, 0, 0])
    // A lone vector candidate that matches at all keeps full credit.
    expect(fuse([], [{ name: 'only', score: 0.4 }], 1, { lexicalWeight: 0.5 })[0].score).toBeCloseTo(0.5, 9)
  })
  test('weighted, min-max lexical scale (the default): scores scaled like the cosines', () => {
    const lex3 = [...lex, { name: 'd', score: 0 }]
    // a: 0.5·1 + 0.5·0 = 0.5; b: 0.5·0.5 + 0.5·0.667 = 0.583; c: 0 + 0.5 = 0.5; d: 0
    const out = fuse(lex3, vec, 4, { lexicalWeight: 0.5 })
    expect(out.map((h) => h.name)).toEqual(['b', 'a', 'c', 'd'])
    expect(out[0].score).toBeCloseTo(0.5 * 0.5 + 0.5 * (0.4 / 0.6), 9)
    expect(FUSION_DEFAULTS.lexicalNorm).toBe('minmax')
  })
  test('per-clause vectors: a tool scores its best cosine over the request and its clauses', () => {
    const merged = mergeVectorHits(
      [
        [
          { name: 'a', score: 0.5 },
          { name: 'b', score: 0.4 },
        ],
        [{ name: 'c', score: 0.7 }],
        [
          { name: 'b', score: 0.9 },
          { name: 'a', score: 0.1 },
        ],
      ],
      2,
    )
    expect(merged).toEqual([
      { name: 'b', score: 0.9 },
      { name: 'c', score: 0.7 },
    ])
    expect(queryClauses('send a message')).toEqual([])
    expect(queryClauses('Create a file named a.txt, then rename it and list the folder.')).toEqual([
      'Create a file named a.txt,',
      'then rename it',
      'and list the folder.',
    ])
  })
  test('rrf and limits', () => {
    const out = fuse(lex, vec, 2, { method: 'rrf', lexicalWeight: 0.5 })
    expect(out.length).toBe(2)
    expect(out[0].name).toBe('a') // ranks 1 and 3
    expect(fuse([], [], 5)).toEqual([])
    expect(fuse(lex, vec, 0)).toEqual([])
    expect(FUSION_DEFAULTS.method).toBe('weighted')
  })
})

describe('abstaining (fused search)', () => {
  const crowd = (best: number, last: number, n = 30) => Array.from({ length: n }, (_, i) => ({ score: best - ((best - last) * i) / (n - 1) }))
  const weak = [{ score: 0.2 }]
  const cases: [string, Parameters<typeof abstains>, boolean][] = [
    ['off', [weak, crowd(0.3, 0.25), 0.3, 30, false], false],
    ['weak lexical, best close to the crowd', [weak, crowd(0.3, 0.25), 0.3, 30, true], true],
    ['no lexical candidate at all', [[], crowd(0.3, 0.25), 0.3, 30, ABSTAIN_RULE], true],
    ['a clause far above the crowd', [weak, crowd(0.3, 0.25), 0.6, 30, true], false],
    ['best far above the crowd', [weak, crowd(0.6, 0.25), 0.6, 30, true], false],
    ['lexical evidence at the cut', [[{ score: ABSTAIN_RULE.lexical }], crowd(0.3, 0.25), 0.3, 30, true], false],
    ['a name match (tier 1 and above)', [[{ score: 1.2 }], crowd(0.3, 0.25), 0.3, 30, true], false],
    ['fewer tools than candidates: no crowd', [weak, crowd(0.3, 0.25, 29), 0.3, 30, true], false],
    ['a rule of its own', [[{ score: 0.9 }], crowd(0.6, 0.25), 0.6, 30, { lexical: 1, gap: 0.5 }], true],
    ['NaN cuts never abstain', [weak, crowd(0.3, 0.25), 0.3, 30, { lexical: Number.NaN, gap: Number.NaN }], false],
    ['no crowd weight: the plain gap', [weak, crowd(0.3, 0.25), 0.3, 30, { lexical: 0.5, gap: 0.1 }], true],
    ['a crowd weight below 1 scales the crowd', [weak, crowd(0.3, 0.25), 0.3, 30, { lexical: 0.5, gap: 0.1, crowd: 0.5 }], false],
    // Two requests with the same plain gap (0.1): under a crowd weight, the one whose best tool is
    // itself far (cosine 0.2) abstains, the one whose best tool is close (0.5) does not.
    ['a low best cosine is weak evidence', [weak, crowd(0.2, 0.1), 0.2, 30, { lexical: 0.5, gap: 0.2, crowd: 0.5 }], true],
    ['a high best cosine at the same gap', [weak, crowd(0.5, 0.4), 0.5, 30, { lexical: 0.5, gap: 0.2, crowd: 0.5 }], false],
    ['a NaN crowd weight never abstains', [weak, crowd(0.3, 0.25), 0.3, 30, { lexical: 0.5, gap: 0.1, crowd: Number.NaN }], false],
    // The lexical crowd (ABSTAIN_RULE: gap 0.25 against the 30th lexical score).
    ['a best lexical score within its crowd', [crowd(0.45, 0.3), crowd(0.3, 0.25), 0.3, 30, true], true],
    ['a best lexical score out of its crowd', [crowd(0.45, 0.1), crowd(0.3, 0.25), 0.3, 30, true], false],
    ['fewer lexical candidates than the crowd: the crowd scores 0', [[{ score: 0.3 }], crowd(0.3, 0.25), 0.3, 30, true], false],
    ['a lexical crowd weight below 1 scales the crowd', [crowd(0.45, 0.3), crowd(0.3, 0.25), 0.3, 30, { ...ABSTAIN_RULE, lexicalCrowd: 0.5 }], false],
    ['no lexical gap: the lexical crowd is not looked at', [crowd(0.45, 0.1), crowd(0.3, 0.25), 0.3, 30, { lexical: 0.5, gap: 0.17, crowd: 0.75 }], true],
    ['a NaN lexical gap never abstains', [weak, crowd(0.3, 0.25), 0.3, 30, { ...ABSTAIN_RULE, lexicalGap: Number.NaN }], false],
  ]
  for (const [name, args, want] of cases) test(name, () => expect(abstains(...args)).toBe(want))

  test("a shorter list's missing entries are never read through a polluted prototype", () => {
    const proto = Object.prototype as Record<string, unknown>
    try {
      // The lexical crowd of one candidate scores 0: 0.45 stands out of it, so no abstaining.
      proto[29] = { score: 1e9 }
      expect(abstains([{ score: 0.45 }], crowd(0.3, 0.25), 0.3, 30, true)).toBe(false)
      // No lexical candidate at all: nothing stands out, abstain (not a polluted best of 0.9).
      proto[0] = { score: 0.9 }
      expect(abstains([], crowd(0.3, 0.25), 0.3, 30, true)).toBe(true)
      // A hole in the vector list is no crowd score either: never abstains, never throws.
      const holed = crowd(0.3, 0.25)
      delete (holed as unknown[])[29]
      expect(abstains(weak, holed, 0.3, 30, true)).toBe(false)
    } finally {
      delete proto[29]
      delete proto[0]
    }
  })

  test('a rule is read as searchFused reads it: a class with getters, a rule made from ABSTAIN_RULE', () => {
    class Rule {
      get lexical() {
        return 0.5
      }
      get gap() {
        return 0.17
      }
    }
    expect(abstains(weak, crowd(0.3, 0.25), 0.3, 30, new Rule())).toBe(true)
    expect(abstains(weak, crowd(0.3, 0.25), 0.3, 30, Object.create(ABSTAIN_RULE))).toBe(true)
    expect(abstains(crowd(0.45, 0.1), crowd(0.3, 0.25), 0.3, 30, Object.create(ABSTAIN_RULE))).toBe(false)
  })

  test('searchFused answers with nothing only under the rule', async () => {
    // A real, if crude, host embedding (letter trigrams), over a catalog of 40 tools.
    const trigram = (t: string) => {
      const v = new Array(64).fill(0)
      const s = ` ${t.toLowerCase()} `
      for (let i = 0; i + 3 <= s.length; i++) v[(s.charCodeAt(i) * 961 + s.charCodeAt(i + 1) * 31 + s.charCodeAt(i + 2)) % 64] += 1
      return v
    }
    const many = [...TOOLS, ...Array.from({ length: 34 }, (_, i) => ({ name: `widget_tool_${i}`, description: `Manage widget number ${i}: list, count and archive widgets` }))]
    const idx = SemanticToolIndex.create(many, { embedder: embedderFromFunction(async (texts) => texts.map(trigram)) })
    await idx.ready
    const always = { lexical: 0.5, gap: 10 }
    expect(await idx.searchFused('qqq zzz xxyy', 5, { abstain: always })).toEqual([])
    expect((await idx.searchFused('qqq zzz xxyy', 5)).length).toBeGreaterThan(0)
    // A named tool is never abstained on.
    expect((await idx.searchFused('get_weather', 5, { abstain: always }))[0].name).toBe('get_weather')
    // A catalog smaller than the candidate pool has no crowd to compare with.
    const small = SemanticToolIndex.create(TOOLS, { embedder: embedderFromFunction(async (texts) => texts.map(trigram)) })
    await small.ready
    expect((await small.searchFused('qqq zzz xxyy', 5, { abstain: always })).length).toBeGreaterThan(0)
  })
})

test('tool text and name words', () => {
  expect(nameWords('mcp__github__create_issue')).toBe('github create issue')
  expect(nameWords('getWalletBalance')).toBe('get wallet balance')
  expect(toolText({ name: 'send_email', description: 'Send mail' })).toBe('send email: Send mail')
  expect(toolText({ name: 'x_y' })).toBe('x y')
})

describe('model directories', () => {
  test('defaultModelDir: each model its own variable, else the cache folder', () => {
    const saved = { m: process.env.TOOL_INDEX_MODEL_DIR, e: process.env.TOOL_INDEX_MULTILINGUAL_MODEL_DIR, x: process.env.XDG_CACHE_HOME }
    const restore = (k: string, v: string | undefined) => (v === undefined ? delete process.env[k] : (process.env[k] = v))
    try {
      delete process.env.TOOL_INDEX_MODEL_DIR
      delete process.env.TOOL_INDEX_MULTILINGUAL_MODEL_DIR
      process.env.XDG_CACHE_HOME = '/tmp/xdg'
      expect(defaultModelDir()).toBe(path.join('/tmp/xdg', 'tool-index', 'models', 'all-MiniLM-L6-v2'))
      expect(defaultModelDir('multilingual-e5-small')).toBe(path.join('/tmp/xdg', 'tool-index', 'models', 'multilingual-e5-small'))
      process.env.TOOL_INDEX_MODEL_DIR = '/models/minilm'
      expect(defaultModelDir()).toBe('/models/minilm')
      expect(defaultModelDir('multilingual-e5-small')).toBe(path.join('/tmp/xdg', 'tool-index', 'models', 'multilingual-e5-small'))
      process.env.TOOL_INDEX_MULTILINGUAL_MODEL_DIR = '/models/e5'
      expect(defaultModelDir('multilingual-e5-small')).toBe('/models/e5')
      expect(() => defaultModelDir('bert-base' as never)).toThrow(expect.objectContaining({ code: 'E_INVALID_ARG' }))
    } finally {
      restore('TOOL_INDEX_MODEL_DIR', saved.m)
      restore('TOOL_INDEX_MULTILINGUAL_MODEL_DIR', saved.e)
      restore('XDG_CACHE_HOME', saved.x)
    }
  })
})

describe('a host embedder (embedderFromFunction)', () => {
  // A real, if crude, embedding: letter-trigram counts hashed into 64 buckets.
  const trigram = (t: string) => {
    const v = new Array(64).fill(0)
    const s = ` ${t.toLowerCase()} `
    for (let i = 0; i + 3 <= s.length; i++) {
      let h = 0
      for (const c of s.slice(i, i + 3)) h = (h * 31 + c.charCodeAt(0)) >>> 0
      v[h % 64] += 1
    }
    return v
  }
  test('lexical serves before the vectors are ready; fused after', async () => {
    let release!: () => void
    const gate = new Promise<void>((r) => (release = r))
    const calls: number[] = []
    const emb = embedderFromFunction(async (texts) => {
      calls.push(texts.length)
      await gate
      return texts.map(trigram)
    }, 'trigram')
    const idx = SemanticToolIndex.create(TOOLS, { embedder: emb })
    expect(idx.vectorsReady).toBe(false)
    expect(idx.search('weather forecast', 1)[0].name).toBe('get_weather')
    const early = await idx.searchFused('weather forecast', 2)
    expect(early[0].vector).toBeUndefined()
    release()
    await idx.ready
    expect(idx.vectorsReady).toBe(true)
    const fused = await idx.searchFused('weather forecast', 3)
    expect(fused[0].name).toBe('get_weather')
    expect(fused[0].vector).toBeGreaterThan(0)
    expect(calls[0]).toBe(TOOLS.length)
    // incremental: add, then remove
    await idx.upsert([{ name: 'lookup_flight', description: 'Find flights between two airports' }])
    expect(calls.at(-1)).toBe(1)
    expect((await idx.searchVector('flights between airports', 1))[0].name).toBe('lookup_flight')
    idx.remove(['lookup_flight'])
    expect((await idx.searchVector('flights between airports', 10)).map((h) => h.name)).not.toContain('lookup_flight')
  })
  test('a fallback embedder takes the requests the embedder cannot read; every tool is embedded by both', async () => {
    // The fallback "reads" Chinese through a small dictionary, into 32 buckets (the embedder: 64).
    const zh: Record<string, string> = { 发送: 'send', 邮件: 'email', 天气: 'weather', 预报: 'forecast', 餐厅: 'restaurant', 预订: 'reserve' }
    const translate = (t: string) => Object.entries(zh).reduce((s, [k, v]) => s.split(k).join(` ${v} `), t)
    const mainSeen: string[] = []
    const fallbackSeen: string[] = []
    let fallbackFails = 1
    const idx = SemanticToolIndex.create(TOOLS, {
      embedder: embedderFromFunction(
        async (texts) => {
          mainSeen.push(...texts)
          return texts.map(trigram)
        },
        { id: 'main', languages: ['en'] },
      ),
      fallbackEmbedder: embedderFromFunction(async (texts) => {
        fallbackSeen.push(...texts)
        if (fallbackFails-- > 0) throw new Error('fallback down')
        return texts.map((t) => trigram(translate(t)).slice(0, 32))
      }, 'fallback'),
    })
    // The fallback's first embedding fails: `ready` says so, English requests are fused all the
    // same, and a Chinese one is ranked lexically.
    await expect(idx.ready).rejects.toMatchObject({ code: 'E_ENCODE' })
    expect(idx.vectorsReady).toBe(false)
    expect(idx.readsRequest('发送邮件')).toBe(true)
    expect((await idx.searchFused('weather forecast', 2))[0]).toMatchObject({ name: 'get_weather', vector: expect.any(Number) })
    // Waiting is for the encoder the request goes to: the embedder's vectors are all there.
    expect((await idx.searchFused('weather forecast', 2, { wait: true }))[0].vector).toEqual(expect.any(Number))
    expect((await idx.searchVector('weather forecast', 1))[0].name).toBe('get_weather')
    await expect(idx.searchFused('发送邮件', 2, { wait: true })).rejects.toMatchObject({ code: 'E_ENCODE' })
    expect((await idx.searchFused('发送邮件', 2))[0].vector).toBeUndefined()
    // `upsert([])` retries the tools the fallback has no vector of.
    mainSeen.length = 0
    await idx.upsert([])
    await idx.ready
    expect(idx.vectorsReady).toBe(true)
    expect(mainSeen).toEqual([])
    expect(fallbackSeen.length).toBe(2 * TOOLS.length)
    mainSeen.length = 0
    fallbackSeen.length = 0
    const hits = await idx.searchFused('发送邮件', 3, { unreadable: 'lexical' })
    expect(hits[0]).toMatchObject({ name: 'send_email', vector: expect.any(Number) })
    expect(fallbackSeen).toContain('发送邮件')
    expect(mainSeen).toEqual([])
    expect((await idx.searchVector('天气预报', 1))[0].name).toBe('get_weather')
    // Both stores follow upserts and removals.
    await idx.upsert([{ name: 'reserve_table', description: 'reserve a restaurant table' }])
    expect(fallbackSeen.at(-1)).toContain('reserve a restaurant table')
    expect(mainSeen.at(-1)).toContain('reserve a restaurant table')
    expect((await idx.searchVector('预订餐厅', 10)).map((h) => h.name)).toContain('reserve_table')
    idx.remove(['reserve_table'])
    expect((await idx.searchVector('预订餐厅', 10)).map((h) => h.name)).not.toContain('reserve_table')
    expect((await idx.searchVector('reserve a restaurant table', 10)).map((h) => h.name)).not.toContain('reserve_table')
  })

  test('with a fallback embedder, `ready` waits for every channel, also for work an upsert queued meanwhile', async () => {
    let openMain!: () => void
    let openFallback!: () => void
    const mainGate = new Promise<void>((r) => (openMain = r))
    const fallbackGate = new Promise<void>((r) => (openFallback = r))
    let mainCalls = 0
    const idx = SemanticToolIndex.create(TOOLS, {
      // The embedder answers the first batch at once, the next one when its gate opens.
      embedder: embedderFromFunction(async (texts) => {
        if (mainCalls++ > 0) await mainGate
        return texts.map(trigram)
      }, 'main'),
      fallbackEmbedder: embedderFromFunction(async (texts) => {
        await fallbackGate
        return texts.map((t) => trigram(t).slice(0, 32))
      }, 'fallback'),
    })
    let settled = false
    const ready = idx.ready.then(() => (settled = true))
    await new Promise((r) => setTimeout(r, 20))
    // While `ready` waits for the fallback, an upsert queues a batch on both channels.
    const upserted = idx.upsert([{ name: 'lookup_flight', description: 'Find flights between two airports' }])
    openFallback()
    await new Promise((r) => setTimeout(r, 50))
    expect(settled).toBe(false)
    expect(idx.vectorsReady).toBe(false)
    openMain()
    await ready
    await upserted
    expect(idx.vectorsReady).toBe(true)
  })

  test('a fallback embedder that is not an Embedder is E_INVALID_ARG; one on Object.prototype is not read', async () => {
    const embedder = embedderFromFunction((texts) => texts.map(trigram), 'trigram')
    for (const bad of [null, 5, {}, { embed: 'no' }]) {
      expect(() => SemanticToolIndex.create(TOOLS, { embedder, fallbackEmbedder: bad as never })).toThrow(expect.objectContaining({ code: 'E_INVALID_ARG' }))
    }
    let called = 0
    ;(Object.prototype as Record<string, unknown>).fallbackEmbedder = { embed: () => (called++, []) }
    try {
      const idx = SemanticToolIndex.create(TOOLS, { embedder })
      await idx.ready
      expect(called).toBe(0)
    } finally {
      delete (Object.prototype as Record<string, unknown>).fallbackEmbedder
    }
  })

  test('a request mostly in scripts the embedder does not read is never embedded: its lexicon gloss is, or it is ranked lexically', async () => {
    const seen: string[][] = []
    const make = (languages?: string[]) =>
      SemanticToolIndex.create(TOOLS, {
        embedder: embedderFromFunction(
          async (texts) => {
            seen.push(texts)
            return texts.map(trigram)
          },
          { id: 'trigram', languages },
        ),
      })
    const english = make(['en'])
    await english.ready
    expect(english.readsRequest('发送邮件给团队')).toBe(false)
    expect(english.readsRequest('send an email to the team')).toBe(true)
    seen.length = 0
    const zh = await english.searchFused('发送邮件给团队', 3, { wait: true, unreadable: 'lexical' })
    expect(seen).toEqual([])
    expect(zh.map((h) => h.name)).toEqual(english.search('发送邮件给团队', 3).map((r) => r.name))
    expect(zh[0]).toMatchObject({ name: 'send_email', vector: undefined })
    // By default the gloss is embedded in its place; a request without one stays lexical.
    const glossed = await english.searchFused('发送邮件给团队', 3)
    expect(seen).toEqual([['send email mail team']])
    expect(glossed[0].name).toBe('send_email')
    expect(glossed[0].vector).toBeGreaterThan(0)
    seen.length = 0
    await english.searchFused('你好吗', 3)
    expect(seen).toEqual([])
    expect(await english.searchFused('发送邮件', 3, { unreadable: 'both' as never }).catch((e) => e.code)).toBe('E_INVALID_ARG')
    const en = await english.searchFused('send an email to the team', 3)
    expect(seen).toEqual([['send an email to the team']])
    expect(en[0].vector).toBeGreaterThan(0)
    // Languages not given: any script is read, as before.
    const any = make(undefined)
    await any.ready
    seen.length = 0
    expect((await any.searchFused('发送邮件给团队', 3))[0].vector).not.toBeUndefined()
    expect(seen).toEqual([['发送邮件给团队']])
    // A model that reads Chinese embeds it.
    const zhModel = make(['en', 'zh'])
    await zhModel.ready
    seen.length = 0
    await zhModel.searchFused('发送邮件给团队', 3)
    expect(seen).toEqual([['发送邮件给团队']])
  })
  test('embedder languages are checked and read once, never through Object.prototype', () => {
    const fn = async (texts: string[]) => texts.map(trigram)
    expect(embedderFromFunction(fn, { languages: ['en'] })).toMatchObject({ id: 'host', languages: ['en'] })
    expect(embedderFromFunction(fn, { id: 'x' }).languages).toBeUndefined()
    for (const bad of ['en', [42], [''], ['x'.repeat(65)], new Array(513).fill('en')]) {
      expect(() => embedderFromFunction(fn, { languages: bad as never })).toThrow(expect.objectContaining({ code: 'E_INVALID_ARG' }))
    }
    expect(() => embedderFromFunction(fn, null as never)).toThrow(expect.objectContaining({ code: 'E_INVALID_ARG' }))
    const throwing = {
      id: 'x',
      embed: fn,
      get languages(): string[] {
        throw new Error('boom')
      },
    }
    expect(() => SemanticToolIndex.create(TOOLS, { embedder: throwing })).toThrow(expect.objectContaining({ code: 'E_INVALID_ARG' }))
    let reads = 0
    const counted = {
      id: 'x',
      embed: fn,
      get languages() {
        reads++
        return reads === 1 ? ['en'] : ['zh']
      },
    }
    const idx = SemanticToolIndex.create(TOOLS, { embedder: counted })
    expect(idx.readsRequest('发送邮件')).toBe(false)
    expect(reads).toBe(1)
    const proto = Object.prototype as Record<string, unknown>
    proto.languages = ['en']
    try {
      expect(SemanticToolIndex.create(TOOLS, { embedder: { id: 'x', embed: fn } }).readsRequest('发送邮件')).toBe(true)
    } finally {
      delete proto.languages
    }
  })
  test('an embedder that answers wrongly is a coded error', async () => {
    const bad = embedderFromFunction(async () => [[1, 2]])
    const idx = SemanticToolIndex.create(TOOLS, { embedder: bad })
    await expect(idx.ready).rejects.toMatchObject({ code: 'E_ENCODE' })
    expect(() => embedderFromFunction(42 as never)).toThrow(EncoderError)
  })
})

describe('the semantic index under hostile input', () => {
  // Letter-trigram counts hashed into 32 buckets: a real, crude embedding.
  const tri = (t: string) => {
    const v = new Array(32).fill(0)
    const s = ` ${t.toLowerCase()} `
    for (let i = 0; i + 3 <= s.length; i++) v[(s.charCodeAt(i) * 961 + s.charCodeAt(i + 1) * 31 + s.charCodeAt(i + 2)) % 32] += 1
    return v
  }
  const good = () => embedderFromFunction(async (texts) => texts.map(tri))

  test('remove() with the other form of a held name (a lone surrogate for U+FFFD) changes neither index [regression: the lexical one dropped the tool]', async () => {
    const idx = SemanticToolIndex.create([...TOOLS, { name: 'tool_a\uFFFD', description: 'weather forecast for a city' }], { embedder: good() })
    await idx.ready
    idx.remove(['tool_a\uD800'])
    expect(idx.length).toBe(TOOLS.length + 1)
    expect(idx.lexical.length).toBe(TOOLS.length + 1)
    idx.remove(['tool_a\uFFFD'])
    expect([idx.length, idx.lexical.length]).toEqual([TOOLS.length, TOOLS.length])
  })

  test('dispose() frees both indexes: every later call is E_DISPOSED, and a disposed lexical index is not built again [regression: no dispose(); upsert rebuilt it]', async () => {
    const idx = SemanticToolIndex.create(TOOLS, { embedder: good() })
    await idx.ready
    idx.dispose()
    idx.dispose()
    expect(await codeOf(() => idx.search('weather', 1))).toBe('E_DISPOSED')
    expect(await codeOf(() => idx.searchFused('weather', 1))).toBe('E_DISPOSED')
    expect(await codeOf(() => idx.upsert([]))).toBe('E_DISPOSED')
    expect(await codeOf(() => idx.remove(['x']))).toBe('E_DISPOSED')
    const other = SemanticToolIndex.create(TOOLS, { embedder: good() })
    await other.ready
    other.lexical.dispose()
    expect(await codeOf(() => other.upsert([]))).toBe('E_DISPOSED')
    expect(await codeOf(() => other.search('weather', 1))).toBe('E_DISPOSED')
  })
  const codeOf = async (p: Promise<unknown> | (() => unknown)) => {
    try {
      await (typeof p === 'function' ? p() : p)
      return 'ok'
    } catch (e) {
      return (e as { code?: string }).code ?? `uncoded ${(e as Error)?.constructor?.name}`
    }
  }

  test.each([
    ['a query vector of length 2**31 (checked before any copy)', () => ({ length: 2 ** 31 })],
    ['a query vector of the wrong length', () => [1, 2, 3]],
    ['a query vector holding NaN', () => new Array(32).fill(NaN)],
    ['a query vector whose elements throw', () => new Proxy(new Array(32).fill(1), { get: (t, k) => (k === 'length' ? 32 : (() => { throw new Error('trap') })()) })],
    ['no vector at all', () => null],
    ['a query vector holding 1e39 (no 32-bit float)', () => new Array(32).fill(1e39)],
  ])('%s: searchVector rejects with E_ENCODE; searchFused answers lexically and keeps the error', async (_what, query) => {
    let calls = 0
    const idx = SemanticToolIndex.create(TOOLS, { embedder: embedderFromFunction(async (texts) => (calls++ === 0 ? texts.map(tri) : [query()]) as never) })
    await idx.ready
    const t0 = Date.now()
    expect(await codeOf(idx.searchVector('weather', 3))).toBe('E_ENCODE')
    const fused = await idx.searchFused('weather forecast', 3, { perClause: false })
    expect(fused.map((h) => h.name)).toEqual(idx.search('weather forecast', 3).map((r) => r.name))
    expect(fused[0]).toMatchObject({ name: 'get_weather', vector: undefined })
    expect(idx.queryError).toMatchObject({ code: 'E_ENCODE' })
    expect(Date.now() - t0).toBeLessThan(5_000)
  })

  test('vectors longer than the native store takes are E_ENCODE at once, not a store error on every retry', async () => {
    const idx = SemanticToolIndex.create(TOOLS, { embedder: embedderFromFunction(async (texts) => texts.map(() => new Array(8193).fill(0.5))) })
    expect(await codeOf(idx.ready)).toBe('E_ENCODE')
    expect(String(await idx.ready.catch((e: Error) => e.message))).toContain('8192')
  })

  test('a request over 4 Mi characters is E_TOO_LARGE before the embedder sees it', async () => {
    let calls = 0
    const idx = SemanticToolIndex.create(TOOLS, {
      embedder: embedderFromFunction(async (texts) => {
        calls++
        return texts.map(tri)
      }),
    })
    await idx.ready
    const before = calls
    const huge = 'weather '.repeat((4 * 1024 * 1024) / 8 + 1)
    expect(await codeOf(idx.searchVector(huge, 3))).toBe('E_TOO_LARGE')
    expect(await codeOf(idx.searchFused(huge, 3))).toBe('E_TOO_LARGE')
    expect(calls).toBe(before)
  })

  test('an abstain rule is read once, from its own fields, and checked', async () => {
    const idx = SemanticToolIndex.create(TOOLS, { embedder: good() })
    await idx.ready
    const badRules = [
      'yes', 42, null, { lexical: 'x', gap: 0.1 }, { lexical: 0.5, gap: NaN }, { lexical: 0.5 },
      { lexical: 0.5, gap: 0.1, lexicalGap: '0.2' }, { lexical: 0.5, gap: 0.1, lexicalGap: 0.2, lexicalCrowd: Infinity },
    ]
    for (const bad of badRules) {
      expect(await codeOf(idx.searchFused('weather', 3, { abstain: bad as never }))).toMatch(/^E_INVALID_(ARG|NUMBER)$/)
    }
    const trap = Object.defineProperty({ lexical: 0.5 }, 'gap', { get: () => { throw new Error('trap') } })
    expect(await codeOf(idx.searchFused('weather', 3, { abstain: trap as never }))).toBe('E_INVALID_ARG')
    const proto = Object.prototype as Record<string, unknown>
    proto.crowd = 1e9
    try {
      // Never abstains (`lexical` below any score) unless a polluted crowd were read.
      expect((await idx.searchFused('weather forecast', 3, { abstain: { lexical: -1, gap: -0.5 } })).length).toBeGreaterThan(0)
      // Always abstains on a catalog of at least `candidates` tools, unless a polluted crowd
      // weight or lexical gap (NaN: no comparison holds) were read for the fields it leaves out.
      proto.crowd = Number.NaN
      proto.lexicalGap = Number.NaN
      const many = SemanticToolIndex.create(Array.from({ length: 30 }, (_, i) => ({ name: `tool_${i}`, description: `weather tool ${i}` })), { embedder: good() })
      await many.ready
      expect(await many.searchFused('weather', 3, { abstain: { lexical: 9, gap: 9 } })).toEqual([])
      many.dispose()
    } finally {
      delete proto.crowd
      delete proto.lexicalGap
    }
  })

  test('tools are embedded 1,000 texts a call; the embedder is read once; upsert and remove update the lexical index in place', async () => {
    const sizes: number[] = []
    let reads = 0
    const fn = async (texts: readonly string[]) => {
      sizes.push(texts.length)
      return texts.map(tri)
    }
    const embedder = {
      id: 'counted',
      get embed() {
        reads++
        return fn
      },
    }
    const many = Array.from({ length: 2500 }, (_, i) => ({ name: `tool_${i}`, description: `does thing number ${i}` }))
    const idx = SemanticToolIndex.create(many, { embedder })
    await idx.ready
    expect(sizes).toEqual([1000, 1000, 500])
    const lexical = idx.lexical
    await idx.upsert([{ name: 'get_weather', description: 'Current weather conditions and forecast for a city' }])
    idx.remove(['tool_0'])
    expect(idx.lexical).toBe(lexical)
    expect(idx.search('weather forecast', 1)[0].name).toBe('get_weather')
    expect(idx.lexical.has('tool_0')).toBe(false)
    expect(reads).toBe(1)
  })

  test('a search request whose embedding hangs is answered lexically after queryTimeoutMs', async () => {
    const keepAlive = setInterval(() => {}, 1000)
    try {
      let calls = 0
      const idx = SemanticToolIndex.create(TOOLS, {
        queryTimeoutMs: 50,
        embedder: embedderFromFunction((texts) => (calls++ === 0 ? texts.map(tri) : new Promise<never>(() => {}))),
      })
      await idx.ready
      const hits = await idx.searchFused('weather forecast', 2)
      expect(hits[0]).toMatchObject({ name: 'get_weather', vector: undefined })
      expect(idx.queryError).toMatchObject({ code: 'E_ENCODE' })
    } finally {
      clearInterval(keepAlive)
    }
    expect(() => SemanticToolIndex.create(TOOLS, { embedder: good(), queryTimeoutMs: -1 })).toThrow(expect.objectContaining({ code: 'E_INVALID_NUMBER' }))
  })

  test('names in another form (a lone surrogate beside U+FFFD) are duplicates, across upserts too', async () => {
    const held = Array.from({ length: 20_000 }, (_, i) => ({ name: `t${i}\uFFFD`, description: 'x' }))
    const idx = SemanticToolIndex.create(held, { embedder: good() })
    await idx.ready
    expect(await codeOf(() => idx.upsert([{ name: 't5\uD800', description: 'y' }]))).toBe('E_DUPLICATE_NAME')
    expect(idx.length).toBe(20_000)
    // 20,000 new names that could have another form, each checked against one list of the held
    // ones (a scan of the held names per new name took 7.9 s here; the list, 0.4 s: measured, not asserted).
    await idx.upsert(Array.from({ length: 20_000 }, (_, i) => ({ name: `n${i}\uFFFD`, description: 'z' })))
    expect(idx.length).toBe(40_000)
  }, 60_000)

  test('a bad upsert throws and changes nothing; a bad remove likewise', async () => {
    const idx = SemanticToolIndex.create(TOOLS, { embedder: good() })
    await idx.ready
    for (const bad of [[{ name: '' }], [null], [{ name: 'a' }, { name: 'a' }], null, 'send_email'] as unknown[]) {
      expect(await codeOf(() => idx.upsert(bad as never))).toMatch(/^E_(INVALID_ARG|DUPLICATE_NAME)$/)
    }
    expect(idx.length).toBe(TOOLS.length)
    await idx.upsert([{ name: 'lookup_flight', description: 'Find flights between two airports' }])
    for (const bad of ['send_email', ['send_email', 42], null]) expect(await codeOf(() => idx.remove(bad as never))).toBe('E_INVALID_ARG')
    expect(idx.length).toBe(TOOLS.length + 1)
    expect(idx.search('send an email', 1)[0].name).toBe('send_email')
  })

  test('names come back exactly as given (a lone surrogate too), and never a removed tool', async () => {
    let hold!: () => void
    let holding = false
    const emb = embedderFromFunction(async (texts) => {
      if (holding) await new Promise<void>((r) => (hold = r))
      return texts.map(tri)
    })
    const odd = 'wallet\uD800'
    const idx = SemanticToolIndex.create([...TOOLS, { name: odd, description: 'Wallet balance' }], { embedder: emb })
    await idx.ready
    const names = (await idx.searchVector('wallet balance', 10)).map((h) => h.name)
    expect(names).toContain(odd)
    for (const n of names) expect([...TOOLS.map((t) => t.name), odd]).toContain(n)
    // A tool removed while the query is being embedded is in neither channel.
    holding = true
    const pending = idx.searchFused('wallet balance', 10)
    await new Promise((r) => setTimeout(r, 20))
    idx.remove([odd])
    hold()
    expect((await pending).map((h) => h.name)).not.toContain(odd)
  })

  test('after a failed embedding, ready rejects and fused search stays lexical until the tools are embedded again', async () => {
    let fail = true
    const idx = SemanticToolIndex.create(TOOLS, {
      embedder: embedderFromFunction(async (texts) => {
        if (fail) throw Object.assign(new Error('503'), { code: 'E_UPSTREAM' })
        return texts.map(tri)
      }),
    })
    // The embedder's own error is the cause of an E_ENCODE.
    const err = await idx.ready.then(() => undefined, (e: unknown) => e)
    expect(err).toMatchObject({ code: 'E_ENCODE', cause: { code: 'E_UPSTREAM' } })
    fail = false
    await idx.upsert([{ name: 'lookup_flight', description: 'Find flights between two airports' }])
    // The retry took the tools the failed call left without vectors.
    expect(idx.vectorsReady).toBe(true)
    expect(await codeOf(idx.ready)).toBe('ok')
    expect((await idx.searchVector('weather forecast', 1))[0].name).toBe('get_weather')
  })

  test('ready, awaited while an upsert starts a newer batch, waits for that batch too', async () => {
    const emb = embedderFromFunction(async (texts) => {
      await new Promise((r) => setTimeout(r, 20))
      return texts.map(tri)
    })
    const idx = SemanticToolIndex.create(TOOLS, { embedder: emb })
    const waiting = idx.ready
    const searching = idx.searchVector('weather forecast', 1)
    const added = idx.upsert([{ name: 'lookup_flight', description: 'Find flights between two airports' }])
    expect(await codeOf(waiting)).toBe('ok')
    expect((await searching)[0].name).toBe('get_weather')
    await added
    expect(idx.vectorsReady).toBe(true)
  })

  test('an embedder that never answers fails after embedTimeoutMs, and later batches still run', async () => {
    // The deadline's timer does not keep a process alive on its own (a real hung request holds a
    // socket that does); this never-settling promise holds nothing, so the test keeps the loop up.
    const keepAlive = setInterval(() => {}, 1000)
    try {
      let calls = 0
      const idx = SemanticToolIndex.create(TOOLS, {
        embedder: embedderFromFunction((texts) => (calls++ === 0 ? new Promise<never>(() => {}) : texts.map(tri))),
        embedTimeoutMs: 100,
      })
      expect(await codeOf(idx.ready)).toBe('E_ENCODE')
      await idx.upsert([])
      expect(idx.vectorsReady).toBe(true)
    } finally {
      clearInterval(keepAlive)
    }
  })

  test.each([
    ['limit -1', -1, {}, 'E_INVALID_LIMIT'],
    ['limit NaN', NaN, {}, 'E_INVALID_LIMIT'],
    ['candidates Infinity', 5, { candidates: Infinity }, 'E_INVALID_LIMIT'],
    ['candidates 0', 5, { candidates: 0 }, 'E_INVALID_LIMIT'],
    ['rrfK -1', 5, { method: 'rrf', rrfK: -1 }, 'E_INVALID_NUMBER'],
    ['lexicalWeight NaN', 5, { lexicalWeight: NaN }, 'E_INVALID_NUMBER'],
    ['method "best"', 5, { method: 'best' }, 'E_INVALID_ARG'],
    ['candidates undefined (the default)', 5, { candidates: undefined }, 'ok'],
  ])('searchFused, %s', async (_what, limit, options, want) => {
    const idx = SemanticToolIndex.create(TOOLS, { embedder: good() })
    await idx.ready
    expect(await codeOf(idx.searchFused('weather', limit as number, options as never))).toBe(want)
  })

  test('loadLocalEncoder: bad options are E_INVALID_ARG before anything loads; none is read through Object.prototype', () => {
    const codeOfSync = (f: () => unknown) => {
      try {
        f()
        return 'ok'
      } catch (e) {
        return (e as { code?: string }).code
      }
    }
    for (const bad of [null, { maxTokens: -1 }, { maxTokens: 2.5 }, { modelDir: 5 }, { cacheDir: true }, Object.defineProperty({}, 'modelDir', { get: () => { throw new Error('x') } })]) {
      expect(codeOfSync(() => loadLocalEncoder(bad as never))).toBe('E_INVALID_ARG')
    }
    const proto = Object.prototype as Record<string, unknown>
    proto.maxTokens = -1
    proto.modelDir = 5
    try {
      expect(codeOfSync(() => loadLocalEncoder({ cacheDir: false }))).not.toBe('E_INVALID_ARG')
    } finally {
      delete proto.maxTokens
      delete proto.modelDir
    }
  })

  test('options are never read through Object.prototype', async () => {
    const idx = SemanticToolIndex.create(TOOLS, { embedder: embedderFromFunction((texts) => new Promise((r) => setTimeout(() => r(texts.map(tri)), 200))) })
    ;(Object.prototype as Record<string, unknown>).wait = true
    try {
      const t0 = Date.now()
      const early = await idx.searchFused('weather forecast', 2)
      expect(Date.now() - t0).toBeLessThan(150)
      expect(early[0].vector).toBeUndefined()
    } finally {
      delete (Object.prototype as Record<string, unknown>).wait
    }
  })
})

const modelDir = defaultModelDir()
const haveAddon = localEncoderAvailable()
const haveModel = hasModel(modelDir)
const ready = haveAddon && haveModel
if (!ready) {
  console.log(
    `[encoder.spec] skipping the local-encoder tests: ${!haveAddon ? 'companion addon not built (npm run build:encoder)' : ''}` +
      `${!haveAddon && !haveModel ? '; ' : ''}${!haveModel ? `no model in ${modelDir} (bash scripts/fetch-model.sh)` : ''}`,
  )
}

describe.skipIf(!ready)('local encoder, all-MiniLM-L6-v2 (real weights)', () => {
  const ref = JSON.parse(readFileSync(path.join(__dirname, 'fixtures', 'minilm-reference.json'), 'utf8')) as {
    vectors: Record<string, number[]>
  }

  test('matches the reference forward pass (cosine >= 0.999), batched or alone', async () => {
    const enc = loadLocalEncoder({ cacheDir: false })
    expect(enc.dim).toBe(384)
    const texts = Object.keys(ref.vectors)
    const batch = await enc.embed(texts)
    for (const [i, t] of texts.entries()) {
      expect(cos(batch[i], ref.vectors[t])).toBeGreaterThanOrEqual(0.999)
      const [alone] = enc.embedSync([t])
      expect(cos(alone, batch[i])).toBeGreaterThanOrEqual(0.9999)
      let n = 0
      for (const x of Array.from(batch[i])) n += x * x
      expect(Math.abs(Math.sqrt(n) - 1)).toBeLessThan(1e-4)
    }
    expect(await enc.embed([])).toEqual([])
    await expect(enc.embed([1 as never])).rejects.toMatchObject({ code: 'E_INVALID_ARG' })
  })

  test('dispose() lets the weights go: later embeddings are E_DISPOSED', async () => {
    const enc = loadLocalEncoder({ cacheDir: false })
    expect((await enc.embed(['open a file']))[0].length).toBe(384)
    enc.dispose()
    enc.dispose()
    await expect(enc.embed(['open a file'])).rejects.toMatchObject({ code: 'E_DISPOSED' })
    expect(() => enc.embedSync(['open a file'])).toThrow(expect.objectContaining({ code: 'E_DISPOSED' }))
  })

  test('an embedding still waiting for a thread when its signal aborts does not run [regression: timed-out requests ran on and held the thread pool]', async () => {
    const enc = loadLocalEncoder({ cacheDir: false })
    const stop = new AbortController()
    const calls = Array.from({ length: 40 }, (_, i) =>
      enc.embed([`request number ${i} about files and folders`], { query: true, signal: stop.signal }).then(
        () => 'ran',
        (e: { code?: string; message?: string }) => `${e.code} ${e.message}`,
      ),
    )
    stop.abort()
    const out = await Promise.all(calls)
    const cancelled = out.filter((o) => o === 'E_ENCODE cancelled before the encoder started').length
    // Only the embeddings the pool's threads (4 by default) had already taken may run.
    expect(cancelled).toBeGreaterThanOrEqual(30)
    expect(out.every((o) => o === 'ran' || o.startsWith('E_ENCODE cancelled'))).toBe(true)
    const aborted = new AbortController()
    aborted.abort()
    await expect(enc.embed(['x'], { signal: aborted.signal })).rejects.toMatchObject({ code: 'E_ENCODE' })
  })

  test('query cost (printed, not asserted)', async () => {
    const enc = loadLocalEncoder({ cacheDir: false })
    const ms: number[] = []
    for (let i = 0; i < 20; i++) {
      const t0 = performance.now()
      await enc.embed([`send an email to the team about meeting number ${i}`])
      ms.push(performance.now() - t0)
    }
    ms.sort((a, b) => a - b)
    console.log(`[encoder.spec] MiniLM query embedding p50 ${ms[10].toFixed(1)} ms, max ${ms[19].toFixed(1)} ms`)
  })

  test('on-disk cache: vectors keyed by model and text survive a reload', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'tool-index-vec-'))
    try {
      const a = loadLocalEncoder({ cacheDir: dir })
      expect(a.cached).toBe(0)
      const [v1] = await a.embed(['reserve a table for two'])
      expect(a.cached).toBe(1)
      const b = loadLocalEncoder({ cacheDir: dir })
      expect(b.cached).toBe(1)
      const [v2] = await b.embed(['reserve a table for two'])
      expect(Array.from(v2)).toEqual(Array.from(v1))
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  test('fused search finds tools worded unlike the request', async () => {
    const idx = SemanticToolIndex.create(TOOLS, { embedder: loadLocalEncoder({ cacheDir: false }) })
    await idx.ready
    expect((await idx.searchVector('I want to eat out with friends on Friday night', 1))[0].name).toBe('book_restaurant')
    const fused = await idx.searchFused('how much is 100 dollars in euros', 2)
    expect(fused[0].name).toBe('convert_currency')
    expect((await idx.searchFused('北京明天的天气', 3))[0].name).toBe('get_weather')
  })

  test('languages come from the model card: English for MiniLM, so a Chinese request stays lexical', async () => {
    const enc = loadLocalEncoder({ cacheDir: false })
    expect(enc.languages).toEqual(['en'])
    expect(loadLocalEncoder({ cacheDir: false, languages: ['multilingual'] }).languages).toEqual(['multilingual'])
    const idx = SemanticToolIndex.create(TOOLS, { embedder: enc })
    await idx.ready
    expect(await idx.searchFused('发送邮件给团队', 3, { unreadable: 'lexical' })).toMatchObject([{ name: 'send_email', vector: undefined }])
    expect((await idx.searchFused('给团队发邮件说构建失败了', 3))[0].name).toBe('send_email')
  })

  test.skipIf(process.platform === 'win32')('a model card that is a FIFO, or too large, is not read: languages unknown', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'tool-index-card-'))
    try {
      for (const f of ['config.json', 'tokenizer.json', 'model.safetensors']) symlinkSync(path.join(modelDir, f), path.join(dir, f))
      expect(spawnSync('mkfifo', [path.join(dir, 'README.md')]).status).toBe(0)
      const t0 = performance.now()
      expect(loadLocalEncoder({ modelDir: dir, cacheDir: false }).languages).toBeUndefined()
      expect(performance.now() - t0).toBeLessThan(20_000)
      rmSync(path.join(dir, 'README.md'))
      writeFileSync(path.join(dir, 'README.md'), `---\nlanguage: en\n---\n${'x'.repeat(1 << 20)}`)
      expect(loadLocalEncoder({ modelDir: dir, cacheDir: false }).languages).toBeUndefined()
      writeFileSync(path.join(dir, 'README.md'), `---\nlanguage:\n- en\n- zh\n---\n`)
      expect(loadLocalEncoder({ modelDir: dir, cacheDir: false }).languages).toEqual(['en', 'zh'])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  test('prompts from config_sentence_transformers.json go before requests and tool texts, keyed apart in the cache', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'tool-index-prompts-'))
    const cache = mkdtempSync(path.join(os.tmpdir(), 'tool-index-prompts-cache-'))
    try {
      for (const f of ['config.json', 'tokenizer.json', 'model.safetensors']) symlinkSync(path.join(modelDir, f), path.join(dir, f))
      const plain = loadLocalEncoder({ modelDir: dir, cacheDir: false })
      expect(plain.prompts).toEqual({ query: '', document: '' })
      expect(loadLocalEncoder({ cacheDir: false }).prompts).toEqual({ query: '', document: '' })
      writeFileSync(path.join(dir, 'config_sentence_transformers.json'), JSON.stringify({ prompts: { query: 'query: ', passage: 'passage: ' } }))
      const prompted = loadLocalEncoder({ modelDir: dir, cacheDir: cache })
      expect(prompted.prompts).toEqual({ query: 'query: ', document: 'passage: ' })
      expect(prompted.id).not.toBe(plain.id)
      const text = 'send an email to the team'
      const [doc] = await prompted.embed([text])
      const [req] = await prompted.embed([text], { query: true })
      const [reqSync] = prompted.embedSync([text], { query: true })
      const [wantDoc, wantReq] = plain.embedSync([`passage: ${text}`, `query: ${text}`])
      expect(cos(doc, wantDoc)).toBeGreaterThanOrEqual(0.9999)
      expect(cos(req, wantReq)).toBeGreaterThanOrEqual(0.9999)
      expect(cos(reqSync, wantReq)).toBeGreaterThanOrEqual(0.9999)
      // The tool text's vector is cached; the request that reads alike is not served from it.
      expect(cos(req, doc)).toBeLessThan(0.999)
      expect(prompted.cached).toBe(1)
      // A `query` polluted onto Object.prototype is not an option.
      ;(Object.prototype as Record<string, unknown>).query = true
      try {
        const [polluted] = await prompted.embed([text], {})
        expect(cos(polluted, doc)).toBeGreaterThanOrEqual(0.9999)
      } finally {
        delete (Object.prototype as Record<string, unknown>).query
      }
      for (const bad of ['{"prompts":{"query":7}}', '{"prompts":["query: "]}', 'not json', JSON.stringify({ prompts: { query: 'x'.repeat(257) } })]) {
        writeFileSync(path.join(dir, 'config_sentence_transformers.json'), bad)
        expect(() => loadLocalEncoder({ modelDir: dir, cacheDir: false })).toThrow(expect.objectContaining({ code: 'E_MODEL_INVALID' }))
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
      rmSync(cache, { recursive: true, force: true })
    }
  })

  test('the model id follows the weights and the tokenizer, not only their sizes; a weights file cut short while loading never kills the process', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'tool-index-weights-'))
    try {
      for (const f of ['config.json', 'tokenizer.json', 'model.safetensors']) writeFileSync(path.join(dir, f), readFileSync(path.join(modelDir, f)))
      const first = loadLocalEncoder({ modelDir: dir, cacheDir: false }).id
      const weights = readFileSync(path.join(dir, 'model.safetensors'))
      // One byte of the last tensor's data changed: same header, same size, other weights.
      weights[weights.length - 3] ^= 0x01
      writeFileSync(path.join(dir, 'model.safetensors'), weights)
      const second = loadLocalEncoder({ modelDir: dir, cacheDir: false }).id
      expect(second).not.toBe(first)
      // A child process loads the model while this one cuts the file short: it may fail, with a
      // coded error, but never die of a signal (a mapped file cut short is SIGBUS).
      const script = `const s = require(${JSON.stringify(path.join(__dirname, '..', 'dist', 'semantic.js'))});
        try { s.loadLocalEncoder({ modelDir: ${JSON.stringify(dir)}, cacheDir: false }); console.log('loaded') }
        catch (e) { console.log(e.code) }`
      for (const delay of [5, 20, 40]) {
        writeFileSync(path.join(dir, 'model.safetensors'), weights)
        const child = spawnSync(
          'sh',
          ['-c', `node -e "$S" & pid=$!; sleep ${delay / 1000}; truncate -s 4096 ${JSON.stringify(path.join(dir, 'model.safetensors'))}; wait $pid`],
          { env: { ...process.env, S: script }, encoding: 'utf8', timeout: 60_000 },
        )
        expect(child.signal).toBeNull()
        expect(child.status).toBe(0)
        expect(child.stdout.trim()).toMatch(/^(loaded|E_MODEL_INVALID)$/)
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  test('a config.json that does not fit candle\'s BERT is E_MODEL_INVALID, not an abort of the process', () => {
    const base = JSON.parse(readFileSync(path.join(modelDir, 'config.json'), 'utf8'))
    for (const change of [{ max_position_embeddings: 4 }, { num_attention_heads: 0 }, { num_attention_heads: 7 }, { hidden_size: 0 }]) {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'ti-model-'))
      try {
        for (const f of ['tokenizer.json', 'model.safetensors']) symlinkSync(path.join(modelDir, f), path.join(dir, f))
        writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ ...base, ...change }))
        expect(() => loadLocalEncoder({ modelDir: dir, cacheDir: false })).toThrow(expect.objectContaining({ code: 'E_MODEL_INVALID' }))
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    }
  })

  test.skipIf(process.platform === 'win32')('a cache file that is a FIFO or a device is not read: the cache starts empty', () => {
    const cacheDir = mkdtempSync(path.join(os.tmpdir(), 'ti-cache-'))
    try {
      const id = loadLocalEncoder({ cacheDir: false }).id
      const file = path.join(cacheDir, `${id.replace(/[^A-Za-z0-9._@-]/g, '_')}.vec`)
      // In a child process with a deadline: a blocking open would stop this one for good.
      const load = `const { loadLocalEncoder } = require(${JSON.stringify(path.join(__dirname, '..', 'dist', 'encoder.js'))}); console.log(loadLocalEncoder({ cacheDir: ${JSON.stringify(cacheDir)} }).cached)`
      for (const make of [() => spawnSync('mkfifo', [file]), () => symlinkSync('/dev/zero', file)]) {
        rmSync(file, { force: true })
        make()
        const r = spawnSync(process.execPath, ['-e', load], { encoding: 'utf8', timeout: 20_000 })
        expect(r.signal).toBeNull()
        expect(r.stdout.trim()).toBe('0')
      }
    } finally {
      rmSync(cacheDir, { recursive: true, force: true })
    }
  })

  test('a cache directory that cannot be written costs nothing but the cache: the vectors still come back', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'ti-rocache-'))
    try {
      const file = path.join(dir, 'a-file')
      writeFileSync(file, 'not a directory')
      const enc = loadLocalEncoder({ cacheDir: path.join(file, 'cache') })
      const [v] = await enc.embed(['send an email to the team'])
      expect(v.length).toBe(384)
      expect(enc.cached).toBe(1)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  test('search requests are read from the vector cache but never added to it', async () => {
    const cacheDir = mkdtempSync(path.join(os.tmpdir(), 'ti-qcache-'))
    try {
      const enc = loadLocalEncoder({ cacheDir })
      const idx = SemanticToolIndex.create(TOOLS, { embedder: enc })
      await idx.ready
      expect(enc.cached).toBe(TOOLS.length)
      for (const q of ['tell my team the build broke', 'what is the weather in Paris', 'book a table for two']) await idx.searchFused(q, 3)
      await idx.searchVector('how much is 100 dollars in euros', 1)
      expect(enc.cached).toBe(TOOLS.length)
    } finally {
      rmSync(cacheDir, { recursive: true, force: true })
    }
  })

  test('a missing model directory is E_MODEL_NOT_FOUND', () => {
    expect(() => loadLocalEncoder({ modelDir: path.join(os.tmpdir(), 'no-such-model-dir'), cacheDir: false })).toThrow(
      expect.objectContaining({ code: 'E_MODEL_NOT_FOUND' }),
    )
  })
})

// multilingual-e5-small, 4-bit, converted by scripts/convert-e5.mjs (bash scripts/fetch-model.sh
// multilingual-e5-small). Skipped without it, like the MiniLM tests.
const e5Dir = defaultModelDir('multilingual-e5-small')
const e5Ready = haveAddon && hasModel(e5Dir)
if (haveAddon && !e5Ready) console.log(`[encoder.spec] skipping the multilingual-e5-small tests: no model in ${e5Dir} (bash scripts/fetch-model.sh multilingual-e5-small)`)

describe.skipIf(!e5Ready)('local encoder, multilingual-e5-small (real weights, converted)', () => {
  const ref = JSON.parse(readFileSync(path.join(__dirname, 'fixtures', 'e5-reference.json'), 'utf8')) as {
    query: Record<string, number[]>
    passage: Record<string, number[]>
  }

  test("matches the wheel's own engine with its prompts (cosine >= 0.999), requests and tool texts", async () => {
    const enc = loadLocalEncoder({ modelDir: e5Dir, cacheDir: false })
    expect(enc.dim).toBe(384)
    expect(enc.prompts).toEqual({ query: 'query: ', document: 'passage: ' })
    // No model card: about 100 languages, so every request is embedded as it is.
    expect(enc.languages).toBeUndefined()
    for (const [kind, vectors] of [['query', ref.query], ['passage', ref.passage]] as const) {
      const texts = Object.keys(vectors)
      const got = await enc.embed(texts, { query: kind === 'query' })
      for (const [i, t] of texts.entries()) expect(cos(got[i], vectors[t])).toBeGreaterThanOrEqual(0.999)
    }
  }, 60_000)

  test('fused search reads a Chinese request itself, no lexicon word needed', async () => {
    const idx = SemanticToolIndex.create(TOOLS, { embedder: loadLocalEncoder({ modelDir: e5Dir, cacheDir: false }) })
    await idx.ready
    expect(idx.readsRequest('帮我订一张周五晚上两个人的餐桌')).toBe(true)
    expect((await idx.searchVector('帮我订一张周五晚上两个人的餐桌', 1))[0].name).toBe('book_restaurant')
    expect((await idx.searchVector('一百美元能换多少欧元', 1))[0].name).toBe('convert_currency')
    expect((await idx.searchFused('给团队发邮件说构建失败了', 3))[0].name).toBe('send_email')
  }, 60_000)

  test.skipIf(!ready)('as the fallback embedder beside MiniLM: Chinese requests go to e5, English ones to MiniLM', async () => {
    const minilm = loadLocalEncoder({ cacheDir: false })
    const idx = SemanticToolIndex.create(TOOLS, { embedder: minilm, fallbackEmbedder: loadLocalEncoder({ modelDir: e5Dir, cacheDir: false }) })
    await idx.ready
    // With `unreadable: 'lexical'`, MiniLM alone would rank these lexically (no vector score).
    expect((await idx.searchFused('一百美元能换多少欧元', 1, { unreadable: 'lexical' }))[0]).toMatchObject({ name: 'convert_currency', vector: expect.any(Number) })
    expect((await idx.searchFused('帮我订一张周五晚上两个人的餐桌', 1, { unreadable: 'lexical' }))[0]).toMatchObject({ name: 'book_restaurant', vector: expect.any(Number) })
    const english = await idx.searchFused('I want to eat out with friends on Friday night', 1)
    const alone = SemanticToolIndex.create(TOOLS, { embedder: minilm })
    await alone.ready
    expect(english).toEqual(await alone.searchFused('I want to eat out with friends on Friday night', 1))
  }, 60_000)
})
