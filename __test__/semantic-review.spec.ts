/**
 * The semantic layer under a careless or hostile host, the cases the other suites leave out: an
 * embedder that consumes the list of texts it is handed, holes in an answer beside a polluted
 * `Object.prototype`, an index disposed while it is waited for, index-level fusion options that
 * are not an object or change after the index was made, the local encoder's `embed` given a list
 * with a huge `length` or a signal that throws when looked at, and the drop-in cache under a
 * polluted `Object.prototype.name`. Hermetic except the local-encoder block, which needs the
 * companion addon and the model and is skipped without them (as in encoder.spec.ts).
 */
import { describe, expect, test } from 'bun:test'
import { ToolIndexCache } from '../dist/index.js'
import { SemanticToolIndex, defaultModelDir, embedderFromFunction, fuse, hasModel, loadLocalEncoder, localEncoderAvailable, mergeVectorHits, queryClauses, toolLanguageText, toolText, type Embedder } from '../dist/semantic.js'
import { LIMITS } from '../dist/config.js'

const TOOLS = [
  { name: 'get_weather', description: 'Current weather conditions and forecast for a city' },
  { name: 'send_email', description: 'Send an email message to one or more recipients' },
  { name: 'book_restaurant', description: 'Reserve a table at a restaurant for a given date' },
  { name: 'lookup_flight', description: 'Find flights between two airports' },
]

/** Letter-trigram counts hashed into 16 buckets: a crude, real embedding. */
const tri = (t: string): number[] => {
  const v = new Array<number>(16).fill(0)
  const s = ` ${t.toLowerCase()} `
  for (let i = 0; i + 3 <= s.length; i++) v[(s.charCodeAt(i) * 961 + s.charCodeAt(i + 1) * 31 + s.charCodeAt(i + 2)) % 16] += 1
  return v
}

const codeOf = async (p: Promise<unknown> | (() => unknown)): Promise<string> => {
  try {
    await (typeof p === 'function' ? p() : p)
    return 'ok'
  } catch (e) {
    return (e as { code?: string })?.code ?? `uncoded ${(e as Error)?.constructor?.name}: ${(e as Error)?.message}`
  }
}

const tick = (ms = 5) => new Promise((r) => setTimeout(r, ms))

describe('an embedder that changes the list of texts it is handed', () => {
  const cases: [string, string, (texts: string[]) => unknown[]][] = [
    // A host that batches by splicing its input: a full, right answer [regression: the count was read after the call, 0]
    ['takes the texts out two at a time, answering each', 'ok', (texts) => {
      const out: unknown[] = []
      while (texts.length > 0) out.push(...texts.splice(0, 2).map(tri))
      return out
    }],
    ['clears the list, answering every text', 'ok', (texts) => {
      const out = texts.map(tri)
      texts.length = 0
      return out
    }],
    // A short answer is E_ENCODE [regression: a raw TypeError, no code, from copying a missing vector]
    ['cuts the list to one text and answers that one', 'E_ENCODE', (texts) => {
      const out = [tri(texts[0])]
      texts.length = 1
      return out
    }],
    ['adds texts and answers them too', 'E_ENCODE', (texts) => {
      texts.push('extra', 'more')
      return texts.map(tri)
    }],
  ]
  test.each(cases)('%s: ready is %s, and an honest embedder mends the index', async (_what, want, embed) => {
    let honest = false
    const embedder: Embedder = {
      id: 'changes-its-input',
      async embed(texts) {
        return (honest ? texts.map(tri) : embed(texts as string[])) as number[][]
      },
    }
    const idx = SemanticToolIndex.create(TOOLS, { embedder })
    expect(await codeOf(idx.ready)).toBe(want)
    honest = true
    await idx.upsert([])
    expect(idx.vectorsReady).toBe(true)
    expect((await idx.searchVector('weather forecast', 1))[0].name).toBe('get_weather')
    idx.dispose()
  })

  test('a request embedding that takes its texts out of the list still counts', async () => {
    const embedder: Embedder = {
      id: 'splices',
      async embed(texts) {
        const list = texts as string[]
        const out: number[][] = []
        while (list.length > 0) out.push(...list.splice(0, 1).map(tri))
        return out
      },
    }
    const idx = SemanticToolIndex.create(TOOLS, { embedder })
    await idx.ready
    expect((await idx.searchVector('weather forecast', 1))[0].name).toBe('get_weather')
    // Two clauses and the whole request: three texts, all answered.
    const fused = await idx.searchFused('check the weather forecast, then send an email', 2)
    expect(idx.queryError).toBeUndefined()
    expect(fused.some((h) => h.vector !== undefined)).toBe(true)
    idx.dispose()
  })
})

describe('holes in an embedder\'s answer are never filled from Object.prototype', () => {
  const proto = Object.prototype as Record<string, unknown>
  const cases: [string, string, unknown, (texts: readonly string[]) => unknown[]][] = [
    ['a hole in a vector', '3', 0.5, (texts) => texts.map((t) => {
      const v = tri(t)
      delete v[3]
      return v
    })],
    ['a hole in the list of vectors', '1', tri('polluted'), (texts) => {
      const out: unknown[] = texts.map(tri)
      delete out[1]
      return out
    }],
  ]
  test.each(cases)('%s is E_ENCODE, whatever Object.prototype holds at its index', async (_what, key, value, embed) => {
    proto[key] = value
    try {
      const idx = SemanticToolIndex.create(TOOLS, { embedder: { id: 'holes', embed: async (texts) => embed(texts) as number[][] } })
      expect(await codeOf(idx.ready)).toBe('E_ENCODE')
      expect(idx.vectorsReady).toBe(false)
      idx.dispose()
    } finally {
      delete proto[key]
    }
  })
})

describe('an index disposed while it is waited for', () => {
  /** An embedder whose calls from the `hold`-th on wait until `release()`. */
  const held = (hold: number) => {
    let calls = 0
    const waiting: (() => void)[] = []
    const embedder = embedderFromFunction(async (texts) => {
      if (++calls >= hold) await new Promise<void>((r) => waiting.push(r))
      return texts.map(tri)
    })
    return { embedder, release: () => waiting.splice(0).forEach((r) => r()) }
  }
  const cases: [string, number, (idx: SemanticToolIndex) => Promise<unknown>][] = [
    // [regression: E_ENCODE "some tools have no vector", as if an embedding had failed]
    ['ready, while the tools are embedded', 1, (idx) => idx.ready],
    ['searchVector, while it waits for the tools', 1, (idx) => idx.searchVector('weather', 2)],
    ['searchFused with wait, while it waits for the tools', 1, (idx) => idx.searchFused('weather', 2, { wait: true })],
    // [regression: an empty answer from the disposed index]
    ['searchVector, while the request is embedded', 2, (idx) => idx.searchVector('weather', 2)],
    ['searchFused, while the request is embedded', 2, (idx) => idx.searchFused('weather', 2)],
  ]
  test.each(cases)('%s: E_DISPOSED', async (_what, hold, call) => {
    const { embedder, release } = held(hold)
    const idx = SemanticToolIndex.create(TOOLS, { embedder })
    if (hold > 1) await idx.ready
    const pending = codeOf(call(idx))
    await tick()
    idx.dispose()
    release()
    expect(await pending).toBe('E_DISPOSED')
    expect(await codeOf(idx.ready)).toBe('E_DISPOSED')
  })

  test('ready asked for after dispose() is E_DISPOSED, though every tool had its vector', async () => {
    const idx = SemanticToolIndex.create(TOOLS, { embedder: embedderFromFunction(async (texts) => texts.map(tri)) })
    await idx.ready
    idx.dispose()
    expect(await codeOf(idx.ready)).toBe('E_DISPOSED')
  })
})

describe("the index's fusion options", () => {
  const embedder = () => embedderFromFunction(async (texts) => texts.map(tri))

  // [regression: anything but an object was taken for no options at all]
  test.each([['a string', 'rrf'], ['null', null], ['a number', 42], ['true', true]])('fusion as %s is E_INVALID_ARG', (_what, fusion) => {
    expect(() => SemanticToolIndex.create(TOOLS, { embedder: embedder(), fusion: fusion as never })).toThrow(expect.objectContaining({ code: 'E_INVALID_ARG' }))
  })

  // [regression: checked when the index was made, then read again by every search]
  test('are read once, when the index is made: a later change or a getter that throws later is not seen', async () => {
    const reads: Record<string, number> = {}
    const given: Record<string, unknown> = { method: 'rrf', candidates: 10 }
    const fusion = new Proxy(given, {
      getOwnPropertyDescriptor(target, key) {
        reads[String(key)] = (reads[String(key)] ?? 0) + 1
        if (reads[String(key)] > 1) throw new Error(`${String(key)} read again`)
        return Reflect.getOwnPropertyDescriptor(target, key)
      },
    })
    const idx = SemanticToolIndex.create(TOOLS, { embedder: embedder(), fusion: fusion as never })
    await idx.ready
    const first = await idx.searchFused('weather forecast', 3)
    given.candidates = 0
    given.method = 'best'
    const again = await idx.searchFused('weather forecast', 3)
    expect(again).toEqual(first)
    expect(Math.max(...Object.values(reads))).toBe(1)
    expect(Object.keys(reads)).not.toContain('wait')
    // A call's own options still win over the index's.
    expect((await idx.searchFused('weather forecast', 3, { lexicalWeight: 1, method: 'weighted' }))[0].name).toBe('get_weather')
    idx.dispose()
  })
})

describe('the drop-in cache under a polluted Object.prototype.name', () => {
  const tool = (name: string, description: string) => ({ name, description, isEnabled: () => true, prompt: async () => description, inputSchema: {} })

  // [regression: names were compared through Object.prototype, so the cached index was handed out]
  test('a list whose tool has no name is refused, never answered with the cached index of the named list', async () => {
    const cache = new ToolIndexCache()
    const named = await cache.get([tool('alpha', 'send an email'), tool('beta', 'weather forecast')])
    const proto = Object.prototype as Record<string, unknown>
    proto.name = 'beta'
    let got: unknown
    try {
      got = await cache.get([tool('alpha', 'send an email'), { description: 'no name', isEnabled: () => true, prompt: async () => 'no name' } as never]).catch((e: unknown) => e)
    } finally {
      delete proto.name
    }
    expect(got).not.toBe(named)
    expect(got).toMatchObject({ code: 'E_INVALID_ARG' })
  })
})

const ready = localEncoderAvailable() && hasModel(defaultModelDir())
if (!ready) console.log('[semantic-review.spec] skipping the local-encoder tests: no companion addon or no model')

describe.skipIf(!ready)('the local encoder given hostile arguments', () => {
  let loaded: ReturnType<typeof loadLocalEncoder> | undefined
  const encoder = () => (loaded ??= loadLocalEncoder({ cacheDir: false }))

  // [regression: every element was copied first: Node died out of memory, Bun ran for minutes]
  test.each([['embed'], ['embedSync']])('%s: a list of 2**32 - 1 texts is E_INVALID_ARG before any is read', async (method) => {
    const enc = encoder()
    let reads = 0
    const texts = new Proxy([] as string[], {
      get: (target, key) => {
        if (key === 'length') return 2 ** 32 - 1
        if (typeof key === 'string' && /^\d+$/.test(key)) {
          if (++reads > 1000) throw new Error('read on and on')
          return 'text'
        }
        return Reflect.get(target, key)
      },
    })
    const call = method === 'embed' ? () => enc.embed(texts) : () => enc.embedSync(texts)
    expect(await codeOf(call)).toBe('E_INVALID_ARG')
    expect(reads).toBe(0)
  })

  // [regression: the trap's error, or the AbortSignal getter's TypeError, escaped without a code]
  test.each([
    ['a Proxy whose traps throw', () => new Proxy({}, { getPrototypeOf: () => { throw new Error('trap') } })],
    ['an object made from AbortSignal.prototype', () => Object.create(AbortSignal.prototype)],
  ])('a signal that is %s is no signal: the texts are embedded', async (_what, signal) => {
    const enc = encoder()
    const out = await enc.embed(['weather forecast'], { signal: signal() as AbortSignal })
    expect(out.length).toBe(1)
    expect(out[0].length).toBe(enc.dim)
  })
})

describe('the exported helpers of the semantic layer, given what is not theirs', () => {
  const throwing = { get name(): string { throw new Error('boom') } }
  // [regression: each threw a TypeError with no code, or answered for a query over the limit]
  const cases: [string, string, () => unknown][] = [
    ['toolText(null)', 'E_INVALID_ARG', () => toolText(null as never)],
    ['toolText of a tool without a string name', 'E_INVALID_ARG', () => toolText({ name: 5 } as never)],
    ['toolText of a tool whose name getter throws', 'E_INVALID_ARG', () => toolText(throwing as never)],
    ['toolLanguageText(undefined)', 'E_INVALID_ARG', () => toolLanguageText(undefined as never)],
    ['toolText of a well-formed tool', 'ok', () => toolText({ name: 'get_weather', description: 'Weather' })],
    ['fuse(null, [])', 'E_INVALID_ARG', () => fuse(null as never, [], 5)],
    ['fuse([], "x")', 'E_INVALID_ARG', () => fuse([], 'x' as never, 5)],
    ['fuse with options whose getter throws', 'E_INVALID_ARG', () => fuse([], [], 5, { get method(): 'rrf' { throw new Error('boom') } })],
    ['fuse of two empty rankings', 'ok', () => fuse([], [], 5)],
    ['mergeVectorHits(null)', 'E_INVALID_ARG', () => mergeVectorHits(null as never, 5)],
    ['mergeVectorHits([null])', 'E_INVALID_ARG', () => mergeVectorHits([null] as never, 5)],
    ['queryClauses(5)', 'E_INVALID_ARG', () => queryClauses(5 as never)],
    ['queryClauses of a query over the limit', 'E_TOO_LARGE', () => queryClauses('a, then b. '.repeat(Math.ceil(LIMITS.queryLength / 11) + 1))],
    ['queryClauses of a two-step request', 'ok', () => queryClauses('send an email, then book a table')],
  ]
  for (const [what, want, call] of cases) test(`${what}: ${want}`, async () => expect(await codeOf(call)).toBe(want))
})
