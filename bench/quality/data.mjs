// Loading the public benchmark sets (../shared/bench-data, see its README) into the sets the
// quality command scores: each set is { id, corpus, kind, queries: [{ id, query, judgement }] }.
import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { inSplit, judgement, sample } from './metrics.mjs'

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..')
export const DATA_DIR = process.env.TOOL_INDEX_BENCH_DATA ?? path.resolve(REPO_ROOT, '..', 'shared', 'bench-data')

export const SEED = 42
export const METATOOL_SINGLE_SAMPLE = 2000
export const QUICK_PER_SET = 300

/** The platform clause ETOM L1 queries open with ("On Binance, ..."). */
export const PLATFORM_CLAUSE = /^(On|In|Using|With|Via) [^,]{1,60}, /

/** Set ids in print order, with what they are. */
export const SET_INFO = [
  { id: 'etom-l1', corpus: 'etom', title: 'ETOM L1' },
  { id: 'etom-l1-stripped', corpus: 'etom', title: 'ETOM L1, platform clause stripped' },
  { id: 'etom-l2', corpus: 'etom', title: 'ETOM L2 (any-of)' },
  { id: 'etom-l3', corpus: 'etom', title: 'ETOM L3 (share of steps)' },
  { id: 'etom-l4', corpus: 'etom', title: 'ETOM L4 (share of steps)' },
  { id: 'etom-infeasible', corpus: 'etom', title: 'ETOM infeasible', infeasible: true },
  { id: 'metatool-single', corpus: 'metatool', title: 'MetaTool single' },
  { id: 'metatool-multi', corpus: 'metatool', title: 'MetaTool multi (both tools)' },
]
export const SET_IDS = SET_INFO.map((s) => s.id)

/**
 * Chinese requests: samples of three sets' requests, dev and holdout, translated into Chinese
 * (`zh-requests.json`, see bench/QUALITY.md), judged as their English originals, over the same
 * English tool catalogs. Not in the default run (`--set zh`); split like their originals.
 */
export const ZH_SET_INFO = [
  { id: 'etom-l2-zh', corpus: 'etom', from: 'etom-l2', file: 'zh-requests.json', title: 'ETOM L2, in Chinese' },
  { id: 'etom-l3-zh', corpus: 'etom', from: 'etom-l3', file: 'zh-requests.json', title: 'ETOM L3, in Chinese' },
  { id: 'metatool-single-zh', corpus: 'metatool', from: 'metatool-single', file: 'zh-requests.json', title: 'MetaTool single, in Chinese' },
]
const ZH_SET_IDS = ZH_SET_INFO.map((s) => s.id)

/**
 * More Chinese requests, translated after every Chinese rule was fixed (`zh-requests-unseen.json`,
 * see bench/QUALITY.md): holdout requests of ETOM L2 and L3 that the first sample left out, and
 * MetaTool single requests from outside the 2,000-request sample. Scored with `--holdout`
 * (`--set zh-unseen`); not in the default run.
 */
export const ZH_UNSEEN_SET_INFO = [
  { id: 'etom-l2-zh-unseen', corpus: 'etom', from: 'etom-l2', file: 'zh-requests-unseen.json', title: 'ETOM L2, in Chinese, not seen' },
  { id: 'etom-l3-zh-unseen', corpus: 'etom', from: 'etom-l3', file: 'zh-requests-unseen.json', title: 'ETOM L3, in Chinese, not seen' },
  { id: 'metatool-single-zh-unseen', corpus: 'metatool', from: 'metatool-single', file: 'zh-requests-unseen.json', title: 'MetaTool single, in Chinese, not seen' },
]
const ZH_UNSEEN_SET_IDS = ZH_UNSEEN_SET_INFO.map((s) => s.id)

/**
 * The same requests in a second translation, made independently by a translator who saw only the
 * English requests (`zh-requests-unseen-alt.json`, `--set zh-unseen-alt`): how much the Chinese
 * figures move with the translator.
 */
export const ZH_ALT_SET_INFO = ZH_UNSEEN_SET_INFO.map((s) => ({
  ...s,
  id: `${s.id}-alt`,
  file: 'zh-requests-unseen-alt.json',
  title: `${s.title}, second translation`,
}))
const ZH_ALT_SET_IDS = ZH_ALT_SET_INFO.map((s) => s.id)
const ZH_ALL_SET_INFO = [...ZH_SET_INFO, ...ZH_UNSEEN_SET_INFO, ...ZH_ALT_SET_INFO]

/**
 * MetaTool's single-tool requests outside the 2,000-request sample (`--set unseen`), split like
 * the rest: the holdout part (about 3,700 requests) is a check on requests not seen; the dev part
 * (about 14,900) is more dev data (the fusion weight was chosen on it, see bench/QUALITY.md).
 * Not in the default run.
 */
export const UNSEEN_SET_INFO = [
  { id: 'metatool-single-unseen', corpus: 'metatool', from: 'metatool-single', title: 'MetaTool single, outside the sample' },
]
const UNSEEN_SET_IDS = UNSEEN_SET_INFO.map((s) => s.id)

/**
 * UltraTool's test requests (`--set ultratool`): 1,000 requests, most needing two or more of its
 * 436 tools, in English over the English tool texts and in Chinese over the Chinese ones (the same
 * requests and tool names). Never tuned on before stop 40; read from
 * `$TOOL_INDEX_ULTRATOOL_DATA`, else `../shared/ultratool` (the repository's `data/` folder:
 * `<Language>-dataset/test.json`, one record a line). Not vendored: its repository states no
 * licence. Not in the default run.
 */
export const ULTRATOOL_DIR = process.env.TOOL_INDEX_ULTRATOOL_DATA ?? path.resolve(REPO_ROOT, '..', 'shared', 'ultratool')
export const ULTRATOOL_SET_INFO = [
  { id: 'ultratool', corpus: 'ultratool', language: 'English', title: 'UltraTool (share of tools)' },
  { id: 'ultratool-zh', corpus: 'ultratool-zh', language: 'Chinese', title: 'UltraTool in Chinese, Chinese tool texts (share of tools)' },
]
const ULTRATOOL_SET_IDS = ULTRATOOL_SET_INFO.map((s) => s.id)

/**
 * Seal-Tools' two test files (`--set seal`, Apache-2.0; arXiv 2405.08355): 1,354 requests over its
 * 4,076 tools, the one-tool requests (`easy`) and the multi-tool ones (`difficult`, each called
 * tool a step). Added at stop 40 and scored without tuning; read from `$TOOL_INDEX_SEAL_DATA`,
 * else `../shared/seal-tools` (`tool.jsonl`, `test_in_domain.jsonl`, `test_out_domain.jsonl` of
 * the repository's `Seal-Tools_Dataset/`). Not in the default run.
 */
export const SEAL_DIR = process.env.TOOL_INDEX_SEAL_DATA ?? path.resolve(REPO_ROOT, '..', 'shared', 'seal-tools')
export const SEAL_SET_INFO = [
  { id: 'seal-single', corpus: 'seal', title: 'Seal-Tools, one tool' },
  { id: 'seal-multi', corpus: 'seal', title: 'Seal-Tools, several tools (share of tools)' },
]
const SEAL_SET_IDS = SEAL_SET_INFO.map((s) => s.id)

/**
 * Requests that need no tool at all (`--set no-tool`): the 520 `negative` requests of MetaTool's
 * tool-usage awareness task (`dataset/tmp_dataset/Task1.json` of its repository, MIT), searched
 * over MetaTool's 199 tools. Like ETOM's infeasible requests, the right answer is nothing; unlike
 * them they are chat, writing and coding requests, the kind of message a prefetch from the
 * user's own words sees most. Added at stop 48 and scored once with every rule as it was chosen
 * before (never tuned on, both splits reported); read from `$TOOL_INDEX_METATOOL_AWARENESS_DATA`,
 * else `../shared/metatool-awareness` (the folder holding `Task1.json`). Not in the default run.
 */
export const NO_TOOL_DIR = process.env.TOOL_INDEX_METATOOL_AWARENESS_DATA ?? path.resolve(REPO_ROOT, '..', 'shared', 'metatool-awareness')
export const NO_TOOL_SET_INFO = [{ id: 'metatool-no-tool', corpus: 'metatool', title: 'MetaTool, requests that need no tool', infeasible: true, scoredOnly: true }]
const NO_TOOL_SET_IDS = NO_TOOL_SET_INFO.map((s) => s.id)
const EXTRA_SET_IDS = [...ZH_SET_IDS, ...ZH_UNSEEN_SET_IDS, ...ZH_ALT_SET_IDS, ...UNSEEN_SET_IDS, ...ULTRATOOL_SET_IDS, ...SEAL_SET_IDS, ...NO_TOOL_SET_IDS]
const HERE = path.dirname(fileURLToPath(import.meta.url))

function readJson(...parts) {
  const p = path.join(DATA_DIR, ...parts)
  if (!existsSync(p)) {
    throw new Error(
      `benchmark data not found: ${p}\n` +
        `Set TOOL_INDEX_BENCH_DATA to the folder holding etom/ and metatool/ (default: ../shared/bench-data).`,
    )
  }
  return JSON.parse(readFileSync(p, 'utf8'))
}

/** The sets a script's `--set <ids>` names, else `fallback` (for the scripts without an option parser). */
export function setsFromArgv(argv, fallback) {
  const at = argv.indexOf('--set')
  return selectSets(at > 0 && argv[at + 1] ? argv[at + 1].split(',') : fallback)
}

/** Stop a rule-choosing run (`--cv`, `--sweep`) that was given a set no rule may be chosen on. */
export function refuseScoredOnly(sets, choosing) {
  const only = sets.filter((s) => s.scoredOnly).map((s) => s.id)
  if (choosing && only.length > 0) {
    console.error(`${only.join(', ')}: scored only, never used to choose a rule; leave it out of --cv and --sweep`)
    process.exit(2)
  }
}

/** `--set` values: exact set ids, a corpus name (`etom`, `metatool`) or a prefix ending in `*`. */
/** Names for groups of the sets outside the default run. */
const SET_GROUPS = {
  zh: ZH_SET_IDS,
  'zh-unseen': ZH_UNSEEN_SET_IDS,
  'zh-unseen-alt': ZH_ALT_SET_IDS,
  unseen: UNSEEN_SET_IDS,
  ultratool: ULTRATOOL_SET_IDS,
  seal: SEAL_SET_IDS,
  'no-tool': NO_TOOL_SET_IDS,
}

export function selectSets(filters) {
  if (!filters || filters.length === 0) return SET_IDS.slice()
  const out = new Set()
  for (const f of filters) {
    const v = f.trim().toLowerCase()
    if (!v) continue
    const hits =
      SET_GROUPS[v] ??
      [...SET_IDS, ...EXTRA_SET_IDS].filter((id) =>
        v.endsWith('*') ? id.startsWith(v.slice(0, -1)) : id === v || (SET_IDS.includes(id) && SET_INFO.find((s) => s.id === id).corpus === v),
      )
    if (hits.length === 0) throw new Error(`unknown set ${JSON.stringify(f)}; sets: ${[...SET_IDS, ...EXTRA_SET_IDS].join(', ')} (or etom, metatool, ${Object.keys(SET_GROUPS).join(', ')}, prefix*)`)
    hits.forEach((h) => out.add(h))
  }
  return [...SET_IDS, ...EXTRA_SET_IDS].filter((id) => out.has(id))
}

/**
 * Load the selected sets.
 * @param {{ sets: string[], split: 'dev'|'holdout', allMetatool?: boolean, quick?: boolean }} opts
 */
export function loadSets({ sets, split, allMetatool = false, quick = false }) {
  const wanted = new Set(sets)
  const corpora = {}
  const out = []
  const needEtom = sets.some((s) => s.startsWith('etom'))
  const needMeta = sets.some((s) => s.startsWith('metatool'))
  // Translation files, read on first use.
  const files = new Map()
  const translations = (file) => {
    if (!files.has(file)) files.set(file, JSON.parse(readFileSync(path.join(HERE, file), 'utf8')))
    return files.get(file)
  }
  // The wanted translated sets of one original set, in print order.
  const translationsOf = (from) => ZH_ALL_SET_INFO.filter((s) => s.from === from && wanted.has(s.id)).map((s) => s.id)
  // A translated set: its requests in Chinese, each judged as its English original.
  const translated = (id, originals) => {
    const info = ZH_ALL_SET_INFO.find((s) => s.id === id)
    const byId = new Map(originals.map((q) => [q.id, q]))
    const queries = translations(info.file)
      .filter((r) => r.set === info.from && inSplit(r.id, split))
      .map((r) => ({ id: r.id, query: r.zh, judgement: byId.get(r.id).judgement }))
    out.push({ ...info, queries, inSplit: queries.length, note: `${queries.length} ${split} requests of ${info.from}, translated` })
  }

  const finish = (id, rows, extra = {}) => {
    const info = [...SET_INFO, ...UNSEEN_SET_INFO, ...ULTRATOOL_SET_INFO, ...SEAL_SET_INFO, ...NO_TOOL_SET_INFO].find((s) => s.id === id)
    let queries = rows.filter((r) => inSplit(r.id, split))
    const inSplitCount = queries.length
    if (quick && queries.length > QUICK_PER_SET) queries = sample(queries, QUICK_PER_SET, SEED)
    out.push({ ...info, queries, inSplit: inSplitCount, ...extra })
  }

  if (needEtom) {
    const tools = readJson('etom', 'tools.json')
    corpora.etom = tools
    const qs = readJson('etom', 'queries.json')
    const level = (l) => qs.filter((q) => q.level === l)
    const mk = (q, text = q.query) => ({ id: q.id, query: text, judgement: judgement(q) })
    if (wanted.has('etom-l1')) finish('etom-l1', level(1).map((q) => mk(q)))
    if (wanted.has('etom-l1-stripped')) {
      let stripped = 0
      const rows = level(1).map((q) => {
        const text = q.query.replace(PLATFORM_CLAUSE, '')
        if (text !== q.query) stripped++
        return mk(q, text)
      })
      finish('etom-l1-stripped', rows, { note: `${stripped} of ${rows.length} L1 queries had a clause to strip` })
    }
    if (wanted.has('etom-l2')) finish('etom-l2', level(2).map((q) => mk(q)))
    for (const id of translationsOf('etom-l2')) translated(id, level(2).map((q) => mk(q)))
    if (wanted.has('etom-l3')) finish('etom-l3', level(3).map((q) => mk(q)))
    for (const id of translationsOf('etom-l3')) translated(id, level(3).map((q) => mk(q)))
    if (wanted.has('etom-l4')) finish('etom-l4', level(4).map((q) => mk(q)))
    if (wanted.has('etom-infeasible')) {
      const inf = readJson('etom', 'queries_infeasible.json')
      finish('etom-infeasible', inf.map((q) => ({ id: q.id, query: q.query, judgement: judgement(q) })))
    }
  }

  if (needMeta) {
    const tools = readJson('metatool', 'tools.json')
    corpora.metatool = tools
    const qs = readJson('metatool', 'queries.json')
    for (const id of translationsOf('metatool-single')) {
      translated(id, qs.filter((q) => q.subset === 'single').map((q) => ({ id: q.id, judgement: judgement(q, { anyOf: true }) })))
    }
    if (wanted.has('metatool-single')) {
      const single = qs.filter((q) => q.subset === 'single')
      // The fixed 2,000-query sample (seed 42) is drawn from the whole single subset, then split.
      const pool = allMetatool ? single : sample(single, METATOOL_SINGLE_SAMPLE, SEED)
      finish(
        'metatool-single',
        pool.map((q) => ({ id: q.id, query: q.query, judgement: judgement(q, { anyOf: true }) })),
        { note: allMetatool ? `all ${single.length} single-tool queries` : `${pool.length} of ${single.length} sampled, seed ${SEED}` },
      )
    }
    if (wanted.has('metatool-single-unseen')) {
      const single = qs.filter((q) => q.subset === 'single')
      const sampled = new Set(sample(single, METATOOL_SINGLE_SAMPLE, SEED).map((q) => q.id))
      const rest = single.filter((q) => !sampled.has(q.id))
      finish(
        'metatool-single-unseen',
        rest.map((q) => ({ id: q.id, query: q.query, judgement: judgement(q, { anyOf: true }) })),
        { note: `the ${split} requests of the ${rest.length} outside the sample` },
      )
    }
    if (wanted.has('metatool-multi')) {
      const multi = qs.filter((q) => q.subset === 'multi')
      finish('metatool-multi', multi.map((q) => ({ id: q.id, query: q.query, judgement: judgement(q) })))
    }
    if (wanted.has('metatool-no-tool')) {
      const rows = readNoTool()
      finish('metatool-no-tool', rows, { note: `the ${split} part of ${rows.length} requests that need no tool` })
    }
  }
  for (const info of ULTRATOOL_SET_INFO) {
    if (!wanted.has(info.id)) continue
    const { tools, queries } = readUltraTool(info.language)
    corpora[info.corpus] = tools
    finish(info.id, queries, { note: `${queries.length} requests, ${tools.length} tools` })
  }
  if (sets.some((id) => SEAL_SET_IDS.includes(id))) {
    const { tools, single, multi } = readSealTools()
    corpora.seal = tools
    if (wanted.has('seal-single')) finish('seal-single', single, { note: `${single.length} requests, ${tools.length} tools` })
    if (wanted.has('seal-multi')) finish('seal-multi', multi, { note: `${multi.length} requests, ${tools.length} tools` })
  }
  return { corpora, sets: out }
}

/**
 * MetaTool's requests that need no tool: the `negative` records of its awareness task, in file
 * order, each with an id of its position among them (`no-tool-0`, ...) and no relevant tool.
 */
export function readNoTool() {
  const file = path.join(NO_TOOL_DIR, 'Task1.json')
  if (!existsSync(file)) throw new Error(`MetaTool awareness data not found: ${file}\nSet TOOL_INDEX_METATOOL_AWARENESS_DATA to the folder holding Task1.json.`)
  const records = JSON.parse(readFileSync(file, 'utf8'))
  return records
    .filter((r) => r.label === 'negative' && typeof r.query === 'string')
    .map((r, i) => ({ id: `no-tool-${i}`, query: r.query, judgement: judgement({ relevant: [] }) }))
}

/** The records of a JSON-lines file of a set kept beside the repository (`set` names it, `hint` says where it goes). */
function readJsonLines(file, set, hint) {
  if (!existsSync(file)) throw new Error(`${set} data not found: ${file}\nSet ${hint}.`)
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l))
}

/**
 * Seal-Tools as a catalog and judged requests: each tool's name, description and parameters (as
 * a JSON schema's properties); a request's relevant tools are those it calls, each its own group.
 * One-tool requests and the rest apart; ids as the files give them (`test_in_domain-easy-0`).
 */
export function readSealTools() {
  const read = (file) => readJsonLines(path.join(SEAL_DIR, file), 'Seal-Tools', 'TOOL_INDEX_SEAL_DATA to the folder holding tool.jsonl and the test files')
  const tools = read('tool.jsonl').map((t) => ({
    name: t.api_name,
    description: t.api_description,
    inputSchema: { type: 'object', properties: t.parameters ?? {}, required: t.required ?? [] },
  }))
  const single = []
  const multi = []
  for (const r of [...read('test_in_domain.jsonl'), ...read('test_out_domain.jsonl')]) {
    const relevant = [...new Set(r.calling.map((c) => c.api))]
    const q = { id: r.id, query: r.query, judgement: judgement({ relevant }) }
    ;(relevant.length === 1 ? single : multi).push(q)
  }
  return { tools, single, multi }
}

/**
 * One language of UltraTool as a catalog and judged requests: every tool a record lists (the
 * tools its plan calls), once by name; a request's relevant tools are its record's, each its own
 * group (recall@5 is the share of them in the top 5). Ids are the record's line number, the same
 * in both languages, so both split alike.
 */
export function readUltraTool(language) {
  const records = readJsonLines(
    path.join(ULTRATOOL_DIR, `${language}-dataset`, 'test.json'),
    'UltraTool',
    'TOOL_INDEX_ULTRATOOL_DATA to the folder holding English-dataset/ and Chinese-dataset/',
  )
  const byName = new Map()
  const queries = records.map((r, i) => {
    for (const t of r.tools) {
      if (!byName.has(t.name)) byName.set(t.name, { name: t.name, description: t.description, inputSchema: t.arguments })
    }
    const q = { id: `ultratool-${i}`, query: r.question.trim(), relevant: r.tools.map((t) => t.name) }
    return { id: q.id, query: q.query, judgement: judgement(q) }
  })
  return { tools: [...byName.values()], queries }
}
