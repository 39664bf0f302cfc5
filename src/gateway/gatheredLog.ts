import fs from 'node:fs'

/** How lines are gathered into writes: at `minLength` characters, and at least every `periodicFlush` ms. */
export interface Gathering {
  minLength: number
  periodicFlush: number
}

/** Where pino writes the gateway's lines. */
export interface LogFile {
  write(line: string): void
  /** pino's `logger.flush(done)`: `done` once every line logged so far is written. */
  flush(done: () => void): void
  /** Writes out what is gathered and closes the file: the last lines of a run are in it. */
  close(): Promise<void>
}

/** What gathered lines are written to. */
export interface LogSink {
  /** Writes `text`; `done` once it is written, or lost to an error (a full disk must not stop the gateway). */
  send(text: Buffer, done: () => void): void
  /** Appends `text` at once: a process exiting without close() has no event loop left to write with. */
  sendSync(text: Buffer): void
  /** Closes the file once everything sent is written. */
  end(): Promise<void>
}

/**
 * Gathers log lines into writes of `minLength` characters, at least once every `periodicFlush`
 * ms, one write at a time (log.ts gives what a write costs the event loop, and so the sizes).
 *
 * Not pino's SonicBoom: while a write is under way it appends each line to the text it gathers and
 * measures that text's UTF-8 length again (`Buffer.byteLength`), which flattens the rope of lines
 * gathered so far, up to 16 KB copied for every line logged. Here a line is appended and its
 * characters counted; the text is encoded once, when its write is queued.
 */
export function gatheredLog(gather: Gathering, sink: LogSink): LogFile {
  let current = ''
  // As bytes: a string of gathered lines is a rope of them, which kept waiting costs the garbage collector.
  const waiting: Buffer[] = []
  let writing = false
  // Writes queued and written so far, and flush() callbacks waiting for the writes up to theirs.
  let queued = 0
  let written = 0
  const flushes: Array<{ upTo: number; done: () => void }> = []

  const next = () => {
    if (writing || waiting.length === 0) return
    writing = true
    sink.send(waiting.shift()!, () => {
      writing = false
      written++
      while (flushes.length > 0 && flushes[0].upTo <= written) flushes.shift()!.done()
      next()
    })
  }
  const queueCurrent = () => {
    if (!current) return
    waiting.push(Buffer.from(current))
    queued++
    current = ''
  }
  const flush = (done: () => void) => {
    queueCurrent()
    if (written >= queued) return done()
    flushes.push({ upTo: queued, done })
    next()
  }
  const timer = setInterval(() => (queueCurrent(), next()), gather.periodicFlush).unref()
  // The write under way, if any, may land after what is appended here.
  const atExit = () => {
    queueCurrent()
    if (waiting.length) sink.sendSync(Buffer.concat(waiting.splice(0)))
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
    flush,
    async close() {
      clearInterval(timer)
      process.off('exit', atExit)
      await new Promise<void>((resolve) => flush(resolve))
      await sink.end()
    },
  }
}

/** A file the gateway opened (`fd`), appended to; a failed write loses its lines and the log goes on. */
export function fileSink(fd: number): LogSink {
  const send = (text: Buffer, done: () => void) =>
    fs.write(fd, text, 0, text.length, null, (err, bytes) => {
      // A regular file takes a write whole unless something is wrong; the rest is written after it.
      if (!err && bytes < text.length) return send(text.subarray(bytes), done)
      done()
    })
  return {
    send,
    sendSync: (text) => {
      try {
        fs.writeSync(fd, text)
      } catch {
        /* a full disk at exit: the lines are lost */
      }
    },
    end: () => new Promise((resolve) => fs.close(fd, () => resolve())),
  }
}
