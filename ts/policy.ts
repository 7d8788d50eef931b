/**
 * Decision reads for ExecuteTool that a polluted `Object.prototype`, a throwing getter or a
 * hostile Proxy cannot turn into "run it": every field that decides whether a tool runs is read
 * from the object itself (or its own class prototypes), never from `Object.prototype` /
 * `Function.prototype`, and every read that throws counts as a doubt.
 */

/** A read that threw, or a value that could not be trusted. */
export class Doubt {
  constructor(readonly reason: string) {}
}

const SHARED_PROTOTYPES = new Set<unknown>([Object.prototype, Function.prototype, Array.prototype])

/**
 * Read `key` of `obj` from its own properties or from its class prototypes, stopping at the
 * shared built-in prototypes (so `Object.prototype.behavior = 'allow'` is never seen). A getter
 * is called once; a throw (getter, Proxy trap) gives a `Doubt`.
 */
export function readOwn(obj: unknown, key: string): unknown {
  if (obj === null || (typeof obj !== 'object' && typeof obj !== 'function')) return undefined
  try {
    let o: object | null = obj as object
    for (let depth = 0; o !== null && !SHARED_PROTOTYPES.has(o) && depth < 64; depth++) {
      const d = Object.getOwnPropertyDescriptor(o, key)
      if (d) return d.get ? d.get.call(obj) : d.value
      o = Object.getPrototypeOf(o)
    }
    return undefined
  } catch (err) {
    return new Doubt(`reading "${key}" threw: ${message(err)}`)
  }
}

/** A function-valued field, `undefined` when absent, or a `Doubt` (threw, or not a function). */
export function readMethod(obj: unknown, key: string): ((...args: any[]) => unknown) | undefined | Doubt {
  const v = readOwn(obj, key)
  if (v === undefined || v instanceof Doubt) return v
  if (typeof v !== 'function') return new Doubt(`"${key}" is not a function`)
  return v as (...args: any[]) => unknown
}

/**
 * Whether a tool is enabled: no `isEnabled` means enabled; otherwise only a call that returns
 * (or resolves to) exactly `true` enables it. `0`, `null`, `''`, `NaN`, `undefined`, a
 * truthy non-boolean, a throw or a non-function `isEnabled` disable it.
 */
export async function isToolEnabled(tool: object): Promise<boolean> {
  const f = readMethod(tool, 'isEnabled')
  if (f === undefined) return true
  if (f instanceof Doubt) return false
  try {
    return (await f.call(tool)) === true
  } catch {
    return false
  }
}

/** The behaviours a permission decision may carry. */
export type Behavior = 'allow' | 'deny' | 'ask' | 'passthrough'

/** A permission decision read safely: anything unreadable or malformed is a `deny`. */
export interface Decision {
  behavior: Behavior
  message?: string
  /** Present only when the decision's own `updatedInput` is not `undefined`. */
  hasUpdatedInput: boolean
  updatedInput?: unknown
}

const BEHAVIORS = new Set<unknown>(['allow', 'deny', 'ask', 'passthrough'])

/**
 * Read a permission decision (from `checkPermissions` or the host's `canUseTool`) using only
 * its own properties. Not an object, a missing or unknown `behavior`, or a throwing read is a
 * `deny` with a reason.
 */
export function readDecision(raw: unknown): Decision {
  if (raw === null || typeof raw !== 'object') {
    return { behavior: 'deny', message: raw === undefined ? 'no permission decision' : 'malformed permission decision', hasUpdatedInput: false }
  }
  const behavior = ownData(raw, 'behavior')
  if (behavior instanceof Doubt) return { behavior: 'deny', message: behavior.reason, hasUpdatedInput: false }
  if (!BEHAVIORS.has(behavior)) return { behavior: 'deny', message: 'malformed permission decision', hasUpdatedInput: false }
  const msg = ownData(raw, 'message')
  const out: Decision = { behavior: behavior as Behavior, hasUpdatedInput: false }
  if (typeof msg === 'string' && msg) out.message = msg
  const updated = ownData(raw, 'updatedInput')
  if (updated instanceof Doubt) return { behavior: 'deny', message: updated.reason, hasUpdatedInput: false }
  if (updated !== undefined) {
    out.hasUpdatedInput = true
    out.updatedInput = updated
  }
  return out
}

/** An own property of a plain decision object (getters are called once; throws give a Doubt). */
function ownData(obj: object, key: string): unknown {
  try {
    const d = Object.getOwnPropertyDescriptor(obj, key)
    if (!d) return undefined
    return d.get ? d.get.call(obj) : d.value
  } catch (err) {
    return new Doubt(`reading "${key}" of the permission decision threw: ${message(err)}`)
  }
}

/** `String(err.message)` that cannot itself throw. */
export function message(err: unknown): string {
  try {
    const m = (err as { message?: unknown })?.message
    return typeof m === 'string' ? m : String(err)
  } catch {
    return 'unprintable error'
  }
}
