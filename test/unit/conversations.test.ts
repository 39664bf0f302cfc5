import { after, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { ApiError } from '../../src/gateway/errors'
import { newRequestId, RequestContext } from '../../src/gateway/pipeline/requestContext'
import { RequestsRepo } from '../../src/gateway/store/requestsRepo'
import { ResponsesRepo } from '../../src/gateway/store/responsesRepo'
import { Conversations, type Conversation } from '../../src/gateway/wires/responses/conversations'
import type { ResponsesBody } from '../../src/gateway/wires/responses/responsesBody'
import { fakeTarget } from '../support/fakeDelivery'
import { keyRow } from '../support/keyRow'
import { recordFixture } from '../support/recordFixture'
import { storesUnderTest } from '../support/stores'

type Obj = Record<string, any>

const sqlite = storesUnderTest().find((s) => s.name === 'sqlite')!
after(() => sqlite.closeAll())

const request = (keyId: string) => new RequestContext(newRequestId(), 'responses', keyRow(keyId))

const answer = (id: string, text: string) => ({
  id,
  object: 'response',
  status: 'completed',
  output: [{ id: `msg_${id}`, type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text }] }],
})

/**
 * The gateway's store of conversations over a real store, with a record writer that holds one
 * queued record (`queue`) until it is flushed, as the record thread does.
 */
async function conversations(retention = 30) {
  const store = await sqlite.open()
  const responses = new ResponsesRepo(store.sql)
  let queued: ReturnType<typeof recordFixture>[] = []
  let flushes = 0
  const conv = new Conversations({
    responses,
    requests: new RequestsRepo(store.sql),
    records: {
      flushed: async () => {
        flushes++
        await store.writeRecords(queued)
        queued = []
      },
    },
    retentionDays: () => retention,
  })
  /** A provider-kept answer's record, made by `keyId` on `provider`: queued in the writer, or already in the store. */
  const madeUpstream = async (upstreamId: string, keyId: string, provider: string, inStore = true) => {
    const record = {
      ...recordFixture({ at: Date.now(), key: keyId, provider, endpoint: 'responses' }, { model: 'm', provider, upstreamModel: 'm' }),
      upstream_id: upstreamId,
    }
    if (inStore) await store.writeRecords([record])
    else queued.push(record)
  }
  /** Answers a first turn on key `keyId` and keeps it, as the translated path does. */
  const firstTurn = async (keyId: string, input: unknown = 'What is 2+2?') => {
    const body: ResponsesBody = { model: 'm', input }
    const first = await conv.resolve(request(keyId), body)
    await conv.keep(first, answer('resp_1', '4'))
    return first
  }
  return { conv, responses, madeUpstream, firstTurn, flushes: () => flushes }
}

const isPreviousNotFound = (id: string) => (e: unknown) =>
  e instanceof ApiError && e.status === 400 && e.code === 'previous_response_not_found' && e.param === 'previous_response_id' && e.message.includes(`'${id}'`)

describe('Conversations.resolve: what a Responses request refers to, for its key', () => {
  it('previous_response_id of the key’s own kept response: the whole conversation before it, from the store', async () => {
    const { conv, firstTurn } = await conversations()
    await firstTurn('k1')
    const next = await conv.resolve(request('k1'), { model: 'm', previous_response_id: 'resp_1', input: 'and 3+3?' })
    assert.equal(next.previous, 'resp_1')
    assert.equal(next.upstream, null)
    assert.deepEqual(
      next.context.map((i) => [i.role, (i.content as Obj[])[0].text]),
      [
        ['user', 'What is 2+2?'],
        ['assistant', '4'],
      ],
    )
    assert.ok(next.context.every((i) => next.fromStore.has(i)))
    assert.deepEqual(next.input, [{ type: 'message', role: 'user', content: 'and 3+3?' }])
    assert.equal(next.fromStore.has(next.input[0]), false)
  })

  it('another key’s response id is refused as if it did not exist', async () => {
    const { conv, firstTurn } = await conversations()
    await firstTurn('k1')
    await assert.rejects(conv.resolve(request('k2'), { model: 'm', previous_response_id: 'resp_1' }), isPreviousNotFound('resp_1'))
    const other = await conv.resolve(request('k2'), { model: 'm', previous_response_id: 'resp_1' }).catch((e: Error) => e.message)
    const unknown = await conv.resolve(request('k1'), { model: 'm', previous_response_id: 'resp_nope' }).catch((e: Error) => e.message)
    assert.equal(other, (unknown as string).replace('resp_nope', 'resp_1'), 'the same words: no other key’s id can be told apart')
  })

  it('an item_reference to a kept item is replaced by the item; one nobody keeps here stays for a provider that may', async () => {
    const { conv, firstTurn } = await conversations()
    await firstTurn('k1')
    const refs = [
      { type: 'item_reference', id: 'msg_resp_1' },
      { type: 'item_reference', id: 'msg_elsewhere' },
    ]
    const mine = await conv.resolve(request('k1'), { model: 'm', input: refs })
    assert.deepEqual(mine.input[0].content, [{ type: 'output_text', text: '4' }])
    assert.equal(mine.fromStore.has(mine.input[0]), true)
    assert.equal(mine.input[1], refs[1])
    const theirs = await conv.resolve(request('k2'), { model: 'm', input: refs })
    assert.deepEqual(theirs.input, refs, 'another key’s items are not found')
  })

  it('a response a provider keeps: continued for the key that made it, waiting once for its record still queued', async () => {
    const { conv, madeUpstream, flushes } = await conversations()
    await madeUpstream('resp_up', 'k1', 'groq', false)
    const next = await conv.resolve(request('k1'), { model: 'm', previous_response_id: 'resp_up' })
    assert.deepEqual(next.upstream, { id: 'resp_up', provider: 'groq' })
    assert.equal(flushes(), 1)
    await assert.rejects(conv.resolve(request('k2'), { model: 'm', previous_response_id: 'resp_up' }), isPreviousNotFound('resp_up'))
  })

  it('a previous_response_id that is not a string is a 400 naming it', async () => {
    const { conv } = await conversations()
    await assert.rejects(conv.resolve(request('k1'), { model: 'm', previous_response_id: 7 }), { status: 400, param: 'previous_response_id' })
  })
})

describe('Conversations.bodyFor: what the provider receives', () => {
  const native = fakeTarget({ id: 'groq', wire: 'both' })
  const chatOnly = fakeTarget({ id: 'deepseek' })

  /** A second turn on k1: it continues resp_1 and sends a reference to its answer and an item of its own with an id. */
  async function secondTurn() {
    const c = await conversations()
    await c.firstTurn('k1')
    const body: ResponsesBody = {
      model: 'm',
      previous_response_id: 'resp_1',
      input: [
        { type: 'item_reference', id: 'msg_resp_1' },
        { id: 'msg_mine', type: 'message', role: 'user', content: 'and 3+3?' },
      ],
      temperature: 0,
    }
    return { ...c, body, resolved: await c.conv.resolve(request('k1'), body) }
  }

  it('a translated path gets the whole conversation as input, the gateway’s ids kept, and no previous_response_id', async () => {
    const { conv, body, resolved } = await secondTurn()
    const sent = conv.bodyFor(resolved, body, chatOnly, false)
    assert.equal('previous_response_id' in sent, false)
    assert.equal(sent.temperature, 0)
    const items = sent.input as Obj[]
    assert.deepEqual(
      items.map((i) => i.id ?? null),
      [resolved.context[0].id, 'msg_resp_1', 'msg_resp_1', 'msg_mine'],
    )
  })

  it('a provider serving Responses gets the conversation without the gateway’s ids, the caller’s own kept', async () => {
    const { conv, body, resolved } = await secondTurn()
    const sent = conv.bodyFor(resolved, body, native, true)
    assert.equal('previous_response_id' in sent, false)
    const items = sent.input as Obj[]
    assert.deepEqual(
      items.map((i) => i.id ?? null),
      [null, null, null, 'msg_mine'],
    )
    assert.deepEqual(items[1].content, [{ type: 'output_text', text: '4' }])
  })

  it('a provider serving Responses gets the body as sent when nothing was resolved from the store', async () => {
    const { conv } = await conversations()
    const body: ResponsesBody = { model: 'm', input: [{ id: 'msg_mine', type: 'message', role: 'user', content: 'hi' }] }
    assert.equal(conv.bodyFor(await conv.resolve(request('k1'), body), body, native, true), body)
  })

  it('a response a provider keeps goes on only to that provider, natively', async () => {
    const { conv, madeUpstream } = await conversations()
    await madeUpstream('resp_up', 'k1', 'groq')
    const body: ResponsesBody = { model: 'm', previous_response_id: 'resp_up', input: [{ type: 'item_reference', id: 'msg_resp_1' }] }
    const resolved = await conv.resolve(request('k1'), body)
    assert.equal(conv.bodyFor(resolved, body, native, true).previous_response_id, 'resp_up')
    const refused = (e: unknown) =>
      e instanceof ApiError && e.status === 400 && e.param === 'previous_response_id' && /continued only on a route to groq/.test(e.message)
    assert.throws(() => conv.bodyFor(resolved, body, chatOnly, false), refused)
    assert.throws(() => conv.bodyFor(resolved, body, fakeTarget({ id: 'openai', wire: 'both' }), true), refused)
  })
})

describe('Conversations.keep: a translated answer kept with its input', () => {
  it('each input item kept with an id (a message’s text as content parts); items from the store as they were', async () => {
    const { conv, responses, firstTurn } = await conversations()
    const first = await firstTurn('k1', [
      { role: 'user', content: 'What is 2+2?' },
      { type: 'function_call_output', call_id: 'call_1', output: '{}' },
      { id: 'msg_given', type: 'message', role: 'user', content: [{ type: 'input_text', text: 'as given' }] },
    ])
    const kept = (await responses.inputItems('resp_1', 'k1', first.at)) as Obj[]
    assert.match(kept[0].id, /^msg_[0-9a-f]{48}$/)
    assert.deepEqual(kept[0], { id: kept[0].id, type: 'message', role: 'user', content: [{ type: 'input_text', text: 'What is 2+2?' }] })
    assert.match(kept[1].id, /^fco_/)
    assert.equal(kept[2].id, 'msg_given')

    const second: Conversation = await conv.resolve(request('k1'), { model: 'm', input: [{ type: 'item_reference', id: 'msg_resp_1' }] })
    await conv.keep(second, answer('resp_2', 'again'))
    assert.deepEqual(await responses.inputItems('resp_2', 'k1', second.at), [((await responses.get('resp_1', 'k1', second.at))!.output as Obj[])[0]])
  })

  it('an answer is kept unless the request said store: false or the retention is 0', async () => {
    assert.equal((await conversations()).conv.keeps({ model: 'm' }), true)
    assert.equal((await conversations()).conv.keeps({ model: 'm', store: false }), false)
    assert.equal((await conversations(0)).conv.keeps({ model: 'm' }), false)
  })
})
