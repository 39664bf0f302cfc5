// The log file rotating by itself under load: a real gateway on loopback, the fake OpenAI
// provider and the official SDK, the log rotating at 16 KB while 1,000 requests go through;
// every request's line is found, whole and once, across the current and rotated files.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import type { Output } from '../../src/contract'
import { operatorCaller } from '../../src/gateway/admin/context'
import { gwCli, startTestGateway, type TestGateway } from '../support/harness'
import { logLinesByFile } from '../support/logFiles'
import { tempDir } from '../support/tempDir'

const MAX_BYTES = 16 * 1024

/** Sends `n` chat completions, `concurrency` at a time, and resolves to the request ids the gateway answered with. */
async function sendRequests(t: TestGateway, n: number, concurrency: number): Promise<Set<string>> {
  const ids = new Set<string>()
  let sent = 0
  const client = async () => {
    while (sent < n) {
      const i = sent++
      const { response } = await t.client.chat.completions
        .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: `request ${i}` }] })
        .withResponse()
      ids.add(response.headers.get('x-request-id')!)
    }
  }
  await Promise.all(Array.from({ length: concurrency }, client))
  assert.equal(ids.size, n)
  return ids
}

/** A gateway logging at info to `gw.log` in a folder of its own (read after the gateway closed), rotating at 16 KB. */
async function rotatingGateway(keep: number) {
  const logDir = tempDir('gw-log-rotation-')
  const file = path.join(logDir, 'gw.log')
  const t = await startTestGateway({ logLevel: 'info', logFile: file, logMaxSize: '16K', logKeep: keep })
  return { t, file, logDir }
}

describe('the log file rotates by itself', () => {
  it('at its size under 1,000 requests, losing no line: each is whole, valid JSON, in exactly one file', async () => {
    // Keep enough files that none is removed: then every line logged must be in them.
    const { t, file, logDir } = await rotatingGateway(100)
    const { result } = await t.running.admin.invoke('gateway.status', {}, operatorCaller())
    assert.ok(result.ok)
    const status = result.value as Output<'gateway.status'>
    assert.deepEqual([status.log_file, status.log_rotation], [file, { max_bytes: MAX_BYTES, keep: 100 }])

    const ids = await sendRequests(t, 1000, 25)
    await t.running.close()
    const files = logLinesByFile(file)
    const requestLines = files.flatMap((f) => f.lines).filter((l) => l.msg === 'request')
    assert.equal(requestLines.length, 1000, 'a line for each request')
    assert.deepEqual(new Set(requestLines.map((l) => l.request_id)), ids, 'each request once')
    assert.ok(
      requestLines.every((l) => l.status === 200 && l.key === 'test'),
      'all of them answered',
    )
    const rotated = files.slice(0, -1)
    assert.ok(rotated.length >= 10 && rotated.length < 100, `rotated ${rotated.length} times (about 300 KB at 16 KB), none removed`)
    for (const f of rotated) {
      assert.ok(f.bytes >= MAX_BYTES && f.bytes < MAX_BYTES + 8 * 1024, `${path.basename(f.file)}: ${f.bytes} bytes, rotated at 16 KB`)
    }
    // In the current file, or in the newest rotated one when the last write rotated it (then the current one is empty).
    assert.equal(files.flatMap((f) => f.lines).at(-1)!.msg, 'stopped', 'the last line of the run, written out by close()')
    await t.close()
    fs.rmSync(logDir, { recursive: true, force: true })
  })

  it('with --log-keep 2, only the two newest rotated files remain', async () => {
    const { t, file, logDir } = await rotatingGateway(2)
    const ids = await sendRequests(t, 300, 10)
    await t.running.close()
    assert.deepEqual(fs.readdirSync(logDir).sort(), ['gw.log', 'gw.log.1', 'gw.log.2'])
    const files = logLinesByFile(file)
    const kept = files.flatMap((f) => f.lines).filter((l) => l.msg === 'request')
    assert.ok(kept.length > 0 && kept.length < 300, `${kept.length} of 300 request lines kept: the oldest files were removed`)
    assert.ok(
      kept.every((l) => ids.has(l.request_id)),
      'lines of the requests sent',
    )
    // The newest: each kept file's lines come after the one's before it.
    for (let i = 1; i < files.length; i++) {
      assert.ok(files[i - 1].lines.at(-1)!.time <= files[i].lines[0].time, `${path.basename(files[i - 1].file)} before ${path.basename(files[i].file)}`)
    }
    await t.close()
    fs.rmSync(logDir, { recursive: true, force: true })
  })

  it('gw serve refuses a size without its unit, or a keep below 1, naming the flag', async () => {
    const dataDir = tempDir()
    const file = path.join(dataDir, 'gw.log')
    const refusal = (args: string[]) =>
      gwCli(['serve', '--port', '0', '--log-file', file, ...args], { dataDir }).then(
        () => assert.fail('gw serve started'),
        (err: { code: number; stderr: string }) => [err.code, err.stderr.trim()],
      )
    assert.deepEqual(await refusal(['--log-max-size', '10']), [
      1,
      'gw: --log-max-size must be a size with its unit, such as 10M, 512K or 1G (1,024-based), or 0 not to rotate, got "10"',
    ])
    assert.deepEqual(await refusal(['--log-keep', '0']), [1, 'gw: --log-keep must be a whole number of at least 1, got "0"'])
    fs.rmSync(dataDir, { recursive: true, force: true })
  })
})
