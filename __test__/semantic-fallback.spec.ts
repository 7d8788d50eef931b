/**
 * The fallback embedder of the semantic index (`SemanticIndexOptions.fallbackEmbedder`) under
 * hostile objects and hostile answers: a second encoder for the requests the first cannot read,
 * with its own vector store and embedding queue. Hermetic: the embedders here are plain objects
 * or `embedderFromFunction` over small keyword counts (no model, no network).
 */
import { describe, expect, test } from 'bun:test'
import { spawnSync } from 'node:child_process'
import path from 'node:path'
import { EncoderError, SemanticToolIndex, embedderFromFunction, fuse, lexiconGloss, queryClauses, routeRequest, toolLanguageText, toolText } from '../dist/semantic.js'

// ---------------------------------------------------------------------------------------------
// Helpers

/** Keyword counts over a vocabulary (each row: words of one concept), after a small constant. */
const keywordVectors =
  (vocab: readonly (readonly string[])[]) =>
  (text: string): number[] => {
    const t = text.toLowerCase()
    return [0.05, ...vocab.map((words) => words.reduce((n, w) => n + t.split(w).length - 1, 0))]
  }
/** The main embedder's space: English words only, 11 floats. */
const enVec = keywordVectors([['weather'], ['forecast'], ['email'], ['send'], ['restaurant'], ['table'], ['flight'], ['airport'], ['invoice'], ['currenc']])
/** The fallback's space: English and Chinese words, 9 floats (another length than the main's). */
const zhVec = keywordVectors([
  ['weather', '天气'],
  ['forecast', '预报'],
  ['email', '邮件'],
  ['send', '发送'],
  ['restaurant', '餐厅'],
  ['reserve', '预订'],
  ['flight', '航班'],
  ['invoice', '发票'],
])

/** A small catalog whose names all start with `p` (each test its own prefix). */
const catalog = (p: string) => [
  { name: `${p}_weather`, description: 'Current weather conditions and forecast for a city' },
  { name: `${p}_email`, description: 'Send an email message to recipients' },
  { name: `${p}_restaurant`, description: 'Reserve a table at a restaurant' },
  { name: `${p}_flight`, description: 'Find a flight between two airports' },
  { name: `${p}_currency`, description: 'Convert money between currencies' },
]

const EN_REQUEST = 'weather forecast'
const ZH_REQUEST = '天气预报'
const RU_REQUEST = 'прогноз погоды'

interface Recorded {
  texts: string[]
  options: unknown
}

/**
 * A host embedder as a plain object `{ id, languages, embed(texts, options) }` that records each
 * call. `answer` (default: `vec` of each text) may return anything, throw, or hang.
 */
function host(
  id: string,
  languages: string[] | undefined,
  vec: (t: string) => number[],
  answer?: (texts: string[], query: boolean, call: number) => unknown,
) {
  const calls: Recorded[] = []
  const embedder = {
    id,
    ...(languages ? { languages } : {}),
    embed(texts: readonly string[], options?: { query?: boolean }): Promise<ArrayLike<number>[]> {
      calls.push({ texts: [...texts], options })
      const list = [...texts]
      const query = options?.query === true
      return (answer ? answer(list, query, calls.length) : list.map(vec)) as Promise<ArrayLike<number>[]>
    },
  }
  const isQuery = (c: Recorded) => (c.options as { query?: unknown } | undefined)?.query === true
  return {
    embedder,
    calls,
    tools: () => calls.filter((c) => !isQuery(c)),
    requests: () => calls.filter(isQuery),
  }
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))

function deferred<T = void>() {
  let resolve!: (v: T) => void
  let reject!: (e: unknown) => void
  const promise = new Promise<T>((res, rej) => {
    resolve = res
    reject = rej
  })
  return { promise, resolve, reject }
}

/** The code of what `p` throws or rejects with: `'ok'` when it does not. */
async function codeOf(p: Promise<unknown> | (() => unknown)): Promise<string> {
  try {
    await (typeof p === 'function' ? p() : p)
    return 'ok'
  } catch (e) {
    const code = (e as { code?: unknown } | null)?.code
    return typeof code === 'string' ? code : `uncoded ${Object.prototype.toString.call(e)}`
  }
}

function codeOfSync(f: () => unknown): string {
  try {
    f()
    return 'ok'
  } catch (e) {
    const code = (e as { code?: unknown } | null)?.code
    return typeof code === 'string' ? code : `uncoded ${Object.prototype.toString.call(e)}`
  }
}

/** Records unhandled promise rejections until `stop()` (which lets pending work settle first). */
function watchUnhandled() {
  const seen: unknown[] = []
  const on = (reason: unknown) => {
    seen.push(reason)
  }
  process.on('unhandledRejection', on)
  return {
    async stop(): Promise<unknown[]> {
      await sleep(30)
      process.off('unhandledRejection', on)
      return seen
    },
  }
}

/** The deadline timers are unref'd: a test that waits on one keeps the event loop up itself. */
async function withKeepAlive<T>(fn: () => Promise<T>): Promise<T> {
  const keepAlive = setInterval(() => {}, 1000)
  try {
    return await fn()
  } finally {
    clearInterval(keepAlive)
  }
}

const names = (hits: readonly { name: string }[]) => hits.map((h) => h.name)

/** A value that throws on every look at it (a revoked Proxy): `instanceof`, `.message`, `String()`. */
function revokedProxy(): object {
  const { proxy, revoke } = Proxy.revocable({}, {})
  revoke()
  return proxy
}

// ---------------------------------------------------------------------------------------------

describe('fallback embedder: hostile objects when the index is created', () => {
  const throwingProxy = () =>
    new Proxy(
      {},
      {
        get: () => {
          throw new Error('get trap')
        },
        has: () => {
          throw new Error('has trap')
        },
        getOwnPropertyDescriptor: () => {
          throw new Error('descriptor trap')
        },
        getPrototypeOf: () => {
          throw new Error('prototype trap')
        },
        ownKeys: () => {
          throw new Error('ownKeys trap')
        },
      },
    )
  const embed = async (texts: readonly string[]) => texts.map(zhVec)
  const BAD: [string, () => unknown][] = [
    ['embed is a throwing getter', () => ({ id: 'x', get embed() { throw new Error('embed getter') } })],
    ['languages is a throwing getter', () => ({ id: 'x', embed, get languages() { throw new Error('languages getter') } })],
    ['a Proxy whose every trap throws', throwingProxy],
    ['a revoked Proxy', revokedProxy],
    ['embed is a Proxy of an object (not callable)', () => ({ id: 'x', embed: new Proxy({}, {}) })],
    ['languages is a string', () => ({ id: 'x', embed, languages: 'zh' })],
    ['languages is an array-like object', () => ({ id: 'x', embed, languages: { 0: 'zh', length: 1 } })],
    ['languages is null', () => ({ id: 'x', embed, languages: null })],
    ['languages holds a number', () => ({ id: 'x', embed, languages: ['zh', 42] })],
    ['languages holds null', () => ({ id: 'x', embed, languages: [null] })],
    ['languages holds an empty string', () => ({ id: 'x', embed, languages: ['  '] })],
    ['languages holds a String object', () => ({ id: 'x', embed, languages: [new String('zh')] })],
    ['languages holds a symbol', () => ({ id: 'x', embed, languages: [Symbol('zh')] })],
    ['languages has a hole', () => ({ id: 'x', embed, languages: [, 'zh'] })],
    ['languages lists 513 codes', () => ({ id: 'x', embed, languages: new Array(513).fill('zh') })],
    ['languages is an array Proxy whose get trap throws', () => ({ id: 'x', embed, languages: new Proxy(['zh'], { get: () => { throw new Error('trap') } }) })],
    ['languages has an element getter that throws', () => ({ id: 'x', embed, languages: Object.defineProperty(['zh'], 0, { get: () => { throw new Error('element') } }) })],
  ]

  test.each(BAD)('%s: E_INVALID_ARG, and no embedder is ever called', async (_what, make) => {
    const watch = watchUnhandled()
    const main = host('main', ['en'], enVec)
    let thrown: unknown
    try {
      SemanticToolIndex.create(catalog('c1'), { embedder: main.embedder, fallbackEmbedder: make() as never })
    } catch (e) {
      thrown = e
    }
    expect(thrown).toBeInstanceOf(Error)
    expect(thrown).toMatchObject({ code: 'E_INVALID_ARG' })
    // Nothing was started in the background for an index that was never made.
    await sleep(5)
    expect(main.calls).toEqual([])
    expect(await watch.stop()).toEqual([])
  })

  test('options.fallbackEmbedder as a throwing getter is E_INVALID_ARG', () => {
    const main = host('main', ['en'], enVec)
    const options = Object.defineProperty({ embedder: main.embedder }, 'fallbackEmbedder', {
      enumerable: true,
      get: () => {
        throw new Error('options getter')
      },
    })
    expect(codeOfSync(() => SemanticToolIndex.create(catalog('c2'), options as never))).toBe('E_INVALID_ARG')
    expect(main.calls).toEqual([])
  })

  test('a fallback on a polluted Object.prototype is never read, nor a polluted embed or languages', async () => {
    const proto = Object.prototype as Record<string, unknown>
    let polluted = 0
    const pollutedEmbed = (texts: readonly string[]) => (polluted++, texts.map(zhVec))
    proto.fallbackEmbedder = { id: 'polluted', languages: ['zh'], embed: pollutedEmbed }
    try {
      const main = host('main', ['en'], enVec)
      const idx = SemanticToolIndex.create(catalog('c3'), { embedder: main.embedder })
      // Read, the polluted fallback would read Chinese and take the request.
      expect(idx.readsRequest(ZH_REQUEST)).toBe(false)
      await idx.ready
      const hits = await idx.searchFused(ZH_REQUEST, 3, { unreadable: 'lexical' })
      expect(hits[0]).toMatchObject({ name: 'c3_weather', vector: undefined })
      expect(polluted).toBe(0)
    } finally {
      delete proto.fallbackEmbedder
    }
    // An own-less fallback does not find `embed` on the polluted prototype.
    proto.embed = pollutedEmbed
    try {
      const main = host('main', ['en'], enVec)
      expect(codeOfSync(() => SemanticToolIndex.create(catalog('c4'), { embedder: main.embedder, fallbackEmbedder: { id: 'bare' } as never }))).toBe('E_INVALID_ARG')
      await sleep(5)
      expect(polluted).toBe(0)
    } finally {
      delete proto.embed
    }
    // A fallback without `languages` reads any script, whatever the prototype says.
    proto.languages = ['ru']
    try {
      const main = host('main', ['en'], enVec)
      const fb = host('fb', undefined, zhVec)
      const idx = SemanticToolIndex.create(catalog('c5'), { embedder: main.embedder, fallbackEmbedder: fb.embedder })
      expect(idx.readsRequest(ZH_REQUEST)).toBe(true)
      await idx.ready
      expect((await idx.searchFused(ZH_REQUEST, 1))[0]).toMatchObject({ name: 'c5_weather', vector: expect.any(Number) })
      expect(fb.requests().map((c) => c.texts[0])).toEqual([ZH_REQUEST])
    } finally {
      delete proto.languages
    }
  })

  test('fusion options left out are not read through a polluted Object.prototype [regression: the default was a plain {}]', async () => {
    const main = host('main', ['en'], enVec)
    const idx = SemanticToolIndex.create(catalog('c7'), { embedder: main.embedder })
    await idx.ready
    const clean = await idx.searchFused(EN_REQUEST, 3)
    const proto = Object.prototype as Record<string, unknown>
    proto.method = 'bogus'
    proto.lexicalWeight = 0
    proto.candidates = 0
    try {
      expect(await idx.searchFused(EN_REQUEST, 3)).toEqual(clean)
    } finally {
      delete proto.method
      delete proto.lexicalWeight
      delete proto.candidates
    }
    expect(clean[0]).toMatchObject({ name: 'c7_weather' })
  })

  test('the fallback is read once: embed and languages each looked at once, embed called on the object', async () => {
    let embedReads = 0
    let languageReads = 0
    class Counted {
      readonly id = 'counted'
      readonly #vec = zhVec
      seen = 0
      get embed() {
        embedReads++
        return embedReads === 1 ? this.#embed : () => Promise.reject(new Error('a second read of embed'))
      }
      get languages() {
        languageReads++
        return languageReads === 1 ? ['en', 'zh'] : ['ru']
      }
      #embed = async function (this: Counted, texts: readonly string[]) {
        this.seen += texts.length
        return texts.map(this.#vec)
      }
    }
    const fallback = new Counted()
    const main = host('main', ['en'], enVec)
    const idx = SemanticToolIndex.create(catalog('c6'), { embedder: main.embedder, fallbackEmbedder: fallback as never })
    await idx.ready
    expect(idx.readsRequest(ZH_REQUEST)).toBe(true)
    expect(idx.readsRequest(RU_REQUEST)).toBe(false)
    expect((await idx.searchFused(ZH_REQUEST, 1))[0]).toMatchObject({ name: 'c6_weather', vector: expect.any(Number) })
    await idx.upsert([{ name: 'c6_invoice', description: 'Pay an invoice' }])
    expect(embedReads).toBe(1)
    expect(languageReads).toBe(1)
    // `this` was the fallback itself: its own private state was reached.
    expect(fallback.seen).toBe(catalog('c6').length + 1 + 1)
  })

  test('a languages list whose trap throws a value that throws on every look is E_INVALID_ARG, not a raw TypeError', async () => {
    // `instanceof` on a revoked Proxy throws: the check of what the copy of the list threw must
    // not let that TypeError escape `SemanticToolIndex.create` uncoded.
    const main = host('main', ['en'], enVec)
    const languages = new Proxy(['zh'], {
      get: () => {
        throw revokedProxy()
      },
    })
    expect(codeOfSync(() => SemanticToolIndex.create(catalog('c7'), { embedder: main.embedder, fallbackEmbedder: { id: 'x', embed: async (t: readonly string[]) => t.map(zhVec), languages } as never }))).toBe('E_INVALID_ARG')
  })
})

// ---------------------------------------------------------------------------------------------

describe('fallback embedder: bad answers', () => {
  test('a fallback whose vectors have another length than the main embedder\'s has a store of its own', async () => {
    const main = host('main', ['en'], enVec)
    const fb = host('fb', ['en', 'zh'], zhVec)
    const idx = SemanticToolIndex.create(catalog('d1'), { embedder: main.embedder, fallbackEmbedder: fb.embedder })
    await idx.ready
    expect(idx.vectorsReady).toBe(true)
    expect(enVec('x').length).not.toBe(zhVec('x').length)
    const en = await idx.searchFused(EN_REQUEST, 3)
    expect(en[0]).toMatchObject({ name: 'd1_weather', vector: expect.any(Number) })
    const zh = await idx.searchFused(ZH_REQUEST, 3)
    expect(zh[0]).toMatchObject({ name: 'd1_weather', vector: expect.any(Number) })
    expect((await idx.searchVector('发送邮件', 1))[0].name).toBe('d1_email')
    expect((await idx.searchVector('send email', 1))[0].name).toBe('d1_email')
    // Each request went to its own embedder only.
    expect(main.requests().map((c) => c.texts[0])).toEqual([EN_REQUEST, 'send email'])
    expect(fb.requests().map((c) => c.texts[0])).toEqual([ZH_REQUEST, '发送邮件'])
  })

  const BAD_ANSWERS: [string, (texts: string[]) => unknown][] = [
    ['vectors of two lengths in one answer', (t) => t.map((x, i) => (i === 1 ? [...zhVec(x), 1] : zhVec(x)))],
    ['a NaN', (t) => t.map((x, i) => (i === 2 ? zhVec(x).map(() => NaN) : zhVec(x)))],
    ['an Infinity', (t) => t.map((x) => [Infinity, ...zhVec(x).slice(1)])],
    ['a -Infinity', (t) => t.map((x) => [...zhVec(x).slice(1), -Infinity])],
    ['1e39 (no 32-bit float)', (t) => t.map((x) => [1e39, ...zhVec(x).slice(1)])],
    ['a string that is no number', (t) => t.map((x) => ['abc', ...zhVec(x).slice(1)])],
    ['a blank string', (t) => t.map((x) => [' ', ...zhVec(x).slice(1)])],
    ['each vector as a string', (t) => t.map((x) => zhVec(x).join(','))],
    ['numeric strings', (t) => t.map((x) => zhVec(x).map(String))],
    ['Number objects', (t) => t.map((x) => zhVec(x).map((n) => new Number(n)))],
    ['one vector too few', (t) => t.slice(1).map(zhVec)],
    ['one vector too many', (t) => [...t, 'extra'].map(zhVec)],
    ['no vectors', () => []],
    ['null', () => null],
    ['undefined', () => undefined],
    ['an array-like object, not an array', (t) => ({ ...Object.fromEntries(t.map((x, i) => [i, zhVec(x)])), length: t.length })],
    ['an array Proxy whose length throws', (t) => new Proxy(t.map(zhVec), { get: (o, k) => (k === 'length' ? (() => { throw new Error('length trap') })() : Reflect.get(o, k)) })],
    ['vectors of no floats', (t) => t.map(() => [])],
    ['a vector claiming 2**31 floats', (t) => t.map(() => ({ length: 2 ** 31 }))],
    ['a vector whose elements throw', (t) => t.map(() => new Proxy(zhVec(''), { get: (o, k) => (k === 'length' ? o.length : (() => { throw new Error('element trap') })()) }))],
    ['a thenable whose then getter throws', () => ({ get then() { throw new Error('then trap') } })],
    ['a synchronous throw of a string', () => { throw 'down' }],
    ['a rejection with undefined', () => Promise.reject(undefined)],
    ['a rejection with null', () => Promise.reject(null)],
    ['a rejection with an error whose message getter throws', () => Promise.reject(Object.defineProperty(new Error('x'), 'message', { get: () => { throw new Error('message trap') } }))],
  ]

  test.each(BAD_ANSWERS)('a fallback answering %s: ready is E_ENCODE, English stays fused, the fallback\'s requests are lexical', async (_what, answer) => {
    const watch = watchUnhandled()
    const p = 'd2'
    const main = host('main', ['en'], enVec)
    const fb = host('fb', ['en', 'zh'], zhVec, (texts, query) => (query ? texts.map(zhVec) : answer(texts)))
    const idx = SemanticToolIndex.create(catalog(p), { embedder: main.embedder, fallbackEmbedder: fb.embedder })
    const err = await idx.ready.then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(err).toBeInstanceOf(EncoderError)
    expect(err).toMatchObject({ code: 'E_ENCODE' })
    expect(idx.vectorsReady).toBe(false)
    // English: fused through the main embedder, whose vectors are all there.
    const en = await idx.searchFused(EN_REQUEST, 3)
    expect(en[0]).toMatchObject({ name: `${p}_weather`, vector: expect.any(Number) })
    // Chinese: the fallback's request, answered by the lexical ranking alone; never sent to the
    // main embedder, which cannot read it.
    const zh = await idx.searchFused(ZH_REQUEST, 3)
    expect(names(zh)).toEqual(names(idx.search(ZH_REQUEST, 3)))
    expect(zh.length).toBeGreaterThan(0)
    for (const h of zh) expect(h.vector).toBeUndefined()
    expect(main.requests().map((c) => c.texts[0])).toEqual([EN_REQUEST])
    expect(await codeOf(idx.searchVector(ZH_REQUEST, 3))).toBe('E_ENCODE')
    expect(await watch.stop()).toEqual([])
  })

  test('a failing fallback whose index is never waited for leaves no unhandled rejection', async () => {
    const watch = watchUnhandled()
    const main = host('main', ['en'], enVec)
    const fb = host('fb', ['en', 'zh'], zhVec, () => Promise.reject(new Error('fallback down')))
    // One index is never looked at again; of the other, neither `ready` nor the upsert's promise is.
    const untouched = SemanticToolIndex.create(catalog('d5'), { embedder: main.embedder, fallbackEmbedder: fb.embedder })
    const idx = SemanticToolIndex.create(catalog('d6'), { embedder: main.embedder, fallbackEmbedder: fb.embedder })
    void idx.upsert([{ name: 'd6_invoice', description: 'Pay an invoice' }])
    await sleep(20)
    expect(fb.tools().length).toBe(3)
    expect(untouched.vectorsReady).toBe(false)
    expect(idx.vectorsReady).toBe(false)
    expect(await watch.stop()).toEqual([])
  })

  test('fallback vectors whose length changes from one call to the next: E_ENCODE, and a retry mends it', async () => {
    const watch = watchUnhandled()
    const p = 'd3'
    let toolDim = 0 // extra floats on tool vectors
    let queryDim = 0 // extra floats on request vectors
    const pad = (v: number[], n: number) => [...v, ...new Array(n).fill(0.5)]
    const main = host('main', ['en'], enVec)
    const fb = host('fb', ['en', 'zh'], zhVec, (texts, query) => texts.map((t) => pad(zhVec(t), query ? queryDim : toolDim)))
    const idx = SemanticToolIndex.create(catalog(p), { embedder: main.embedder, fallbackEmbedder: fb.embedder })
    await idx.ready
    // A later tool embedding of another length: the new tool gets no fallback vector.
    toolDim = 1
    expect(await codeOf(idx.upsert([{ name: `${p}_invoice`, description: 'Pay an invoice' }]))).toBe('E_ENCODE')
    expect(await codeOf(idx.ready)).toBe('E_ENCODE')
    expect(idx.vectorsReady).toBe(false)
    expect((await idx.searchFused('pay the invoice', 1))[0]).toMatchObject({ name: `${p}_invoice`, vector: expect.any(Number) })
    expect((await idx.searchFused('发票', 3)).every((h) => h.vector === undefined)).toBe(true)
    toolDim = 0
    await idx.upsert([])
    expect(idx.vectorsReady).toBe(true)
    expect((await idx.searchFused('发票', 1))[0]).toMatchObject({ name: `${p}_invoice`, vector: expect.any(Number) })
    // A request vector of another length than the fallback's store: lexical, error kept.
    queryDim = 2
    const zh = await idx.searchFused(ZH_REQUEST, 3)
    expect(zh[0]).toMatchObject({ name: `${p}_weather`, vector: undefined })
    expect(idx.queryError).toMatchObject({ code: 'E_ENCODE' })
    expect(await codeOf(idx.searchVector(ZH_REQUEST, 1))).toBe('E_ENCODE')
    // The main embedder's requests are untouched, and a good request clears the error.
    expect((await idx.searchFused(EN_REQUEST, 1))[0]).toMatchObject({ name: `${p}_weather`, vector: expect.any(Number) })
    expect(idx.queryError).toBeUndefined()
    expect(await watch.stop()).toEqual([])
  })

  test('a fallback that throws a value that throws on every look (a revoked Proxy) makes ready reject with E_ENCODE', async () => {
    // What the embedder throws, or a trap of its answer throws, is turned into E_ENCODE after an
    // `instanceof` check; on a revoked Proxy `instanceof` itself throws, and that TypeError must
    // not become the rejection.
    const watch = watchUnhandled()
    for (const answer of [
      () => {
        throw revokedProxy()
      },
      (texts: string[]) => texts.map(() => new Proxy(zhVec(''), { get: (o, k) => (k === 'length' ? o.length : (() => { throw revokedProxy() })()) })),
      (texts: string[]) => new Proxy(texts.map(zhVec), { get: () => { throw revokedProxy() } }),
      () => Promise.reject(new Proxy({}, { getPrototypeOf: () => { throw new Error('prototype trap') } })),
    ]) {
      const main = host('main', ['en'], enVec)
      const fb = host('fb', ['en', 'zh'], zhVec, (texts, query) => (query ? texts.map(zhVec) : answer(texts)))
      const idx = SemanticToolIndex.create(catalog('d4'), { embedder: main.embedder, fallbackEmbedder: fb.embedder })
      expect(await codeOf(idx.ready)).toBe('E_ENCODE')
      expect((await idx.searchFused(EN_REQUEST, 1))[0]).toMatchObject({ name: 'd4_weather', vector: expect.any(Number) })
    }
    expect(await watch.stop()).toEqual([])
  })
})

// ---------------------------------------------------------------------------------------------

describe('fallback embedder that never answers', () => {
  test('a hung tool embedding: ready is E_ENCODE after embedTimeoutMs; its requests are lexical; upsert([]) mends it', () =>
    withKeepAlive(async () => {
      const watch = watchUnhandled()
      const p = 'h1'
      let hang = true
      const main = host('main', ['en'], enVec)
      const fb = host('fb', ['en', 'zh'], zhVec, (texts) => (hang ? new Promise<never>(() => {}) : texts.map(zhVec)))
      const t0 = Date.now()
      const idx = SemanticToolIndex.create(catalog(p), { embedder: main.embedder, fallbackEmbedder: fb.embedder, embedTimeoutMs: 40 })
      const err = await idx.ready.then(
        () => undefined,
        (e: unknown) => e,
      )
      const took = Date.now() - t0
      expect(err).toMatchObject({ code: 'E_ENCODE' })
      expect(took).toBeGreaterThanOrEqual(30)
      expect(took).toBeLessThan(1_500)
      expect(idx.vectorsReady).toBe(false)
      expect((await idx.searchFused(EN_REQUEST, 1))[0]).toMatchObject({ name: `${p}_weather`, vector: expect.any(Number) })
      const t1 = Date.now()
      const zh = await idx.searchFused(ZH_REQUEST, 3)
      expect(Date.now() - t1).toBeLessThan(500)
      expect(zh[0]).toMatchObject({ name: `${p}_weather`, vector: undefined })
      expect(fb.requests()).toEqual([])
      // The fallback answers again: the next upsert embeds what the hung call left out.
      hang = false
      await idx.upsert([])
      expect(idx.vectorsReady).toBe(true)
      expect((await idx.searchFused(ZH_REQUEST, 1))[0]).toMatchObject({ name: `${p}_weather`, vector: expect.any(Number) })
      expect(await watch.stop()).toEqual([])
    }))

  test('a hung request embedding: lexical answer after queryTimeoutMs with queryError set; a late answer changes nothing', () =>
    withKeepAlive(async () => {
      const watch = watchUnhandled()
      const p = 'h2'
      const late: ReturnType<typeof deferred<number[][]>>[] = []
      const main = host('main', ['en'], enVec)
      const fb = host('fb', ['en', 'zh'], zhVec, (texts, query) => {
        if (!query) return texts.map(zhVec)
        const d = deferred<number[][]>()
        late.push(d)
        return d.promise
      })
      const idx = SemanticToolIndex.create(catalog(p), { embedder: main.embedder, fallbackEmbedder: fb.embedder, queryTimeoutMs: 40 })
      await idx.ready
      const t0 = Date.now()
      const zh = await idx.searchFused(ZH_REQUEST, 3)
      const took = Date.now() - t0
      expect(took).toBeGreaterThanOrEqual(30)
      expect(took).toBeLessThan(1_500)
      expect(names(zh)).toEqual(names(idx.search(ZH_REQUEST, 3)))
      expect(zh[0]).toMatchObject({ name: `${p}_weather`, vector: undefined })
      expect(idx.queryError).toBeInstanceOf(EncoderError)
      expect(idx.queryError).toMatchObject({ code: 'E_ENCODE' })
      expect(await codeOf(idx.searchVector(ZH_REQUEST, 1))).toBe('E_ENCODE')
      expect(late.length).toBe(2)
      // The abandoned calls settle late: one rejects, one answers. Neither is unhandled, and
      // neither is taken for a later request.
      late[0].reject(new Error('late failure'))
      late[1].resolve([zhVec('flight')])
      await sleep(5)
      expect(main.requests()).toEqual([])
      const en = await idx.searchFused(EN_REQUEST, 1)
      expect(en[0]).toMatchObject({ name: `${p}_weather`, vector: expect.any(Number) })
      expect(idx.queryError).toBeUndefined()
      expect(await watch.stop()).toEqual([])
    }))

  test('a hung fallback never keeps the process alive (default deadlines, in a child process)', () => {
    const dist = path.join(__dirname, '..', 'dist', 'semantic.js')
    // Index a hangs on its tools (600 s deadline), index b on a request (10 s deadline). The
    // child prints what it got and reaches its end; it must then exit at once.
    const script = `
      const s = require(${JSON.stringify(dist)});
      const tools = [{ name: 'k_weather', description: 'weather forecast' }, { name: 'k_email', description: 'send an email' }];
      const vec = (t) => [0.05, t.split('weather').length - 1, t.split('email').length - 1];
      const main = s.embedderFromFunction((texts) => texts.map(vec), { id: 'main', languages: ['en'] });
      const a = s.SemanticToolIndex.create(tools, { embedder: main, fallbackEmbedder: { id: 'hang', languages: ['en', 'zh'], embed: () => new Promise(() => {}) } });
      a.ready.then(() => console.log('a ready'), (e) => console.log('a failed', e.code));
      const b = s.SemanticToolIndex.create(tools, { embedder: main, fallbackEmbedder: { id: 'hangq', languages: ['en', 'zh'], embed: (texts, o) => (o && o.query ? new Promise(() => {}) : texts.map(vec)) } });
      (async () => {
        const lexical = await a.searchFused('天气预报', 1);
        console.log('a lexical', lexical.length > 0 && lexical[0].vector === undefined);
        await b.ready;
        console.log('b ready');
        b.searchFused('天气预报', 1).then(() => console.log('b answered'));
        setTimeout(() => console.log('end'), 20);
      })();
    `
    const t0 = Date.now()
    const child = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 8_000 })
    const took = Date.now() - t0
    expect(child.signal).toBeNull()
    expect(child.status).toBe(0)
    expect(child.stdout.trim().split('\n')).toEqual(['a lexical true', 'b ready', 'end'])
    expect(took).toBeLessThan(5_000)
  }, 10_000)
})

// ---------------------------------------------------------------------------------------------

describe('tools removed or replaced while the fallback embeds', () => {
  test('removed and replaced tools never come back; replaced ones get fresh vectors from both embedders', async () => {
    const p = 'r1'
    const gate = deferred()
    let gated = true
    const main = host('main', ['en'], enVec)
    const fb = host('fb', ['en', 'zh'], zhVec, async (texts, query) => {
      if (gated && !query) await gate.promise
      return texts.map(zhVec)
    })
    const tools = [...catalog(p), { name: `${p}_reports`, description: 'Weather forecast reports' }]
    const idx = SemanticToolIndex.create(tools, { embedder: main.embedder, fallbackEmbedder: fb.embedder })
    await sleep(10)
    // The main embedder is done; the fallback's first call waits.
    expect(main.tools().length).toBe(1)
    expect(fb.tools().length).toBe(1)
    expect(idx.vectorsReady).toBe(false)
    idx.remove([`${p}_weather`])
    const replacement = { name: `${p}_reports`, description: 'Invoice reports' }
    const added = { name: `${p}_billing`, description: 'Invoice billing' }
    const upserted = idx.upsert([replacement, added])
    gated = false
    gate.resolve()
    await upserted
    await idx.ready
    expect(idx.vectorsReady).toBe(true)
    // Both embedders embedded the new texts, and only those, after their first call.
    const fresh = [toolText(replacement), toolText(added)].sort()
    expect(main.tools().map((c) => [...c.texts].sort())).toEqual([tools.map(toolText).sort(), fresh])
    expect(fb.tools().map((c) => [...c.texts].sort())).toEqual([tools.map(toolText).sort(), fresh])
    // The removed tool is in no result of either store, by fused or vector search.
    const held = new Set([...catalog(p).map((t) => t.name), replacement.name, added.name])
    held.delete(`${p}_weather`)
    for (const q of [EN_REQUEST, ZH_REQUEST, 'invoice reports', '发票', 'flight airport', '航班']) {
      for (const hits of [await idx.searchFused(q, Infinity), await idx.searchFused(q, Infinity, { unreadable: 'lexical' }), await idx.searchVector(q, Infinity)]) {
        expect(names(hits)).not.toContain(`${p}_weather`)
        for (const n of names(hits)) expect(held.has(n)).toBe(true)
      }
    }
    // The replaced tool's vectors are of its new text in both stores: near invoices, far from
    // the weather its old text was about.
    expect((await idx.searchVector('发票', 1))[0].name).toMatch(new RegExp(`^${p}_(reports|billing)$`))
    const zhWeather = await idx.searchVector(ZH_REQUEST, Infinity)
    const enWeather = await idx.searchVector(EN_REQUEST, Infinity)
    expect(zhWeather.find((h) => h.name === `${p}_reports`)!.score).toBeLessThan(0.5)
    expect(enWeather.find((h) => h.name === `${p}_reports`)!.score).toBeLessThan(0.5)
    const zhInvoice = await idx.searchVector('发票', Infinity)
    expect(zhInvoice.find((h) => h.name === `${p}_reports`)!.score).toBeGreaterThan(0.9)
  })

  test('a name removed and given again while the fallback embeds comes back with its new text only', async () => {
    const p = 'r2'
    const gate = deferred()
    const main = host('main', ['en'], enVec)
    const fb = host('fb', ['en', 'zh'], zhVec, async (texts, query, call) => {
      if (call === 1 && !query) await gate.promise
      return texts.map(zhVec)
    })
    // A name with no word of either vocabulary: only its description places it.
    const before = { name: `${p}_tool`, description: 'Find a flight between two airports' }
    const after = { name: `${p}_tool`, description: 'Pay an invoice' }
    const idx = SemanticToolIndex.create([...catalog(p), before], { embedder: main.embedder, fallbackEmbedder: fb.embedder })
    await sleep(10)
    idx.remove([before.name])
    const again = idx.upsert([after])
    gate.resolve()
    await again
    await idx.ready
    expect(idx.vectorsReady).toBe(true)
    // Its old text (flights) is nowhere; its new one (invoices) in both stores.
    for (const q of ['航班', 'flight airport']) {
      const hit = (await idx.searchVector(q, Infinity)).find((h) => h.name === before.name)
      expect(hit!.score).toBeLessThan(0.5)
    }
    for (const q of ['发票', 'invoice']) expect((await idx.searchVector(q, 1))[0]).toMatchObject({ name: after.name, score: expect.any(Number) })
    expect((await idx.searchVector('发票', 1))[0].score).toBeGreaterThan(0.9)
    expect(fb.tools().at(-1)!.texts).toEqual([toolText(after)])
    expect(main.tools().at(-1)!.texts).toEqual([toolText(after)])
  })

  test('a tool removed while the fallback embeds a request is in neither ranking of that request', async () => {
    const p = 'r3'
    let hold: ReturnType<typeof deferred<void>> | undefined
    const main = host('main', ['en'], enVec)
    const fb = host('fb', ['en', 'zh'], zhVec, async (texts, query) => {
      if (query && hold) await hold.promise
      return texts.map(zhVec)
    })
    const idx = SemanticToolIndex.create(catalog(p), { embedder: main.embedder, fallbackEmbedder: fb.embedder })
    await idx.ready
    expect(names(await idx.searchFused(ZH_REQUEST, 10))).toContain(`${p}_weather`)
    hold = deferred()
    const fused = idx.searchFused(ZH_REQUEST, 10)
    const vector = idx.searchVector(ZH_REQUEST, 10)
    await sleep(10)
    idx.remove([`${p}_weather`])
    hold.resolve()
    const f = await fused
    const v = await vector
    expect(names(f)).not.toContain(`${p}_weather`)
    expect(names(v)).not.toContain(`${p}_weather`)
    // The answer was still fused (the other tools kept their vectors).
    expect(f.some((h) => h.vector !== undefined)).toBe(true)
    expect(v.length).toBe(catalog(p).length - 1)
  })

  test('a tool removed once both stores hold it leaves both, and both stay complete', async () => {
    const p = 'r5'
    const main = host('main', ['en'], enVec)
    const fb = host('fb', ['en', 'zh'], zhVec)
    const idx = SemanticToolIndex.create(catalog(p), { embedder: main.embedder, fallbackEmbedder: fb.embedder })
    await idx.ready
    idx.remove([`${p}_weather`, `${p}_email`])
    expect(idx.vectorsReady).toBe(true)
    expect(await codeOf(idx.ready)).toBe('ok')
    for (const q of [EN_REQUEST, ZH_REQUEST, 'send email', '发送邮件']) {
      const fused = await idx.searchFused(q, Infinity)
      expect(fused.some((h) => h.vector !== undefined)).toBe(true)
      const vector = await idx.searchVector(q, Infinity)
      expect(names(vector).sort()).toEqual([`${p}_currency`, `${p}_flight`, `${p}_restaurant`])
      expect(names(fused)).not.toContain(`${p}_weather`)
      expect(names(fused)).not.toContain(`${p}_email`)
    }
    // Given again, each store embeds it anew.
    await idx.upsert([{ name: `${p}_email`, description: 'Send an email message to recipients' }])
    expect(main.tools().length).toBe(2)
    expect(fb.tools().length).toBe(2)
    expect((await idx.searchVector('发送邮件', 1))[0].name).toBe(`${p}_email`)
  })

  test('a tool removed while upsert([]) re-embeds it on the fallback is not stored, and the index completes', async () => {
    const p = 'r4'
    let mode: 'fail' | 'gate' | 'ok' = 'fail'
    const gate = deferred()
    const main = host('main', ['en'], enVec)
    const fb = host('fb', ['en', 'zh'], zhVec, async (texts) => {
      if (mode === 'fail') throw new Error('fallback down')
      if (mode === 'gate') await gate.promise
      return texts.map(zhVec)
    })
    const idx = SemanticToolIndex.create(catalog(p), { embedder: main.embedder, fallbackEmbedder: fb.embedder })
    expect(await codeOf(idx.ready)).toBe('E_ENCODE')
    mode = 'gate'
    const retry = idx.upsert([])
    await sleep(10)
    idx.remove([`${p}_email`])
    gate.resolve()
    await retry
    expect(idx.vectorsReady).toBe(true)
    expect(await codeOf(idx.ready)).toBe('ok')
    const hits = await idx.searchVector('发送邮件', Infinity)
    expect(names(hits)).not.toContain(`${p}_email`)
    expect(hits.length).toBe(catalog(p).length - 1)
  })
})

// ---------------------------------------------------------------------------------------------

describe('upsert([]) after a failed fallback embedding', () => {
  test('retries on the fallback only the tools it has no vector of, and nothing on the main embedder', async () => {
    const p = 'u1'
    const many = Array.from({ length: 1_200 }, (_, i) => ({ name: `${p}_tool_${i}`, description: `does thing number ${i}` }))
    let failCall = 2
    const main = host('main', ['en'], enVec)
    const fb = host('fb', ['en', 'zh'], zhVec, (texts, _query, call) => {
      if (call === failCall) throw new Error('fallback down')
      return texts.map(zhVec)
    })
    const idx = SemanticToolIndex.create(many, { embedder: main.embedder, fallbackEmbedder: fb.embedder })
    expect(await codeOf(idx.ready)).toBe('E_ENCODE')
    expect(idx.vectorsReady).toBe(false)
    // 1,000 texts a call: the second call (200 tools) failed.
    expect(main.tools().map((c) => c.texts.length)).toEqual([1_000, 200])
    expect(fb.tools().map((c) => c.texts.length)).toEqual([1_000, 200])
    const failed = fb.tools()[1].texts
    expect(failed).toEqual(many.slice(1_000).map(toolText))
    // One of them is removed first: it is not retried.
    idx.remove([`${p}_tool_1100`])
    failCall = -1
    await idx.upsert([])
    expect(main.calls.length).toBe(2)
    expect(fb.tools().length).toBe(3)
    expect(fb.tools()[2].texts).toEqual(failed.filter((t) => t !== toolText(many[1_100])))
    expect(idx.vectorsReady).toBe(true)
    expect(await codeOf(idx.ready)).toBe('ok')
    // Nothing is missing now: another upsert([]) calls no embedder.
    await idx.upsert([])
    expect(main.calls.length).toBe(2)
    expect(fb.calls.length).toBe(3)
  })

  test('a failed fallback embedding of an upsert: upsert([]) retries those texts alone', async () => {
    const p = 'u2'
    let fail = false
    const main = host('main', ['en'], enVec)
    const fb = host('fb', ['en', 'zh'], zhVec, (texts) => {
      if (fail) throw Object.assign(new Error('503'), { code: 'E_UPSTREAM' })
      return texts.map(zhVec)
    })
    const idx = SemanticToolIndex.create(catalog(p), { embedder: main.embedder, fallbackEmbedder: fb.embedder })
    await idx.ready
    fail = true
    const fresh = [
      { name: `${p}_invoice`, description: 'Pay an invoice' },
      { name: `${p}_weather`, description: 'Weather forecast for the coast' },
    ]
    const err = await idx.upsert(fresh).then(
      () => undefined,
      (e: unknown) => e,
    )
    // The host's own error is the cause of the E_ENCODE.
    expect(err).toMatchObject({ code: 'E_ENCODE', cause: { code: 'E_UPSTREAM' } })
    expect(await codeOf(idx.ready)).toBe('E_ENCODE')
    const mainCalls = main.calls.length
    fail = false
    await idx.upsert([])
    expect(main.calls.length).toBe(mainCalls)
    expect([...fb.tools().at(-1)!.texts].sort()).toEqual(fresh.map(toolText).sort())
    expect(idx.vectorsReady).toBe(true)
    expect((await idx.searchFused('发票', 1))[0]).toMatchObject({ name: `${p}_invoice`, vector: expect.any(Number) })
  })
})

// ---------------------------------------------------------------------------------------------

describe('routing between the embedder and the fallback', () => {
  test('routeRequest: the first encoder that reads the request, else the gloss to the first that reads it, else none', () => {
    const en = { id: 'en', reads: (t: string) => /^[\x00-\x7f]*$/.test(t) }
    const any = { id: 'any', reads: () => true }
    const reads = (e: { reads: (t: string) => boolean }, t: string) => e.reads(t)
    const zh = '帮我在 GitHub 上创建一个 issue'
    const gloss = lexiconGloss(zh)
    expect(gloss).not.toBe('')
    const cases: [string, (typeof en)[], 'gloss' | 'lexical', { id: string; text: string } | undefined][] = [
      ['send an email', [en, any], 'gloss', { id: 'en', text: 'send an email' }],
      ['send an email', [any, en], 'lexical', { id: 'any', text: 'send an email' }],
      [zh, [en, any], 'lexical', { id: 'any', text: zh }],
      [zh, [en], 'gloss', { id: 'en', text: gloss }],
      [zh, [en], 'lexical', undefined],
      ['你好吗', [en], 'gloss', undefined],
      ['天气', [en], 'gloss', { id: 'en', text: lexiconGloss('天气') }],
      [zh, [], 'gloss', undefined],
    ]
    for (const [query, encoders, unreadable, want] of cases) {
      const got = routeRequest(query, encoders, reads, unreadable)
      expect(got && { id: got.encoder.id, text: got.text }).toEqual(want)
    }
  })

  test('a request the main embedder reads never reaches the fallback; one only the fallback reads goes there', async () => {
    const p = 'o1'
    const main = host('main', ['en'], enVec)
    const fb = host('fb', undefined, zhVec) // reads any script, English too
    const idx = SemanticToolIndex.create(catalog(p), { embedder: main.embedder, fallbackEmbedder: fb.embedder })
    await idx.ready
    expect(idx.readsRequest(EN_REQUEST)).toBe(true)
    expect(idx.readsRequest(ZH_REQUEST)).toBe(true)
    expect(idx.readsRequest(RU_REQUEST)).toBe(true)
    await idx.searchFused(EN_REQUEST, 3)
    await idx.searchFused('send an email, then check the weather forecast', 3)
    await idx.searchVector(EN_REQUEST, 3)
    expect(fb.requests()).toEqual([])
    expect(main.requests().length).toBe(3)
    await idx.searchFused(ZH_REQUEST, 3)
    await idx.searchVector(RU_REQUEST, 3)
    expect(main.requests().length).toBe(3)
    expect(fb.requests().map((c) => c.texts)).toEqual([[ZH_REQUEST], [RU_REQUEST]])
  })

  test('readsRequest is true when either embedder reads the request', () => {
    const en = host('main', ['en'], enVec).embedder
    const zh = host('fb', ['en', 'zh'], zhVec).embedder
    const ru = host('fb', ['ru'], zhVec).embedder
    const alone = SemanticToolIndex.create(catalog('o2'), { embedder: en })
    const withZh = SemanticToolIndex.create(catalog('o3'), { embedder: en, fallbackEmbedder: zh })
    const withRu = SemanticToolIndex.create(catalog('o4'), { embedder: en, fallbackEmbedder: ru })
    expect([alone, withZh, withRu].map((i) => i.readsRequest(ZH_REQUEST))).toEqual([false, true, false])
    expect([alone, withZh, withRu].map((i) => i.readsRequest(RU_REQUEST))).toEqual([false, false, true])
    expect([alone, withZh, withRu].map((i) => i.readsRequest(EN_REQUEST))).toEqual([true, true, true])
    expect(codeOfSync(() => withZh.readsRequest(42 as never))).toBe('E_INVALID_ARG')
  })

  test('a request neither reads: its gloss goes to the first embedder that reads the gloss, or it is ranked lexically', async () => {
    const p = 'o5'
    const request = '发送邮件给团队'
    const gloss = lexiconGloss(request)
    expect(gloss).toMatch(/send email/)
    // Main English, fallback Russian: the gloss goes to the main embedder.
    {
      const main = host('main', ['en'], enVec)
      const fb = host('fb', ['ru'], zhVec)
      const idx = SemanticToolIndex.create(catalog(p), { embedder: main.embedder, fallbackEmbedder: fb.embedder })
      await idx.ready
      expect(idx.readsRequest(request)).toBe(false)
      const glossed = await idx.searchFused(request, 3)
      expect(glossed[0]).toMatchObject({ name: `${p}_email`, vector: expect.any(Number) })
      expect(main.requests().map((c) => c.texts)).toEqual([[gloss]])
      const lexical = await idx.searchFused(request, 3, { unreadable: 'lexical' })
      expect(names(lexical)).toEqual(names(idx.search(request, 3)))
      for (const h of lexical) expect(h.vector).toBeUndefined()
      expect(main.requests().length).toBe(1)
      expect(fb.requests()).toEqual([])
    }
    // Main Russian, fallback English: the gloss goes to the fallback.
    {
      const main = host('main', ['ru'], enVec)
      const fb = host('fb', ['en'], zhVec)
      const idx = SemanticToolIndex.create(catalog(`${p}b`), { embedder: main.embedder, fallbackEmbedder: fb.embedder })
      await idx.ready
      const glossed = await idx.searchFused(request, 3)
      expect(glossed[0]).toMatchObject({ name: `${p}b_email`, vector: expect.any(Number) })
      expect(fb.requests().map((c) => c.texts)).toEqual([[gloss]])
      expect(main.requests()).toEqual([])
    }
    // The index's own `unreadable: 'lexical'`; a request with no gloss at all; one neither
    // reads whose gloss neither reads either: no embedder sees any of them.
    {
      const main = host('main', ['en'], enVec)
      const fb = host('fb', ['en', 'zh'], zhVec)
      const idx = SemanticToolIndex.create(catalog(`${p}c`), { embedder: main.embedder, fallbackEmbedder: fb.embedder, fusion: { unreadable: 'lexical' } })
      await idx.ready
      expect(idx.readsRequest(RU_REQUEST)).toBe(false)
      for (const hits of [await idx.searchFused(RU_REQUEST, 3), await idx.searchFused(RU_REQUEST, 3, { unreadable: 'gloss' })]) {
        for (const h of hits) expect(h.vector).toBeUndefined()
      }
      const main2 = host('main', ['ru'], enVec)
      const fb2 = host('fb', ['el'], zhVec)
      const idx2 = SemanticToolIndex.create(catalog(`${p}d`), { embedder: main2.embedder, fallbackEmbedder: fb2.embedder })
      await idx2.ready
      const lexical = await idx2.searchFused(request, 3)
      expect(lexical[0]).toMatchObject({ name: `${p}d_email`, vector: undefined })
      await idx2.searchFused('你好吗', 3)
      expect([...main.requests(), ...fb.requests(), ...main2.requests(), ...fb2.requests()]).toEqual([])
    }
  })
})

// ---------------------------------------------------------------------------------------------

describe('the query flag', () => {
  test('the fallback gets query: true with requests (and their clauses), never with tool texts', async () => {
    const p = 'q1'
    const main = host('main', ['zh'], zhVec) // the main reads Chinese: English goes to the fallback
    const fb = host('fb', ['en'], enVec)
    const idx = SemanticToolIndex.create(catalog(p), { embedder: main.embedder, fallbackEmbedder: fb.embedder })
    await idx.ready
    await idx.upsert([{ name: `${p}_invoice`, description: 'Pay an invoice' }])
    const request = 'send an email, then check the weather forecast'
    const clauses = queryClauses(request)
    expect(clauses.length).toBe(2)
    const hits = await idx.searchFused(request, 3)
    expect(hits[0].vector).toEqual(expect.any(Number))
    await idx.searchFused(EN_REQUEST, 3, { perClause: false })
    await idx.searchVector('flight airport', 3)
    // Tool texts: without the flag, and every text is a tool's.
    const toolTexts = new Set([...catalog(p), { name: `${p}_invoice`, description: 'Pay an invoice' }].map(toolText))
    expect(fb.tools().length).toBe(2)
    for (const c of fb.tools()) {
      expect((c.options as { query?: unknown } | undefined)?.query).not.toBe(true)
      for (const t of c.texts) expect(toolTexts.has(t)).toBe(true)
    }
    // Requests: the flag, in one call with the clauses.
    expect(fb.requests().map((c) => c.texts)).toEqual([[request, ...clauses], [EN_REQUEST], ['flight airport']])
    for (const c of fb.requests()) expect(c.options).toMatchObject({ query: true })
    expect(fb.calls.length).toBe(5)
    expect(main.requests()).toEqual([])
  })

  test('embedderFromFunction as the fallback: tool texts and requests both arrive, as copies', async () => {
    const p = 'q2'
    const seen: string[][] = []
    const fb = embedderFromFunction(
      (texts) => {
        seen.push(texts)
        const out = texts.map(zhVec)
        texts.length = 0 // a host that empties what it was given changes nothing for the index
        return out
      },
      { id: 'fb', languages: ['en', 'zh'] },
    )
    const main = host('main', ['en'], enVec)
    const idx = SemanticToolIndex.create(catalog(p), { embedder: main.embedder, fallbackEmbedder: fb })
    await idx.ready
    expect(idx.vectorsReady).toBe(true)
    expect((await idx.searchFused(ZH_REQUEST, 1))[0]).toMatchObject({ name: `${p}_weather`, vector: expect.any(Number) })
    expect(seen.length).toBe(2)
  })
})

// ---------------------------------------------------------------------------------------------

describe('waiting with a failed or slow fallback', () => {
  test('wait: true waits for the embedder the request goes to: the main\'s requests are fused, the fallback\'s reject', async () => {
    const p = 'w1'
    const main = host('main', ['en'], enVec)
    const fb = host('fb', ['en', 'zh'], zhVec, () => {
      throw new Error('fallback down')
    })
    const idx = SemanticToolIndex.create(catalog(p), { embedder: main.embedder, fallbackEmbedder: fb.embedder })
    expect(await codeOf(idx.ready)).toBe('E_ENCODE')
    const en = await idx.searchFused(EN_REQUEST, 1, { wait: true })
    expect(en[0]).toMatchObject({ name: `${p}_weather`, vector: expect.any(Number) })
    expect((await idx.searchVector(EN_REQUEST, 1))[0].name).toBe(`${p}_weather`)
    // The fallback's own request: lexical without waiting, E_ENCODE (as `ready`) with it.
    expect((await idx.searchFused(ZH_REQUEST, 1))[0]).toMatchObject({ name: `${p}_weather`, vector: undefined })
    expect(await codeOf(idx.searchFused(ZH_REQUEST, 1, { wait: true }))).toBe('E_ENCODE')
    expect(await codeOf(idx.searchVector(ZH_REQUEST, 1))).toBe('E_ENCODE')
    expect(main.requests().map((c) => c.texts[0])).toEqual([EN_REQUEST, EN_REQUEST])
    expect(fb.requests()).toEqual([])
  })

  test('ready, awaited while the fallback is slow, also waits for a main batch queued meanwhile', async () => {
    const p = 'w2'
    const fbGate = deferred()
    const mainGate = deferred()
    let gateMain = false
    const main = host('main', ['en'], enVec, async (texts, query) => {
      if (gateMain && !query) await mainGate.promise
      return texts.map(enVec)
    })
    const fb = host('fb', ['en', 'zh'], zhVec, async (texts, query, call) => {
      if (call === 1 && !query) await fbGate.promise
      return texts.map(zhVec)
    })
    const idx = SemanticToolIndex.create(catalog(p), { embedder: main.embedder, fallbackEmbedder: fb.embedder })
    let settled = false
    const waiting = idx.ready.then(() => (settled = true))
    await sleep(10)
    // The main embedder is done and the fallback is waited for; a new tool queues work on both,
    // the main's held back.
    gateMain = true
    const added = idx.upsert([{ name: `${p}_invoice`, description: 'Pay an invoice' }])
    fbGate.resolve()
    await sleep(20)
    expect(settled).toBe(false)
    expect(idx.vectorsReady).toBe(false)
    mainGate.resolve()
    await waiting
    await added
    expect(idx.vectorsReady).toBe(true)
    expect((await idx.searchFused('pay the invoice', 1))[0]).toMatchObject({ name: `${p}_invoice`, vector: expect.any(Number) })
    expect((await idx.searchFused('发票', 1))[0]).toMatchObject({ name: `${p}_invoice`, vector: expect.any(Number) })
  })
})

describe('result limits', () => {
  test('any limit above the most tools an index may hold means all of them (it never wraps in the native store)', async () => {
    const index = SemanticToolIndex.create(catalog('lim'), { embedder: embedderFromFunction((texts) => texts.map(enVec)) })
    await index.ready
    for (const limit of [Infinity, 1e10, 2 ** 32, 2 ** 32 + 2, 1e308]) {
      expect((await index.searchVector(EN_REQUEST, limit)).length).toBe(5)
      expect((await index.searchFused(EN_REQUEST, limit)).length).toBe(5)
    }
    expect((await index.searchVector(EN_REQUEST, 3.9)).length).toBe(3)
    expect(await index.searchVector(EN_REQUEST, 0)).toEqual([])
  })
})

// ---------------------------------------------------------------------------------------------

describe('tools an embedder cannot read', () => {
  /** English tools, and two described in Chinese (their names are Latin identifiers, as names are). */
  const mixed = (p: string) => [
    ...catalog(p),
    { name: `${p}_tianqi`, description: '查询城市的天气预报和当前天气' },
    { name: `${p}_youjian`, description: '发送电子邮件给收件人' },
  ]
  const hasHan = (t: string) => /\p{Script=Han}/u.test(t)

  test('the language of a tool is read from its description, else from its name', () => {
    expect(toolLanguageText({ name: 'file_write', description: '用于将内容写入指定文件' })).toBe('用于将内容写入指定文件')
    expect(toolLanguageText({ name: 'file_write', description: 'Write a file', searchHint: '写文件' })).toBe('写文件. Write a file')
    // No letters in the description: the name decides.
    expect(toolLanguageText({ name: 'get_weather', description: '→ 42' })).toBe('get weather')
    expect(toolLanguageText({ name: 'get_weather' })).toBe('get weather')
  })

  test('fuse: a tool the vector channel cannot judge is ranked by its lexical part alone', () => {
    const lexical = [
      { name: 'zh_tool', score: 2 },
      { name: 'en_a', score: 1 },
      { name: 'en_b', score: 0.5 },
    ]
    const vector = [
      { name: 'en_b', score: 0.9 },
      { name: 'en_a', score: 0.2 },
    ]
    const unjudged = (n: string) => n === 'zh_tool'
    // Without the rule, the vector channel's silence halves the best lexical match.
    expect(fuse(lexical, vector, 3, { lexicalWeight: 0.5 })[0]).toMatchObject({ name: 'zh_tool', score: 0.5 })
    const hits = fuse(lexical, vector, 3, { lexicalWeight: 0.5 }, unjudged)
    expect(hits[0]).toMatchObject({ name: 'zh_tool', score: 1, lexical: 2, vector: undefined })
    expect(hits[1]).toMatchObject({ name: 'en_b', score: 0.5 })
    // A judged tool missing from the vector candidates still gets no vector credit.
    expect(hits[2]).toMatchObject({ name: 'en_a', vector: 0.2 })
    const rrf = fuse(lexical, vector, 3, { method: 'rrf', lexicalWeight: 0.5, rrfK: 60 }, unjudged)
    expect(rrf.find((h) => h.name === 'zh_tool')!.score).toBeCloseTo(1 / 61, 12)
    expect(fuse(lexical, vector, 3, { method: 'rrf', lexicalWeight: 0.5, rrfK: 60 }).find((h) => h.name === 'zh_tool')!.score).toBeCloseTo(0.5 / 61, 12)
  })

  test('an English embedder never gets the Chinese-described tools; the index is ready without their vectors', async () => {
    const p = 'u1'
    const main = host('main', ['en'], enVec)
    const idx = SemanticToolIndex.create(mixed(p), { embedder: main.embedder })
    await idx.ready
    expect(idx.vectorsReady).toBe(true)
    const embedded = main.tools().flatMap((c) => c.texts)
    expect(embedded.length).toBe(catalog(p).length)
    expect(embedded.some(hasHan)).toBe(false)
    expect(names(await idx.searchVector(EN_REQUEST, 10))).not.toContain(`${p}_tianqi`)
    // A Chinese request goes to the English embedder as its gloss; the Chinese-described tool it
    // matches lexically keeps its lexical rank, with no vector part.
    const zh = await idx.searchFused(ZH_REQUEST, 3)
    const lexicalFirst = idx.search(ZH_REQUEST, 1)[0].name
    expect(lexicalFirst).toBe(`${p}_tianqi`)
    expect(zh[0]).toMatchObject({ name: `${p}_tianqi`, vector: undefined, score: 1 })
  })

  test('a catalog the embedder cannot read at all is ranked lexically', async () => {
    const p = 'u2'
    const main = host('main', ['en'], enVec)
    const zhOnly = mixed(p).filter((t) => hasHan(t.description))
    const idx = SemanticToolIndex.create(zhOnly, { embedder: main.embedder })
    await idx.ready
    expect(main.tools().length).toBe(0)
    for (const q of [ZH_REQUEST, '发送邮件', EN_REQUEST]) {
      expect(names(await idx.searchFused(q, 2))).toEqual(names(idx.search(q, 2)))
    }
  })

  test('a fallback that reads Chinese embeds the Chinese-described tools, and judges them', async () => {
    const p = 'u3'
    const main = host('main', ['en'], enVec)
    const fb = host('fb', ['en', 'zh'], zhVec)
    const idx = SemanticToolIndex.create(mixed(p), { embedder: main.embedder, fallbackEmbedder: fb.embedder })
    await idx.ready
    expect(main.tools().flatMap((c) => c.texts).some(hasHan)).toBe(false)
    expect(fb.tools().flatMap((c) => c.texts).filter(hasHan).length).toBe(2)
    const zh = await idx.searchFused(ZH_REQUEST, 3)
    expect(zh.find((h) => h.name === `${p}_tianqi`)?.vector).toEqual(expect.any(Number))
  })

  test('a tool replaced by a Chinese-described one leaves the vectors; replaced back, it is embedded again', async () => {
    const p = 'u4'
    const main = host('main', ['en'], enVec)
    const idx = SemanticToolIndex.create(catalog(p), { embedder: main.embedder })
    await idx.ready
    expect(names(await idx.searchVector('send email', 1))).toEqual([`${p}_email`])
    await idx.upsert([{ name: `${p}_email`, description: '发送电子邮件给收件人' }])
    expect(idx.vectorsReady).toBe(true)
    expect(names(await idx.searchVector('send email', 10))).not.toContain(`${p}_email`)
    await idx.upsert([{ name: `${p}_email`, description: 'Send an email message to recipients' }])
    expect(idx.vectorsReady).toBe(true)
    expect(names(await idx.searchVector('send email', 1))).toEqual([`${p}_email`])
    // Removed, it is in neither list.
    idx.remove([`${p}_email`])
    expect(idx.vectorsReady).toBe(true)
    expect(names(await idx.searchVector('send email', 10))).not.toContain(`${p}_email`)
  })
})

describe('tools an embedder cannot read: reviewed edges', () => {
  test('a vector of a replaced version is never a candidate while the new version is on the way', async () => {
    const p = 'u5'
    let holdTools: ReturnType<typeof deferred> | undefined
    let holdQuery: ReturnType<typeof deferred> | undefined
    const main = host('main', ['en'], enVec, async (texts, query) => {
      if (query && holdQuery) await holdQuery.promise
      if (!query && holdTools) await holdTools.promise
      return texts.map(enVec)
    })
    const idx = SemanticToolIndex.create(catalog(p), { embedder: main.embedder })
    await idx.ready
    // A request in flight; meanwhile a new tool's embedding is held, and the weather tool is
    // replaced (by a version the embedder cannot read) behind it.
    holdQuery = deferred()
    const vectorHits = idx.searchVector(EN_REQUEST, 5)
    const fusedHits = idx.searchFused(EN_REQUEST, 5)
    await sleep(5)
    holdTools = deferred()
    const added = idx.upsert([{ name: `${p}_forecast`, description: 'Weather forecast for the coming week' }])
    await sleep(5) // that embedding has started, and waits
    const replaced = idx.upsert([{ name: `${p}_weather`, description: '查询城市的天气预报和当前天气' }])
    holdQuery.resolve(undefined)
    expect(names(await vectorHits)).not.toContain(`${p}_weather`)
    const fused = await fusedHits
    expect(fused.find((h) => h.name === `${p}_weather`)?.vector).toBeUndefined()
    // Nothing else is lost: the other tools still fill the list.
    expect((await vectorHits).length).toBe(4)
    holdTools.resolve(undefined)
    await Promise.all([added, replaced])
    expect(idx.vectorsReady).toBe(true)
    expect(names(await idx.searchVector(EN_REQUEST, 10))).not.toContain(`${p}_weather`)
    expect(names(await idx.searchVector(EN_REQUEST, 10))).toContain(`${p}_forecast`)
  })

  test('fuse, rrf: the lexical part stands for both only for a tool with no vector; a name counts once a list', () => {
    const lexical = [
      { name: 'zh_tool', score: 2 },
      { name: 'zh_tool', score: 2 },
      { name: 'en_a', score: 1 },
    ]
    const vector = [{ name: 'zh_tool', score: 0.3 }]
    const o = { method: 'rrf' as const, lexicalWeight: 0.5, rrfK: 60 }
    const all = () => true
    // In the vector list, it is judged: half weight at each place.
    expect(fuse(lexical, vector, 3, o, all).find((h) => h.name === 'zh_tool')!.score).toBeCloseTo(0.5 / 61 + 0.5 / 61, 12)
    // Not in it: full weight at its lexical place, once.
    expect(fuse(lexical, [], 3, o, all).find((h) => h.name === 'zh_tool')!.score).toBeCloseTo(1 / 61, 12)
    expect(fuse(lexical, [], 3, o).find((h) => h.name === 'zh_tool')!.score).toBeCloseTo(0.5 / 61, 12)
    // Only `true` counts as unjudged.
    expect(fuse(lexical, [], 3, o, (() => 'yes') as never).find((h) => h.name === 'zh_tool')!.score).toBeCloseTo(0.5 / 61, 12)
  })
})
