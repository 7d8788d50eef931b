// The systems the quality command scores. Each system: { id, label, available, reason?,
// build(tools) -> handle (may be async), search(handle, query) -> names best first (may be async),
// note? }. `tools` is a corpus as stored: [{ name, description, server?, inputSchema? }].
import { existsSync } from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { K } from './metrics.mjs'
import { REPO_ROOT } from './data.mjs'

export const SYSTEM_IDS = [
  'compat-tfidf',
  'compat-toolsearch',
  'enhanced',
  'enhanced-toolsearch',
  'enhanced-noabstain',
  'minisearch',
  'orama',
  'flexsearch',
  'minilm',
  'fused',
  'bm25-fused',
]

/** Systems scored only when asked for by name (`--systems`). */
export const EXTRA_SYSTEM_IDS = ['fused-anyscript', 'fused-nogloss', 'e5', 'fused-e5', 'fused-fallback']

/**
 * Systems that need the local encoder (companion addon + model directory); the last three also
 * need multilingual-e5-small (`bash scripts/fetch-model.sh multilingual-e5-small`; its
 * directory: `defaultModelDir('multilingual-e5-small')`).
 */
export const SEMANTIC_IDS = ['minilm', 'fused', 'bm25-fused', 'fused-anyscript', 'fused-nogloss', 'e5', 'fused-e5', 'fused-fallback']

// ---------------------------------------------------------------------------------------------
// Shared preparation for the JS engines
// ---------------------------------------------------------------------------------------------

/**
 * What a user of a generic engine would do to tool names: split `mcp__server__tool`,
 * snake_case, kebab-case and CamelCase (`getWalletBalance` → get wallet balance,
 * `MongoDBDatabase` → mongo db database). Glued lower case (`airqualityforeast`) stays as is.
 */
export function splitName(name) {
  return String(name)
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim()
    .toLowerCase()
}

/** English stop words (a short, ordinary list, as a user would paste into MiniSearch/Orama). */
export const STOP_WORDS = new Set(
  (
    'a about an and any are as at be been but by can could did do does for from had has have how i if in into is it ' +
    'its me my no not of on or our please should so such than that the their them then there these they this those ' +
    'to was we were what when where which who will with would you your'
  ).split(' '),
)

/** One document per tool: the raw name plus its split copy (boosted), description, server. */
function docsOf(tools) {
  return tools.map((t, i) => ({
    id: i,
    name: `${t.name} ${splitName(t.name)}`,
    description: t.description ?? '',
    server: t.server ? `${t.server} ${splitName(t.server)}` : '',
  }))
}

const NAME_BOOST = 2

/** MiniSearch's own token boundaries (white space and punctuation). */
const SPACE_OR_PUNCTUATION = /[\n\r\p{Z}\p{P}]+/u
/** A run of Han, kana or Hangul. */
const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+/gu

/**
 * MiniSearch's tokenizer with what a user indexing Chinese text adds: each CJK run becomes its
 * overlapping character bigrams (a lone character stays whole), and letters or digits glued to
 * it become tokens of their own (`GitHub上的` → `github`, `上的`). Text without CJK is tokenized
 * exactly as MiniSearch's default does.
 */
export function tokenizeCjk(text) {
  const out = []
  for (const token of String(text).split(SPACE_OR_PUNCTUATION)) {
    if (!token) continue
    let last = 0
    for (const m of token.matchAll(CJK_RUN)) {
      if (m.index > last) out.push(token.slice(last, m.index))
      const chars = [...m[0]]
      if (chars.length === 1) out.push(chars[0])
      for (let i = 0; i + 1 < chars.length; i++) out.push(chars[i] + chars[i + 1])
      last = m.index + m[0].length
    }
    if (last < token.length) out.push(last === 0 ? token : token.slice(last))
  }
  return out
}

// ---------------------------------------------------------------------------------------------
// This package
// ---------------------------------------------------------------------------------------------

async function loadPackage() {
  const p = path.join(REPO_ROOT, 'dist', 'index.js')
  if (!existsSync(p)) {
    throw new Error(`${p} does not exist: build the TypeScript layer first (npm run build, or npx tsc -p tsconfig.build.json)`)
  }
  const mod = await import(pathToFileURL(p).href)
  const api = mod.ToolIndex ? mod : (mod.default ?? mod)
  if (typeof api.ToolIndex?.fromEntries !== 'function') throw new Error(`${p} does not export ToolIndex.fromEntries`)
  return api
}

/** Entries as the brief passes them: server and inputSchema through, no searchHint. */
/** The package's entries for a corpus's tools (name, description, schema, server). */
export function entriesOf(tools) {
  return tools.map((t) => ({
    name: t.name,
    description: t.description ?? '',
    searchHint: undefined,
    inputSchema: t.inputSchema && typeof t.inputSchema === 'object' ? t.inputSchema : undefined,
    server: t.server ?? undefined,
  }))
}

/** Probe a scoring mode: null when usable, else the reason. */
function probeScoring(api, scoring) {
  try {
    const idx = api.ToolIndex.fromEntries([{ name: 'probe_tool', description: 'probe description', server: 'probe' }], { scoring })
    idx.search('probe', 1)
    idx.rankToolSearch('probe', 1)
    return null
  } catch (e) {
    if (e?.code === 'E_INVALID_SCORING') return `scoring '${scoring}' not implemented yet`
    return `scoring '${scoring}' probe failed: ${e?.code ?? ''} ${String(e?.message ?? e).split('\n')[0]}`
  }
}

function packageSystems(api, notes) {
  const build = (scoring) => (tools) => {
    const entries = entriesOf(tools)
    try {
      return api.ToolIndex.fromEntries(entries, { scoring })
    } catch (e) {
      // Should the binding ever reject the extra fields, say so and index without them.
      if (/server|inputSchema|unknown/i.test(String(e?.message))) {
        notes.add(`fromEntries rejected the entries (${e?.code}: ${String(e?.message).split('\n')[0]}); indexed without server/inputSchema`)
        return api.ToolIndex.fromEntries(
          entries.map(({ name, description }) => ({ name, description })),
          { scoring },
        )
      }
      throw e
    }
  }
  const tfidf = (idx, q) => idx.search(q, K).map((r) => r.name)
  const merge = (idx, q) => idx.rankToolSearch(q, K).map((r) => r.name)
  const out = []
  for (const [scoring, prefix] of [
    ['compat', 'compat'],
    ['enhanced', 'enhanced'],
  ]) {
    const reason = probeScoring(api, scoring)
    const b = build(scoring)
    out.push({
      id: prefix === 'compat' ? 'compat-tfidf' : 'enhanced',
      label: `${scoring}: index.search`,
      available: reason === null,
      reason,
      threshold: true,
      build: b,
      search: tfidf,
    })
    out.push({
      id: `${prefix}-toolsearch`,
      label: `${scoring}: index.rankToolSearch`,
      available: reason === null,
      reason,
      threshold: true,
      build: b,
      search: merge,
    })
  }
  const reasonE = probeScoring(api, 'enhanced')
  const buildNoAbstain = (tools) => api.ToolIndex.fromEntries(entriesOf(tools), { scoring: 'enhanced', tuning: { abstainConfidence: 0 } })
  out.push({
    id: 'enhanced-noabstain',
    label: 'enhanced, abstaining off: index.search',
    available: reasonE === null,
    reason: reasonE,
    build: buildNoAbstain,
    search: tfidf,
  })
  return out
}

// ---------------------------------------------------------------------------------------------
// The JS engines, configured as a competent user would
// ---------------------------------------------------------------------------------------------

async function jsSystems() {
  const [minisearch, orama, flexsearch, flexEn] = await Promise.all([
    import('minisearch').catch((e) => ({ error: e })),
    import('@orama/orama').catch((e) => ({ error: e })),
    import('flexsearch').catch((e) => ({ error: e })),
    import('flexsearch/lang/en').catch(() => null),
  ])
  const out = []

  // MiniSearch: BM25+ over three fields (the BM25 baseline of the quality tables); CJK bigrams,
  // lower-casing + stop words; OR of the query terms.
  const MiniSearch = minisearch.default ?? minisearch.MiniSearch
  out.push({
    id: 'minisearch',
    label: `minisearch (BM25+, name boost ${NAME_BOOST}, stop words, CJK bigrams)`,
    available: !minisearch.error,
    reason: minisearch.error ? `minisearch not loadable: ${minisearch.error.message}` : null,
    build: (tools) => {
      const ms = new MiniSearch({
        idField: 'id',
        fields: ['name', 'description', 'server'],
        storeFields: [],
        tokenize: tokenizeCjk,
        processTerm: (term) => {
          const t = term.toLowerCase()
          return STOP_WORDS.has(t) ? null : t
        },
        searchOptions: { boost: { name: NAME_BOOST }, combineWith: 'OR' },
      })
      ms.addAll(docsOf(tools))
      return { ms, names: tools.map((t) => t.name) }
    },
    search: ({ ms, names }, q) => ms.search(q).slice(0, K).map((h) => names[h.id]),
    scored: ({ ms, names }, q, n) => ms.search(q).slice(0, n).map((h) => ({ name: names[h.id], score: h.score })),
  })

  // Orama: BM25 with its English stemmer and the stop-word list; name boosted.
  out.push({
    id: 'orama',
    label: `@orama/orama (BM25, English stemming, stop words, name boost ${NAME_BOOST})`,
    available: !orama.error,
    reason: orama.error ? `@orama/orama not loadable: ${orama.error.message}` : null,
    build: async (tools) => {
      const db = orama.create({
        schema: { name: 'string', description: 'string', server: 'string' },
        components: { tokenizer: { language: 'english', stemming: true, stopWords: [...STOP_WORDS] } },
      })
      await orama.insertMultiple(
        db,
        docsOf(tools).map((d) => ({ ...d, id: String(d.id) })),
      )
      return { db, names: tools.map((t) => t.name) }
    },
    search: async ({ db, names }, q) => {
      const r = await orama.search(db, {
        term: q,
        properties: ['name', 'description', 'server'],
        boost: { name: NAME_BOOST },
        limit: K,
      })
      return r.hits.map((h) => names[Number(h.id)])
    },
  })

  // FlexSearch: Document index with its English preset (stemmer, stop words), contextual
  // index, suggestions on (else a multi-word query is an AND); fields combined with a Resolver
  // so the name field can be boosted.
  const fx = flexsearch.default ?? flexsearch
  const enOpts = flexEn ? (flexEn.default ?? flexEn) : null
  out.push({
    id: 'flexsearch',
    label: `flexsearch (Document, English preset, context, name boost ${NAME_BOOST})`,
    available: !flexsearch.error,
    reason: flexsearch.error ? `flexsearch not loadable: ${flexsearch.error.message}` : null,
    note: enOpts ? undefined : 'flexsearch: English preset not loadable; default encoder used',
    build: (tools) => {
      const opts = {
        document: { id: 'id', index: ['name', 'description', 'server'] },
        tokenize: 'strict',
        context: true,
      }
      if (enOpts && fx.Encoder) opts.encoder = new fx.Encoder(enOpts)
      const doc = new fx.Document(opts)
      for (const d of docsOf(tools)) doc.add(d)
      return { doc, names: tools.map((t) => t.name), Resolver: fx.Resolver }
    },
    search: ({ doc, names, Resolver }, q) => {
      const r = new Resolver({ index: doc, query: q, field: 'name', boost: NAME_BOOST, suggest: true })
        .or({ index: doc, query: q, field: 'description', suggest: true })
        .or({ index: doc, query: q, field: 'server', suggest: true })
        .resolve({ limit: K })
      return r.map((id) => names[id])
    },
  })
  return out
}

// ---------------------------------------------------------------------------------------------
// The semantic channel: the local encoder (all-MiniLM-L6-v2 through the companion addon), alone
// and fused with a lexical ranking through the package's own `fuse`.
// ---------------------------------------------------------------------------------------------

async function loadSemantic() {
  const p = path.join(REPO_ROOT, 'dist', 'semantic.js')
  if (!existsSync(p)) throw new Error(`${p} does not exist: build the TypeScript layer first`)
  const mod = await import(pathToFileURL(p).href)
  return mod.loadLocalEncoder ? mod : (mod.default ?? mod)
}

/**
 * A native vector store of the tools' texts (`sem.toolText`) embedded by `enc`; with `readable`,
 * only the tools whose text it accepts (as `SemanticToolIndex` embeds only the tools an encoder
 * reads), the others listed in `unread`.
 */
export async function vectorStoreOf(api, sem, enc, tools, readable = () => true) {
  const texts = tools.map((t) => sem.toolText({ name: t.name, description: t.description ?? '' }))
  const read = tools.map((t) => readable(sem.toolLanguageText({ name: t.name, description: t.description ?? '' })))
  const kept = tools.filter((_, i) => read[i])
  const unread = new Set(tools.filter((_, i) => !read[i]).map((t) => t.name))
  const store = new api.nativeBinding.NativeVectorStore(enc.dim)
  if (kept.length > 0) {
    const vs = await enc.embed(texts.filter((_, i) => read[i]))
    const flat = new Float32Array(kept.length * enc.dim)
    vs.forEach((v, i) => flat.set(v, i * enc.dim))
    store.upsertMany(kept.map((t) => t.name), flat)
  }
  return Object.assign(store, { unread })
}

/** `vectorStoreOf` as a semantic index embeds tools: only those whose text `enc` reads. */
export function readableVectorStoreOf(api, sem, enc, tools) {
  return vectorStoreOf(api, sem, enc, tools, (t) => sem.readsText(t, enc.languages))
}

/**
 * `fusion` (from the command line or a tuning sweep) overrides FUSION_DEFAULTS for the fused
 * systems: { method, lexicalWeight, candidates, rrfK }.
 */
function semanticSystems(api, sem, lexical, fusion, notes) {
  const load = (modelDir) => {
    try {
      return { enc: sem.loadLocalEncoder(modelDir ? { modelDir } : {}), reason: null }
    } catch (e) {
      return { enc: null, reason: `local encoder unavailable (${modelDir ?? 'default model'}): ${e?.code ?? ''} ${String(e?.message ?? e).split('\n')[0]}` }
    }
  }
  const e5Dir = sem.defaultModelDir('multilingual-e5-small')
  const { enc, reason } = load()
  const e5 = load(e5Dir)
  const perClause = (fusion?.perClause ?? sem.FUSION_DEFAULTS.perClause) !== false && fusion?.perClause !== 0
  const clausesOf = (q) => (perClause ? sem.queryClauses(q) : [])
  /** One encoder's request vectors (embedded per set before timing) and tool vectors. */
  const channelOf = (e) => {
    const qvec = new Map() // query text -> vector, filled by prepare()
    const prepare = async (texts) => {
      const todo = [...new Set(texts.flatMap((t) => [t, ...clausesOf(t)]).filter((t) => !qvec.has(t)))]
      if (todo.length === 0) return
      const vs = await e.embed(todo, { query: true })
      todo.forEach((t, i) => qvec.set(t, vs[i]))
    }
    return {
      enc: e,
      prepare,
      queryVec: async (q) => {
        if (!qvec.has(q)) await prepare([q])
        return qvec.get(q)
      },
      buildVectors: (tools) => vectorStoreOf(api, sem, e, tools),
      buildReadableVectors: (tools) => readableVectorStoreOf(api, sem, e, tools),
      readable: (t) => sem.readsText(t, e.languages),
    }
  }
  const main = enc ? channelOf(enc) : null
  const fallback = e5.enc ? channelOf(e5.enc) : null
  const CAND = fusion?.candidates ?? sem.FUSION_DEFAULTS.candidates
  // As `searchFused` does (`routeRequest`); 'any' embeds every request as it is.
  const route = (channels, rule, q) => {
    if (rule === 'any') return { ch: channels[0], text: q }
    const r = sem.routeRequest(q, channels, (c, t) => c.readable(t), rule)
    return r ? { ch: r.encoder, text: r.text } : null
  }
  const enhanced = (tools) => api.ToolIndex.fromEntries(entriesOf(tools), { scoring: 'enhanced', tuning: { abstainConfidence: 0 } })
  const fusedSystem = (id, label, channels, rule) => ({
    id,
    label: `enhanced (abstaining off) + ${label}, fuse(${JSON.stringify({ ...sem.FUSION_DEFAULTS, ...fusion })})`,
    channels,
    build: async (tools) => ({ stores: await Promise.all(channels.map((c) => c.buildReadableVectors(tools))), idx: enhanced(tools) }),
    prepare: async (_h, texts) => {
      const routes = texts.map((t) => route(channels, rule, t)).filter(Boolean)
      for (const c of channels) await c.prepare(routes.filter((r) => r.ch === c).map((r) => r.text))
    },
    search: async (h, q) => {
      const lex = h.idx.search(q, CAND)
      const r = route(channels, rule, q)
      if (r === null) return lex.slice(0, K).map((x) => x.name)
      const store = h.stores[channels.indexOf(r.ch)]
      const lists = []
      for (const t of [r.text, ...clausesOf(r.text)]) lists.push(store.search(await r.ch.queryVec(t), CAND))
      const vec = sem.mergeVectorHits(lists, CAND)
      return sem.fuse(lex, vec, K, fusion, (name) => store.unread.has(name)).map((x) => x.name)
    },
  })
  const alone = (id, label, c) => ({
    id,
    label,
    channels: [c],
    build: async (tools) => ({ store: await c.buildVectors(tools) }),
    prepare: async (_h, texts) => c.prepare(texts),
    search: async (h, q) => h.store.search(await c.queryVec(q), K).map((r) => r.name),
  })
  const langs = (c) => JSON.stringify(c?.enc?.languages ?? 'any')
  const out = [
    alone('minilm', `all-MiniLM-L6-v2 (local encoder, ${enc ? enc.id : 'n/a'}), cosine over int8 vectors`, main),
    fusedSystem('fused', `MiniLM; requests the encoder cannot read (languages ${langs(main)}): their lexicon gloss embedded`, [main], sem.FUSION_DEFAULTS.unreadable),
    fusedSystem('fused-anyscript', 'MiniLM; every request embedded', [main], 'any'),
    fusedSystem('fused-nogloss', `MiniLM; requests the encoder cannot read (languages ${langs(main)}): lexical only`, [main], 'lexical'),
    {
      id: 'bm25-fused',
      label: `BM25 (minisearch) + MiniLM, fuse(${JSON.stringify({ ...sem.FUSION_DEFAULTS, ...fusion })})`,
      channels: [main],
      build: async (tools) => ({ store: await main.buildVectors(tools), bm: lexical.build(tools) }),
      prepare: async (_h, texts) => main.prepare(texts),
      search: async (h, q) => {
        const lex = lexical.scored(h.bm, q, CAND)
        const vec = h.store.search(await main.queryVec(q), CAND)
        return sem.fuse(lex, vec, K, fusion).map((r) => r.name)
      },
    },
    alone('e5', `multilingual-e5-small (local encoder, ${e5.enc ? e5.enc.id : 'n/a'}, "query: " / "passage: " prompts), cosine over int8 vectors`, fallback),
    fusedSystem('fused-e5', 'multilingual-e5-small; every request embedded', [fallback], 'any'),
    fusedSystem(
      'fused-fallback',
      `MiniLM, and multilingual-e5-small (fallbackEmbedder) for requests MiniLM cannot read (languages ${langs(main)})`,
      [main, fallback],
      sem.FUSION_DEFAULTS.unreadable,
    ),
  ]
  for (const s of out) {
    const missing = s.channels.some((c) => c === null)
    s.available = !missing
    s.reason = missing ? (main ? e5.reason : reason) : null
    delete s.channels
  }
  if (enc) notes.add(`encoder ${enc.id}, dim ${enc.dim}; query vectors embedded per set before timing (prepare), so latency excludes the encoder`)
  return out
}

/**
 * The systems, in SYSTEM_IDS order, filtered by `only`. `notes` (a Set) collects remarks to
 * print (API friction, fallbacks).
 */
export async function makeSystems({ only, notes, fusion }) {
  const want = only && only.length ? new Set(only) : null
  const needSem = !want || [...want].some((s) => SEMANTIC_IDS.includes(s))
  const needPackage = needSem || !want || [...want].some((s) => s.startsWith('compat') || s.startsWith('enhanced'))
  const needJs = needSem || !want || [...want].some((s) => ['minisearch', 'orama', 'flexsearch'].includes(s))
  const all = []
  const api = needPackage ? await loadPackage() : null
  if (needPackage) all.push(...packageSystems(api, notes))
  if (needJs) all.push(...(await jsSystems()))
  if (needSem) {
    const ms = all.find((s) => s.id === 'minisearch')
    all.push(...semanticSystems(api, await loadSemantic(), ms, fusion, notes))
  }
  for (const s of all) if (s.note) notes.add(s.note)
  return [...SYSTEM_IDS, ...EXTRA_SYSTEM_IDS]
    .map((id) => all.find((s) => s.id === id))
    .filter((s) => s && (want ? want.has(s.id) : SYSTEM_IDS.includes(s.id)))
}
