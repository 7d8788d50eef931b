/**
 * Errors with stable codes. Every error this package throws is a `ToolIndexError` (or, from
 * the native layer directly, an `Error` with the same `code` property).
 */

/** The stable error codes. Never renamed; new ones may be added. */
export type ToolIndexErrorCode =
  | 'E_INVALID_ARG'
  | 'E_DUPLICATE_NAME'
  | 'E_INVALID_LIMIT'
  | 'E_INVALID_NUMBER'
  | 'E_INVALID_SCORING'
  | 'E_TOO_LARGE'
  | 'E_INTERNAL'
  /** The index was disposed (`dispose()`); get or build a new one. */
  | 'E_DISPOSED'
  /** A change to a read-only value of the package (`CORE_TOOLS`; a `TypeError` with this code). */
  | 'E_READ_ONLY'
  /** Loading the package: no native addon could be loaded for this platform (thrown by `native.js`). */
  | 'E_NATIVE_UNAVAILABLE'
  /** Loading the package under a runtime it does not support (Bun before 1.4.0; thrown by `native.js`). */
  | 'E_UNSUPPORTED_RUNTIME'

export class ToolIndexError extends Error {
  readonly code: ToolIndexErrorCode

  constructor(code: ToolIndexErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'ToolIndexError'
    this.code = code
  }
}

const NATIVE_CODES = new Set<string>([
  'E_INVALID_ARG',
  'E_DUPLICATE_NAME',
  'E_INVALID_LIMIT',
  'E_INVALID_NUMBER',
  'E_INVALID_SCORING',
  'E_TOO_LARGE',
  'E_INTERNAL',
  'E_DISPOSED',
])

/** Re-throw an error from the addon as a `ToolIndexError` with a stable code. */
export function fromNative(err: unknown): ToolIndexError {
  try {
    return codedFromNative(err)
  } catch {
    // A value that throws on every look (a revoked Proxy) has no code or message to read.
    return new ToolIndexError('E_INTERNAL', 'an unprintable error', { cause: err })
  }
}

function codedFromNative(err: unknown): ToolIndexError {
  if (err instanceof ToolIndexError) return err
  const e = err as { code?: unknown; message?: unknown }
  const message = typeof e?.message === 'string' ? e.message : String(err)
  const code = typeof e?.code === 'string' && NATIVE_CODES.has(e.code) ? (e.code as ToolIndexErrorCode) : undefined
  if (code) return new ToolIndexError(code, message, { cause: err })
  // napi-rs conversion failures (`StringExpected`, `NumberExpected`, ...) are wrong argument types;
  // a caught Rust panic carries `GenericFailure` and the panic message.
  if (typeof e?.code === 'string' && /Expected$|InvalidArg/.test(e.code)) {
    return new ToolIndexError('E_INVALID_ARG', message, { cause: err })
  }
  return new ToolIndexError('E_INTERNAL', message, { cause: err })
}

/** Run `fn`, converting any addon error. */
export function native<T>(fn: () => T): T {
  try {
    return fn()
  } catch (err) {
    throw fromNative(err)
  }
}

export function invalidArg(message: string): ToolIndexError {
  return new ToolIndexError('E_INVALID_ARG', message)
}
