/**
 * Reading fields of objects the package does not trust (host tools, permission decisions,
 * validation results): nothing is read through `Object.prototype` or `Function.prototype`, so a
 * polluted prototype cannot supply a field, and a throwing getter or Proxy trap is reported
 * instead of escaping.
 */

/** The outcome of one read: the value, or the error a getter or trap threw. */
export type Read<T = unknown> = { ok: true; value: T | undefined } | { ok: false; error: unknown }

/** The prototypes every object shares: no field is read through them. */
export const SHARED_PROTOTYPES: ReadonlySet<unknown> = new Set<unknown>([Object.prototype, Function.prototype, Array.prototype])

/**
 * `obj[key]`, looked up on the object and its own prototypes (a class instance's methods are
 * found) but never on the built-in prototypes every object shares.
 */
export function readField<T = unknown>(obj: unknown, key: string): Read<T> {
  if (obj === null || (typeof obj !== 'object' && typeof obj !== 'function')) return { ok: true, value: undefined }
  try {
    let depth = 0
    for (let o: object | null = obj as object; o !== null && !SHARED_PROTOTYPES.has(o); o = Object.getPrototypeOf(o)) {
      if (++depth > 64) break
      const d = Object.getOwnPropertyDescriptor(o, key)
      if (!d) continue
      if ('value' in d) return { ok: true, value: d.value as T }
      return { ok: true, value: (d.get ? d.get.call(obj) : undefined) as T }
    }
    return { ok: true, value: undefined }
  } catch (error) {
    return { ok: false, error }
  }
}

/** Like `readField`, but only the object's own property: for decisions and results. */
export function readOwn<T = unknown>(obj: unknown, key: string): Read<T> {
  if (obj === null || (typeof obj !== 'object' && typeof obj !== 'function')) return { ok: true, value: undefined }
  try {
    const d = Object.getOwnPropertyDescriptor(obj, key)
    if (!d) return { ok: true, value: undefined }
    return { ok: true, value: ('value' in d ? d.value : d.get?.call(obj)) as T }
  } catch (error) {
    return { ok: false, error }
  }
}

/** `readField` that gives `undefined` on a throw (for lookups where a bad object is just skipped). */
export function fieldOrUndefined<T = unknown>(obj: unknown, key: string): T | undefined {
  const r = readField<T>(obj, key)
  return r.ok ? r.value : undefined
}

/**
 * The `i`-th element of a list if the list itself holds one there (within its length): a hole,
 * or an index past the end, is no element, whatever a polluted `Object.prototype` holds at it.
 */
export function ownElement(list: ArrayLike<unknown>, i: number): unknown {
  return i < list.length && Object.hasOwn(list, i) ? list[i] : undefined
}

/** A short, never-throwing description of an error for a message. */
export function describeError(e: unknown): string {
  try {
    if (e instanceof Error) return e.message
    return String(e)
  } catch {
    return 'an unprintable error'
  }
}
