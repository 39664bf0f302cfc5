import { it } from 'node:test'
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { Readable } from 'node:stream'
import { ResponseCache } from '../../src/gateway/routing/responseCache'
import { ResponseCacheRepo } from '../../src/gateway/store/responseCacheRepo'
import type { UpstreamRequest } from '../../src/gateway/providers/adapter'
import type { UpstreamResponse } from '../../src/gateway/upstream/client'
import { fakeTarget } from '../support/fakeDelivery'
import { describeEachStore } from '../support/stores'

const target = fakeTarget()
const messages = { path: '/v1/messages', body: { model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] } }

describeEachStore('the response cache: what is a repeat, and what is kept', (under) => {
  /** A cache on a fresh store, and `round`: one call for `request`, a hit's answer or null, keeping `answer` on a miss. */
  async function cacheOn(scope = 'key_a') {
    const cache = new ResponseCache(new ResponseCacheRepo((await under.open()).sql), Date.now, 1 << 20, console)
    return async (request: UpstreamRequest, answer: string, who = scope): Promise<string | null> => {
      const call = cache.call(who, 60)
      const replayed = await call.replay(target, request)
      if (replayed) return (await replayed.body.text()) as string
      const body = Readable.from([Buffer.from(answer)])
      call.watch({ body } as unknown as UpstreamResponse)
      await once(body, 'end')
      await call.keep('req_first')
      return null
    }
  }

  it('a repeat is the same upstream request for the same scope; who asks (metadata, user, session headers) is no part of it', async () => {
    const round = await cacheOn()
    assert.equal(await round(messages, 'answer'), null)
    assert.equal(await round(messages, 'other'), 'answer')
    const named = { ...messages, body: { ...messages.body, metadata: { user_id: 'session-2' } }, headers: { 'x-client-request-id': 'r2' } }
    assert.equal(await round(named, 'other'), 'answer')
    assert.equal(await round(messages, 'other', 'key_b'), null, 'another key has its own')
    assert.equal(await round({ ...messages, headers: { 'anthropic-beta': 'x' } }, 'beta'), null, 'a beta header shapes the answer')
    assert.equal(await round({ ...messages, body: { ...messages.body, max_tokens: 11 } }, 'longer'), null)
    assert.equal(await round({ ...messages, body: { ...messages.body, nested: { metadata: 1 } } }, 'nested'), null, 'only top-level fields are neutral')
    assert.equal(await round({ ...messages, path: '/v1/messages?beta=true' }, 'path'), null)
  })

  it('keeps no refusal, on any wire', async () => {
    const round = await cacheOn()
    const refusals = [
      '{"choices":[{"message":{"content":""},"finish_reason":"content_filter"}]}',
      '{"choices":[{"message":{"content":null,"refusal":"I can’t help with that."},"finish_reason":"stop"}]}',
      'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"refusal"}}\n\n',
      '{"candidates":[{"content":{"parts":[]},"finishReason":"SAFETY"}]}',
      '{"promptFeedback":{"blockReason":"PROHIBITED_CONTENT"}}',
      'data: {"type":"response.failed","response":{"status":"failed"}}\n\n',
      '{"id":"resp_1","status":"incomplete","incomplete_details":{"reason":"content_filter"}}',
      '{"output":[{"type":"message","content":[{"type":"refusal","refusal":"No."}]}]}',
    ]
    for (const [i, answer] of refusals.entries()) {
      const request = { ...messages, body: { ...messages.body, case: i } }
      assert.equal(await round(request, answer), null)
      assert.equal(await round(request, 'later'), null, `not kept: ${answer}`)
    }
    // Text that merely mentions a refusal is escaped inside its string: kept.
    const talk = '{"choices":[{"message":{"content":"They said \\"finish_reason\\":\\"content_filter\\"","refusal":null},"finish_reason":"stop"}]}'
    const request = { ...messages, body: { ...messages.body, case: 'talk' } }
    assert.equal(await round(request, talk), null)
    assert.equal(await round(request, 'later'), talk)
  })
})
