/**
 * The decisions that stop a tool: enabled, the tool's own input check, and permission. Each
 * reads the host's objects without trusting them (no field from a shared prototype, a throw
 * is an answer of "no"), and every doubt is a refusal.
 */
import { describeError, readField, readOwn } from './safeRead'

/** A stop, with the message for the model. */
export type Stop = { stopped: true; message: string }
/** Go on, with the input the next step sees (a permission may replace it). */
export type Go = { stopped: false; input: unknown }

/**
 * Enabled means `isEnabled()` returned exactly `true` (awaited). A tool without `isEnabled` is
 * enabled; any other value, a throw, or an `isEnabled` that is not a function disables it.
 */
export async function isEnabled(tool: object): Promise<boolean> {
  const f = readField<unknown>(tool, 'isEnabled')
  if (!f.ok) return false
  if (f.value === undefined) return true
  if (typeof f.value !== 'function') return f.value === true
  try {
    return (await f.value.call(tool)) === true
  } catch {
    return false
  }
}

/**
 * The tool's own `validateInput`, when it has one: the input passes only on an own
 * `result: true`; a throw, a missing answer or anything else is a refusal.
 */
export async function toolAcceptsInput(tool: object, input: unknown, context: unknown): Promise<Stop | undefined> {
  const f = readField<unknown>(tool, 'validateInput')
  if (!f.ok) return { stopped: true, message: 'its validateInput cannot be read' }
  if (f.value === undefined || f.value === null) return undefined
  if (typeof f.value !== 'function') return { stopped: true, message: 'its validateInput is not a function' }
  let answer: unknown
  try {
    answer = await f.value.call(tool, input, context)
  } catch (e) {
    return { stopped: true, message: `its validateInput threw: ${describeError(e)}` }
  }
  const result = readOwn<unknown>(answer, 'result')
  if (result.ok && result.value === true) return undefined
  const message = readOwn<unknown>(answer, 'message')
  return { stopped: true, message: message.ok && typeof message.value === 'string' && message.value ? message.value : 'rejected by the tool' }
}

/** A permission decision, read from its own fields only. */
interface Decision {
  behavior: 'allow' | 'deny' | 'ask' | 'passthrough' | 'invalid'
  message?: string
  hasUpdatedInput: boolean
  updatedInput?: unknown
}

function readDecision(d: unknown): Decision {
  if (d === null || typeof d !== 'object') return { behavior: 'invalid', hasUpdatedInput: false }
  const behavior = readOwn<unknown>(d, 'behavior')
  const message = readOwn<unknown>(d, 'message')
  const updated = readOwn<unknown>(d, 'updatedInput')
  let hasUpdated = false
  try {
    hasUpdated = Object.prototype.hasOwnProperty.call(d, 'updatedInput')
  } catch {
    return { behavior: 'invalid', hasUpdatedInput: false }
  }
  if (!behavior.ok || !updated.ok) return { behavior: 'invalid', hasUpdatedInput: false }
  const b = behavior.value
  return {
    behavior: b === 'allow' || b === 'deny' || b === 'ask' || b === 'passthrough' ? b : 'invalid',
    message: message.ok && typeof message.value === 'string' ? message.value : undefined,
    hasUpdatedInput: hasUpdated && updated.value !== undefined,
    updatedInput: updated.value,
  }
}

/** The host's `canUseTool`, in ccb's argument order. */
export type CanUseTool = (tool: unknown, input: unknown, context: unknown, parentMessage?: unknown, ...rest: unknown[]) => unknown

/**
 * Permission: the tool's own `checkPermissions` may allow or deny; no check, `ask` and
 * `passthrough` go to the host's `canUseTool`, and without one, or without a usable answer from
 * it, the call is denied. A check that throws or answers something malformed is a denial. Only an own `behavior: 'allow'` lets the call run. `updatedInput`, when a
 * decision gives one, is what the target sees (the caller validates it again).
 */
export async function decidePermission(
  tool: object,
  input: unknown,
  context: unknown,
  canUseTool: unknown,
  parentMessage: unknown,
  within: <T>(p: Promise<T> | T, kind: 'check' | 'prompt') => Promise<T> = (p) => Promise.resolve(p),
): Promise<Stop | { stopped: false; input: unknown; updated: boolean }> {
  // No check is `passthrough`: the host's canUseTool decides. A throwing or malformed check is a
  // denial (every doubt is), as is a second ask/passthrough from the host.
  const f = readField<unknown>(tool, 'checkPermissions')
  let decision: Decision = { behavior: 'passthrough', hasUpdatedInput: false }
  if (!f.ok) return { stopped: true, message: `its checkPermissions cannot be read: ${describeError(f.error)}` }
  if (f.value !== undefined && f.value !== null && typeof f.value !== 'function') {
    return { stopped: true, message: 'its checkPermissions is not a function' }
  }
  if (typeof f.value === 'function') {
    try {
      decision = readDecision(await within(f.value.call(tool, input, context), 'check'))
    } catch (e) {
      return { stopped: true, message: `its checkPermissions threw: ${describeError(e)}` }
    }
    if (decision.behavior === 'invalid') return { stopped: true, message: 'its checkPermissions gave no usable decision' }
  }
  let current = input
  let updated = false
  if (decision.behavior === 'ask' || decision.behavior === 'passthrough') {
    if (decision.hasUpdatedInput && decision.updatedInput !== input) {
      current = decision.updatedInput
      updated = true
    }
    if (typeof canUseTool !== 'function') {
      return { stopped: true, message: 'this tool needs permission and no permission prompt is available' }
    }
    try {
      decision = readDecision(await within((canUseTool as CanUseTool)(tool, current, context, parentMessage), 'prompt'))
    } catch (e) {
      return { stopped: true, message: `the permission prompt failed: ${describeError(e)}` }
    }
  }
  if (decision.behavior !== 'allow') {
    const why = decision.behavior === 'deny' ? decision.message : decision.message ?? 'no permission decision was given'
    return { stopped: true, message: why ?? 'denied' }
  }
  // The very value handed to the check is the validated input (a zod transform's output need not
  // parse again) unless a hook edited it in place, which the caller tells and checks again; any
  // other value is validated again by the caller.
  if (decision.hasUpdatedInput && decision.updatedInput !== current && decision.updatedInput !== input) {
    current = decision.updatedInput
    updated = true
  }
  return { stopped: false, input: current, updated }
}
