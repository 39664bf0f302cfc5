// The log's settings and its two faces: JSON lines for files and pipes, one-liners in a terminal.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { parseSize, resolveConfig } from '../../src/gateway/config'
import { openLog } from '../../src/gateway/log'
import { isoTime } from '../../src/gateway/isoTime'

describe('the gateway log', () => {
  it("each line's time (and each record's) is toISOString()'s to the millisecond, across seconds, days and years", () => {
    const instants = [0, 999, 1000, 1001, Date.UTC(2026, 10, 27, 23, 59, 59, 999), Date.UTC(2026, 10, 28), Date.UTC(2027, 0, 1, 0, 0, 0, 7)]
    // Times a second apart and a millisecond apart, in and out of order: the second it keeps is only a cache.
    for (let t = Date.UTC(2026, 10, 27, 8, 49, 50, 990); t < Date.UTC(2026, 10, 27, 8, 49, 51, 20); t++) instants.push(t, t - 86_400_000)
    for (let i = 0; i < 1000; i++) instants.push(Math.floor(Math.random() * 4e12))
    for (const t of instants) assert.equal(isoTime(t), new Date(t).toISOString(), `at ${t}`)
  })

  it('level and file: flag over environment over default (info, standard output); a wrong level is refused by name', () => {
    assert.deepEqual(pick(resolveConfig({}, {})), { logLevel: 'info', logFile: null })
    assert.deepEqual(pick(resolveConfig({}, { GW_LOG_LEVEL: 'Debug', GW_LOG_FILE: '/var/log/gw.log' })), { logLevel: 'debug', logFile: '/var/log/gw.log' })
    assert.deepEqual(pick(resolveConfig({ logLevel: 'silent', logFile: '/tmp/x.log' }, { GW_LOG_LEVEL: 'debug', GW_LOG_FILE: '/var/log/gw.log' })), {
      logLevel: 'silent',
      logFile: '/tmp/x.log',
    })
    assert.throws(
      () => resolveConfig({ logLevel: 'verbose' }, {}),
      /log level \(--log-level, GW_LOG_LEVEL\) must be one of fatal, error, warn, info, debug, trace, silent, got "verbose"/,
    )
  })

  it('a log file rotates at 10 MB keeping 5 unless told: flag over environment; 0 never rotates; standard output is not rotated', () => {
    const rotation = (overrides: Parameters<typeof resolveConfig>[0], env: NodeJS.ProcessEnv = {}) => resolveConfig(overrides, env).logRotation
    assert.equal(rotation({}), null, 'standard output')
    assert.equal(rotation({}, { GW_LOG_MAX_SIZE: '1M', GW_LOG_KEEP: '2' }), null, 'the variables of a shared environment are no error without a file')
    assert.deepEqual(rotation({ logFile: '/tmp/gw.log' }), { maxBytes: 10 * 1024 * 1024, keep: 5 })
    assert.deepEqual(rotation({}, { GW_LOG_FILE: '/var/log/gw.log', GW_LOG_MAX_SIZE: '512K', GW_LOG_KEEP: '3' }), { maxBytes: 512 * 1024, keep: 3 })
    assert.deepEqual(rotation({ logFile: '/tmp/gw.log', logMaxSize: '16K', logKeep: '2' }, { GW_LOG_MAX_SIZE: '512K', GW_LOG_KEEP: '3' }), {
      maxBytes: 16 * 1024,
      keep: 2,
    })
    assert.equal(rotation({ logFile: '/tmp/gw.log', logMaxSize: '0' }), null)
    assert.equal(rotation({}, { GW_LOG_FILE: '/var/log/gw.log', GW_LOG_MAX_SIZE: '0' }), null)
  })

  it('a size takes its unit, K, M or G (1,024-based); anything else is refused naming the flag or variable it came from', () => {
    for (const [text, bytes] of [
      ['10M', 10 * 1024 ** 2],
      ['512K', 512 * 1024],
      ['16k', 16 * 1024],
      ['1.5G', 1.5 * 1024 ** 3],
      ['10MB', 10 * 1024 ** 2],
      ['10 MiB', 10 * 1024 ** 2],
      [' 2m ', 2 * 1024 ** 2],
      ['0', 0],
    ] as const) {
      assert.equal(parseSize(text, '--log-max-size'), bytes, text)
    }
    for (const text of ['10', '1048576', '-1M', '10X', '10B', 'M', '', 'ten megabytes']) {
      assert.throws(
        () => parseSize(text, '--log-max-size'),
        { message: `--log-max-size must be a size with its unit, such as 10M, 512K or 1G (1,024-based), or 0 not to rotate, got "${text}"` },
        text,
      )
    }
    assert.throws(() => resolveConfig({ logFile: '/tmp/gw.log', logMaxSize: '10' }, {}), /^Error: --log-max-size must be a size with its unit.*got "10"$/)
    assert.throws(() => resolveConfig({}, { GW_LOG_FILE: '/tmp/gw.log', GW_LOG_MAX_SIZE: '10' }), /^Error: GW_LOG_MAX_SIZE must be a size/)
    assert.throws(() => resolveConfig({ logFile: '/tmp/gw.log', logKeep: '0' }, {}), /^Error: --log-keep must be a whole number of at least 1, got "0"$/)
    assert.throws(
      () => resolveConfig({}, { GW_LOG_FILE: '/tmp/gw.log', GW_LOG_KEEP: 'all' }),
      /^Error: GW_LOG_KEEP must be a whole number of at least 1, got "all"$/,
    )
    assert.throws(() => resolveConfig({ logMaxSize: '10M' }, {}), /^Error: --log-max-size applies to a log file: give --log-file \(or GW_LOG_FILE\) too$/)
    assert.throws(() => resolveConfig({ logKeep: '3' }, {}), /^Error: --log-keep applies to a log file/)
  })

  it('in a terminal: one readable line per entry (time, level, message, fields), then the stack of an error', async () => {
    const written: string[] = []
    const log = openLog({ level: 'info', file: null }, { isTTY: true, write: (t) => written.push(t) })
    log.logger.child({ request_id: 'req_1' }).info({ key: 'laptop', model: 'gpt-4o-mini', status: 200, latency_ms: 12, cost_usd: 0.0000048 }, 'request')
    log.logger.debug('not at info')
    log.logger.error({ err: Object.assign(new Error('boom'), { headers: { authorization: 'Bearer gw-secret' } }) }, 'internal error')
    log.logger.warn(
      { req: { method: 'POST', url: '/v1/chat/completions?token=abc', headers: { authorization: 'Bearer gw-secret', cookie: 'c' } } },
      'write failed',
    )
    await log.close()
    assert.equal(written.length, 3)
    assert.match(
      written[0],
      /^\d\d:\d\d:\d\d\.\d{3} INFO {2}request request_id=req_1 key=laptop model=gpt-4o-mini status=200 latency_ms=12 cost_usd=0\.0000048\n$/,
    )
    const [first, ...stack] = written[1].trimEnd().split('\n')
    assert.match(first, /^\S+ ERROR internal error$/)
    assert.match(stack.join('\n'), /^Error: boom\n\s+at /)
    assert.doesNotMatch(written[1], /authorization|gw-secret/, "an error's other properties stay out")
    assert.match(
      written[2],
      / WARN {2}write failed req=\{"method":"POST","path":"\/v1\/chat\/completions"\}\n$/,
      'a request: method and path, no query, no headers',
    )
  })
})

const pick = (c: ReturnType<typeof resolveConfig>) => ({ logLevel: c.logLevel, logFile: c.logFile })
