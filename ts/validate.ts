/**
 * Checking a tool's input before it runs, with the schema's own library: a zod schema with its
 * own `safeParseAsync`/`safeParse` (refinements, transforms, dates, bigints and custom checks
 * hold, and the target gets the parsed value), a JSON Schema with ajv (draft-04, -07, 2019-09
 * or 2020-12, as the schema declares), patterns on a linear-time regex engine (RE2's algorithm),
 * and every schema compiled once. A schema that cannot be used refuses every input.
 */
import Ajv, { type ErrorObject, type Options as AjvOptions, type ValidateFunction } from 'ajv'
import Ajv2019 from 'ajv/dist/2019'
import Ajv2020 from 'ajv/dist/2020'
import AjvDraft04 from 'ajv-draft-04'
import { RE2JS } from 're2js'
import { describeError, readField, readOwn } from './safeRead'

/** A check's outcome: the value to pass on (zod's parsed output), or why the input is refused. */
export type Checked = { ok: true; value: unknown } | { ok: false; message: string }

/** Nesting beyond this is refused before any schema sees the input. */
export const MAX_INPUT_DEPTH = 256
/** Values (objects, arrays, strings, ...) beyond this are refused before any schema sees the input. */
export const MAX_INPUT_NODES = 1_000_000

/**
 * Patterns run on RE2JS: linear time, so no pattern can hang the process. ajv keeps one compiled
 * pattern per `toString()` of the object returned here (a RegExp's is `/source/flags`): without a
 * `toString` of its own, every pattern of an ajv instance was `[object Object]`, and a schema's
 * pattern checked its input against the first pattern that instance had compiled.
 */
function linearRegExp(pattern: string, flags = ''): { test: (s: string) => boolean; toString: () => string } {
  const re = RE2JS.compile(pattern)
  const key = `/${pattern}/${flags}`
  return { test: (s: string) => re.test(s), toString: () => key }
}
linearRegExp.code = 'linearRegExp'

const AJV_OPTIONS: AjvOptions = {
  allErrors: true,
  strict: false,
  validateFormats: false,
  // A schema's $id is not registered on the shared instance: a second schema object with the same
  // $id (an MCP server reconnecting) compiles on its own instead of failing for the process's life.
  addUsedSchema: false,
  code: { regExp: linearRegExp as unknown as NonNullable<AjvOptions['code']>['regExp'] },
}

type Draft = 'd4' | 'd7' | 'd2019' | 'd2020'

/**
 * Schemas compiled by one ajv instance before a fresh one takes over. ajv keeps every schema it
 * compiled, and its validate function, in the instance's code scope for the instance's life; a
 * host whose MCP servers reconnect hands over new schema objects each time, so one shared
 * instance would grow without bound. A retired instance is freed with its last validator.
 */
export const SCHEMAS_PER_AJV = 256

const engines = new Map<Draft, { ajv: Ajv; compiled: number }>()

function newAjv(draft: Draft): Ajv {
  switch (draft) {
    case 'd4':
      return new AjvDraft04(AJV_OPTIONS) as unknown as Ajv
    case 'd2019':
      return new Ajv2019(AJV_OPTIONS) as unknown as Ajv
    case 'd2020':
      return new Ajv2020(AJV_OPTIONS) as unknown as Ajv
    default:
      return new Ajv(AJV_OPTIONS)
  }
}

function ajvFor(draft: Draft): Ajv {
  let e = engines.get(draft)
  if (!e || e.compiled >= SCHEMAS_PER_AJV) {
    e = { ajv: newAjv(draft), compiled: 0 }
    engines.set(draft, e)
  }
  e.compiled++
  return e.ajv
}

/** An `enum` longer than this makes the schema unusable (ajv's compile time grows with its square). */
export const MAX_ENUM_VALUES = 10_000

/** Keywords only 2019-09 and later define (draft-07 would ignore them and let anything pass). */
const KEYWORDS_2019 = ['unevaluatedProperties', 'unevaluatedItems', 'dependentRequired', 'dependentSchemas', 'minContains', 'maxContains', '$recursiveRef', '$recursiveAnchor']
/** Keywords only 2020-12 defines. */
const KEYWORDS_2020 = ['prefixItems', '$dynamicRef', '$dynamicAnchor']

/** The most objects a schema may hold: the walk below must see all of them to choose its draft. */
export const MAX_SCHEMA_OBJECTS = 10_000

interface Traits {
  d4: boolean
  d2019: boolean
  d2020: boolean
  /** The values of every `enum` together (ajv's compile time grows with each one's square). */
  enumValues: number
  /** Whether the schema holds more than `MAX_SCHEMA_OBJECTS` objects (then it is not walked to the end). */
  tooLarge: boolean
}

/** One walk over the schema (at most `MAX_SCHEMA_OBJECTS` objects): the draft its keywords need, and its enums' size. */
function traitsOf(schema: unknown): Traits {
  const t: Traits = { d4: false, d2019: false, d2020: false, enumValues: 0, tooLarge: false }
  const seen = new Set<object>()
  const stack: unknown[] = [schema]
  while (stack.length) {
    const node = stack.pop()
    if (node === null || typeof node !== 'object' || seen.has(node)) continue
    seen.add(node)
    if (seen.size > MAX_SCHEMA_OBJECTS) {
      // A keyword or an enum past the walk would go unseen: the schema is refused instead.
      t.tooLarge = true
      break
    }
    if (Array.isArray(node)) {
      if (node.length > MAX_ENUM_VALUES) {
        // a long array: only its length matters here (an enum, or items nobody walks further)
        t.enumValues += node.length
        continue
      }
      for (const v of node) if (v !== null && typeof v === 'object') stack.push(v)
      continue
    }
    const o = node as Record<string, unknown>
    if (typeof o.exclusiveMinimum === 'boolean' || typeof o.exclusiveMaximum === 'boolean') t.d4 = true
    if (Array.isArray(o.enum) && o.enum.length <= MAX_ENUM_VALUES) t.enumValues += o.enum.length
    for (const k of KEYWORDS_2019) if (Object.prototype.hasOwnProperty.call(o, k)) t.d2019 = true
    for (const k of KEYWORDS_2020) if (Object.prototype.hasOwnProperty.call(o, k)) t.d2020 = true
    for (const v of Object.values(o)) if (v !== null && typeof v === 'object') stack.push(v)
  }
  return t
}

function draftOf(schema: Record<string, unknown>, traits: Traits): Draft {
  const declared = schema.$schema
  if (typeof declared === 'string') {
    if (declared.includes('2020-12')) return 'd2020'
    if (declared.includes('2019-09')) return 'd2019'
    if (declared.includes('draft-04') || declared.includes('draft-03')) return 'd4'
    if (declared.includes('draft-07') || declared.includes('draft-06')) return 'd7'
  }
  // Undeclared: the draft whose keywords the schema uses. A keyword a draft does not know is
  // ignored by that draft, so `unevaluatedProperties: false` under draft-07 would accept anything;
  // a schema that mixes draft-04's boolean bounds with 2019-09 / 2020-12 keywords fits no draft.
  if (traits.d4 && (traits.d2019 || traits.d2020)) {
    throw new Error('it mixes draft-04 keywords (a boolean exclusiveMinimum / exclusiveMaximum) with 2019-09 or 2020-12 ones, and no draft reads both; declare its $schema')
  }
  if (traits.d4) return 'd4'
  if (traits.d2020) return 'd2020'
  if (traits.d2019) return 'd2019'
  return 'd7'
}

let named = 0

/**
 * Compile a schema that has no id of its own under a fresh one, so that a root `$ref: "#"`
 * resolves (ajv resolves it against the root's id only), then drop ajv's entry for it.
 */
function compileNamed(ajv: Ajv, s: Record<string, unknown>, draft: Draft): ValidateFunction {
  const withId = { ...s, [draft === 'd4' ? 'id' : '$id']: `urn:tool-index:schema:${++named}` }
  try {
    return ajv.compile(withId)
  } finally {
    try {
      ajv.removeSchema(withId)
    } catch {
      // nothing registered
    }
  }
}

function compileJsonSchema(schema: Record<string, unknown>): ValidateFunction {
  const traits = traitsOf(schema)
  if (traits.tooLarge) throw new Error(`it holds more than ${MAX_SCHEMA_OBJECTS} objects`)
  if (traits.enumValues > MAX_ENUM_VALUES) {
    throw new Error(`its enums hold ${traits.enumValues} values in all (the limit is ${MAX_ENUM_VALUES})`)
  }
  const draft = draftOf(schema, traits)
  let s: Record<string, unknown> = schema
  if (typeof schema.$schema === 'string' && !schema.$schema.includes(draft === 'd4' ? 'draft-04' : draft === 'd2019' ? '2019-09' : draft === 'd2020' ? '2020-12' : 'draft-07')) {
    // draft-06 means the same as draft-07 for the keywords tools use; ajv only knows the latter.
    const { $schema: _drop, ...rest } = schema
    s = rest
  }
  const ajv = ajvFor(draft)
  try {
    try {
      return ajv.compile(s)
    } catch (e) {
      // A root `$ref: "#"` (a recursive schema, as zod-to-json-schema writes one) resolves only
      // against the root's id: a schema without one is compiled again under a fresh id.
      const hasId = typeof s.$id === 'string' || typeof s.id === 'string'
      if (hasId || !/can't resolve reference #/.test(String((e as Error)?.message))) throw e
      return compileNamed(ajv, s, draft)
    }
  } finally {
    // ajv keeps every compiled schema object in a Map for its own life; the WeakMap below is the
    // cache, so drop ajv's entry (an MCP server reconnecting 10k times retains nothing).
    try {
      ajv.removeSchema(s)
    } catch {
      // nothing registered
    }
  }
}

function describeAjvErrors(errors: ErrorObject[] | null | undefined): string {
  const parts = (errors ?? []).slice(0, 20).map((e) => {
    const field =
      e.keyword === 'required'
        ? `${e.instancePath}/${String((e.params as { missingProperty?: unknown }).missingProperty)}`
        : e.keyword === 'additionalProperties'
          ? `${e.instancePath}/${String((e.params as { additionalProperty?: unknown }).additionalProperty)}`
          : e.instancePath || '(params)'
    return `${field}: ${e.message ?? e.keyword}`
  })
  return parts.join('; ') || 'does not match the schema'
}

/** Validates one input (async: zod refinements may be async). */
export type Validator = (input: unknown) => Promise<Checked>

const ACCEPT_ALL: Validator = async (input) => ({ ok: true, value: input })
const refuseAll =
  (why: string): Validator =>
  async () => ({ ok: false, message: why })

/** A zod schema (v3 or v4): it has its own `safeParse`. */
function zodValidator(schema: object): Validator {
  const asyncParse = readField<unknown>(schema, 'safeParseAsync')
  const syncParse = readField<unknown>(schema, 'safeParse')
  const parse =
    asyncParse.ok && typeof asyncParse.value === 'function'
      ? (asyncParse.value as (v: unknown) => unknown)
      : syncParse.ok && typeof syncParse.value === 'function'
        ? (syncParse.value as (v: unknown) => unknown)
        : undefined
  if (!parse) return refuseAll('its input schema cannot be read')
  return async (input) => {
    let result: unknown
    try {
      result = await parse.call(schema, input)
    } catch (e) {
      return { ok: false, message: `its input schema threw: ${describeError(e)}` }
    }
    const success = readOwn<unknown>(result, 'success')
    if (success.ok && success.value === true) {
      const data = readOwn<unknown>(result, 'data')
      if (!data.ok) return { ok: false, message: 'its input schema gave an unreadable result' }
      return { ok: true, value: data.value }
    }
    return { ok: false, message: zodMessage(readOwn<unknown>(result, 'error')) }
  }
}

function zodMessage(err: { ok: boolean; value?: unknown }): string {
  if (!err.ok) return 'does not match the schema'
  const issues = readField<unknown>(err.value, 'issues')
  if (!issues.ok || !Array.isArray(issues.value)) return 'does not match the schema'
  const parts = issues.value.slice(0, 20).map((i: unknown) => {
    const path = readOwn<unknown>(i, 'path')
    const message = readOwn<unknown>(i, 'message')
    const where = path.ok && Array.isArray(path.value) && path.value.length ? `/${path.value.map((p) => String(p)).join('/')}` : '(params)'
    return `${where}: ${message.ok && typeof message.value === 'string' ? message.value : 'invalid'}`
  })
  return parts.join('; ') || 'does not match the schema'
}

function jsonSchemaValidator(schema: unknown): Validator {
  if (schema === true) return ACCEPT_ALL
  if (schema === false) return refuseAll('its input schema accepts no input')
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) {
    return refuseAll('its input schema is not a JSON Schema')
  }
  let validate: ValidateFunction
  try {
    validate = compileJsonSchema(schema as Record<string, unknown>)
  } catch (e) {
    return refuseAll(`its input schema cannot be compiled: ${describeError(e)}`)
  }
  return async (input) => {
    try {
      if (validate(input)) return { ok: true, value: input }
      return { ok: false, message: describeAjvErrors(validate.errors) }
    } catch (e) {
      // e.g. a self-referencing $ref walking a cyclic input until the stack runs out
      return { ok: false, message: `validation failed: ${describeError(e)}` }
    }
  }
}

/** One validator per schema object, for the life of that object. */
const cache = new WeakMap<object, Validator>()

function cached(key: object, make: () => Validator): Validator {
  let v = cache.get(key)
  if (!v) {
    v = make()
    cache.set(key, v)
  }
  return v
}

/**
 * The validator of a tool's input: `inputJSONSchema` (JSON Schema, also `true`/`false`) when the
 * tool has one, else `inputSchema` (zod when it has `safeParse`, else JSON Schema). A tool with
 * neither accepts any input; a field that throws or holds something unusable refuses every input.
 */
export function validatorOf(tool: object): Validator {
  const json = readField<unknown>(tool, 'inputJSONSchema')
  if (!json.ok) return refuseAll(`its inputJSONSchema cannot be read: ${describeError(json.error)}`)
  if (json.value !== undefined && json.value !== null) {
    const s = json.value
    if (typeof s === 'boolean') return jsonSchemaValidator(s)
    return typeof s === 'object' ? cached(s, () => jsonSchemaValidator(s)) : refuseAll('its inputJSONSchema is not a JSON Schema')
  }
  const input = readField<unknown>(tool, 'inputSchema')
  if (!input.ok) return refuseAll(`its inputSchema cannot be read: ${describeError(input.error)}`)
  const s = input.value
  if (s === undefined || s === null) return ACCEPT_ALL
  if (typeof s === 'boolean') return jsonSchemaValidator(s)
  if (typeof s !== 'object' && typeof s !== 'function') return refuseAll('its inputSchema is not a schema')
  return cached(s, () => {
    const sp = readField<unknown>(s, 'safeParse')
    if (!sp.ok) return refuseAll(`its inputSchema cannot be read: ${describeError(sp.error)}`)
    if (typeof sp.value === 'function') return zodValidator(s)
    // A zod schema without safeParse (a stub, another library's shape) is not a JSON Schema either.
    const def = readField<unknown>(s, '_def')
    const zod = readField<unknown>(s, '_zod')
    if (!def.ok || !zod.ok || def.value !== undefined || zod.value !== undefined) return refuseAll('its inputSchema looks like a zod schema but has no safeParse')
    return jsonSchemaValidator(s)
  })
}

/** Arrays longer than this are refused before any schema walks them. */
export const MAX_INPUT_ARRAY_LENGTH = 1_000_000

const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype'])

class ShapeError extends Error {}

/**
 * Copy the input into fresh plain objects and arrays, reading every property once, so a getter
 * or Proxy cannot show the schema one value and the target another. Refused: own `__proto__` /
 * `constructor` / `prototype` keys anywhere, nesting deeper than `MAX_INPUT_DEPTH`, cycles, more
 * than `MAX_INPUT_NODES` values, arrays longer than `MAX_INPUT_ARRAY_LENGTH` or with holes (a
 * sparse `length = 2**32 - 1` array would make a schema walk four billion holes), functions and
 * symbols, and keys or values that cannot be read (a hostile Proxy). `strict` (the input):
 * NaN and ±Infinity, and objects that are not plain data, are refused too, except a real `Date`,
 * which is copied. Not strict (a schema's own parsed output): such objects are kept as leaves.
 */
export function snapshotInput(value: unknown, strict = true): Checked {
  const ancestors = new Set<object>()
  let nodes = 0
  const fail = (why: string): never => {
    throw new ShapeError(why)
  }
  const copy = (v: unknown, path: string, depth: number): unknown => {
    const where = path || '(params)'
    if (++nodes > MAX_INPUT_NODES) fail(`more than ${MAX_INPUT_NODES} values`)
    if (typeof v === 'function' || typeof v === 'symbol') fail(`a ${typeof v} at ${where}`)
    // JSON has no NaN or Infinity: sent on to an MCP server they would become `null` after the
    // schema had seen a number.
    if (strict && typeof v === 'number' && !Number.isFinite(v)) fail(`a number that is not finite (${v}) at ${where}`)
    if (v === null || typeof v !== 'object') return v
    if (depth > MAX_INPUT_DEPTH) fail(`nesting deeper than ${MAX_INPUT_DEPTH} at ${where}`)
    if (ancestors.has(v)) fail(`a cycle at ${where}`)
    if (Array.isArray(v)) {
      const n = v.length
      if (n > MAX_INPUT_ARRAY_LENGTH) fail(`an array of length ${n} at ${where} (the limit is ${MAX_INPUT_ARRAY_LENGTH})`)
      ancestors.add(v)
      const out = new Array<unknown>(n)
      for (let i = 0; i < n; i++) {
        const d = Object.getOwnPropertyDescriptor(v, i)
        if (!d) fail(`a sparse array at ${where} (a hole at ${i})`)
        out[i] = copy(d!.get ? d!.get.call(v) : d!.value, `${path}/${i}`, depth + 1)
      }
      ancestors.delete(v)
      return out
    }
    const proto = Object.getPrototypeOf(v)
    if (proto !== Object.prototype && proto !== null) {
      if (!strict) return v
      // The input is data: a real Date is copied (zod's `date()`); anything else that is not a
      // plain object (a Map, a typed array, a boxed string, a class instance whose getters could
      // answer the schema one thing and the target another) is refused.
      let time: number | undefined
      try {
        time = Date.prototype.getTime.call(v)
      } catch {
        time = undefined
      }
      if (time !== undefined) return new Date(time)
      fail(`an object that is not plain data at ${where}`)
    }
    ancestors.add(v)
    const out: Record<string, unknown> = {}
    for (const key of Reflect.ownKeys(v)) {
      if (typeof key === 'symbol') continue
      const d = Object.getOwnPropertyDescriptor(v, key)
      if (!d || !d.enumerable) continue
      if (FORBIDDEN_KEYS.has(key)) fail(`forbidden key at ${path}/${key}`)
      out[key] = copy(d.get ? d.get.call(v) : d.value, `${path}/${key}`, depth + 1)
    }
    ancestors.delete(v)
    return out
  }
  try {
    return { ok: true, value: copy(value, '', 0) }
  } catch (e) {
    if (e instanceof ShapeError) return { ok: false, message: e.message }
    return { ok: false, message: `the input cannot be read: ${describeError(e)}` }
  }
}

/** Why `snapshotInput` refuses a value, or `undefined` when it would not. */
export function checkInputShape(value: unknown, strict = true): string | undefined {
  const r = snapshotInput(value, strict)
  return r.ok ? undefined : r.message
}

/** Snapshot, then the tool's schema: the value the target may see, or why not. */
export async function checkInput(tool: object, input: unknown): Promise<Checked> {
  const snap = snapshotInput(input)
  if (!snap.ok) return snap
  const checked = await validatorOf(tool)(snap.value)
  if (!checked.ok) return checked
  // A zod transform may build a new value: it must pass the shape check too.
  if (checked.value !== snap.value) {
    // The schema's own output may hold what the schema made (a URL from a transform): only the
    // shape is checked (no forbidden keys, cycles, depth).
    const after = checkInputShape(checked.value, false)
    if (after) return { ok: false, message: `the parsed input has ${after}` }
  }
  return checked
}
