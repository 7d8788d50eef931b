#!/usr/bin/env node
// The local encoder's cost on the 2,375 ETOM tools: build time of the tool vectors with an empty
// vector cache (first build) and with a warm one (cached build), and the query cost (ms per query,
// p50 / p90 over 100 single-query embeddings). Printed, never asserted.
//
//   node bench/quality/encoder-cost.mjs [--model-dir DIR]   (needs npm run build, build:encoder and the model)
//
// `--model-dir`: another model directory, e.g. ~/.cache/tool-index/models/multilingual-e5-small.
// Also printed: the process's resident memory once the model is loaded.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { DATA_DIR, REPO_ROOT } from './data.mjs'

const sem = await import(pathToFileURL(path.join(REPO_ROOT, 'dist', 'semantic.js')).href)
const { nativeBinding } = await import(pathToFileURL(path.join(REPO_ROOT, 'dist', 'index.js')).href)
const tools = JSON.parse(readFileSync(path.join(DATA_DIR, 'etom', 'tools.json'), 'utf8'))
const queries = JSON.parse(readFileSync(path.join(DATA_DIR, 'etom', 'queries.json'), 'utf8')).map((q) => q.query)
const texts = tools.map((t) => sem.toolText({ name: t.name, description: t.description ?? '' }))
const at = process.argv.indexOf('--model-dir')
const modelDir = at > 0 ? process.argv[at + 1] : undefined
const model = modelDir ? { modelDir } : {}
const cache = mkdtempSync(path.join(os.tmpdir(), 'tool-index-cost-'))
const ms = (t0) => performance.now() - t0

let rssLoaded = 0

async function build(label) {
  const t0 = performance.now()
  const enc = sem.loadLocalEncoder({ ...model, cacheDir: cache })
  const tl = ms(t0)
  if (!rssLoaded) rssLoaded = process.memoryUsage().rss
  const vs = await enc.embed(texts)
  const store = new nativeBinding.NativeVectorStore(enc.dim)
  const flat = new Float32Array(vs.length * enc.dim)
  vs.forEach((v, i) => flat.set(v, i * enc.dim))
  store.upsertMany(tools.map((t) => t.name), flat)
  console.log(`${label}: ${(ms(t0) / 1000).toFixed(2)} s for ${tools.length} tools (model load ${tl.toFixed(0)} ms; cache ${enc.cached} vectors)`)
  return { enc, store }
}

try {
  await build('first build (empty cache)')
  console.log(`resident memory with the model loaded (before any embedding): ${(rssLoaded / 2 ** 20).toFixed(0)} MB`)
  const { store } = await build('cached build')
  const enc = sem.loadLocalEncoder({ ...model, cacheDir: false })
  const lat = []
  const search = []
  for (const q of queries.slice(0, 100)) {
    const t0 = performance.now()
    const [v] = await enc.embed([q], { query: true })
    lat.push(ms(t0))
    const t1 = performance.now()
    store.search(Float32Array.from(v), 50)
    search.push(ms(t1))
  }
  const p = (a, x) => [...a].sort((m, n) => m - n)[Math.floor(x * (a.length - 1))]
  console.log(`query embedding: p50 ${p(lat, 0.5).toFixed(1)} ms, p90 ${p(lat, 0.9).toFixed(1)} ms (100 ETOM queries, one at a time)`)
  console.log(`vector top-50 over ${store.size} int8 vectors: p50 ${(1000 * p(search, 0.5)).toFixed(0)} µs`)
} finally {
  rmSync(cache, { recursive: true, force: true })
}
