/**
 * The fetch an HTTP upstream is read through: each answer, a JSON body or one event of an SSE
 * stream, may hold at most a given number of bytes. The SDK reads a JSON answer whole
 * (`response.json()`), so without a bound one answer of an upstream could take all memory; a
 * stream that stays open for the whole session is bounded by its events, not its length.
 *
 * A request's own stream (the SSE answer to a POST of JSON-RPC requests) that ends before it has
 * carried an answer to each of them ends with `StreamEndedError`: the SDK leaves the requests of
 * a stream that ended quietly waiting for their deadline, while an error reaches the client's
 * `onerror`, where the gateway checks that the server is still there.
 */
import { createParser } from 'eventsource-parser'

/** The largest answer read from an HTTP upstream (a stdio upstream's lines are bounded by the SDK). */
export const MAX_ANSWER_BYTES = 16 * 1024 * 1024

/** The error a body past the bound ends with. */
export class AnswerTooLargeError extends Error {
  constructor(limit: number) {
    super(`the upstream's answer is over ${limit} bytes`)
    this.name = 'AnswerTooLargeError'
  }
}

/** The error a request's stream ends with when it closed before answering every request it carried. */
export class StreamEndedError extends Error {
  constructor(unanswered: number) {
    super(`the upstream ended the stream before answering ${unanswered === 1 ? 'the request' : `${unanswered} requests`}`)
    this.name = 'StreamEndedError'
  }
}

/** The ids of the JSON-RPC requests (not notifications) a POST body carries, or none. */
function requestIds(init: RequestInit | undefined): Set<string> {
  const ids = new Set<string>()
  if (init?.method?.toUpperCase() !== 'POST' || typeof init.body !== 'string') return ids
  let msg: unknown
  try {
    msg = JSON.parse(init.body)
  } catch {
    return ids
  }
  for (const m of Array.isArray(msg) ? msg : [msg]) {
    if (m && typeof m === 'object' && typeof (m as { method?: unknown }).method === 'string' && 'id' in m) {
      ids.add(JSON.stringify((m as { id: unknown }).id))
    }
  }
  return ids
}

/** Marks off each id of `waiting` that an event of the stream answers (a response: `result` or `error`). */
function answerWatcher(waiting: Set<string>): (text: string) => void {
  const parser = createParser({
    onEvent(event) {
      if (event.event && event.event !== 'message') return
      let msg: unknown
      try {
        msg = JSON.parse(event.data)
      } catch {
        return
      }
      for (const m of Array.isArray(msg) ? msg : [msg]) {
        if (m && typeof m === 'object' && 'id' in m && ('result' in m || 'error' in m)) waiting.delete(JSON.stringify((m as { id: unknown }).id))
      }
    },
  })
  return (text) => parser.feed(text)
}

/**
 * Counts bytes since the last event boundary (a blank line; for a JSON body there is none, so
 * the whole body counts) and fails past `limit`.
 */
function boundedBody(body: ReadableStream<Uint8Array>, limit: number, stream: boolean, waiting: Set<string>): ReadableStream<Uint8Array> {
  let run = 0
  let newlines = 0
  const decoder = new TextDecoder()
  const watch = stream && waiting.size > 0 ? answerWatcher(waiting) : undefined
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      flush(controller) {
        if (!watch) return
        watch(decoder.decode())
        if (waiting.size > 0) controller.error(new StreamEndedError(waiting.size))
      },
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
        if (run > limit) return controller.error(new AnswerTooLargeError(limit))
        // While a request of this stream is unanswered, its events are read for the answer.
        if (watch && waiting.size > 0) watch(decoder.decode(chunk, { stream: true }))
        controller.enqueue(chunk)
      },
    }),
  )
}

/**
 * A `fetch` whose response bodies stop with `AnswerTooLargeError` past `limit` bytes an answer,
 * and whose request streams stop with `StreamEndedError` when they end before their answers.
 */
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
    const waiting = stream ? requestIds(init) : new Set<string>()
    return new Response(boundedBody(res.body, limit, stream, waiting), { status: res.status, statusText: res.statusText, headers: res.headers })
  }
}
