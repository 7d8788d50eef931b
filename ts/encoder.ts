/**
 * Sentence encoders for the semantic channel. An `Embedder` turns texts into vectors; the host
 * can pass its own (`embedderFromFunction(texts => myEmbeddingsApi(texts))`) or load the local
 * one (`loadLocalEncoder()`): all-MiniLM-L6-v2 (or another BERT sentence-transformer directory with mean pooling: a
 * `1_Pooling` config asking for CLS pooling is not read) run in
 * Rust by the optional companion addon `@ccb/tool-index-encoder`, off the JS thread, with an
 * on-disk cache of vectors keyed by model and text. No Python, no server, no network at query
 * time.
 */
import { closeSync, constants as fsConstants, existsSync, fstatSync, openSync, readSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { LIMITS } from './config'
import { cardLanguages } from './languages'
import { describeError, readField } from './safeRead'

/** Stable codes of encoder errors. */
export type EncoderErrorCode =
  | 'E_ENCODER_UNAVAILABLE'
  | 'E_MODEL_NOT_FOUND'
  | 'E_MODEL_INVALID'
  | 'E_ENCODE'
  | 'E_CACHE'
  | 'E_DISPOSED'
  | 'E_INVALID_ARG'

/** An error of the encoder layer, with a stable `code`. */
export class EncoderError extends Error {
  readonly code: EncoderErrorCode

  constructor(code: EncoderErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'EncoderError'
    this.code = code
  }
}

/**
 * Whether `e` is an `EncoderError`. Never throws: `instanceof` itself throws on a revoked Proxy
 * (or one whose `getPrototypeOf` trap throws), which a hostile embedder may throw or answer.
 */
export function isEncoderError(e: unknown): e is EncoderError {
  try {
    return e instanceof EncoderError
  } catch {
    return false
  }
}

/** Turns texts into vectors (one per text, same length each). */
export interface Embedder {
  /** Identifies the model; vectors of different ids are never mixed. */
  readonly id: string
  /**
   * The languages the model was trained on (ISO 639-1 codes, `['en']` for all-MiniLM-L6-v2;
   * missing, empty or `multilingual`: any). A fused search reads a request mostly written in
   * other scripts by the lexical channel alone (see `MIN_READABLE_SHARE`).
   */
  readonly languages?: readonly string[]
  /**
   * Embed texts, in order. `options.query` marks search requests (the semantic index sets it):
   * an encoder with a cache may leave them out of it, since they seldom come back.
   * `options.signal` is aborted when the semantic index stops waiting for the answer (its
   * deadline passed): an embedder may drop the work then (the local encoder drops an embedding
   * still waiting for a thread).
   */
  embed(texts: readonly string[], options?: { query?: boolean; signal?: AbortSignal }): Promise<ArrayLike<number>[]>
}

/**
 * An `Embedder` from a plain function, e.g. a call to an embeddings API. The second argument is
 * its id, or `{ id, languages }` (see `Embedder.languages`; default: any language).
 */
export function embedderFromFunction(
  embed: (texts: string[]) => Promise<ArrayLike<number>[]> | ArrayLike<number>[],
  idOrOptions: string | { id?: string; languages?: readonly string[] } = 'host',
): Embedder {
  if (typeof embed !== 'function') throw new EncoderError('E_INVALID_ARG', `embed must be a function, got ${typeof embed}`)
  let id = 'host'
  let languages: string[] | undefined
  if (typeof idOrOptions === 'string') id = idOrOptions
  else if (idOrOptions !== null && typeof idOrOptions === 'object') {
    const i = readField(idOrOptions, 'id')
    const l = readField(idOrOptions, 'languages')
    if (!i.ok || !l.ok) throw new EncoderError('E_INVALID_ARG', `reading the embedder's options threw: ${describeError(!i.ok ? i.error : (l as { error: unknown }).error)}`)
    if (i.value !== undefined) {
      if (typeof i.value !== 'string') throw new EncoderError('E_INVALID_ARG', `id must be a string, got ${typeof i.value}`)
      id = i.value
    }
    languages = l.value === undefined ? undefined : languageList(l.value, 'languages')
  } else throw new EncoderError('E_INVALID_ARG', `the second argument must be an id or { id, languages }, got ${idOrOptions === null ? 'null' : typeof idOrOptions}`)
  return {
    id,
    ...(languages ? { languages } : {}),
    async embed(texts) {
      const out = await embed([...texts])
      if (!Array.isArray(out) || out.length !== texts.length) {
        throw new EncoderError('E_ENCODE', `embed returned ${Array.isArray(out) ? out.length : typeof out} vectors for ${texts.length} texts`)
      }
      return out
    },
  }
}

/** The most language codes an embedder may list. */
const MAX_LANGUAGES = 512

/** A list of language codes, copied once and checked (`E_INVALID_ARG`, naming `what`). */
function languageList(value: unknown, what: string): string[] {
  let list: unknown[]
  try {
    if (!Array.isArray(value)) throw new EncoderError('E_INVALID_ARG', `${what} must be an array of language codes`)
    const n = value.length
    if (n > MAX_LANGUAGES) throw new EncoderError('E_INVALID_ARG', `${what} lists ${n} languages; at most ${MAX_LANGUAGES}`)
    list = Array.from({ length: n }, (_, i) => value[i])
  } catch (e) {
    if (isEncoderError(e)) throw e
    throw new EncoderError('E_INVALID_ARG', `reading ${what} threw: ${describeError(e)}`, { cause: e })
  }
  for (const l of list) {
    if (typeof l !== 'string' || !l.trim() || l.length > 64) throw new EncoderError('E_INVALID_ARG', `${what} must hold language codes (strings of 1 to 64 characters)`)
  }
  return list as string[]
}

/**
 * An embedder's `languages`, read once (never through `Object.prototype`) and copied:
 * `undefined` for any language, else the codes (`E_INVALID_ARG` for anything but a list of them).
 */
export function embedderLanguages(embedder: unknown): string[] | undefined {
  const r = readField(embedder, 'languages')
  if (!r.ok) throw new EncoderError('E_INVALID_ARG', `reading embedder.languages threw: ${describeError(r.error)}`, { cause: r.error })
  return r.value === undefined ? undefined : languageList(r.value, 'embedder.languages')
}

/** The largest model card read for its languages. */
const MAX_CARD_BYTES = 1 << 20

/**
 * The languages of the model card (`README.md`) in `dir`, read only when it is a regular file of
 * at most 1 MiB (never a FIFO or device); `undefined` when there is none or it names none.
 */
export function modelCardLanguages(dir: string): string[] | undefined {
  let fd: number | undefined
  try {
    fd = openSync(path.join(dir, 'README.md'), fsConstants.O_RDONLY | (fsConstants.O_NONBLOCK ?? 0))
    const st = fstatSync(fd)
    if (!st.isFile() || st.size > MAX_CARD_BYTES) return undefined
    const buf = Buffer.alloc(st.size)
    let got = 0
    while (got < buf.length) {
      const n = readSync(fd, buf, got, buf.length - got, got)
      if (n <= 0) break
      got += n
    }
    const found = cardLanguages(buf.subarray(0, got).toString('utf8'))
    return found && found.length > 0 && found.length <= MAX_LANGUAGES ? found.filter((l) => l.length <= 64) : undefined
  } catch {
    return undefined
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}

/** The models `scripts/fetch-model.sh` fetches. */
export type LocalModel = 'all-MiniLM-L6-v2' | 'multilingual-e5-small'

/**
 * The directory `scripts/fetch-model.sh` puts a model in: for all-MiniLM-L6-v2 (the default)
 * `$TOOL_INDEX_MODEL_DIR`, for multilingual-e5-small `$TOOL_INDEX_MULTILINGUAL_MODEL_DIR`, else
 * `~/.cache/tool-index/models/<model>` (`$XDG_CACHE_HOME` for `~/.cache`).
 */
export function defaultModelDir(model: LocalModel = 'all-MiniLM-L6-v2'): string {
  if (model !== 'all-MiniLM-L6-v2' && model !== 'multilingual-e5-small') {
    throw new EncoderError('E_INVALID_ARG', `model must be 'all-MiniLM-L6-v2' or 'multilingual-e5-small', got ${String(model)}`)
  }
  const env = model === 'all-MiniLM-L6-v2' ? process.env.TOOL_INDEX_MODEL_DIR : process.env.TOOL_INDEX_MULTILINGUAL_MODEL_DIR
  if (env && env.trim()) return env
  const cache = process.env.XDG_CACHE_HOME && process.env.XDG_CACHE_HOME.trim() ? process.env.XDG_CACHE_HOME : path.join(os.homedir(), '.cache')
  return path.join(cache, 'tool-index', 'models', model)
}
/** The default vector-cache directory: `$TOOL_INDEX_VECTOR_CACHE`, else `~/.cache/tool-index/vectors`. */
export function defaultCacheDir(): string {
  const env = process.env.TOOL_INDEX_VECTOR_CACHE
  if (env && env.trim()) return env
  const cache = process.env.XDG_CACHE_HOME && process.env.XDG_CACHE_HOME.trim() ? process.env.XDG_CACHE_HOME : path.join(os.homedir(), '.cache')
  return path.join(cache, 'tool-index', 'vectors')
}

/** True when `dir` holds the files the local encoder needs. */
export function hasModel(dir: string = defaultModelDir()): boolean {
  return ['config.json', 'tokenizer.json', 'model.safetensors'].every((f) => existsSync(path.join(dir, f)))
}

interface CompanionCancel {
  cancel(): void
}
interface CompanionEncoder {
  readonly dim: number
  readonly modelId: string
  readonly cached: number
  readonly prompts: { query: string; document: string }
  embed(texts: string[], keep?: boolean, query?: boolean, cancel?: CompanionCancel): Promise<Float32Array>
  embedSync(texts: string[], keep?: boolean, query?: boolean): Float32Array
  dispose(): void
}
interface Companion {
  LocalEncoder: { load(dir: string, options?: { maxTokens?: number; cacheDir?: string }): CompanionEncoder }
  EmbedCancel: new () => CompanionCancel
}

let companion: Companion | Error | undefined

/** The companion addon: the installed package, else the repository's `encoder/` build. */
function loadCompanion(): Companion {
  if (companion === undefined) {
    const tries = ['@ccb/tool-index-encoder', path.join(__dirname, '..', 'encoder', 'index.js')]
    const errors: string[] = []
    // The encoder addon runs its finalizers as the main one does (`runtime.js`).
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { loadAddon } = require('../runtime.js') as { loadAddon: <T>(load: () => T) => T }
    for (const t of tries) {
      try {
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        const mod = loadAddon(() => require(t) as Partial<Companion> | undefined)
        // Only the encoder addon will do (NAPI_RS_NATIVE_LIBRARY_PATH, read by every generated
        // loader, may point at another addon).
        if (typeof mod?.LocalEncoder?.load !== 'function' || typeof mod.EmbedCancel !== 'function') {
          throw new Error('it is not the encoder addon (no LocalEncoder.load)')
        }
        companion = mod as Companion
        break
      } catch (e) {
        errors.push(`${t}: ${String((e as Error)?.message ?? e).split('\n')[0]}`)
      }
    }
    if (companion === undefined) companion = new Error(errors.join('; '))
  }
  if (companion instanceof Error) {
    throw new EncoderError('E_ENCODER_UNAVAILABLE', `the local encoder addon (@ccb/tool-index-encoder) is not installed: ${companion.message}`)
  }
  return companion
}

/** True when the companion addon loads. */
export function localEncoderAvailable(): boolean {
  try {
    loadCompanion()
    return true
  } catch {
    return false
  }
}

/** Options of `loadLocalEncoder`. */
export interface LocalEncoderOptions {
  /** Model directory (config.json, tokenizer.json, model.safetensors); default `defaultModelDir()`. */
  modelDir?: string
  /** Vector cache directory; default `defaultCacheDir()`; `false`: no on-disk cache. */
  cacheDir?: string | false
  /** Longest input in tokens (default 256). */
  maxTokens?: number
  /**
   * The model's languages (see `Embedder.languages`); default: the `language:` field of the model
   * card (`README.md`) in the model directory, else any.
   */
  languages?: readonly string[]
}

/** The local encoder: an `Embedder` that also tells its dimension and cache size. */
export interface LocalEncoder extends Embedder {
  readonly dim: number
  /** Vectors in the on-disk cache. */
  readonly cached: number
  /**
   * The prompts the model puts before search requests and before tool texts, from
   * `config_sentence_transformers.json` (`query: ` and `passage: ` for the E5 family; empty
   * strings for all-MiniLM-L6-v2).
   */
  readonly prompts: { readonly query: string; readonly document: string }
  /** Embed on the calling thread (blocks it; for tools and tests). `query` as in `embed`. */
  embedSync(texts: readonly string[], options?: { query?: boolean }): Float32Array[]
  /**
   * Let the model's weights go now instead of at garbage collection (an embedding already
   * running keeps them until it ends); any later call throws `E_DISPOSED`.
   */
  dispose(): void
}

function rows(flat: Float32Array, n: number, dim: number): Float32Array[] {
  const out: Float32Array[] = new Array(n)
  for (let i = 0; i < n; i++) out[i] = flat.subarray(i * dim, (i + 1) * dim)
  return out
}

function coded(e: unknown): EncoderError {
  if (isEncoderError(e)) return e
  const msg = String((e as Error)?.message ?? e)
  const m = /^\[(E_[A-Z_]+)\]\s*/.exec(msg)
  const code = (m?.[1] ?? 'E_ENCODE') as EncoderErrorCode
  const known: EncoderErrorCode[] = ['E_MODEL_NOT_FOUND', 'E_MODEL_INVALID', 'E_ENCODE', 'E_CACHE', 'E_DISPOSED']
  return new EncoderError(known.includes(code) ? code : 'E_ENCODE', m ? msg.slice(m[0].length) : msg, { cause: e })
}

/**
 * A cancel handle of the companion tied to the embed options' `signal` (read once, never through
 * `Object.prototype`), and `release`, which unties it. Anything but an `AbortSignal`, or one that
 * throws when looked at (a Proxy with throwing traps, an object made from
 * `AbortSignal.prototype`), is no signal.
 */
function cancelOf(mod: Companion, options: unknown): { cancel?: CompanionCancel; release(): void } {
  const none = { release() {} }
  const r = readField(options, 'signal')
  try {
    const signal = r.ok ? r.value : undefined
    if (!(signal instanceof AbortSignal)) return none
    const cancel = new mod.EmbedCancel()
    const stop = () => cancel.cancel()
    if (signal.aborted) {
      cancel.cancel()
      return { cancel, release() {} }
    }
    signal.addEventListener('abort', stop, { once: true })
    return {
      cancel,
      release() {
        try {
          signal.removeEventListener('abort', stop)
        } catch {
          // the signal threw once looked at again: the handle is dropped with this embedding
        }
      },
    }
  } catch {
    return none
  }
}

/** Whether embed options mark search requests (`query: true`, read once, never through `Object.prototype`). */
function isQuery(options: unknown): boolean {
  const query = readField(options, 'query')
  return query.ok && query.value === true
}
/** `loadLocalEncoder`'s options, each read once and never through `Object.prototype`, checked. */
function readLocalOptions(options: unknown): LocalEncoderOptions {
  if (options === null || typeof options !== 'object') throw new EncoderError('E_INVALID_ARG', 'options must be an object')
  const read = (key: keyof LocalEncoderOptions): unknown => {
    const r = readField(options, key)
    if (!r.ok) throw new EncoderError('E_INVALID_ARG', `reading options.${key} threw: ${describeError(r.error)}`, { cause: r.error })
    return r.value
  }
  const modelDir = read('modelDir')
  const cacheDir = read('cacheDir')
  const maxTokens = read('maxTokens')
  const languages = read('languages')
  if (modelDir !== undefined && (typeof modelDir !== 'string' || !modelDir)) throw new EncoderError('E_INVALID_ARG', 'options.modelDir must be a non-empty string')
  if (cacheDir !== undefined && cacheDir !== false && (typeof cacheDir !== 'string' || !cacheDir)) {
    throw new EncoderError('E_INVALID_ARG', 'options.cacheDir must be a non-empty string or false')
  }
  if (maxTokens !== undefined && (typeof maxTokens !== 'number' || !Number.isInteger(maxTokens) || maxTokens < 1 || maxTokens > 1 << 20)) {
    throw new EncoderError('E_INVALID_ARG', `options.maxTokens must be a whole number from 1 to ${1 << 20}`)
  }
  return {
    modelDir,
    cacheDir,
    maxTokens,
    languages: languages === undefined ? undefined : languageList(languages, 'options.languages'),
  } as LocalEncoderOptions
}

/**
 * The texts, copied once (each element read once) and checked: `E_INVALID_ARG` otherwise, also
 * for more than `LIMITS.toolCount` of them (refused before any is read).
 */
function checkTexts(texts: readonly string[]): string[] {
  let list: unknown[]
  try {
    if (!Array.isArray(texts)) throw new EncoderError('E_INVALID_ARG', 'texts must be an array of strings')
    const n = texts.length
    if (n > LIMITS.toolCount) throw new EncoderError('E_INVALID_ARG', `texts has ${n} elements; the limit is ${LIMITS.toolCount}`)
    list = Array.from({ length: n }, (_, i) => texts[i])
  } catch (e) {
    if (isEncoderError(e)) throw e
    throw new EncoderError('E_INVALID_ARG', `reading the texts threw: ${describeError(e)}`, { cause: e })
  }
  for (const t of list) if (typeof t !== 'string') throw new EncoderError('E_INVALID_ARG', `texts must be strings, got ${typeof t}`)
  return list as string[]
}

/**
 * Load the local encoder (synchronous, about 0.1 s for MiniLM-L6). Throws `E_ENCODER_UNAVAILABLE`
 * without the companion addon and `E_MODEL_NOT_FOUND` without the model (fetch it with
 * `scripts/fetch-model.sh`).
 */
export function loadLocalEncoder(options: LocalEncoderOptions = {}): LocalEncoder {
  const o = readLocalOptions(options)
  const mod = loadCompanion()
  const dir = o.modelDir ?? defaultModelDir()
  // Resolved now: a later change of the working directory must not move the cache.
  const cacheDir = o.cacheDir === false ? undefined : path.resolve(o.cacheDir ?? defaultCacheDir())
  let enc: CompanionEncoder
  try {
    enc = mod.LocalEncoder.load(dir, { maxTokens: o.maxTokens, cacheDir })
  } catch (e) {
    throw coded(e)
  }
  const dim = enc.dim
  const prompts = Object.freeze({ query: enc.prompts.query, document: enc.prompts.document })
  const languages = o.languages ?? modelCardLanguages(dir)
  return {
    id: enc.modelId,
    ...(languages ? { languages } : {}),
    dim,
    prompts,
    get cached() {
      return enc.cached
    },
    async embed(texts, options) {
      const list = checkTexts(texts)
      if (list.length === 0) return []
      // Search requests are read from the cache but never added to it: a long-running host
      // would otherwise grow the cache (and rewrite its file) with every new request.
      const query = isQuery(options)
      const { cancel, release } = cancelOf(mod, options)
      try {
        return rows(await enc.embed(list, !query, query, cancel), list.length, dim)
      } catch (e) {
        throw coded(e)
      } finally {
        release()
      }
    },
    embedSync(texts, options) {
      const list = checkTexts(texts)
      if (list.length === 0) return []
      const query = isQuery(options)
      try {
        return rows(enc.embedSync(list, !query, query), list.length, dim)
      } catch (e) {
        throw coded(e)
      }
    },
    dispose() {
      enc.dispose()
    },
  }
}
