/**
 * The drop-in API and toolSearch under hostile or awkward input: cached indexes that never
 * change under their holder, arrays replaced in place, bad tools left out instead of failing
 * every query, coded errors for everything that reaches the caller, linear `select:`, and
 * `dispose()`.
 */
import { afterEach, describe, expect, test } from 'bun:test'
import {
  ToolIndex,
  ToolIndexCache,
  ToolIndexError,
  buildToolIndex,
  clearToolIndexCache,
  clearToolSearchCache,
  formatToolSearchResult,
  getToolIndex,
  isDeferredTool,
  searchTools,
  toolSearch,
  type ToolLike,
} from '../ts/index'

const tool = (name: string, description = `${name} does things`, extra: Partial<ToolLike> = {}): ToolLike => ({
  name,
  description,
  ...extra,
})
const names = (index: ToolIndex) => index.names().sort()

/** The error `fn` throws or rejects with (fails the test when there is none). */
async function caught(fn: () => unknown): Promise<unknown> {
  try {
    await fn()
  } catch (e) {
    return e
  }
  throw new Error('expected a throw')
}
async function expectCode(fn: () => unknown, code: ToolIndexError["code"]) {
  const e = await caught(fn)
  expect(e).toBeInstanceOf(ToolIndexError)
  expect((e as ToolIndexError).code).toBe(code)
}

afterEach(() => clearToolIndexCache())

describe('getToolIndex: an index once returned keeps its tools', () => {
  test('after a later call with another list', async () => {
    const a = await getToolIndex([tool('alpha_weather'), tool('beta_calendar')])
    const b = await getToolIndex([tool('alpha_weather'), tool('gamma_email')])
    expect(names(a)).toEqual(['alpha_weather', 'beta_calendar'])
    expect(names(b)).toEqual(['alpha_weather', 'gamma_email'])
    expect(searchTools('calendar', a).map((r) => r.name)).toEqual(['beta_calendar'])
    expect(searchTools('calendar', b)).toEqual([])
    expect(searchTools('email', a)).toEqual([])
  })

  test('under concurrent calls with different lists', async () => {
    const lists = Array.from({ length: 6 }, (_, k) => [tool('shared_tool'), tool(`only_${k}_tool`, `unique word${k}`)])
    const indexes = await Promise.all(lists.map((l) => getToolIndex(l)))
    indexes.forEach((index, k) => {
      expect(names(index)).toEqual([`only_${k}_tool`, 'shared_tool'].sort())
      expect(searchTools(`word${k}`, index).map((r) => r.name)).toEqual([`only_${k}_tool`])
    })
    // ...and again, after all of them settled and the old ones were used once more
    indexes.forEach((index, k) => expect(index.has(`only_${k}_tool`)).toBe(true))
  })

  test('a prompt() that asks the cache for the index being built shares that build (the prompt deadline ends its wait)', async () => {
    const options = { promptTimeoutMs: 50 }
    for (const via of ['class', 'getToolIndex'] as const) {
      const cache = new ToolIndexCache()
      const get = (list: readonly ToolLike[]) => (via === 'class' ? cache.get(list, options) : getToolIndex(list, options))
      let nested: Promise<ToolIndex> | undefined
      const tools: ToolLike[] = [
        {
          name: 'mcp__s__asks_for_the_index',
          isMcp: true,
          prompt: () => (nested = get(tools)).then((ix) => `one of ${ix.length} tools`),
        },
        { name: 'mcp__s__plain', isMcp: true, prompt: async () => 'plain words' },
      ]
      const index = await get(tools)
      expect(nested).toBeDefined()
      expect(await nested).toBe(index)
      if (via === 'class') expect(cache.stats.builds).toBe(1)
      const asking = [...index].find((t) => t.name === 'mcp__s__asks_for_the_index')
      expect(asking?.description).toBe('')
      expect(searchTools('plain words', index).map((r) => r.name)).toEqual(['mcp__s__plain'])
    }
  })

  test('a build still waiting on a prompt does not hold up the next list; a finished one is updated for it', async () => {
    const cache = new ToolIndexCache()
    const options = { promptTimeoutMs: 1_000 }
    const hung: ToolLike = { name: 'mcp__s__hung', isMcp: true, prompt: () => new Promise<string>(() => {}) }
    const first = cache.get([hung, tool('mcp__s__one', 'first list')], options)
    const second = cache.get([tool('mcp__s__two', 'second list')], options)
    // The second list is built on its own, without waiting for the first's prompt deadline.
    expect(await Promise.race([first.then(() => 'first'), second.then(() => 'second')])).toBe('second')
    expect(cache.stats).toEqual({ builds: 2, updates: 0 })
    const third = await cache.get([tool('mcp__s__two', 'second list'), tool('mcp__s__three', 'third list')], options)
    expect(cache.stats).toEqual({ builds: 2, updates: 1 })
    expect(third.names().sort()).toEqual(['mcp__s__three', 'mcp__s__two'])
    expect((await first).names().sort()).toEqual(['mcp__s__hung', 'mcp__s__one'])
  })

  test('the same names give the same object; a disposed one is replaced by a fresh build', async () => {
    const list = [tool('one_tool'), tool('two_tool')]
    const a = await getToolIndex(list)
    expect(await getToolIndex([...list].reverse())).toBe(a)
    a.dispose()
    const b = await getToolIndex(list)
    expect(b).not.toBe(a)
    expect(names(b)).toEqual(['one_tool', 'two_tool'])
  })
})

describe('toolSearch: concurrent calls over different tool lists', () => {
  test('with searchLoaded, each answer names only its own tools, then and later', async () => {
    clearToolSearchCache()
    const slow = (ms: number, text: string) => () => new Promise<string>((r) => setTimeout(() => r(text), ms))
    const listA: ToolLike[] = [
      { name: 'ReadSecrets', prompt: slow(5, 'Read the secret vault file contents'), inputJSONSchema: { type: 'object', properties: { path: { type: 'string' } } } },
      { name: 'mcp__a__notes', prompt: slow(5, 'Take notes'), isMcp: true },
    ]
    const listB: ToolLike[] = [
      { name: 'Bash', prompt: slow(60, 'Run a shell command') },
      { name: 'mcp__b__files', prompt: slow(60, 'List files in a folder'), isMcp: true },
    ]
    const ctx = (tools: ToolLike[]) => ({ tools, searchLoaded: true, coreTools: ['ReadSecrets', 'Bash'] })
    const input = { query: 'read secret file', max_results: 5 }
    const [a, b] = await Promise.all([toolSearch(input, ctx(listA)), toolSearch(input, ctx(listB))])
    expect(a.matches).toEqual(['ReadSecrets'])
    expect(a.already_loaded).toEqual(['ReadSecrets'])
    expect(b.matches).toEqual(['mcp__b__files'])
    expect(b.already_loaded).toBeUndefined()
    expect(String(b.core_tool_guidance ?? '')).not.toContain('ReadSecrets')
    // B's line keeps what it derived from B's own tools.
    const again = await toolSearch(input, ctx(listB))
    expect(again.matches).toEqual(['mcp__b__files'])
    clearToolSearchCache()
  })

  test('the same tools in another order: guidance describes the tool it names [regression: positions memoized for the first order]', async () => {
    const schema = { type: 'object', properties: { file_path: { type: 'string' } } }
    const read: ToolLike = { name: 'Read', prompt: async () => 'Read a file from the local filesystem', inputJSONSchema: schema }
    const write: ToolLike = { name: 'Write', prompt: async () => 'Write a file to the local filesystem', inputJSONSchema: schema }
    const notes: ToolLike = { name: 'mcp__s__notes', prompt: async () => 'Take notes', isMcp: true }
    const cache = new ToolIndexCache()
    const ctx = (tools: ToolLike[], c = cache) => ({ tools, searchLoaded: true, cache: c, coreTools: ['Read', 'Write'] })
    const input = { query: 'select:Read' }
    const first = await toolSearch(input, ctx([read, write, notes]))
    const reordered = await toolSearch(input, ctx([write, read, notes]))
    const fresh = await toolSearch(input, ctx([write, read, notes], new ToolIndexCache()))
    expect(String(first.core_tool_guidance)).toContain('Read a file')
    expect(String(reordered.core_tool_guidance)).toContain('Read a file')
    expect(String(reordered.core_tool_guidance)).not.toContain('Write a file')
    expect(reordered).toEqual(fresh)
    // Back to the first order, while a call over the second is still to come: each its own.
    const [back, second] = await Promise.all([toolSearch(input, ctx([read, write, notes])), toolSearch(input, ctx([write, read, notes]))])
    expect(back).toEqual(first)
    expect(second).toEqual(fresh)
  })
})

describe('searchTools over a plain array', () => {
  test('notices an element replaced in place', async () => {
    const entries = (await buildToolIndex([tool('weather_lookup', 'forecast rain'), tool('file_reader', 'read files')])).toArray()
    expect(searchTools('forecast', entries).map((r) => r.name)).toEqual(['weather_lookup'])
    const replacement = (await buildToolIndex([tool('stock_quotes', 'forecast prices')])).toArray()[0]
    entries[0] = replacement
    expect(searchTools('forecast', entries).map((r) => r.name)).toEqual(['stock_quotes'])
    expect(searchTools('rain', entries)).toEqual([])
  })

  test('a huge sparse array is refused with a code before anything is sized from it', async () => {
    const sparse: unknown[] = []
    sparse.length = 2 ** 32 - 1
    await expectCode(() => searchTools('x', sparse as never), 'E_TOO_LARGE')
    await expectCode(() => buildToolIndex(sparse as never), 'E_TOO_LARGE')
    await expectCode(() => getToolIndex(sparse as never), 'E_TOO_LARGE')
    await expectCode(() => ToolIndex.fromEntries(sparse as never), 'E_TOO_LARGE')
    await expectCode(() => toolSearch({ query: 'x' }, { tools: sparse as never }), 'E_TOO_LARGE')
  })
})

describe('one bad tool does not take down search', () => {
  const good = [tool('mcp__wx__forecast', 'weather forecast'), tool('mcp__cal__events', 'calendar events')]

  test('an oversize or repeated name is left out and reported; the rest is searched', async () => {
    const tools = [...good, tool('x'.repeat(5000), 'weather'), tool('mcp__wx__forecast', 'a second copy'), tool('', 'empty')]
    const index = await buildToolIndex(tools)
    expect(names(index)).toEqual(['mcp__cal__events', 'mcp__wx__forecast'])
    expect(index.skipped.map((s) => s.reason).sort()).toEqual(['duplicate_name', 'empty_name', 'name_too_long'])
    for (let i = 0; i < 3; i++) {
      const out = await toolSearch({ query: 'weather forecast' }, { tools, cache: new ToolIndexCache() })
      expect(out.matches[0]).toBe('mcp__wx__forecast')
      expect(out.skipped_tools?.length).toBe(3)
    }
  })

  test('a duplicate name keeps the first tool, as a scan in order finds it', async () => {
    const index = await buildToolIndex([tool('dup_tool', 'first words'), tool('dup_tool', 'second words')])
    expect(index.get('dup_tool')?.description).toBe('first words')
  })
})

describe('coded errors for everything that reaches the caller', () => {
  const throwingName = () => {
    const t = tool('placeholder')
    Object.defineProperty(t, 'name', { get: () => { throw new Error('boom') }, enumerable: true })
    return t
  }

  test('a throwing name getter', async () => {
    await expectCode(() => buildToolIndex([tool('ok_tool'), throwingName()]), 'E_INVALID_ARG')
    await expectCode(() => getToolIndex([tool('ok_tool'), throwingName()]), 'E_INVALID_ARG')
    await expectCode(() => toolSearch({ query: 'ok' }, { tools: [tool('ok_tool'), throwingName()], cache: new ToolIndexCache() }), 'E_INVALID_ARG')
  })

  test('a Proxy whose every trap throws', async () => {
    const hostile = new Proxy({}, { get: () => { throw new Error('trap') }, getOwnPropertyDescriptor: () => { throw new Error('trap') }, has: () => { throw new Error('trap') } })
    await expectCode(() => buildToolIndex([hostile as never]), 'E_INVALID_ARG')
    await expectCode(() => toolSearch({ query: 'x' }, { tools: [hostile as never], cache: new ToolIndexCache() }), 'E_INVALID_ARG')
  })

  test('a tool list that is a hostile or revoked Proxy', async () => {
    const throwing = new Proxy([tool('a_tool')], { get: () => { throw new Error('trap') } })
    const { proxy: revoked, revoke } = Proxy.revocable([tool('a_tool')], {})
    revoke()
    for (const tools of [throwing, revoked]) {
      await expectCode(() => buildToolIndex(tools as never), 'E_INVALID_ARG')
      await expectCode(() => getToolIndex(tools as never), 'E_INVALID_ARG')
      await expectCode(() => searchTools('a', tools as never), 'E_INVALID_ARG')
      await expectCode(() => toolSearch({ query: 'a' }, { tools: tools as never, cache: new ToolIndexCache() }), 'E_INVALID_ARG')
    }
  })

  test('cyclic and BigInt schemas in discover: and formatToolSearchResult never throw', async () => {
    const cyclic: Record<string, unknown> = { type: 'object', properties: {} }
    ;(cyclic.properties as Record<string, unknown>).self = cyclic
    const big = { type: 'object', properties: { n: { type: 'integer', default: 10n } } }
    const tools = [tool('cyclic_tool', 'loops forever', { inputJSONSchema: cyclic }), tool('bigint_tool', 'loops forever', { inputJSONSchema: big }), tool('other_tool', 'sends mail')]
    const out = await toolSearch({ query: 'discover:loops forever' }, { tools, cache: new ToolIndexCache() })
    expect(out.matches.sort()).toEqual(['bigint_tool', 'cyclic_tool'])
    expect(out.text).toContain('bigint_tool')
    const block = formatToolSearchResult({ matches: ['cyclic_tool', 'bigint_tool'], query: 'q', total_deferred_tools: 2 }, 'id', { supportsToolReference: false, tools })
    expect(typeof block.content).toBe('string')
    expect(block.content as string).toContain('"10"')
  })

  test('malformed ctx.pendingMcpServers and ctx.cache', async () => {
    const tools = [tool('some_tool')]
    for (const pendingMcpServers of [42, 'server', [1, 2], { length: 3 }]) {
      await expectCode(() => toolSearch({ query: 'zzz' }, { tools, pendingMcpServers: pendingMcpServers as never }), 'E_INVALID_ARG')
    }
    const getterArray = ['a']
    Object.defineProperty(getterArray, 0, { get: () => { throw new Error('x') } })
    await expectCode(() => toolSearch({ query: 'zzz' }, { tools, pendingMcpServers: getterArray }), 'E_INVALID_ARG')
    const huge: string[] = []
    huge.length = 2 ** 31
    await expectCode(() => toolSearch({ query: 'zzz' }, { tools, pendingMcpServers: huge }), 'E_TOO_LARGE')
    for (const cache of [{}, { get: () => null }, 7, new Map()]) {
      await expectCode(() => toolSearch({ query: 'zzz' }, { tools, cache: cache as never }), 'E_INVALID_ARG')
    }
    const ok = await toolSearch({ query: 'zzz' }, { tools, pendingMcpServers: ['slack'], cache: new ToolIndexCache() })
    expect(ok.pending_mcp_servers).toEqual(['slack'])
  })

  test('an enhanced build with a throwing getter inside a schema gives E_INVALID_ARG', async () => {
    const schema = { type: 'object', properties: {} as Record<string, unknown> }
    Object.defineProperty(schema.properties, 'path', { get: () => { throw new Error('schema getter') }, enumerable: true })
    const tools = [tool('schema_tool', 'reads a path', { inputJSONSchema: schema })]
    await expectCode(() => buildToolIndex(tools, { scoring: 'enhanced' }), 'E_INVALID_ARG')
    await expectCode(() => ToolIndex.fromEntries([{ name: 'schema_tool', inputSchema: schema }], { scoring: 'enhanced' }), 'E_INVALID_ARG')
    // compat does not read schemas: the tool is indexed
    expect((await buildToolIndex(tools)).has('schema_tool')).toBe(true)
  })

  test('a polluted Object.prototype does not make a tool core or alwaysLoad', async () => {
    const proto = Object.prototype as Record<string, unknown>
    proto.alwaysLoad = true
    try {
      const out = await toolSearch({ query: 'select:proto_tool' }, { tools: [tool('proto_tool')], cache: new ToolIndexCache() })
      expect(out.matches).toEqual(['proto_tool'])
      expect(out.already_loaded).toBeUndefined()
      // Every path reads tool fields the same way: search, the build and the deferral rule.
      const tools = [tool('mcp__github__create_issue', 'Create an issue'), tool('mcp__slack__send', 'Send a message')]
      const found = await toolSearch({ query: 'create issue' }, { tools, cache: new ToolIndexCache() })
      expect(found.matches).toContain('mcp__github__create_issue')
      expect(found.total_deferred_tools).toBe(2)
      expect((await buildToolIndex(tools)).length).toBe(2)
      expect(isDeferredTool(tools[0])).toBe(true)
    } finally {
      delete proto.alwaysLoad
    }
  })

  test('a polluted Object.prototype gives no tool a hint, a server or an MCP flag', async () => {
    const proto = Object.prototype as Record<string, unknown>
    const tools = [tool('Plain', 'Plain tool'), tool('Other', 'Other tool')]
    const clean = (await buildToolIndex(tools, { coreTools: [] })).map((t) => ({ ...t }))
    Object.assign(proto, { searchHint: 'zebra', server: 'evil', isMcp: true })
    try {
      const polluted = (await buildToolIndex(tools, { coreTools: [] })).map((t) => ({ ...t }))
      expect(polluted).toEqual(clean)
      expect(searchTools('zebra', await buildToolIndex(tools, { coreTools: [] }), 5)).toEqual([])
    } finally {
      for (const k of ['searchHint', 'server', 'isMcp']) delete proto[k]
    }
  })
})

describe('input schemas of any shape are read in bounded work (enhanced scoring reads their words)', () => {
  // Before, each shared sub-schema was walked again for every path to it: a 4-level chain
  // of 400-wide anyOf lists is 400^4 walks, and the build never finished.
  // The searchable words sit after the costly part, which has no text of its own (text
  // alone would end the walk at the size cap).
  const shared = () => {
    let node: object = { type: 'string' }
    for (let d = 0; d < 4; d++) node = { anyOf: Array(400).fill(node) }
    return { type: 'object', anyOf: [node, { properties: { latitude: { type: 'number', description: 'degrees north' } } }] }
  }
  const selfRef = () => {
    const s: { type: string; anyOf: object[] } = { type: 'object', anyOf: [] }
    s.anyOf = [...Array(400).fill(s), { properties: { altitude: { type: 'number' } } }]
    return s
  }
  const sparse = () => {
    const list: object[] = []
    list.length = 2 ** 32 - 1
    list[3] = { properties: { bearing: { type: 'number' } } }
    return { anyOf: list }
  }
  test.each([
    ['a sub-schema shared by every branch', shared, 'latitude'],
    ['a schema that refers to itself', selfRef, 'altitude'],
    ['a sparse anyOf of length 2^32 - 1', sparse, 'bearing'],
  ] as const)('%s', async (_label, make, word) => {
    const tools: ToolLike[] = [
      { name: 'mcp__geo__locate', isMcp: true, prompt: async () => 'find a place', inputJSONSchema: make() },
      { name: 'mcp__geo__other', isMcp: true, prompt: async () => 'something else' },
    ]
    const built = await buildToolIndex(tools, { scoring: 'enhanced' })
    expect(searchTools(word, built).map((r) => r.name)).toEqual(['mcp__geo__locate'])
    const fromEntries = ToolIndex.fromEntries([{ name: 'locate', description: 'find a place', inputSchema: make() }], { scoring: 'enhanced' })
    expect(fromEntries.search(word, 5).map((r) => r.name)).toEqual(['locate'])
  })
})

describe('select: is linear', () => {
  test('10k names over 100k tools (time printed, not asserted)', async () => {
    const tools = Array.from({ length: 100_000 }, (_, i) => ({ name: `mcp__srv${i % 50}__tool_${i}`, description: '' }))
    const wanted = Array.from({ length: 10_000 }, (_, i) => `mcp__srv${(i * 7) % 50}__tool_${i * 7}`)
    const cache = new ToolIndexCache()
    const t0 = performance.now()
    const out = await toolSearch({ query: `select:${wanted.join(',')}` }, { tools, cache })
    const first = performance.now() - t0
    const t1 = performance.now()
    await toolSearch({ query: `select:${wanted.join(',')}` }, { tools, cache })
    const again = performance.now() - t1
    console.log(`select: 10k names over 100k tools: ${first.toFixed(0)} ms (first, includes the index build), ${again.toFixed(1)} ms (cached)`)
    expect(out.matches.length).toBe(10_000)
    expect(out.matches[9_999]).toBe(wanted[9_999])
  }, 120_000)
})

describe('dispose', () => {
  test('frees the index; later use is E_DISPOSED; idempotent; Symbol.dispose', async () => {
    const index = await buildToolIndex([tool('disposable_tool')])
    expect(index.disposed).toBe(false)
    index.dispose()
    index.dispose()
    expect(index.disposed).toBe(true)
    await expectCode(() => index.search('disposable'), 'E_DISPOSED')
    await expectCode(() => index.length, 'E_DISPOSED')
    const other = ToolIndex.fromEntries([{ name: 'scoped_tool' }])
    {
      using scoped = other
      expect(scoped.has('scoped_tool')).toBe(true)
    }
    expect(other.disposed).toBe(true)
  })

  test('a disposed old view does not disturb the cache line it came from', async () => {
    const a = await getToolIndex([tool('first_tool')])
    const b = await getToolIndex([tool('first_tool'), tool('second_tool')])
    a.dispose()
    expect(names(b)).toEqual(['first_tool', 'second_tool'])
    const c = await getToolIndex([tool('second_tool')])
    expect(names(c)).toEqual(['second_tool'])
    expect(names(b)).toEqual(['first_tool', 'second_tool'])
  })
})

describe('an index under change while it is read, and the cache that hands it out', () => {
  const opts = { coreTools: [] as string[] }
  const t = (name: string, text = `${name} description`): ToolLike => ({ name, prompt: () => text })

  test('iterating while tools are removed skips the removed ones and never throws [regression: a raw TypeError]', () => {
    const index = ToolIndex.fromEntries(['a', 'b', 'c', 'd', 'e'].map((n) => ({ name: n, description: `${n} tool` })))
    const seen: string[] = []
    for (const entry of index) {
      seen.push(entry.name)
      if (entry.name === 'b') index.remove(['c', 'd'])
    }
    expect(seen).toEqual(['a', 'b', 'e'])
    const found: string[] = []
    index.forEach((e) => {
      found.push(e.name)
      if (e.name === 'a') index.remove(['b'])
    })
    expect(found).toEqual(['a', 'e'])
  })

  test('a holder\'s paused iteration goes on over its own tools when another caller updates the cache [regression: ids of another numbering]', async () => {
    clearToolIndexCache()
    const [a, b, c, d, e] = ['a', 'b', 'c', 'd', 'e'].map((n) => t(n))
    await getToolIndex([a, b, c, d], opts)
    const index = await getToolIndex([a, c, d], opts)
    const seen: string[] = []
    for (const entry of index) {
      seen.push(entry.name)
      if (seen.length === 1) await getToolIndex([a, c, d, e], opts)
    }
    expect(seen).toEqual(['a', 'c', 'd'])
    clearToolIndexCache()
  })

  test('an incremental update equals a fresh build of the list in its order, ties and at() included [regression: kept tools kept their places]', async () => {
    clearToolIndexCache()
    const text = 'send a message to a channel'
    const [old, b, c] = [t('notify_old', text), t('notify_b', text), t('notify_c', text)]
    await getToolIndex([old, b], opts)
    const list = [c, b]
    const index = await getToolIndex(list, opts)
    const fresh = await buildToolIndex(list, opts)
    expect(index.names()).toEqual(fresh.names())
    expect(index.at(0)?.name).toBe('notify_c')
    expect(index.rankToolSearch('send message', 1)).toEqual(fresh.rankToolSearch('send message', 1))
    clearToolIndexCache()
  })

  test('a tool whose name differs from a kept one only in a lone surrogate replaces it [regression: compared as the native side sees names]', async () => {
    clearToolIndexCache()
    await getToolIndex([t('a\uFFFD', 'alpha'), t('b', 'beta')], opts)
    const list = [t('a\uD800', 'gamma'), t('b', 'beta')]
    const index = await getToolIndex(list, opts)
    expect(index.names()).toEqual(['a\uD800', 'b'])
    expect(index.has('a\uD800')).toBe(true)
    expect(index.has('a\uFFFD')).toBe(false)
    expect(index.search('alpha', 5)).toEqual([])
    clearToolIndexCache()
  })

  test('a holder that changes its index makes the cache build afresh for the next caller [regression: every caller got the edited index]', async () => {
    clearToolIndexCache()
    const tools = [t('read_file', 'read a file'), t('send_mail', 'send an email')]
    const first = await getToolIndex(tools, opts)
    first.remove(['read_file'])
    first.upsert([{ name: 'send_mail', description: 'delete every file' }])
    const next = await getToolIndex(tools, opts)
    expect(next).not.toBe(first)
    expect(next.names()).toEqual(['read_file', 'send_mail'])
    expect(next.get('send_mail')?.description).toBe('send an email')
    expect(first.names()).toEqual(['send_mail'])
    clearToolIndexCache()
  })

  test('a view rebuilt from its snapshot does not read the caller\'s schema objects again [regression: a getter read twice]', async () => {
    clearToolIndexCache()
    let reads = 0
    const schema = {
      type: 'object',
      get properties() {
        if (++reads > 1) throw new Error('schema gone')
        return { repository: { type: 'string', description: 'repository slug' } }
      },
    }
    const tools: ToolLike[] = [{ name: 'open_issue', prompt: () => 'open an issue', inputJSONSchema: schema }, t('send_mail', 'send an email')]
    const holder = await getToolIndex(tools, { ...opts, scoring: 'enhanced' })
    const before = holder.search('repository slug', 3).map((r) => r.name)
    await getToolIndex([...tools, t('list_files', 'list files')], { ...opts, scoring: 'enhanced' })
    expect(holder.search('repository slug', 3).map((r) => r.name)).toEqual(before)
    expect(before).toEqual(['open_issue'])
    clearToolIndexCache()
  })

  test('explain answers only for a tool of exactly that name; at() reads NaN and undefined as 0', () => {
    const index = ToolIndex.fromEntries([{ name: 'read\uFFFD', description: 'read things' }, { name: 'b', description: 'b' }])
    expect(index.explain('read', 'read\uD800')).toBeUndefined()
    expect(index.explain('read', 'read\uFFFD')?.name).toBe('read\uFFFD')
    expect(index.at(Number.NaN)?.name).toBe('read\uFFFD')
    expect(index.at(undefined as unknown as number)?.name).toBe('read\uFFFD')
    expect(index.at(-1)?.name).toBe('b')
  })
})

describe('ToolIndex methods called on something else', () => {
  test('every method and getter on a wrong receiver is E_INVALID_ARG [regression: a TypeError without a code]', () => {
    const index = ToolIndex.fromEntries([{ name: 'a', description: 'a tool' }])
    const proto = ToolIndex.prototype as unknown as Record<string | symbol, unknown>
    const members = ['search', 'rankToolSearch', 'keywordRank', 'keywordSearch', 'explain', 'upsert', 'remove', 'has', 'get', 'names', 'at', 'toArray', 'dispose']
    for (const receiver of [{}, null, Object.create(ToolIndex.prototype)]) {
      for (const m of members) {
        let err: unknown
        try {
          ;(proto[m] as (...a: unknown[]) => unknown).call(receiver, 'x', 'y')
        } catch (e) {
          err = e
        }
        expect([m, (err as { code?: string })?.code]).toEqual([m, 'E_INVALID_ARG'])
      }
      for (const g of ['length', 'skipped', 'scoring', 'disposed']) {
        const get = Object.getOwnPropertyDescriptor(ToolIndex.prototype, g)?.get as () => unknown
        expect([g, (() => { try { get.call(receiver); return 'no error' } catch (e) { return (e as { code?: string }).code } })()]).toEqual([g, 'E_INVALID_ARG'])
      }
    }
    // The real index is untouched.
    expect(index.names()).toEqual(['a'])
  })
})
