// Loading the things under test: the native addon, the reference TypeScript port (transpiled
// for Node, which has no TS loader in v20), the drop-in dist/ API, and the JS engines.
import { createRequire } from 'node:module'
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { createHash } from 'node:crypto'
import { pathToFileURL } from 'node:url'
import { REPO_DIR } from './data.mjs'

export const isBun = typeof globalThis.Bun !== 'undefined'
export const runtimeName = isBun ? `bun ${globalThis.Bun.version}` : `node ${process.versions.node}`
const require = createRequire(join(REPO_DIR, 'package.json'))

let nativeCache = null
export function loadNative() {
  if (!nativeCache) nativeCache = require(join(REPO_DIR, 'native.js'))
  return nativeCache
}

let referenceCache = null
/** The reference port. Bun imports the .ts directly; Node gets a cached transpile (typescript). */
export async function loadReference() {
  if (referenceCache) return referenceCache
  const dir = join(REPO_DIR, 'reference')
  if (isBun) {
    referenceCache = await import(pathToFileURL(join(dir, 'index.ts')).href)
    return referenceCache
  }
  const ts = require('typescript')
  const files = readdirSync(dir).filter(f => f.endsWith('.ts') && !f.endsWith('.d.ts'))
  const hash = createHash('sha256')
  for (const f of files) hash.update(f).update(readFileSync(join(dir, f)))
  const out = join(tmpdir(), `tool-index-bench-reference-${hash.digest('hex').slice(0, 16)}`)
  if (!existsSync(join(out, 'index.mjs'))) {
    mkdirSync(out, { recursive: true })
    for (const f of files) {
      const src = readFileSync(join(dir, f), 'utf8')
      let js = ts.transpileModule(src, {
        compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
        fileName: f,
      }).outputText
      js = js.replace(/(from\s+['"])(\.{1,2}\/[^'"]+?)(['"])/g, (_, a, p, b) => `${a}${p.replace(/\.ts$/, '')}.mjs${b}`)
      writeFileSync(join(out, f.replace(/\.ts$/, '.mjs')), js)
    }
  }
  referenceCache = await import(pathToFileURL(join(out, 'index.mjs')).href)
  return referenceCache
}

/** The drop-in async API from dist/index.js, or `{ missing: reason }`. */
export async function loadDropIn() {
  const p = join(REPO_DIR, 'dist', 'index.js')
  if (!existsSync(p)) return { missing: 'dist/index.js does not exist yet (npm run build:ts)' }
  try {
    const mod = await import(pathToFileURL(p).href)
    const api = mod.buildToolIndex ? mod : (mod.default ?? mod)
    if (typeof api.buildToolIndex !== 'function' || typeof api.searchTools !== 'function') {
      return { missing: 'dist/index.js does not export buildToolIndex and searchTools' }
    }
    return { api }
  } catch (e) {
    return { missing: `dist/index.js failed to load: ${e?.message ?? e}` }
  }
}

export async function loadEngines() {
  const [minisearch, orama, flexsearch, flexEn] = await Promise.all([
    import('minisearch'),
    import('@orama/orama'),
    import('flexsearch'),
    import('flexsearch/lang/en').catch(() => null),
  ])
  return {
    MiniSearch: minisearch.default ?? minisearch,
    orama,
    flexsearch: flexsearch.default ?? flexsearch,
    flexEnglish: flexEn ? (flexEn.default ?? flexEn) : null,
  }
}
