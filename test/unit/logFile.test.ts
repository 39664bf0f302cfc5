// The log file rotated by size: between whole lines, none lost, `keep` numbered files; and the
// lines of a log file, rotated or not, written out within a second, by flush(), by close() and by
// a process that exits without it.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import fs from 'node:fs'
import path from 'node:path'
import { openLog } from '../../src/gateway/log'
import { ROOT } from '../support/build'
import { logLinesByFile } from '../support/logFiles'
import { tempDir } from '../support/tempDir'
import { waitUntil } from '../support/waitUntil'

const MAX_BYTES = 16 * 1024

/** Logs `n` numbered lines of various lengths, letting the event loop turn (writes, rotations) every 20, then closes the log. */
async function logNumbered(file: string, keep: number, n: number): Promise<void> {
  const log = openLog({ level: 'info', file, rotation: { maxBytes: MAX_BYTES, keep } })
  for (let seq = 0; seq < n; seq++) {
    log.logger.info({ seq, detail: 'x'.repeat((seq * 37) % 400) }, 'numbered')
    if (seq % 20 === 19) await new Promise((resolve) => setImmediate(resolve))
  }
  await log.close()
}

const seqs = (files: ReturnType<typeof logLinesByFile>) => files.flatMap((f) => f.lines.map((l) => l.seq as number))
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i)

describe('the rotated log file', () => {
  it('rotates at its size between whole lines and loses none: the files, oldest first, hold every line in order', async () => {
    const dir = tempDir('gw-rotate-')
    const file = path.join(dir, 'logs', 'gw.log')
    await logNumbered(file, 100, 3000)
    const files = logLinesByFile(file)
    assert.deepEqual(seqs(files), range(0, 3000), 'every line, once, in order across the files')
    const rotated = files.slice(0, -1)
    assert.ok(rotated.length >= 20, `rotated ${rotated.length} times (about 700 KB at 16 KB)`)
    for (const f of rotated) {
      // A file is rotated after the write that reached the size: past it by at most one write of gathered lines.
      assert.ok(f.bytes >= MAX_BYTES && f.bytes < MAX_BYTES + 8 * 1024, `${path.basename(f.file)}: ${f.bytes} bytes`)
    }
    assert.ok(files.at(-1)!.bytes < MAX_BYTES + 8 * 1024)
    fs.rmSync(dir, { recursive: true, force: true })
  })

  it('keeps `keep` rotated files, the newest, and removes the older ones', async () => {
    const dir = tempDir('gw-rotate-keep-')
    const file = path.join(dir, 'gw.log')
    await logNumbered(file, 2, 3000)
    assert.deepEqual(fs.readdirSync(dir).sort(), ['gw.log', 'gw.log.1', 'gw.log.2'])
    const kept = seqs(logLinesByFile(file))
    assert.ok(kept[0] > 0, 'the first lines went with the older files')
    assert.deepEqual(kept, range(kept[0], 3000), 'what is kept is the newest lines, none missing between them')
    fs.rmSync(dir, { recursive: true, force: true })
  })

  it('appends to the file a previous run left, and rotates it first if it is already past the size', async () => {
    const dir = tempDir('gw-rotate-restart-')
    const file = path.join(dir, 'gw.log')
    fs.writeFileSync(file, `${JSON.stringify({ msg: 'previous run' })}\n`.repeat(1000))
    assert.ok(fs.statSync(file).size > MAX_BYTES)
    await logNumbered(file, 3, 10)
    const files = logLinesByFile(file)
    assert.deepEqual(
      files.map((f) => [path.basename(f.file), f.lines.length]),
      [
        ['gw.log.1', 1000],
        ['gw.log', 10],
      ],
    )
    fs.rmSync(dir, { recursive: true, force: true })
  })
})

// Both files gather their lines into writes (gatheredLog): one through the rotating stream, one
// appended to the file the gateway opened.
for (const [kind, rotation] of [
  ['rotated', { maxBytes: MAX_BYTES, keep: 2 }],
  ['appended', null],
] as const) {
  describe(`the ${kind} log file's gathered writes`, () => {
    it('writes gathered lines within a second; close() writes out the last ones', async () => {
      const dir = tempDir(`gw-${kind}-close-`)
      const file = path.join(dir, 'gw.log')
      const log = openLog({ level: 'info', file, rotation })
      log.logger.info('first')
      await waitUntil(() => fs.readFileSync(file, 'utf8').includes('"first"'), { what: 'the first line in the file', timeoutMs: 3000 })
      log.logger.info({ seq: 1 }, 'last')
      assert.doesNotMatch(fs.readFileSync(file, 'utf8'), /"last"/, 'gathered, not yet written')
      await log.close()
      assert.deepEqual(
        logLinesByFile(file)
          .flatMap((f) => f.lines)
          .map((l) => l.msg),
        ['first', 'last'],
      )
      fs.rmSync(dir, { recursive: true, force: true })
    })

    it("pino's logger.flush(done) calls done once every line logged so far is in the file", async () => {
      const dir = tempDir(`gw-${kind}-flush-`)
      const file = path.join(dir, 'gw.log')
      const log = openLog({ level: 'info', file, rotation })
      for (let seq = 0; seq < 100; seq++) log.logger.info({ seq }, 'numbered')
      await new Promise<void>((resolve) => log.logger.flush(() => resolve()))
      assert.deepEqual(seqs(logLinesByFile(file)), range(0, 100))
      await new Promise<void>((resolve) => log.logger.flush(() => resolve()))
      await log.close()
      fs.rmSync(dir, { recursive: true, force: true })
    })

    it('a process that exits without closing its log still has its last lines in the file', async () => {
      const dir = tempDir(`gw-${kind}-exit-`)
      const file = path.join(dir, 'gw.log')
      // Once its first line is written (the stream is open and idle), it logs three more and exits at once.
      const script = `
        const fs = require('node:fs')
        const { openLog } = require('./src/gateway/log.ts')
        const file = process.argv[1]
        const log = openLog({ level: 'info', file, rotation: ${JSON.stringify(rotation)} })
        log.logger.info('first')
        const poll = setInterval(() => {
          if (!fs.readFileSync(file, 'utf8').includes('"first"')) return
          for (let seq = 0; seq < 3; seq++) log.logger.info({ seq }, 'before exit')
          process.exit(3)
        }, 10)`
      const child = spawn(process.execPath, ['--import', 'tsx', '-e', script, file], { cwd: ROOT, stdio: 'inherit' })
      const [code] = await once(child, 'exit')
      assert.equal(code, 3)
      assert.deepEqual(
        logLinesByFile(file)
          .flatMap((f) => f.lines)
          .map((l) => [l.msg, l.seq]),
        [
          ['first', undefined],
          ['before exit', 0],
          ['before exit', 1],
          ['before exit', 2],
        ],
      )
      fs.rmSync(dir, { recursive: true, force: true })
    })
  })
}
