import fs from 'node:fs'
import path from 'node:path'
import { finished } from 'node:stream/promises'
import { createStream, type RotatingFileStream } from 'rotating-file-stream'

/** When the log file is rotated, and how many rotated files are kept. */
export interface LogRotation {
  /** The size at which the file is rotated, in bytes; it may pass it by the last write (a few KB). */
  maxBytes: number
  /** Rotated files kept: `gw.log.1` (the newest) to `gw.log.<keep>`. */
  keep: number
}

export interface RotatingLog {
  /** Where pino writes its lines. */
  write(line: string): void
  /** pino's `logger.flush(done)`: `done` once every line logged so far is in the file. */
  flush(done: () => void): void
  /** Writes out what is gathered and closes the file: the last lines of a run are in it. */
  close(): Promise<void>
}

/** How lines are gathered into writes: at `minLength` characters, and at least every `periodicFlush` ms. */
export interface Gathering {
  minLength: number
  periodicFlush: number
}

/**
 * The log file, rotated by size (rotating-file-stream): when it reaches `maxBytes` it is renamed
 * `<file>.1`, `<file>.1` becomes `<file>.2` and so on, the one past `keep` is removed, and a new
 * `<file>` is begun, so `tail -F` and a person always find the current log under its own name.
 * Rotated files stay plain text, to be read with grep and jq as they are. While the stream
 * renames, lines gather for the next write: rotating loses no line.
 *
 * Lines are gathered into writes as the unrotated log's are (`gather`): the stream writes each
 * chunk it is given with a write of its own, a libuv threadpool round trip a line without this.
 * A write holds whole lines and the stream rotates between writes, so no line is split across
 * two files.
 */
export function openRotatingLog(file: string, rotation: LogRotation, gather: Gathering): RotatingLog {
  const open = () => {
    const stream = createStream(path.basename(file), { path: path.dirname(file), size: `${rotation.maxBytes}B`, rotate: rotation.keep })
    // A full disk must not take the gateway down with it: the lines are lost, requests go on,
    // and the next write opens the file again (not at once: an error that persists would loop).
    stream.on('error', () => {})
    return stream
  }
  let out: RotatingFileStream = open()
  // Lines gather into `current`; at `minLength` (or the periodic flush) it joins the writes that
  // wait. One write at a time: a rotation under way or a slow disk makes the others wait here,
  // each one still a few KB (a file passes its size by one write at most), and a process that
  // exits knows what was not written.
  let current = ''
  // As bytes: a string of gathered lines is a rope of them, which kept waiting costs the garbage collector.
  const waiting: Buffer[] = []
  let writing = false
  // Writes queued and written so far, and flush() callbacks waiting for the writes up to theirs.
  let queued = 0
  let written = 0
  const flushes: Array<{ upTo: number; done: () => void }> = []

  const send = (text: Buffer, done?: () => void) => {
    if (out.destroyed) out = open()
    out.write(text, () => {
      written++
      while (flushes.length > 0 && flushes[0].upTo <= written) flushes.shift()!.done()
      done?.()
    })
  }
  const next = () => {
    if (writing || waiting.length === 0) return
    writing = true
    send(waiting.shift()!, () => {
      writing = false
      next()
    })
  }
  const queueCurrent = () => {
    if (!current) return
    waiting.push(Buffer.from(current))
    queued++
    current = ''
  }
  const timer = setInterval(() => (queueCurrent(), next()), gather.periodicFlush).unref()
  // A process that exits without close() (an uncaught error) has no event loop left to write
  // with: what waits is appended at once (the write under way, if any, may land after it).
  const atExit = () => {
    queueCurrent()
    if (waiting.length) fs.appendFileSync(file, Buffer.concat(waiting))
  }
  process.on('exit', atExit)

  return {
    write(line) {
      current += line
      if (current.length >= gather.minLength) {
        queueCurrent()
        next()
      }
    },
    flush(done) {
      queueCurrent()
      if (written >= queued) return done()
      flushes.push({ upTo: queued, done })
      next()
    },
    async close() {
      clearInterval(timer)
      process.off('exit', atExit)
      // After the write under way, if any: the stream keeps the order of what it is given.
      queueCurrent()
      for (const text of waiting.splice(0)) send(text)
      out.end()
      // An errored stream ends with its error, already swallowed above: its lines are lost.
      await finished(out).catch(() => {})
    },
  }
}
