/**
 * Params validation for ExecuteTool: a zod `inputSchema` is checked by zod itself (its own
 * `safeParse`), a JSON Schema (`inputJSONSchema`, an MCP tool's schema) by ajv with a linear-time
 * regex engine (RE2JS) and the schema's own draft. Each schema object compiles once (WeakMap).
 * A schema that cannot be used refuses every call.
 */
import Ajv, { type ErrorObject, type Options as AjvOptions, type ValidateFunction } from 'ajv'
import Ajv2019 from 'ajv/dist/2019'
import Ajv2020 from 'ajv/dist/2020'
import AjvDraft04 from 'ajv-draft-04'
import { RE2JS } from 're2js'
import { Doubt, message, readOwn } from './policy'

/** Limits of the params snapshot (JSON from a model stays far below them). */
export const PARAMS_LIMITS = { maxDepth: 256, maxNodes: 1_000_000, maxArrayLength: 1_000_000 } as const

/** The result of checking params: the value the tool gets, or why not. */
export type Checked = { ok: true; value: unknown } | { ok: false; reason: string }

// ---------------------------------------------------------------------------------------------
// Snapshot: plain data, read once
// ---------------------------------------------------------------------------------------------

const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype'])

function isPlainObject(v: object): boolean {
  const p = Object.getPrototypeOf(v)
  return p === Object.prototype || p === null
}

/**
 * Copy params into fresh plain objects and arrays, reading every property once (so a getter or
 * Proxy cannot show the validator one value and the tool another). Refuses own `__proto__` /
 * `constructor` / `prototype` keys, cycles, nesting deeper than `maxDepth`, arrays longer than
 * `maxArrayLength` or with holes, and more than `maxNodes` values. Non-plain objects (a `Date`,
 * a class instance) are kept by reference as leaves; functions and symbols are refused.
 */
export function snapshotParams(value: unknown): Checked {
  let nodes = 0
  const onPath = new Set<object>()
  const fail = (reason: string): never => {
    throw new SnapshotError(reason)
  }
  const copy = (v: unknown, path: string, depth: number): unknown => {
    if (++nodes > PARAMS_LIMITS.maxNodes) fail(`more than ${PARAMS_LIMITS.maxNodes} values`)
    if (typeof v === 'function' || typeof v === 'symbol') fail(`${path || '(params)'}: a ${typeof v} is not a parameter value`)
    if (v === null || typeof v !== 'object') return v
    if (depth >= PARAMS_LIMITS.maxDepth) fail(`nested deeper than ${PARAMS_LIMITS.maxDepth} levels at ${path}`)
    if (onPath.has(v)) fail(`cyclic value at ${path || '(params)'}`)
    if (Array.isArray(v)) {
      const n = v.length
      if (n > PARAMS_LIMITS.maxArrayLength) fail(`array of length ${n} at ${path || '(params)'} exceeds ${PARAMS_LIMITS.maxArrayLength}`)
      onPath.add(v)
      const out = new Array(n)
      for (let i = 0; i < n; i++) {
        const d = Object.getOwnPropertyDescriptor(v, i)
        if (!d) fail(`sparse array at ${path || '(params)'} (hole at ${i})`)
        out[i] = copy(d!.get ? d!.get.call(v) : d!.value, `${path}/${i}`, depth + 1)
      }
      onPath.delete(v)
      return out
    }
    if (!isPlainObject(v)) return v
    onPath.add(v)
    const out: Record<string, unknown> = {}
    for (const key of Reflect.ownKeys(v)) {
      if (typeof key === 'symbol') continue
      const d = Object.getOwnPropertyDescriptor(v, key)
      if (!d || !d.enumerable) continue
      if (FORBIDDEN_KEYS.has(key)) fail(`forbidden key at ${path}/${key}`)
      out[key] = copy(d.get ? d.get.call(v) : d.value, `${path}/${key}`, depth + 1)
    }
    onPath.delete(v)
    return out
  }
  try {
    return { ok: true, value: copy(value, '', 0) }
  } catch (err) {
    if (err instanceof SnapshotError) return { ok: false, reason: err.message }
    return { ok: false, reason: `reading the params threw: ${message(err)}` }
  }
}

class SnapshotError extends Error {}

// ---------------------------------------------------------------------------------------------
// Schemas
// ---------------------------------------------------------------------------------------------

/** A compiled check: takes a snapshot, gives the value for the tool (zod's parsed output) or why not. */
export type Validator = (value: unknown) => Promise<Checked>

/** The tool's schema: a validator, none (`undefined`), or a reason it cannot be used. */
export type SchemaCheck = Validator | undefined | Doubt

/**
 * The validator of a tool's input schema. `inputJSONSchema` (any value but `undefined`) wins and
 * goes to ajv (`false` rejects everything, a non-schema refuses); otherwise a zod `inputSchema`
 * (an object with a `safeParse` function) is run by zod; a plain-object `inputSchema` is JSON
 * Schema; no `inputSchema` means no schema. Read from the tool's own properties only.
 */
export function validatorOf(tool: object): SchemaCheck {
  const json = readOwn(tool, 'inputJSONSchema')
  if (json instanceof Doubt) return json
  if (json !== undefined) return jsonValidator(json)
  const schema = readOwn(tool, 'inputSchema')
  if (schema instanceof Doubt) return schema
  if (schema === undefined) return undefined
  if (schema === null || (typeof schema !== 'object' && typeof schema !== 'boolean')) {
    return new Doubt(`its inputSchema is a ${schema === null ? 'null' : typeof schema}, not a schema`)
  }
  if (typeof schema === 'boolean') return jsonValidator(schema)
  const safeParse = readOwn(schema, 'safeParse')
  if (safeParse instanceof Doubt) return safeParse
  if (typeof safeParse === 'function') return zodValidator(schema)
  const zodLike = readOwn(schema, '_def') !== undefined || readOwn(schema, '_zod') !== undefined
  if (zodLike) return new Doubt('its inputSchema looks like a zod schema but has no safeParse')
  return jsonValidator(schema)
}

const zodCache = new WeakMap<object, Validator>()

type ParseResult = { success?: unknown; data?: unknown; error?: { issues?: unknown } }

/** Run the schema's own `safeParseAsync` (async refinements) or `safeParse`; the tool gets `data`. */
function zodValidator(schema: object): Validator {
  const hit = zodCache.get(schema)
  if (hit) return hit
  const s = schema as { safeParse: (v: unknown) => ParseResult; safeParseAsync?: (v: unknown) => Promise<ParseResult> }
  const v: Validator = async (value) => {
    let r: ParseResult
    try {
      r = typeof s.safeParseAsync === 'function' ? await s.safeParseAsync(value) : s.safeParse(value)
    } catch (err) {
      return { ok: false, reason: `the input schema threw: ${message(err)}` }
    }
    if (r === null || typeof r !== 'object') return { ok: false, reason: 'the input schema gave no result' }
    if (r.success === true) return { ok: true, value: r.data }
    return { ok: false, reason: describeZod(r.error) }
  }
  zodCache.set(schema, v)
  return v
}

function describeZod(error: ParseResult['error']): string {
  try {
    const issues = Array.isArray(error?.issues) ? (error!.issues as { path?: unknown[]; message?: unknown }[]) : []
    if (!issues.length) return 'rejected by the input schema'
    return issues
      .slice(0, 10)
      .map((i) => `${Array.isArray(i.path) && i.path.length ? `/${i.path.map(String).join('/')}` : '(params)'}: ${String(i.message)}`)
      .join('; ')
  } catch {
    return 'rejected by the input schema'
  }
}

/** RE2JS behind ajv's `code.regExp`: `pattern` and `patternProperties` match in linear time. */
function re2(pattern: string, _flags: string): { test: (s: string) => boolean } {
  const compiled = RE2JS.compile(pattern)
  return { test: (s: string) => compiled.matcher(s).find() }
}
re2.code = 'new RegExp'

const AJV_OPTIONS: AjvOptions = {
  allErrors: true,
  strict: false,
  validateFormats: false,
  code: { regExp: re2 as unknown as NonNullable<AjvOptions['code']>['regExp'] },
}

let validators: { draft04: Ajv; draft07: Ajv; d2019: Ajv; d2020: Ajv } | undefined

function ajvs() {
  validators ??= {
    draft04: new AjvDraft04(AJV_OPTIONS) as unknown as Ajv,
    draft07: new Ajv(AJV_OPTIONS),
    d2019: new Ajv2019(AJV_OPTIONS),
    d2020: new Ajv2020(AJV_OPTIONS),
  }
  return validators
}

/** Boolean `exclusiveMinimum`/`exclusiveMaximum` anywhere (bounded walk): a draft-04 schema. */
function looksDraft04(schema: object): boolean {
  let budget = 10_000
  const seen = new Set<object>()
  const walk = (n: unknown, depth: number): boolean => {
    if (n === null || typeof n !== 'object' || depth > 64 || --budget < 0 || seen.has(n)) return false
    seen.add(n)
    const o = n as Record<string, unknown>
    if (typeof o.exclusiveMinimum === 'boolean' || typeof o.exclusiveMaximum === 'boolean') return true
    for (const k of Object.keys(o)) if (walk(o[k], depth + 1)) return true
    return false
  }
  return walk(schema, 0)
}

/** The ajv instance of the schema's declared draft (04, 2019-09, 2020-12, else 07). */
function pickAjv(schema: object): { ajv: Ajv; schema: object } {
  const a = ajvs()
  const declared = (schema as { $schema?: unknown }).$schema
  if (typeof declared === 'string') {
    if (declared.includes('2020-12')) return { ajv: a.d2020, schema }
    if (declared.includes('2019-09')) return { ajv: a.d2019, schema }
    if (declared.includes('draft-04')) return { ajv: a.draft04, schema }
    if (!declared.includes('draft-07')) {
      // draft-06 and unknown drafts: the keywords tools use mean the same in draft-07
      const { $schema: _drop, ...rest } = schema as Record<string, unknown>
      return { ajv: looksDraft04(rest) ? a.draft04 : a.draft07, schema: rest }
    }
    return { ajv: a.draft07, schema }
  }
  return { ajv: looksDraft04(schema) ? a.draft04 : a.draft07, schema }
}

const jsonCache = new WeakMap<object, Validator | Doubt>()
const TRUE_VALIDATOR: Validator = async (value) => ({ ok: true, value })
const FALSE_VALIDATOR: Validator = async () => ({ ok: false, reason: 'the tool accepts no input (its schema is false)' })

/**
 * Compile a JSON Schema once per schema object. The compiled schema is removed from ajv's
 * registry right after compiling, so a second schema object with the same `$id` (an MCP
 * reconnect) compiles too and nothing is retained but the WeakMap entry.
 */
function jsonValidator(schema: unknown): Validator | Doubt {
  if (schema === true) return TRUE_VALIDATOR
  if (schema === false) return FALSE_VALIDATOR
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) {
    return new Doubt(`its JSON Schema is ${schema === null ? 'null' : Array.isArray(schema) ? 'an array' : `a ${typeof schema}`}`)
  }
  const hit = jsonCache.get(schema)
  if (hit) return hit
  let out: Validator | Doubt
  try {
    const picked = pickAjv(schema)
    let validate: ValidateFunction
    try {
      validate = picked.ajv.compile(picked.schema)
    } finally {
      try {
        picked.ajv.removeSchema(picked.schema)
      } catch {
        // nothing registered
      }
    }
    out = async (value) => {
      try {
        if (validate(value)) return { ok: true, value }
        return { ok: false, reason: describeAjv(validate.errors) }
      } catch (err) {
        return { ok: false, reason: `validation failed: ${message(err)}` }
      }
    }
  } catch (err) {
    out = new Doubt(`its input schema cannot be compiled: ${message(err)}`)
  }
  jsonCache.set(schema, out)
  return out
}

function describeAjv(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? [])
    .slice(0, 10)
    .map((e) => {
      const field =
        e.keyword === 'required'
          ? `${e.instancePath}/${(e.params as { missingProperty: string }).missingProperty}`
          : e.keyword === 'additionalProperties'
            ? `${e.instancePath}/${(e.params as { additionalProperty: string }).additionalProperty}`
            : e.instancePath || '(params)'
      return `${field}: ${e.message ?? e.keyword}`
    })
    .join('; ')
}
