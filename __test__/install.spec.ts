/**
 * Install test: what a user gets from `bun add` / `npm install` of the published packages.
 *
 * Stages the release the way the publish job does: the files `npm pack` takes from the repo plus a
 * temporary copy of npm/, the freshly built `tool-index.<triple>.node` of this machine copied into
 * npm/<triple>, then the real `napi prepublish -t npm` (no publishing, no GitHub release), which
 * validates the platform packages and writes the main package's `optionalDependencies`. Then it
 * `npm pack`s the main package and the platform package of this machine and, in fresh temporary
 * directories outside the repo (each with its own package.json):
 *   - `bun add` both tarballs, run a TypeScript file that imports the package and searches,
 *     type-check that file against the installed typings, and run the `tool-index` bin with `bun x`;
 *   - `npm install` both tarballs, run the same search from Node as ESM (`.mjs`, named imports)
 *     and as CJS (`require`), and the bin with `npx tool-index`.
 * Only the npm registry is reached (ajv and the other runtime dependencies come from there; the
 * other seven platform packages of `optionalDependencies` are looked up and skipped). Every loaded
 * module must resolve inside the temporary directory: nothing comes from the repo's node_modules.
 *
 * Prints the tarball sizes and the install-to-first-search time of a fresh `bun add` (empty
 * Bun cache). Needs the addon and dist/ built first (`npm test` does that).
 * Set KEEP_INSTALL_TMP=1 to keep the temporary directories for inspection.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { spawnSync, type SpawnSyncReturns } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { BUN } from './helpers/runtimes'

const ROOT = path.resolve(__dirname, '..')
const PKG = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  name: string
  version: string
  bin?: Record<string, string>
  engines?: Record<string, string>
  license?: string
  files?: string[]
  optionalDependencies?: Record<string, string>
  napi: { binaryName: string; packageName?: string; targets: string[] }
}
const BINARY = PKG.napi.binaryName
const QUERY = 'create a github issue'
const EXPECTED_TOP = 'mcp__github__create_issue'
/** Installs reach the registry; allow them plenty of time on a slow CI machine. */
const INSTALL_TIMEOUT_MS = 300_000
const IS_WIN = process.platform === 'win32'

// ---------------------------------------------------------------------------------------------
// Platform triples, the napi-rs way (`<platform>-<arch>[-<abi>]`)
// ---------------------------------------------------------------------------------------------

/** Rust target triple → napi-rs platform suffix, os, cpu and libc of its npm package. */
function napiPlatform(target: string): { triple: string; os: string; cpu: string; libc?: string } {
  const table: Record<string, { triple: string; os: string; cpu: string; libc?: string }> = {
    'x86_64-unknown-linux-gnu': { triple: 'linux-x64-gnu', os: 'linux', cpu: 'x64', libc: 'glibc' },
    'aarch64-unknown-linux-gnu': { triple: 'linux-arm64-gnu', os: 'linux', cpu: 'arm64', libc: 'glibc' },
    'x86_64-unknown-linux-musl': { triple: 'linux-x64-musl', os: 'linux', cpu: 'x64', libc: 'musl' },
    'aarch64-unknown-linux-musl': { triple: 'linux-arm64-musl', os: 'linux', cpu: 'arm64', libc: 'musl' },
    'x86_64-apple-darwin': { triple: 'darwin-x64', os: 'darwin', cpu: 'x64' },
    'aarch64-apple-darwin': { triple: 'darwin-arm64', os: 'darwin', cpu: 'arm64' },
    'x86_64-pc-windows-msvc': { triple: 'win32-x64-msvc', os: 'win32', cpu: 'x64' },
    'aarch64-pc-windows-msvc': { triple: 'win32-arm64-msvc', os: 'win32', cpu: 'arm64' },
  }
  const p = table[target]
  if (!p) throw new Error(`no platform package mapping for target ${target}`)
  return p
}

function isMusl(): boolean {
  if (process.platform !== 'linux') return false
  try {
    if (fs.readFileSync('/usr/bin/ldd', 'utf8').includes('musl')) return true
  } catch {
    // no ldd script: fall through to the process report
  }
  const report = (process as unknown as { report?: { getReport?: () => unknown } }).report?.getReport?.() as
    | { header?: { glibcVersionRuntime?: string } }
    | undefined
  return report?.header ? !report.header.glibcVersionRuntime : fs.existsSync('/etc/alpine-release')
}

/** The platform package of this machine, or undefined when none of the targets fits it. */
function hostTriple(): string | undefined {
  const abi = process.platform === 'linux' ? (isMusl() ? '-musl' : '-gnu') : process.platform === 'win32' ? '-msvc' : ''
  const triple = `${process.platform}-${process.arch}${abi}`
  return PKG.napi.targets.map((t) => napiPlatform(t).triple).includes(triple) ? triple : undefined
}

// ---------------------------------------------------------------------------------------------
// Child processes: clean environment, no repo paths
// ---------------------------------------------------------------------------------------------

/**
 * The environment for installs and consumers: no NODE_PATH/NODE_OPTIONS, none of the variables
 * `npm run` sets for *this* package (npm_package_*, npm_lifecycle_*, the local prefix), no
 * TOOL_SEARCH_* switches another suite may have left set, no PATH entry inside the repo (its
 * node_modules/.bin). Registry/cache settings (npm_config_*) stay.
 */
function cleanEnv(dir: string, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {}
  const drop = /^(npm_package_|npm_lifecycle_|npm_config_local_prefix$|npm_config_prefix$|npm_command$|npm_execpath$|npm_node_execpath$|INIT_CWD$|NODE_PATH$|NODE_OPTIONS$|TOOL_SEARCH_)/i
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined || drop.test(k)) continue
    env[k] = v
  }
  const pathKey = Object.keys(env).find((k) => k.toUpperCase() === 'PATH') ?? 'PATH'
  env[pathKey] = (env[pathKey] ?? '')
    .split(path.delimiter)
    .filter((p) => p && !isInside(IS_WIN ? path.resolve(p).toLowerCase() : path.resolve(p), IS_WIN ? ROOT.toLowerCase() : ROOT))
    .join(path.delimiter)
  // Only the consumer's own node_modules on the module path.
  env.NODE_PATH = path.join(dir, 'node_modules')
  env.NO_UPDATE_NOTIFIER = '1'
  env.npm_config_update_notifier = 'false'
  env.npm_config_fund = 'false'
  env.npm_config_audit = 'false'
  return { ...env, ...extra }
}

/** A path in canonical form: symlinks, macOS /private and Windows 8.3 names resolved; case folded on Windows. */
function canon(p: string): string {
  const r = fs.realpathSync.native(p)
  return IS_WIN ? r.toLowerCase() : r
}

function isInside(p: string, dir: string): boolean {
  const rel = path.relative(dir, p)
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel))
}

function quoteWin(a: string): string {
  return /[\s"&|<>^()%!]/.test(a) ? `"${a.replace(/"/g, '""')}"` : a
}

/** Run a command; throws with its output when it fails. npm/npx go through the shell on Windows. */
function run(cmd: string, args: string[], cwd: string, env: Record<string, string>, timeout = INSTALL_TIMEOUT_MS): SpawnSyncReturns<string> {
  const shell = IS_WIN && !path.isAbsolute(cmd)
  const r = spawnSync(shell ? [cmd, ...args].map(quoteWin).join(' ') : cmd, shell ? [] : args, {
    cwd,
    env,
    encoding: 'utf8',
    timeout,
    shell,
    maxBuffer: 64 * 1024 * 1024,
  })
  if (r.error || r.status !== 0) {
    throw new Error(
      `\`${cmd} ${args.join(' ')}\` in ${cwd} failed (${r.error ? String(r.error) : `exit ${r.status}`})\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`,
    )
  }
  return r
}


// ---------------------------------------------------------------------------------------------
// Consumer programs
// ---------------------------------------------------------------------------------------------

const CONSUMER_TOOLS = `[
  { name: 'mcp__github__create_issue', description: 'Create a new issue in a GitHub repository' },
  { name: 'mcp__github__list_pull_requests', description: 'List pull requests of a GitHub repository' },
  { name: 'mcp__slack__post_message', description: 'Post a message to a Slack channel' },
  { name: 'CronCreate', description: 'Schedule a prompt to run on a cron schedule' },
  { name: 'WebFetch', description: 'Fetch a web page and return its text' },
]`

/** What every consumer prints: the ranking, where the package resolved, every loaded module. */
interface ConsumerReport {
  runtime: string
  names: string[]
  top: { name: string; score: number }
  resolved: string
  platformPackage: string
  loaded: string[]
}

/** TypeScript for Bun: ESM named imports; type-checked against the installed typings too. */
const BUN_CONSUMER_TS = `import { buildToolIndex, searchTools, type ToolSearchResult } from '@ccb/tool-index-native'

declare const require: { resolve(id: string): string; cache: Record<string, unknown> }
declare const Bun: { version: string }

const index = await buildToolIndex(${CONSUMER_TOOLS})
const results: ToolSearchResult[] = searchTools(${JSON.stringify(QUERY)}, index, 3)
console.log(JSON.stringify({
  runtime: 'bun ' + Bun.version,
  names: results.map((r) => r.name),
  top: { name: results[0].name, score: results[0].score },
  resolved: require.resolve('@ccb/tool-index-native'),
  platformPackage: require.resolve('@ccb/tool-index-native-${'${TRIPLE}'}/package.json'),
  loaded: Object.keys(require.cache),
}))
`

/** Node ESM: named imports from the CommonJS build (cjs-module-lexer must see them). */
const NODE_CONSUMER_MJS = `import { buildToolIndex, searchTools, ToolIndex, ToolIndexError, toolSearch } from '@ccb/tool-index-native'
import { ToolIndex as NativeToolIndex, tokenize } from '@ccb/tool-index-native/native'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'

const require = createRequire(import.meta.url)
for (const [k, v] of Object.entries({ buildToolIndex, searchTools, ToolIndex, ToolIndexError, toolSearch, NativeToolIndex, tokenize })) {
  if (typeof v !== 'function') throw new Error('named import ' + k + ' is ' + typeof v)
}
const index = await buildToolIndex(${CONSUMER_TOOLS})
const results = searchTools(${JSON.stringify(QUERY)}, index, 3)
console.log(JSON.stringify({
  runtime: 'node ' + process.version + ' esm',
  names: results.map((r) => r.name),
  top: { name: results[0].name, score: results[0].score },
  // ESM resolution (import.meta.resolve is flag-free from Node 20.6; CJS resolution before that).
  resolved: typeof import.meta.resolve === 'function'
    ? fileURLToPath(import.meta.resolve('@ccb/tool-index-native'))
    : require.resolve('@ccb/tool-index-native'),
  platformPackage: require.resolve('@ccb/tool-index-native-${'${TRIPLE}'}/package.json'),
  loaded: Object.keys(require.cache),
}))
`

/** Node CommonJS: `require`. */
const NODE_CONSUMER_CJS = `const { buildToolIndex, searchTools } = require('@ccb/tool-index-native')

buildToolIndex(${CONSUMER_TOOLS}).then((index) => {
  const results = searchTools(${JSON.stringify(QUERY)}, index, 3)
  console.log(JSON.stringify({
    runtime: 'node ' + process.version + ' cjs',
    names: results.map((r) => r.name),
    top: { name: results[0].name, score: results[0].score },
    resolved: require.resolve('@ccb/tool-index-native'),
    platformPackage: require.resolve('@ccb/tool-index-native-${'${TRIPLE}'}/package.json'),
    loaded: Object.keys(require.cache),
  }))
})
`

function parseReport(stdout: string): ConsumerReport {
  const line = stdout.trim().split('\n').pop() ?? ''
  return JSON.parse(line) as ConsumerReport
}

/** The consumer searched, and loaded nothing (package, binding, ajv) from outside `dir`. */
function checkReport(r: ConsumerReport, dir: string, triple: string): void {
  const real = canon(dir)
  const inDir = (p: string) => isInside(canon(p), real)
  expect(r.names[0]).toBe(EXPECTED_TOP)
  expect(r.top.score).toBeGreaterThan(0)
  expect(inDir(r.resolved)).toBe(true)
  expect(inDir(r.platformPackage)).toBe(true)
  const files = r.loaded.filter((k) => path.isAbsolute(k) && fs.existsSync(k))
  const outside = files.filter((k) => !inDir(k))
  expect(outside).toEqual([])
  // The native addon came from the platform package, not from a stray build.
  const addon = files.filter((k) => k.endsWith('.node'))
  expect(addon.length).toBe(1)
  expect(canon(addon[0])).toBe(canon(path.join(dir, 'node_modules', '@ccb', `tool-index-native-${triple}`, `${BINARY}.${triple}.node`)))
  expect(files.some((k) => k.includes(`${path.sep}node_modules${path.sep}ajv${path.sep}`))).toBe(true)
}

/** `tool-index search` output (human-readable) ranks the expected tool first over the bundled catalog. */
function checkCliText(stdout: string): void {
  const first = stdout.split('\n').find((l) => /^\s*1\.\s/.test(l)) ?? ''
  expect(first).toContain(EXPECTED_TOP)
}

/** `tool-index search --json`: results over the catalog bundled inside the installed package. */
function checkCliJson(stdout: string, dir: string): void {
  const out = JSON.parse(stdout) as { results: { name: string }[]; catalog?: string }
  expect(out.results[0].name).toBe(EXPECTED_TOP)
  if (out.catalog) expect(isInside(canon(path.resolve(dir, out.catalog)), canon(dir))).toBe(true)
}

function writeConsumerPackage(dir: string, type: 'module' | 'commonjs'): void {
  fs.writeFileSync(
    path.join(dir, 'package.json'),
    `${JSON.stringify({ name: 'tool-index-install-consumer', version: '0.0.0', private: true, type }, null, 2)}\n`,
  )
}

function kb(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KiB`
}

// ---------------------------------------------------------------------------------------------
// Static checks of npm/ (no build needed)
// ---------------------------------------------------------------------------------------------

describe('npm/ platform packages', () => {
  const rootLicense = fs.readFileSync(path.join(ROOT, 'LICENSE'), 'utf8')

  test('one directory per napi target, nothing else', () => {
    const dirs = fs.readdirSync(path.join(ROOT, 'npm')).filter((d) => fs.statSync(path.join(ROOT, 'npm', d)).isDirectory())
    expect(dirs.sort()).toEqual(PKG.napi.targets.map((t) => napiPlatform(t).triple).sort())
  })

  for (const target of PKG.napi.targets) {
    const p = napiPlatform(target)
    test(`${p.triple}: metadata matches the main package`, () => {
      const dir = path.join(ROOT, 'npm', p.triple)
      const pj = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'))
      const file = `${BINARY}.${p.triple}.node`
      expect(pj.name).toBe(`${PKG.napi.packageName ?? PKG.name}-${p.triple}`)
      expect(pj.version).toBe(PKG.version)
      expect(pj.main).toBe(file)
      expect(pj.files).toEqual([file])
      expect(pj.os).toEqual([p.os])
      expect(pj.cpu).toEqual([p.cpu])
      if (p.libc) expect(pj.libc).toEqual([p.libc])
      else expect(pj.libc).toBeUndefined()
      expect(pj.license).toBe(PKG.license)
      expect(pj.engines).toEqual(PKG.engines)
      expect(pj.publishConfig?.access).toBe('public')
      expect(fs.readFileSync(path.join(dir, 'LICENSE'), 'utf8')).toBe(rootLicense)
      expect(fs.readFileSync(path.join(dir, 'README.md'), 'utf8')).toContain(target)
      // `napi prepublish` writes optionalDependencies at publish time; pinned ones must agree.
      if (PKG.optionalDependencies?.[pj.name] !== undefined) expect(PKG.optionalDependencies[pj.name]).toBe(PKG.version)
    })
  }

  test('the release scripts the publish job runs exist', () => {
    const scripts = (PKG as { scripts?: Record<string, string> }).scripts ?? {}
    expect(scripts.artifacts).toContain('napi artifacts')
    expect(scripts.prepublishOnly).toContain('napi prepublish')
    for (const s of ['build', 'build:native', 'build:ts', 'test', 'test:bun', 'test:node', 'typecheck']) expect(scripts[s]).toBeDefined()
  })

  test('the generated loader expects this version of the platform packages', () => {
    const loader = fs.readFileSync(path.join(ROOT, 'index.js'), 'utf8')
    const expected = [...loader.matchAll(/bindingPackageVersion !== '([^']+)'/g)].map((m) => m[1])
    expect(expected.length).toBeGreaterThan(0)
    expect(new Set(expected)).toEqual(new Set([PKG.version]))
  })
})

// ---------------------------------------------------------------------------------------------
// Pack, install, search
// ---------------------------------------------------------------------------------------------

const TRIPLE = hostTriple()
const describeInstall = TRIPLE ? describe : describe.skip

describeInstall(`packed install (${TRIPLE ?? 'unsupported platform'})`, () => {
  const triple = TRIPLE as string
  const platformName = `${PKG.napi.packageName ?? PKG.name}-${triple}`
  const temps: string[] = []
  let mainTgz = ''
  let platformTgz = ''

  function tempDir(label: string): string {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), `tool-index-${label}-`))
    temps.push(d)
    if (isInside(canon(d), canon(ROOT))) throw new Error(`temporary directory ${d} is inside the repo`)
    return d
  }

  function pack(cwd: string, dest: string): { filename: string; size: number; unpackedSize: number; files: string[] } {
    const r = run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', dest], cwd, cleanEnv(dest))
    const info = (JSON.parse(r.stdout) as { filename: string; size: number; unpackedSize: number; files: { path: string }[] }[])[0]
    return { filename: path.join(dest, info.filename), size: info.size, unpackedSize: info.unpackedSize, files: info.files.map((f) => f.path).sort() }
  }

  function consumerScript(src: string): string {
    return src.split('${TRIPLE}').join(triple)
  }

  beforeAll(() => {
    const addon = path.join(ROOT, `${BINARY}.${triple}.node`)
    if (!fs.existsSync(addon)) throw new Error(`${addon} is missing: build first (npm run build)`)
    if (!fs.existsSync(path.join(ROOT, 'dist', 'index.js'))) throw new Error('dist/ is missing: build first (npm run build)')
    const out = tempDir('tarballs')

    // 1. Stage what the publish job has: the files npm packs from the repo, and npm/.
    const stage = tempDir('release')
    const env = cleanEnv(stage)
    const listing = JSON.parse(run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], ROOT, env).stdout) as { files: { path: string }[] }[]
    for (const { path: f } of listing[0].files) {
      fs.mkdirSync(path.dirname(path.join(stage, f)), { recursive: true })
      fs.copyFileSync(path.join(ROOT, f), path.join(stage, f))
    }
    fs.cpSync(path.join(ROOT, 'npm'), path.join(stage, 'npm'), { recursive: true })
    // 2. This machine's binary into its platform package (what `napi artifacts` does in CI). The
    //    other targets get empty stand-ins, only so that prepublish's checks of every platform
    //    package pass; they are never packed.
    fs.copyFileSync(addon, path.join(stage, 'npm', triple, `${BINARY}.${triple}.node`))
    for (const t of PKG.napi.targets.map((x) => napiPlatform(x).triple)) {
      const f = path.join(stage, 'npm', t, `${BINARY}.${t}.node`)
      if (!fs.existsSync(f)) fs.writeFileSync(f, '')
    }
    // 3. The real `napi prepublish -t npm`, minus publishing the platform packages and the release.
    const cliPkg = require.resolve('@napi-rs/cli/package.json', { paths: [ROOT] })
    const napi = path.join(path.dirname(cliPkg), (JSON.parse(fs.readFileSync(cliPkg, 'utf8')) as { bin: Record<string, string> }).bin.napi)
    run('node', [napi, 'prepublish', '-t', 'npm', '--skip-optional-publish', '--no-gh-release'], stage, env)
    const staged = JSON.parse(fs.readFileSync(path.join(stage, 'package.json'), 'utf8')) as { optionalDependencies?: Record<string, string> }
    const want = Object.fromEntries(PKG.napi.targets.map((t) => [`${PKG.napi.packageName ?? PKG.name}-${napiPlatform(t).triple}`, PKG.version]))
    expect(staged.optionalDependencies).toEqual(want)

    // 4. Pack the main package and this machine's platform package.
    const main = pack(stage, out)
    mainTgz = main.filename
    const plat = pack(path.join(stage, 'npm', triple), out)
    platformTgz = plat.filename

    console.log(`[install] ${path.basename(mainTgz)}: ${kb(main.size)} packed, ${kb(main.unpackedSize)} unpacked, ${main.files.length} files`)
    console.log(`[install] ${path.basename(platformTgz)}: ${kb(plat.size)} packed, ${kb(plat.unpackedSize)} unpacked, ${plat.files.length} files`)

    // What ships: the loader, dist/, the bundled catalog and the docs; never sources or binaries.
    expect(main.files).toEqual(listing[0].files.map((f) => f.path).sort())
    expect(main.files).toContain('package.json')
    expect(main.files).toContain('LICENSE')
    expect(main.files).toContain('CHANGELOG.md')
    expect(main.files).toContain('index.js')
    expect(main.files).toContain('index.d.ts')
    expect(main.files).toContain('native.js')
    expect(main.files).toContain('native.mjs')
    expect(main.files).toContain('runtime.js')
    expect(main.files).toContain('dist/index.js')
    expect(main.files).toContain('dist/index.d.ts')
    expect(main.files).toContain('catalog/default-catalog.json')
    if (PKG.bin) for (const bin of Object.values(PKG.bin)) expect(main.files).toContain(bin.replace(/^\.\//, ''))
    const allowed = /^(package\.json|LICENSE|README\.md|CHANGELOG\.md|index\.js|index\.d\.ts|native\.m?js|runtime\.js|dist\/.+\.(js|d\.ts|map)|catalog\/default-catalog\.json)$/
    expect(main.files.filter((f) => !allowed.test(f))).toEqual([])
    expect(plat.files).toEqual(['LICENSE', 'README.md', `${BINARY}.${triple}.node`, 'package.json'].sort())
  }, INSTALL_TIMEOUT_MS)

  afterAll(() => {
    if (process.env.KEEP_INSTALL_TMP) {
      console.log(`[install] kept ${temps.join(' ')}`)
      return
    }
    for (const d of temps) fs.rmSync(d, { recursive: true, force: true })
  })

  test(
    'bun add both tarballs, then search from TypeScript and with the bin',
    () => {
      const dir = tempDir('bun-consumer')
      const cache = tempDir('bun-cache')
      writeConsumerPackage(dir, 'module')
      fs.writeFileSync(path.join(dir, 'search.ts'), consumerScript(BUN_CONSUMER_TS))
      // An empty Bun cache: the timing is a first install's (the registry is reached for ajv & co).
      const env = cleanEnv(dir, { BUN_INSTALL_CACHE_DIR: cache })

      const t0 = performance.now()
      run(BUN, ['add', mainTgz, platformTgz], dir, env)
      const t1 = performance.now()
      const first = run(BUN, ['search.ts'], dir, env)
      const t2 = performance.now()
      console.log(
        `[install] fresh bun add -> first search: ${(t2 - t0).toFixed(0)} ms (bun add ${(t1 - t0).toFixed(0)} ms, first search process ${(t2 - t1).toFixed(0)} ms)`,
      )

      const report = parseReport(first.stdout)
      checkReport(report, dir, triple)
      const deps = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).dependencies
      expect(Object.keys(deps).sort()).toEqual([PKG.name, platformName].sort())
      // The installed main package lists every platform package, at its own version.
      const installed = JSON.parse(fs.readFileSync(path.join(dir, 'node_modules', '@ccb', 'tool-index-native', 'package.json'), 'utf8'))
      expect(installed.optionalDependencies[platformName]).toBe(PKG.version)
      expect(Object.keys(installed.optionalDependencies).length).toBe(PKG.napi.targets.length)

      // The installed bin, run by Bun (`bunx --bun tool-index ...`).
      checkCliText(run(BUN, ['x', '--bun', 'tool-index', 'search', QUERY], dir, env).stdout)
      checkCliJson(run(BUN, ['x', '--bun', 'tool-index', 'search', QUERY, '--json'], dir, env).stdout, dir)

      // The consumer type-checks against the installed typings alone (no @types, no repo paths).
      fs.writeFileSync(
        path.join(dir, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            target: 'ES2022',
            module: 'ESNext',
            moduleResolution: 'bundler',
            lib: ['ES2022', 'DOM'],
            types: [],
            strict: true,
            noEmit: true,
            skipLibCheck: false,
          },
          files: ['search.ts'],
        }),
      )
      const tsc = require.resolve('typescript/bin/tsc', { paths: [ROOT] })
      run(BUN, [tsc, '-p', 'tsconfig.json'], dir, env)
    },
    INSTALL_TIMEOUT_MS,
  )

  test(
    'npm install both tarballs, then search from Node (ESM and CJS) and with npx',
    () => {
      const dir = tempDir('npm-consumer')
      writeConsumerPackage(dir, 'commonjs')
      fs.writeFileSync(path.join(dir, 'search.mjs'), consumerScript(NODE_CONSUMER_MJS))
      fs.writeFileSync(path.join(dir, 'search.cjs'), consumerScript(NODE_CONSUMER_CJS))
      const env = cleanEnv(dir)

      const t0 = performance.now()
      run('npm', ['install', '--no-audit', '--no-fund', mainTgz, platformTgz], dir, env)
      console.log(`[install] npm install: ${(performance.now() - t0).toFixed(0)} ms`)

      const esm = parseReport(run('node', ['search.mjs'], dir, env).stdout)
      checkReport(esm, dir, triple)
      expect(esm.runtime).toContain('esm')
      const cjs = parseReport(run('node', ['search.cjs'], dir, env).stdout)
      checkReport(cjs, dir, triple)
      expect(cjs.runtime).toContain('cjs')
      // Same ranking and scores whichever way the package was loaded.
      expect(cjs.names).toEqual(esm.names)
      expect(cjs.top.score).toBe(esm.top.score)

      // The installed bin, run by Node through npx (local bin, no download).
      checkCliText(run('npx', ['--no-install', 'tool-index', 'search', QUERY], dir, env).stdout)
      checkCliJson(run('npx', ['--no-install', 'tool-index', 'search', QUERY, '--json'], dir, env).stdout, dir)
    },
    INSTALL_TIMEOUT_MS,
  )
})
