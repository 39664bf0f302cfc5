import fs from 'node:fs'
import path from 'node:path'
import pino, { type DestinationStream, type Logger } from 'pino'
import { fileSink, gatheredLog, type Gathering } from './gatheredLog'
import { isoTime } from './isoTime'
import { openRotatingLog, type LogRotation } from './rotatingLog'

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const
export type LogLevel = (typeof LOG_LEVELS)[number]

export function parseLogLevel(value: string): LogLevel {
  const level = value.trim().toLowerCase()
  if (!(LOG_LEVELS as readonly string[]).includes(level))
    throw new Error(`the log level (--log-level, GW_LOG_LEVEL) must be one of ${LOG_LEVELS.join(', ')}, got "${value}"`)
  return level as LogLevel
}

export interface GatewayLog {
  logger: Logger
  /** The file the log goes to; null when it goes to standard output. */
  file: string | null
  /** How the file is rotated; null when it is not (or there is no file). */
  rotation: LogRotation | null
  /** Writes out what is still buffered; the last lines of a run are not lost. */
  close(): Promise<void>
}

export interface LogTarget {
  level: LogLevel
  file: string | null
  /** Rotates the file at a size; null (or absent) appends to it for ever. */
  rotation?: LogRotation | null
}

/**
 * An error as the log shows it: what, where (stack, with causes) and its code, never the other
 * properties an error may carry (a request's headers, a provider's response).
 */
function errorFields(err: unknown) {
  const e = pino.stdSerializers.err(err as Error) as unknown as { type?: string; message?: string; stack?: string; code?: unknown }
  if (typeof e !== 'object' || e === null) return e
  return { type: e.type, message: e.message, stack: e.stack, ...(e.code !== undefined ? { code: e.code } : {}) }
}

/** The path of a URL: its query string is the caller's and may hold anything. */
export const pathOf = (url: string) => {
  const q = url.indexOf('?')
  return q < 0 ? url : url.slice(0, q)
}

/** A request where Fastify's own lines name one (a failed write of a response): method and path, no headers. */
const requestFields = (req: { method?: string; url?: string }) => ({ method: req.method, path: pathOf(req.url ?? '') })

const LEVEL_NAMES: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' }
const OMITTED = new Set(['time', 'level', 'pid', 'msg', 'err'])

/** One JSON line as a person reads it in a terminal: time, level, message, fields, then any stack. */
export function prettyLine(json: string): string {
  const o = JSON.parse(json) as Record<string, unknown>
  const time = typeof o.time === 'string' ? o.time.slice(11, 23) : ''
  const level = (LEVEL_NAMES[o.level as number] ?? String(o.level)).padEnd(5)
  const fields = Object.entries(o)
    .filter(([k, v]) => !OMITTED.has(k) && v !== null && v !== undefined)
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
  const err = o.err as { stack?: string } | undefined
  return `${[time, level, o.msg, ...fields].join(' ')}\n${err?.stack ? `${err.stack}\n` : ''}`
}

/**
 * Lines are gathered into writes of 64 KB (a rotated file's of a sixteenth of its size if that is
 * less), and whatever is gathered is written at least once a second (gatheredLog.ts, not pino's
 * SonicBoom: it says why). Each write hands its bytes to a libuv threadpool thread, whose wake-up
 * on a busy machine takes the event loop's core for a while: a write per line cost the event loop
 * ~70 µs a request at 3,000 requests a second, a write per 4 KB ~13 µs (the profile of chat at 10
 * connections), a write per 64 KB a sixteenth of that. A gateway killed outright loses what is
 * gathered: up to a second of lines, or 64 KB.
 */
const GATHER: Gathering = { minLength: 65_536, periodicFlush: 1000 }

/** pino's `timestamp`: what `pino.stdTimeFunctions.isoTime` writes, the ISO time of the line. */
const lineTime = () => `,"time":"${isoTime(Date.now())}"`

/**
 * The gateway's log (pino, Fastify's own logger): JSON lines to `file`, rotated by size when
 * `rotation` says so, or to standard output, pretty when that is a terminal. Writes are buffered
 * off the request path and flushed by close() and at process exit.
 */
export function openLog(target: LogTarget, stdout: { isTTY?: boolean; write(text: string): unknown } = process.stdout): GatewayLog {
  const options = {
    level: target.level,
    base: { pid: process.pid },
    timestamp: lineTime,
    serializers: { err: errorFields, req: requestFields },
  }
  if (target.file) {
    const file = target.file
    // Opened here, not by the stream, so a log file that cannot be written stops the start with
    // its reason instead of failing later, out of reach of any caller.
    fs.mkdirSync(path.dirname(file), { recursive: true })
    const fd = fs.openSync(file, 'a')
    if (target.rotation) {
      // The rotating stream opens the file itself, and again after each rotation.
      fs.closeSync(fd)
      const rotating = openRotatingLog(file, target.rotation, GATHER)
      return { logger: pino(options, rotating), file, rotation: target.rotation, close: rotating.close }
    }
    const appended = gatheredLog(GATHER, fileSink(fd))
    return { logger: pino(options, appended), file, rotation: null, close: appended.close }
  }
  if (stdout.isTTY) {
    // A terminal shows the lines as they are written: no buffer to flush.
    const pretty: DestinationStream = { write: (line) => void stdout.write(prettyLine(line)) }
    return { logger: pino(options, pretty), file: null, rotation: null, close: async () => {} }
  }
  // Standard output may be a pipe that is full for a moment (EAGAIN): pino's SonicBoom retries it.
  // In writes of 4 KB: its writes are at most 16 KB (`maxWrite`), and since it measures the text it
  // gathers again for every line, lines gathered to 16 KB cost more a line than to 4 KB (6.7–7.9
  // against 6.3–6.6 µs, 2026-11-27), and to 60 KB twice as much.
  const dest = pino.destination({ dest: 1, sync: false, minLength: 4096, periodicFlush: GATHER.periodicFlush })
  return {
    logger: pino(options, dest),
    file: null,
    rotation: null,
    close: async () => {
      // Standard output stays open for whatever the process prints after the gateway stopped.
      try {
        dest.flushSync()
      } catch {
        /* nobody reads standard output any more: nothing to keep */
      }
    },
  }
}
