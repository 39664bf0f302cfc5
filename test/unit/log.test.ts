// The log's settings and its two faces: JSON lines for files and pipes, one-liners in a terminal.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { resolveConfig } from '../../src/gateway/config'
import { openLog } from '../../src/gateway/log'

describe('the gateway log', () => {
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
