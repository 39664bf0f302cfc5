import fs from 'node:fs'
import path from 'node:path'
import { finished } from 'node:stream/promises'
import { createStream, type RotatingFileStream } from 'rotating-file-stream'
import { gatheredLog, type Gathering, type LogFile } from './gatheredLog'

/** When the log file is rotated, and how many rotated files are kept. */
export interface LogRotation {
  /** The size at which the file is rotated, in bytes; it may pass it by the last write (up to 64 KB, and a sixteenth of the size at most). */
  maxBytes: number
  /** Rotated files kept: `gw.log.1` (the newest) to `gw.log.<keep>`. */
  keep: number
}

/**
 * The log file, rotated by size (rotating-file-stream): when it reaches `maxBytes` it is renamed
 * `<file>.1`, `<file>.1` becomes `<file>.2` and so on, the one past `keep` is removed, and a new
 * `<file>` is begun, so `tail -F` and a person always find the current log under its own name.
 * Rotated files stay plain text, to be read with grep and jq as they are. While the stream
 * renames, lines gather for the next write: rotating loses no line.
 *
 * Lines are gathered into writes as the unrotated log's are (`gatheredLog`): the stream writes
 * each chunk it is given with a write of its own. A write holds whole lines and the stream rotates
 * between writes, so no line is split across two files.
 */
export function openRotatingLog(file: string, rotation: LogRotation, gather: Gathering): LogFile {
  const open = () => {
    const stream = createStream(path.basename(file), { path: path.dirname(file), size: `${rotation.maxBytes}B`, rotate: rotation.keep })
    // A full disk must not take the gateway down with it: the lines are lost, requests go on,
    // and the next write opens the file again (not at once: an error that persists would loop).
    stream.on('error', () => {})
    return stream
  }
  let out: RotatingFileStream = open()
  // One write at a time (gatheredLog): a rotation under way or a slow disk makes the others wait,
  // and a file passes its size by one write at most, so a write is at most a sixteenth of it.
  const minLength = Math.min(gather.minLength, Math.max(1024, Math.floor(rotation.maxBytes / 16)))
  return gatheredLog(
    { ...gather, minLength },
    {
      send(text, done) {
        if (out.destroyed) out = open()
        out.write(text, () => done())
      },
      sendSync: (text) => fs.appendFileSync(file, text),
      async end() {
        out.end()
        // An errored stream ends with its error, already swallowed above: its lines are lost.
        await finished(out).catch(() => {})
      },
    },
  )
}
