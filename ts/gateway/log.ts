/** Gateway progress on stderr: human lines, or one JSON object a line with `--json-logs`. */

/** Log levels, lowest first. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error'

/** A log sink. */
export interface Logger {
  log(level: LogLevel, event: string, message: string, fields?: Record<string, unknown>): void
}

const RANK: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 }

/** A stderr logger. */
export function stderrLogger(options: { json?: boolean; level?: LogLevel; write?: (line: string) => void } = {}): Logger {
  const min = RANK[options.level ?? 'info']
  const write = options.write ?? ((line: string) => process.stderr.write(line))
  return {
    log(level, event, message, fields = {}) {
      if (RANK[level] < min) return
      if (options.json) {
        write(`${JSON.stringify({ ts: new Date().toISOString(), level, event, msg: message, ...fields })}\n`)
      } else {
        const server = typeof fields.server === 'string' ? `[${fields.server}] ` : ''
        const tag = level === 'warn' || level === 'error' ? `${level}: ` : ''
        write(`tool-index serve: ${server}${tag}${message}\n`)
      }
    },
  }
}
