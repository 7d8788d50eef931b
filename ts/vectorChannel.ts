/**
 * One embedder's side of a semantic index: its vectors of the tools (a native, int8-quantized
 * store keyed by the index's tool ids), the embedding work that fills it, one call at a time, and
 * the embedding of search requests. `SemanticToolIndex` keeps one per embedder and decides which
 * tools are held; a channel only embeds what it is given and keeps what is still held.
 */
import { EncoderError, embedderLanguages, isEncoderError, type Embedder } from './encoder'
import { readsText } from './languages'
import { MAX_TIMER_MS } from './config'
import { native } from './errors'
import { typeName } from './input'
import { binding } from './native'
import { describeError, ownElement, readField } from './safeRead'

/** Texts given to the embedder in one call: its answer, and its deadline, stay bounded. */
export const EMBED_BATCH = 1000

type VectorStore = InstanceType<typeof binding.NativeVectorStore>

/** The largest finite 32-bit float: a larger number would be stored as Infinity. */
const F32_MAX = 3.4028234663852886e38

/** The longest vector an embedder may return (floats): the native store's limit. */
const MAX_DIM: number = binding.MAX_VECTOR_DIM

/**
 * One vector from an embedder, as `Float32Array` of `dim` floats (`dim` undefined: any length up to
 * `MAX_DIM`). The length is read once and checked before anything is copied; every element must
 * be a finite number. Anything else is `E_ENCODE`, naming `what`.
 */
function toVector(v: unknown, dim: number | undefined, what: string): Float32Array {
  try {
    if (v === null || typeof v !== 'object') throw new EncoderError('E_ENCODE', `${what} is not an array of numbers`)
    const n: unknown = (v as ArrayLike<unknown>).length
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > MAX_DIM) {
      throw new EncoderError('E_ENCODE', `${what} has ${String(n)} floats; expected ${dim ?? `1 to ${MAX_DIM}`}`)
    }
    if (dim !== undefined && n !== dim) throw new EncoderError('E_ENCODE', `${what} has ${n} floats, expected ${dim}`)
    const out = new Float32Array(n)
    // A typed array (the local encoder's rows) has no holes and never reads its prototype for
    // an index: its elements are read as they are; any other list element by element.
    const list = v as ArrayLike<unknown>
    const typed = ArrayBuffer.isView(v)
    for (let i = 0; i < n; i++) {
      const x = typed ? list[i] : ownElement(list, i)
      // Numbers only: a numeric string or a Number object is not a vector element.
      const f = typeof x === 'number' ? x : NaN
      if (!Number.isFinite(f) || Math.abs(f) > F32_MAX) throw new EncoderError('E_ENCODE', `${what}[${i}] is not a finite 32-bit float`)
      out[i] = f
    }
    return out
  } catch (err) {
    if (isEncoderError(err)) throw err
    throw new EncoderError('E_ENCODE', `reading ${what} threw: ${describeError(err)}`, { cause: err })
  }
}

/** `n` vectors from an embedder's answer, each checked by `toVector`. */
function toVectors(out: unknown, n: number, dim: number | undefined, what: string): Float32Array[] {
  let list: unknown[]
  try {
    if (!Array.isArray(out)) throw new EncoderError('E_ENCODE', `the embedder answered ${typeName(out)}, not an array of vectors`)
    if (out.length !== n) throw new EncoderError('E_ENCODE', `the embedder returned ${out.length} vectors for ${n} ${what}`)
    list = Array.from({ length: n }, (_, i) => ownElement(out, i))
  } catch (err) {
    if (isEncoderError(err)) throw err
    throw new EncoderError('E_ENCODE', `reading the embedder's answer threw: ${describeError(err)}`, { cause: err })
  }
  const first = toVector(list[0], dim, `vector 0`)
  return [first, ...list.slice(1).map((v, i) => toVector(v, first.length, `vector ${i + 1}`))]
}

/** A tool to embed: its store id and its text, and whether the index still holds it as it was. */
export interface ChannelItem {
  readonly text: string
  /** The text whose scripts decide whether the embedder reads the tool (`toolLanguageText`). */
  readonly language: string
  /** The tool's store id while the index holds this version of it, else `undefined`. */
  held(): string | undefined
}

/** One embedder, its tool vectors, and the embedding work that fills them. */
export class VectorChannel {
  #store: VectorStore | undefined
  /** Store ids whose vectors are stored (only ids of tools the index holds now). */
  readonly #vectored = new Set<string>()
  /**
   * Store ids of tools whose text the embedder cannot read (see `reads`): they get no vector
   * from it, and a fused search ranks them by their lexical evidence (see `fuse`'s `unjudged`).
   */
  readonly #unread = new Set<string>()
  #pending: Promise<void> = Promise.resolve()
  /** The last embedding that failed (its tools have no vectors until they are given again). */
  #error: unknown
  readonly #embedFn: (texts: readonly string[], options: { query?: boolean; signal: AbortSignal }) => unknown
  /** The embedder's languages, read once (`undefined`: any). */
  readonly languages: readonly string[] | undefined
  readonly #timeoutMs: number
  readonly #queryTimeoutMs: number

  /**
   * `embedder` is read here, once: its `embed` (`E_INVALID_ARG`, naming `what`, unless a
   * function) and its `languages`.
   */
  constructor(embedder: unknown, what: string, timeoutMs: number, queryTimeoutMs: number) {
    const embed = embedder !== null && typeof embedder === 'object' ? readField(embedder, 'embed') : undefined
    if (!embed?.ok || typeof embed.value !== 'function') throw new EncoderError('E_INVALID_ARG', `${what} must be an Embedder`)
    const fn = embed.value as (texts: readonly string[], options: { query?: boolean; signal: AbortSignal }) => unknown
    this.#embedFn = (texts, opts) => Reflect.apply(fn, embedder as Embedder, [texts, opts])
    this.languages = embedderLanguages(embedder)
    this.#timeoutMs = timeoutMs
    this.#queryTimeoutMs = queryTimeoutMs
  }

  /** True when the embedder reads most of the text's words (see `readableShare`). */
  reads(text: string): boolean {
    return readsText(text, this.languages)
  }

  /** The vector store, once the first vectors came. */
  get store(): VectorStore | undefined {
    return this.#store
  }

  /** True when the tool of this store id has its vector, or was found unreadable to the embedder. */
  covers(id: string): boolean {
    return this.#vectored.has(id) || this.#unread.has(id)
  }

  /**
   * True when the store's vector of this id is the tool's as the index holds it now (not one
   * left from a version replaced since, while its new vector, or its removal, is on the way).
   */
  hasVector(id: string): boolean {
    return this.#vectored.has(id)
  }

  /** True when the tool of this store id is written mostly in scripts the embedder cannot read. */
  cannotRead(id: string): boolean {
    return this.#unread.has(id)
  }

  /**
   * The `k` stored vectors nearest to `query`, over-fetched by the vectors held for versions
   * replaced since (`hasVector` false), so that leaving those out still leaves `k`.
   */
  search(query: Float32Array, k: number): { name: string; score: number }[] {
    const store = this.#store
    if (!store || k <= 0) return []
    const stale = Math.max(0, native(() => store.size) - this.#vectored.size)
    return native(() => store.search(query, Math.min(k + stale, 0xffffffff)))
  }

  /** How many tools are covered (see `covers`). */
  get size(): number {
    return this.#vectored.size + this.#unread.size
  }

  /** The tool's vector is out of date (it was replaced): it is no longer counted. */
  invalidate(id: string): void {
    this.#vectored.delete(id)
    this.#unread.delete(id)
  }

  /** Free the store now; embeddings still running store nothing. */
  dispose(): void {
    this.#disposed = true
    const store = this.#store
    if (store) native(() => store.dispose())
    this.#vectored.clear()
    this.#unread.clear()
  }

  #disposed = false

  /** The tool is gone: its vector leaves the store. */
  forget(id: string): void {
    this.#vectored.delete(id)
    this.#unread.delete(id)
    const store = this.#store
    if (store) native(() => store.remove(id))
  }

  /**
   * Call the embedder with a deadline; its answer checked into `n` vectors. Whatever the
   * embedder throws becomes `E_ENCODE` (the original as `cause`).
   */
  async #vectors(texts: string[], dim: number | undefined, what: 'tools' | 'texts'): Promise<Float32Array[]> {
    // Counted before the call: the embedder may empty or cut the list it is handed.
    const n = texts.length
    let timer: ReturnType<typeof setTimeout> | undefined
    // Aborted when this call stops waiting: the embedder may drop the work.
    const stop = new AbortController()
    try {
      const call = Promise.resolve()
        .then(() => this.#embedFn(texts, what === 'texts' ? { query: true, signal: stop.signal } : { signal: stop.signal }))
        .catch((err: unknown) => {
          throw isEncoderError(err) ? err : new EncoderError('E_ENCODE', `the embedder failed: ${describeError(err)}`, { cause: err })
        })
      const ms = what === 'texts' ? this.#queryTimeoutMs : Math.min(MAX_TIMER_MS, this.#timeoutMs * Math.max(1, Math.ceil(n / 1000)))
      const out =
        ms > 0
          ? await Promise.race([
              call,
              new Promise<never>((_, reject) => {
                timer = setTimeout(() => reject(new EncoderError('E_ENCODE', `the embedder did not answer ${n} texts within ${ms} ms`)), ms)
                // The deadline alone never keeps the process running.
                timer.unref?.()
              }),
            ])
          : await call
      return toVectors(out, n, dim, what)
    } catch (err) {
      stop.abort()
      throw err
    } finally {
      if (timer !== undefined) clearTimeout(timer)
    }
  }

  /** Search requests' vectors (`E_ENCODE` on any failure; the request deadline applies). */
  requestVectors(texts: string[]): Promise<Float32Array[]> {
    return this.#vectors(texts, this.#store?.dim, 'texts')
  }

  /**
   * Embed the items after the work already queued (`items()` is called when this batch starts),
   * `EMBED_BATCH` texts a call; each call's vectors are stored as they come, for the items still
   * held. The promise rejects with the embedding's error.
   */
  enqueue(items: () => readonly ChannelItem[]): Promise<void> {
    const batch = this.#pending.catch(() => {}).then(() => this.#embed(items()))
    this.#pending = batch
    batch.catch(() => {}) // reported through `ready`
    return batch
  }

  async #embed(given: readonly ChannelItem[]): Promise<void> {
    // Tools the embedder cannot read are covered without a vector.
    const items: ChannelItem[] = []
    for (const item of given) {
      if (this.reads(item.language)) {
        items.push(item)
        continue
      }
      const id = item.held()
      if (id === undefined || this.#disposed) continue
      this.#unread.add(id)
      // The vector of the version it replaced (one the embedder read) goes.
      const store = this.#store
      if (store) native(() => store.remove(id))
    }
    for (let at = 0; at < items.length; at += EMBED_BATCH) {
      const batch = items.slice(at, at + EMBED_BATCH)
      let vecs: Float32Array[]
      try {
        vecs = await this.#vectors(
          batch.map((i) => i.text),
          this.#store?.dim,
          'tools',
        )
      } catch (err) {
        this.#error = err
        throw err
      }
      if (this.#disposed) return
      if (!this.#store) this.#store = native(() => new binding.NativeVectorStore(vecs[0].length))
      const store = this.#store
      // Skip tools removed or replaced while embedding ran.
      const ids: string[] = []
      const rows = new Float32Array(batch.length * store.dim)
      let j = 0
      batch.forEach((item, i) => {
        const id = item.held()
        if (id === undefined) return
        ids.push(id)
        rows.set(vecs[i], j++ * store.dim)
      })
      native(() => store.upsertMany(ids, rows.subarray(0, j * store.dim)))
      for (const id of ids) this.#vectored.add(id)
    }
  }

  /**
   * Resolves when `complete()` holds after the queued work (waiting for work queued meanwhile
   * too); rejects with the error of an embedding that failed.
   */
  async ready(complete: () => boolean): Promise<void> {
    for (;;) {
      const batch = this.#pending
      let failure: unknown
      await batch.catch((e: unknown) => {
        failure = e ?? new EncoderError('E_ENCODE', 'the embedding failed')
      })
      if (batch !== this.#pending) continue
      if (complete()) {
        this.#error = undefined
        return
      }
      throw failure ?? this.#error ?? new EncoderError('E_ENCODE', 'some tools have no vector')
    }
  }
}
