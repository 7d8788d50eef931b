/**
 * The fetch an HTTP upstream is read through: each answer, a JSON body or one event of an SSE
 * stream, may hold at most a given number of bytes. The SDK reads a JSON answer whole
 * (`response.json()`), so without a bound one answer of an upstream could take all memory; a
 * stream that stays open for the whole session is bounded by its events, not its length.
 */

/** The largest answer read from an HTTP upstream (a stdio upstream's lines are bounded by the SDK). */
export const MAX_ANSWER_BYTES = 16 * 1024 * 1024

/** The error a body past the bound ends with. */
export class AnswerTooLargeError extends Error {
  constructor(limit: number) {
    super(`the upstream's answer is over ${limit} bytes`)
    this.name = 'AnswerTooLargeError'
  }
}

/**
 * Counts bytes since the last event boundary (a blank line; for a JSON body there is none, so
 * the whole body counts) and fails past `limit`.
 */
function boundedBody(body: ReadableStream<Uint8Array>, limit: number, stream: boolean): ReadableStream<Uint8Array> {
  let run = 0
  let newlines = 0
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        if (!stream) {
          run += chunk.byteLength
        } else {
          for (let i = 0; i < chunk.byteLength; i++) {
            const b = chunk[i]
            if (++run > limit) break
            if (b === 0x0a) {
              if (++newlines >= 2) run = 0
            } else if (b !== 0x0d) newlines = 0
          }
        }
        if (run > limit) controller.error(new AnswerTooLargeError(limit))
        else controller.enqueue(chunk)
      },
    }),
  )
}

/** A `fetch` whose response bodies stop with `AnswerTooLargeError` past `limit` bytes an answer. */
export function boundedFetch(limit: number = MAX_ANSWER_BYTES): (url: string | URL, init?: RequestInit) => Promise<Response> {
  return async (url, init) => {
    const res = await fetch(url, init)
    if (!res.body) return res
    const declared = Number(res.headers.get('content-length'))
    const stream = (res.headers.get('content-type') ?? '').includes('text/event-stream')
    if (!stream && Number.isFinite(declared) && declared > limit) {
      await res.body.cancel().catch(() => {})
      throw new AnswerTooLargeError(limit)
    }
    return new Response(boundedBody(res.body, limit, stream), { status: res.status, statusText: res.statusText, headers: res.headers })
  }
}
