/**
 * Input schemas: a tool's `inputJSONSchema`, else the JSON Schema of its zod `inputSchema`.
 */

type JsonSchema = Record<string, unknown>

let zodToJson: ((schema: unknown) => JsonSchema) | null | undefined

function loadZodConverter(): ((schema: unknown) => JsonSchema) | null {
  if (zodToJson !== undefined) return zodToJson
  zodToJson = null
  // zod 4 exports `toJSONSchema` at its root; zod 3.25 ships v4 as `zod/v4` (its root is v3, which
  // has no converter), and v4 schemas, which ccb's tools use, convert there.
  for (const id of ['zod', 'zod/v4']) {
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const z = require(id) as { toJSONSchema?: (s: unknown) => JsonSchema }
      if (typeof z.toJSONSchema === 'function') {
        zodToJson = z.toJSONSchema
        break
      }
    } catch {
      // zod is an optional peer dependency
    }
  }
  return zodToJson
}

function isPlainJsonSchema(s: unknown): s is JsonSchema {
  if (s === null || typeof s !== 'object' || Array.isArray(s)) return false
  const o = s as Record<string, unknown>
  return (
    typeof o.type === 'string' ||
    (typeof o.properties === 'object' && o.properties !== null) ||
    typeof o.$schema === 'string' ||
    Array.isArray(o.anyOf) ||
    Array.isArray(o.oneOf)
  )
}

/** Converted zod schemas, once per schema object. */
const converted = new WeakMap<object, object | undefined>()

/** The JSON Schema of a tool's input, or `undefined` when it has none we can read. */
export function inputSchemaOf(tool: { inputJSONSchema?: unknown; inputSchema?: unknown }): object | undefined {
  const explicit = tool.inputJSONSchema
  if (explicit !== undefined && explicit !== null && typeof explicit === 'object') return explicit as object
  const schema = tool.inputSchema
  if (schema === undefined || schema === null || typeof schema !== 'object') return undefined
  const s = schema as Record<string, unknown>
  if ('_zod' in s || '_def' in s) {
    if (converted.has(s)) return converted.get(s)
    const convert = loadZodConverter()
    if (!convert) return undefined
    let out: object | undefined
    try {
      out = convert(schema)
    } catch {
      // e.g. a zod v3 schema handed to v4's converter: searchable without schema text
      // (ExecuteTool validates with the schema's own safeParse, not with this conversion)
      out = undefined
    }
    converted.set(s, out)
    return out
  }
  return isPlainJsonSchema(schema) ? schema : undefined
}

/** The most schema objects `schemaText` looks into. */
export const SCHEMA_TEXT_MAX_NODES = 2000

/**
 * The searchable text of an input schema: property names and descriptions, nested ones
 * included, for enhanced scoring. Bounded however the schema is shaped: at most four levels
 * deep, `maxChars` of text, and `SCHEMA_TEXT_MAX_NODES` objects, each looked into once (a
 * schema that refers to itself, or shares one sub-schema among many `anyOf` branches, is not
 * walked again and again).
 */
export function schemaText(schema: object | undefined, maxChars = 4000): string | undefined {
  if (!schema) return undefined
  const out: string[] = []
  let size = 0
  const seen = new Set<object>()
  const visit = (node: unknown, depth: number): void => {
    if (depth > 4 || size > maxChars || node === null || typeof node !== 'object') return
    if (seen.has(node) || seen.size >= SCHEMA_TEXT_MAX_NODES) return
    seen.add(node)
    const o = node as Record<string, unknown>
    const props = o.properties
    if (props && typeof props === 'object') {
      const record = props as Record<string, unknown>
      for (const key of Object.keys(record)) {
        if (size > maxChars) return
        const value = record[key]
        out.push(key)
        size += key.length
        const d = (value as { description?: unknown })?.description
        if (typeof d === 'string') {
          out.push(d)
          size += d.length
        }
        visit(value, depth + 1)
      }
    }
    if (o.items) visit(o.items, depth + 1)
    for (const k of ['anyOf', 'oneOf', 'allOf']) {
      const list = o[k]
      if (!Array.isArray(list)) continue
      // By index, and no further than the node cap: a sparse list of length 2^32 − 1, or one
      // object repeated a million times, ends as soon as a short one would.
      const n = Math.min(list.length, SCHEMA_TEXT_MAX_NODES)
      for (let i = 0; i < n; i++) {
        if (size > maxChars || seen.size >= SCHEMA_TEXT_MAX_NODES) return
        visit(list[i], depth + 1)
      }
    }
  }
  visit(schema, 0)
  const text = out.join(' ')
  return text ? text.slice(0, maxChars) : undefined
}
