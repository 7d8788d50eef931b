/**
 * ExecuteTool (SPEC §7): run a tool by name after validating its params against its JSON
 * Schema (ajv) and asking its own permission check. Nothing runs that must not.
 */
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv'
import Ajv2019 from 'ajv/dist/2019'
import Ajv2020 from 'ajv/dist/2020'
import { ToolIndexError, invalidArg } from './errors'
import { isDeferredTool } from './index'
import { inputSchemaOf } from './schema'
import { ToolIndexCache } from './index'
import { toolSearch, type ToolSearchSession } from './toolSearch'
import type { ToolLike } from './types'

/** The ExecuteTool tool's input. */
export interface ExecuteToolInput {
  tool_name: string
  params?: unknown
}

/** Why a call did not run (absent when it ran). */
export type ExecuteToolRefusal = 'not_found' | 'disabled' | 'invalid_params' | 'denied' | 'not_discovered'

/** The outcome: the target's result, or `result: null` and a message saying why not. */
export interface ExecuteToolOutput {
  tool_name: string
  result: unknown
  /** Set when the target was not called. */
  refused?: ExecuteToolRefusal
  message?: string
  /** `not_found` only: the closest tool names. */
  suggestions?: string[]
}

/** Options of `executeTool`. */
export interface ExecuteToolOptions {
  /** Refuse deferred tools that `session` has not seen returned by ToolSearch. */
  requireDiscovered?: boolean
  session?: ToolSearchSession
  /** Replaces the core set (for `requireDiscovered`). */
  coreTools?: Iterable<string>
}

/** A ccb-shaped tool-use context: the full tool list is `options.tools`. */
export interface ExecuteContext {
  options: { tools: readonly ToolLike[] }
  [key: string]: unknown
}

type Tool = ToolLike & {
  isEnabled?: () => boolean | Promise<boolean>
  validateInput?: (input: any, ctx: any) => unknown
  checkPermissions?: (input: any, ctx: any) => unknown
  call: (input: any, ctx: any, canUseTool?: any, parentMessage?: any, onProgress?: any) => unknown
}

const AJV_OPTIONS = { allErrors: true, strict: false, validateFormats: false } as const
const ajvDraft7 = new Ajv(AJV_OPTIONS)
const ajv2019 = new Ajv2019(AJV_OPTIONS)
const ajv2020 = new Ajv2020(AJV_OPTIONS)
const compiled = new WeakMap<object, ValidateFunction | Error>()

/**
 * Compile with the validator of the schema's declared draft: 2020-12 (zod v4, newer MCP
 * servers), 2019-09, else draft-07; a schema declaring another draft (04, 06) is compiled as
 * draft-07 without its `$schema` (the keywords tools use mean the same there).
 */
function compileSchema(schema: object): ValidateFunction {
  const declared = (schema as { $schema?: unknown }).$schema
  if (typeof declared === 'string') {
    if (declared.includes('2020-12')) return ajv2020.compile(schema)
    if (declared.includes('2019-09')) return ajv2019.compile(schema)
    if (!declared.includes('draft-07')) {
      const { $schema: _drop, ...rest } = schema as Record<string, unknown>
      return ajvDraft7.compile(rest)
    }
  }
  return ajvDraft7.compile(schema)
}

function validatorFor(schema: object): ValidateFunction | Error {
  let v = compiled.get(schema)
  if (!v) {
    try {
      v = compileSchema(schema)
    } catch (e) {
      v = e instanceof Error ? e : new Error(String(e))
    }
    compiled.set(schema, v)
  }
  return v
}

function describeErrors(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? [])
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

/** Own `__proto__` / `constructor` / `prototype` keys anywhere in the params. */
function findPollutingKey(value: unknown, path = ''): string | undefined {
  if (value === null || typeof value !== 'object') return undefined
  for (const key of Object.keys(value)) {
    if (key === '__proto__' || key === 'constructor' || key === 'prototype') return `${path}/${key}`
    const hit = findPollutingKey((value as Record<string, unknown>)[key], `${path}/${key}`)
    if (hit) return hit
  }
  return undefined
}

function refuse(tool_name: string, refused: ExecuteToolRefusal, message: string, extra: Partial<ExecuteToolOutput> = {}): ExecuteToolOutput {
  return { tool_name, result: null, refused, message, ...extra }
}

/**
 * Run a tool by name (or alias) from `context.options.tools`: unknown, disabled,
 * schema-invalid, permission-denied (or undiscovered, with `requireDiscovered`) calls never
 * reach the target. Otherwise the target's `call` gets the same context, `canUseTool`,
 * parent message and progress callback, and its result is returned. Errors the target
 * throws propagate unchanged.
 */
export async function executeTool(
  input: ExecuteToolInput,
  context: ExecuteContext,
  canUseTool?: (...args: any[]) => unknown,
  parentMessage?: unknown,
  onProgress?: (...args: any[]) => unknown,
  options: ExecuteToolOptions = {},
): Promise<ExecuteToolOutput> {
  if (input === null || typeof input !== 'object') throw invalidArg('executeTool: input must be an object')
  if (options === null || typeof options !== 'object') throw invalidArg('executeTool: options must be an object')
  const name = input.tool_name
  if (typeof name !== 'string') throw invalidArg(`executeTool: tool_name must be a string, got ${typeof name}`)
  const tools = context?.options?.tools
  if (!Array.isArray(tools)) throw invalidArg('executeTool: context.options.tools must be the host tool list')

  const tool = (tools.find((t) => t?.name === name) ??
    tools.find((t) => Array.isArray(t?.aliases) && t.aliases.includes(name))) as Tool | undefined
  if (!tool || typeof tool.call !== 'function') {
    const suggestions = await suggest(name, tools)
    const hint = suggestions.length ? ` Did you mean: ${suggestions.join(', ')}?` : ''
    return refuse(name, 'not_found', `Tool "${name}" not found. Use ToolSearch to discover available tools.${hint}`, { suggestions })
  }
  const target = tool.name

  if (typeof tool.isEnabled === 'function' && (await tool.isEnabled()) === false) {
    return refuse(target, 'disabled', `Tool "${target}" is disabled and cannot be executed.`)
  }

  if (options.requireDiscovered) {
    const core = options.coreTools === undefined ? undefined : { coreTools: [...options.coreTools] }
    if (isDeferredTool(tool, core) && !options.session?.discovered.has(target)) {
      return refuse(target, 'not_discovered', `Tool "${target}" has not been discovered yet. Call ToolSearch (e.g. "select:${target}") first.`)
    }
  }

  const params = input.params ?? {}
  const polluting = findPollutingKey(params)
  if (polluting) {
    return refuse(target, 'invalid_params', `Invalid params for "${target}": forbidden key at ${polluting}.`)
  }
  const schema = inputSchemaOf(tool)
  if (schema) {
    const validate = validatorFor(schema)
    if (validate instanceof Error) {
      return refuse(target, 'invalid_params', `Tool "${target}" has an input schema that cannot be compiled: ${validate.message}`)
    }
    if (!validate(params)) {
      return refuse(target, 'invalid_params', `Invalid params for "${target}": ${describeErrors(validate.errors)}`)
    }
  }
  if (typeof tool.validateInput === 'function') {
    const v = (await tool.validateInput(params, context)) as { result?: boolean; message?: string } | undefined
    if (v && v.result === false) {
      return refuse(target, 'invalid_params', `Invalid params for "${target}": ${v.message ?? 'rejected by the tool'}`)
    }
  }

  let callInput: unknown = params
  if (typeof tool.checkPermissions === 'function') {
    let decision = (await tool.checkPermissions(params, context)) as PermissionDecision | undefined
    if (decision?.behavior === 'ask' || decision?.behavior === 'passthrough') {
      decision = typeof canUseTool === 'function'
        ? ((await canUseTool(tool, params, context, parentMessage)) as PermissionDecision | undefined)
        : { behavior: 'deny', message: 'this tool needs permission and no permission prompt is available' }
    }
    // Fail closed: anything but an explicit allow (a deny, undefined, a malformed decision) refuses.
    if (decision === null || typeof decision !== 'object' || decision.behavior !== 'allow') {
      const why = typeof decision?.message === 'string' && decision.message ? `: ${decision.message}` : '.'
      return refuse(target, 'denied', `Permission to use "${target}" was denied${why}`)
    }
    if (decision.updatedInput !== undefined) callInput = decision.updatedInput
  }

  const result = await tool.call(callInput, context, canUseTool, parentMessage, onProgress)
  return { tool_name: target, result }
}

interface PermissionDecision {
  behavior: 'allow' | 'deny' | 'ask' | 'passthrough'
  message?: string
  updatedInput?: unknown
}

/** A separate index line over all tools (core included), so suggestions do not evict ToolSearch's. */
const suggestionCache = new ToolIndexCache()

async function suggest(name: string, tools: readonly ToolLike[]): Promise<string[]> {
  if (!name.trim()) return []
  try {
    const words = name.replace(/^mcp__/, '').replace(/[_\-]+/g, ' ').replace(/([a-z])([A-Z])/g, '$1 $2')
    const out = await toolSearch({ query: words, max_results: 3 }, { tools, coreTools: [], cache: suggestionCache })
    return out.matches
  } catch (e) {
    if (e instanceof ToolIndexError) return []
    throw e
  }
}
