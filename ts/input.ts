/**
 * Checking what callers hand the package: types, lengths, scoring modes, and reads that turn a
 * throwing getter or Proxy trap into a coded `E_INVALID_ARG` instead of letting it escape.
 */
import { ToolIndexError, invalidArg } from './errors'
import { LIMITS } from './config'
import { SHARED_PROTOTYPES, readField } from './safeRead'
import type { BuildOptions, Scoring, Tuning } from './types'

/** A short type name for messages (`null`, `array`, `NaN` told apart). */
export function typeName(v: unknown): string {
  if (v === null) return 'null'
  if (Array.isArray(v)) return 'array'
  if (typeof v === 'number' && Number.isNaN(v)) return 'NaN'
  return typeof v
}

/**
 * Run the part of a call that reads the caller's input: any error that is not already a
 * `ToolIndexError` (a throwing getter or Proxy trap, a non-iterable) becomes `E_INVALID_ARG`.
 */
export function readingInput<T>(what: string, fn: () => T): T {
  try {
    return fn()
  } catch (err) {
    if (err instanceof ToolIndexError) throw err
    throw new ToolIndexError('E_INVALID_ARG', `reading ${what} threw: ${describe(err)}`, { cause: err })
  }
}

const hasOwn = Object.prototype.hasOwnProperty

/**
 * Read `obj[key]` of the i-th tool or entry as every other part of the package does (`readField`:
 * never through the prototypes all objects share, so `Object.prototype.alwaysLoad = true` defers
 * nothing), turning a throwing getter or trap into `E_INVALID_ARG`.
 */
export function readToolField(obj: object, key: string, i: number): any {
  const threw = (err: unknown) => new ToolIndexError('E_INVALID_ARG', `reading ${key} of tool #${i} threw: ${describe(err)}`, { cause: err })
  // A missing or own field (the usual cases) is answered directly; only an inherited one needs
  // the walk that stops before the shared prototypes.
  try {
    if (typeof obj !== 'object' && typeof obj !== 'function') return (obj as Record<string, unknown>)[key]
    if (!(key in obj)) return undefined
    if (hasOwn.call(obj, key) && !SHARED_PROTOTYPES.has(obj)) return (obj as Record<string, unknown>)[key]
  } catch (err) {
    throw threw(err)
  }
  const r = readField(obj, key)
  if (!r.ok) throw threw(r.error)
  return r.value
}

/** `E_TOO_LARGE` when `s` is longer than `max`. */
export function checkLength(s: string, max: number, what: string): void {
  if (s.length > max) throw new ToolIndexError('E_TOO_LARGE', `${what} is ${s.length} characters; the limit is ${max}`)
}

/** The scoring mode, `fallback` when absent; anything else is `E_INVALID_SCORING`. */
export function checkScoring(scoring: unknown, fallback: Scoring = 'compat'): Scoring {
  if (scoring === undefined) return fallback
  if (scoring === 'compat' || scoring === 'enhanced') return scoring
  throw new ToolIndexError('E_INVALID_SCORING', `unknown scoring mode ${safeString(scoring)}; expected 'compat' or 'enhanced'`)
}

/** `E_INVALID_ARG` unless `fn` is a function. */
export function checkCallback(fn: unknown, what: string): void {
  if (typeof fn !== 'function') throw invalidArg(`${what}: the callback must be a function, got ${typeName(fn)}`)
}

/**
 * A list of names: an iterable (not a string) of strings, copied. An iterable that yields more
 * than `LIMITS.toolCount` names (an endless generator) is `E_TOO_LARGE`, not an exhausted heap.
 */
export function stringList(v: Iterable<string>, what: string): string[] {
  // A Proxy can throw from the iterator look-up itself (a trap, a revoked Proxy): E_INVALID_ARG.
  const iterable = readingInput(what, () => v !== null && typeof v === 'object' && typeof (v as Iterable<string>)[Symbol.iterator] === 'function')
  if (!iterable) throw invalidArg(`${what} must be an iterable of strings, got ${typeName(v)}`)
  const out = readingInput(what, () => {
    const names: string[] = []
    for (const s of v) {
      if (names.length >= LIMITS.toolCount) throw new ToolIndexError('E_TOO_LARGE', `${what} holds more than ${LIMITS.toolCount} names`)
      names.push(s)
    }
    return names
  })
  for (const s of out) if (typeof s !== 'string') throw invalidArg(`${what} must hold only strings, got ${typeName(s)}`)
  return out
}

function describe(err: unknown): string {
  try {
    return String((err as Error)?.message ?? err)
  } catch {
    return 'an unprintable error'
  }
}

function safeString(v: unknown): string {
  try {
    return typeof v === 'bigint' ? `${v}n` : (JSON.stringify(v) ?? String(v))
  } catch {
    return typeName(v)
  }
}

/**
 * `E_INVALID_ARG` unless `v` is an array; `E_TOO_LARGE` when its `length` is over
 * `LIMITS.toolCount` (checked before any element is read or anything is sized from it).
 */
export function checkToolArray(v: unknown, what: string): asserts v is readonly unknown[] {
  // A Proxy can throw from Array.isArray (revoked) or from reading `length`: E_INVALID_ARG.
  const length = readingInput(`${what}.length`, () => {
    if (!Array.isArray(v)) throw invalidArg(`${what} must be an array, got ${typeName(v)}`)
    return v.length
  })
  if (length > LIMITS.toolCount) {
    throw new ToolIndexError('E_TOO_LARGE', `${what} has ${length} elements; the limit is ${LIMITS.toolCount}`)
  }
}

/**
 * `checkToolArray`, then a plain copy made with the length read that once: a Proxy whose
 * `length` changes between reads (1 when checked, 2**31 when walked) cannot make a later walk
 * run for billions of steps. An element that cannot be read is `undefined` in the copy.
 */
export function copyToolArray<T = unknown>(v: unknown, what: string): T[] {
  const length = readingInput(`${what}.length`, () => {
    if (!Array.isArray(v)) throw invalidArg(`${what} must be an array, got ${typeName(v)}`)
    return v.length
  })
  if (length > LIMITS.toolCount) {
    throw new ToolIndexError('E_TOO_LARGE', `${what} has ${length} elements; the limit is ${LIMITS.toolCount}`)
  }
  const out = new Array<T>(length)
  for (let i = 0; i < length; i++) {
    try {
      out[i] = (v as T[])[i]
    } catch {
      out[i] = undefined as T
    }
  }
  return out
}

/**
 * The named fields of an options object, read once each as every other part of the package
 * reads (never through the shared prototypes, so a polluted `Object.prototype.scoring` is not an
 * option), into a plain object: a throwing getter or trap is `E_INVALID_ARG` naming the field.
 */
/** The options of a call that gave none: no fields, and no prototype to read a missing one through. */
export function noOptions<T extends object>(): Partial<T> {
  return Object.create(null) as Partial<T>
}

export function readOptionFields<T extends object>(obj: object, keys: readonly (keyof T & string)[], what: string): Partial<T> {
  // Every field is an own key of the snapshot, `undefined` when absent: a later read of it never
  // falls through to a polluted prototype.
  const out = Object.create(null) as Partial<T>
  for (const k of keys) {
    const r = readField(obj, k)
    if (!r.ok) throw new ToolIndexError('E_INVALID_ARG', `reading ${what}.${k} threw: ${describe(r.error)}`, { cause: r.error })
    out[k] = r.value as T[typeof k]
  }
  return out
}

/** Every `BuildOptions` field (the record makes the compiler name one that is missing). */
const BUILD_OPTION_FIELDS: Record<keyof BuildOptions, true> = {
  coreTools: true,
  scoring: true,
  exclude: true,
  includeForce: true,
  promptTimeoutMs: true,
  promptContext: true,
  tuning: true,
}

/** Every `Tuning` field. */
const TUNING_FIELDS: Record<keyof Tuning, true> = {
  k1: true,
  weights: true,
  b: true,
  typoWeight: true,
  lexiconWeight: true,
  abstainCoverage: true,
  unknownWeight: true,
  abstainConfidence: true,
  confidenceScale: true,
  clauseWeight: true,
  synonymWeight: true,
  genericNameWeight: true,
  quoteWeight: true,
  unigramWeight: true,
  crowdGap: true,
  crowdWeight: true,
  crowdConfidence: true,
  crowdCoverage: true,
}

/** Numbers in a tuning list (field weights), at most. */
const MAX_TUNING_LIST = 64

/**
 * A build's options as a plain snapshot: each field read once, the name lists copied to arrays
 * (a generator is walked once, not once per reader), the tuning copied field by field.
 * Everything past this point reads the snapshot, never the caller's object.
 */
export function readBuildOptions(o: unknown, what = 'options'): BuildOptions {
  if (o === undefined) return {}
  if (o === null || typeof o !== 'object') throw invalidArg(`${what} must be an object, got ${typeName(o)}`)
  const f = readOptionFields<BuildOptions>(o, Object.keys(BUILD_OPTION_FIELDS) as (keyof BuildOptions)[], what)
  const list = (v: Iterable<string> | undefined, field: string) => (v === undefined ? undefined : stringList(v, `${what}.${field}`))
  return Object.assign(Object.create(null) as BuildOptions, f, {
    coreTools: list(f.coreTools, 'coreTools'),
    exclude: list(f.exclude, 'exclude'),
    includeForce: list(f.includeForce, 'includeForce'),
    tuning: f.tuning === undefined || f.tuning === null ? undefined : readTuning(f.tuning, `${what}.tuning`),
  })
}

/**
 * A tuning object as a plain copy holding only the fields given (so a merge over other values,
 * such as the crowd rule's, keeps those the caller left out), lists copied; what the values mean
 * is checked natively.
 */
export function readTuning(t: unknown, what: string): Tuning {
  if (t === null || typeof t !== 'object') throw invalidArg(`${what} must be an object, got ${typeName(t)}`)
  const f = readOptionFields<Tuning>(t, Object.keys(TUNING_FIELDS) as (keyof Tuning)[], what)
  const out = Object.create(null) as Record<string, unknown>
  for (const k of Object.keys(TUNING_FIELDS) as (keyof Tuning)[]) {
    const v: unknown = f[k]
    if (v === undefined) continue
    out[k] =
      k === 'weights' || k === 'b'
        ? readingInput(`${what}.${k}`, () => {
            if (!Array.isArray(v)) throw invalidArg(`${what}.${k} must be an array of numbers, got ${typeName(v)}`)
            if (v.length > MAX_TUNING_LIST) throw invalidArg(`${what}.${k} has ${v.length} entries; the limit is ${MAX_TUNING_LIST}`)
            return Array.from(v as unknown[])
          })
        : v
  }
  return out as Tuning
}
