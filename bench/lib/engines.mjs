// Engine adapters. Each: { id, label, kind, build(cat) -> index | Promise, search(index, q) -> results
// | Promise, top(results, cat) -> names, add?(index, batch), remove?(index, batch) }.
// `batch` is a makeCatalog() of the tools to add, with `idBase` for engines that need numeric ids.
import { loadDropIn, loadEngines, loadNative, loadReference } from './modules.mjs'

export const LIMIT = 5

// English stop words for the JS engines (the list a MiniSearch user would paste from its docs).
const STOP = new Set(
  ('a an and are as at be but by for if in into is it no not of on or such that the their then there ' +
    'these they this to was will with can you your i me my we our from how what which who do does ' +
    'using use').split(' '),
)

export async function makeEngines({ only } = {}) {
  const native = loadNative()
  const ref = await loadReference()
  const dropIn = await loadDropIn()
  const { MiniSearch, orama, flexsearch, flexEnglish } = await loadEngines()
  const notes = []

  const engines = []

  // --- this package ------------------------------------------------------------------------
  engines.push({
    id: 'native',
    label: 'native (compat)',
    kind: 'this',
    build: cat => new native.ToolIndex(cat.entries),
    search: (idx, q) => idx.search(q, LIMIT),
    top: r => r.map(h => h.name),
    add: (idx, batch) => idx.upsert(batch.entries),
    remove: (idx, batch) => idx.remove(batch.names),
  })
  engines.push({
    id: 'native-ids',
    label: 'native searchIds',
    kind: 'this',
    queryOnly: true,
    shareIndexWith: 'native',
    search: (idx, q) => idx.searchIds(q, LIMIT, 0.1),
    top: (r, cat) => {
      const out = []
      for (let i = 0; i < r.length; i += 2) out.push(cat.names[r[i]])
      return out
    },
  })
  // enhanced scoring, once the core has it
  try {
    const probe = new native.ToolIndex([{ name: 'a', description: 'b' }], { scoring: 'enhanced' })
    probe.search('b', 1)
    engines.push({
      id: 'native-enhanced',
      label: 'native (enhanced)',
      kind: 'this',
      build: cat => new native.ToolIndex(cat.entries, { scoring: 'enhanced' }),
      search: (idx, q) => idx.search(q, LIMIT),
      top: r => r.map(h => h.name),
      add: (idx, batch) => idx.upsert(batch.entries),
      remove: (idx, batch) => idx.remove(batch.names),
    })
  } catch (e) {
    notes.push(`native (enhanced) skipped: ${String(e?.message ?? e).split('\n')[0]}`)
  }
  if (dropIn.api) {
    const api = dropIn.api
    engines.push({
      id: 'dropin',
      label: 'drop-in async API',
      kind: 'this',
      build: cat => api.buildToolIndex(cat.hostTools),
      search: (idx, q) => api.searchTools(q, idx, LIMIT),
      top: r => r.map(h => h.name),
      getToolIndex: typeof api.getToolIndex === 'function' ? api.getToolIndex : null,
      clearToolIndexCache: typeof api.clearToolIndexCache === 'function' ? api.clearToolIndexCache : null,
    })
  } else {
    notes.push(`drop-in async API skipped: ${dropIn.missing}`)
  }

  // --- the reference TypeScript port ---------------------------------------------------------
  engines.push({
    id: 'reference',
    label: 'reference (TS port)',
    kind: 'reference',
    slow: true,
    build: cat => ref.buildToolIndexFromEntries(cat.entries),
    search: (idx, q) => ref.searchTools(q, idx, LIMIT),
    top: r => r.map(h => h.name),
  })
  engines.push({
    id: 'reference-async',
    label: 'reference async (prompt())',
    kind: 'reference',
    buildOnly: true,
    build: cat => ref.buildToolIndex(cat.hostTools),
  })
  // What awaiting every prompt() costs by itself: the floor of any async build.
  engines.push({
    id: 'prompts',
    label: '[await each prompt() only]',
    kind: 'floor',
    buildOnly: true,
    build: async cat => {
      const out = new Array(cat.hostTools.length)
      for (let i = 0; i < cat.hostTools.length; i++) out[i] = await cat.hostTools[i].prompt({})
      return out
    },
  })

  // --- JS engines, configured as a competent user would ------------------------------------------
  const msOptions = {
    idField: 'id',
    fields: ['name', 'description', 'searchHint'],
    storeFields: [],
    processTerm: term => {
      const t = term.toLowerCase()
      return STOP.has(t) ? null : t
    },
    searchOptions: { boost: { name: 3, searchHint: 2.5 }, combineWith: 'OR' },
  }
  engines.push({
    id: 'minisearch',
    label: 'minisearch',
    kind: 'js',
    build: cat => {
      const ms = new MiniSearch(msOptions)
      ms.addAll(cat.docs)
      return ms
    },
    search: (ms, q) => ms.search(q).slice(0, LIMIT),
    top: (r, cat) => r.map(h => cat.names[h.id]),
    add: (ms, batch) => ms.addAll(batch.docs),
    remove: (ms, batch) => ms.discardAll(batch.docs.map(d => d.id)),
  })

  // `id` is taken from each document without being in the schema (so ids are not searchable text).
  const oramaSchema = { name: 'string', description: 'string', searchHint: 'string' }
  const oramaDocs = docs => docs.map(d => ({ ...d, id: String(d.id) }))
  engines.push({
    id: 'orama',
    label: '@orama/orama',
    kind: 'js',
    prepare: cat => {
      cat.oramaDocs ??= oramaDocs(cat.docs)
    },
    build: cat => {
      // English stemming plus stop words: Orama's tokenizer keeps stop words unless given a list
      // (the lists live in @orama/stopwords), and with them every query term like "the" or "a"
      // matches most of the catalog: ~10x slower and worse hits on these queries.
      const db = orama.create({
        schema: oramaSchema,
        components: { tokenizer: { language: 'english', stemming: true, stopWords: [...STOP] } },
      })
      const r = orama.insertMultiple(db, cat.oramaDocs ?? oramaDocs(cat.docs))
      return r && typeof r.then === 'function' ? r.then(() => db) : db
    },
    search: (db, q) =>
      orama.search(db, {
        term: q,
        properties: ['name', 'description', 'searchHint'],
        // No field boost: on these queries `boost: { name: 3 }` lowered Orama's hit@5 (78 -> 64 of
        // 100 at 10k tools) at the same speed, so a user tuning it would leave it off.
        limit: LIMIT,
      }),
    top: (r, cat) => r.hits.map(h => cat.names[Number(h.id)]),
    add: (db, batch) => orama.insertMultiple(db, batch.oramaDocs ?? oramaDocs(batch.docs)),
    remove: (db, batch) => orama.removeMultiple(db, batch.docs.map(d => String(d.id))),
  })

  const { Document, Encoder } = flexsearch
  const flexEncoder = () => (flexEnglish && Encoder ? new Encoder(flexEnglish) : undefined)
  if (!flexEnglish) notes.push('flexsearch: English preset (flexsearch/lang/en) not loadable; default encoder used')
  engines.push({
    id: 'flexsearch',
    label: 'flexsearch (Document)',
    kind: 'js',
    build: cat => {
      // The English preset (stemmer + stop-word filter) and the contextual index, FlexSearch's
      // own recommendation for relevance; here it is also ~5x faster to query than without
      // context, with the best hit@5 of the configurations tried.
      const opts = {
        document: { id: 'id', index: ['name', 'description', 'searchHint'] },
        tokenize: 'strict',
        context: true,
      }
      const enc = flexEncoder()
      if (enc) opts.encoder = enc
      const d = new Document(opts)
      for (const doc of cat.docs) d.add(doc)
      return d
    },
    // suggest: partial matches for natural-language queries (without it a multi-word query is an
    // AND and nearly every realistic query returns nothing); merge: one list across fields.
    search: (d, q) => d.search(q, { limit: LIMIT, suggest: true, merge: true }),
    top: (r, cat) => r.slice(0, LIMIT).map(h => cat.names[h.id]),
    add: (d, batch) => {
      for (const doc of batch.docs) d.add(doc)
    },
    remove: (d, batch) => {
      for (const doc of batch.docs) d.remove(doc.id)
    },
  })

  const selected = only ? engines.filter(e => only.includes(e.id)) : engines
  return { engines: selected, notes, native, ref }
}
