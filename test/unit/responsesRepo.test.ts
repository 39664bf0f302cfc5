import { it } from 'node:test'
import assert from 'node:assert/strict'
import { ResponsesRepo } from '../../src/gateway/store/responsesRepo'
import { describeEachStore, type StoreUnderTest } from '../support/stores'

const T0 = Date.UTC(2026, 10, 25)
const DAY = 86_400_000

const user = (id: string, text: string) => ({ id, type: 'message', role: 'user', content: [{ type: 'input_text', text }] })
const reply = (id: string, text: string) => ({ id, type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text }] })
const texts = (items: Array<Record<string, any>> | undefined) => items?.map((i) => i.content[0].text)

/** A fresh store of this kind holding a conversation of turns t1 → t2 → t3 for key `k1`, a minute apart. */
async function conversationIn(under: StoreUnderTest) {
  const repo = new ResponsesRepo((await under.open()).sql)
  const turn = (n: number, previous: string | null, key = 'k1') =>
    repo.save({
      id: `resp_${n}`,
      key_id: key,
      request_id: `req_${n}`,
      previous_response_id: previous,
      created_at: T0 + n * 60_000,
      expires_at: T0 + n * 60_000 + 30 * DAY,
      response: { id: `resp_${n}`, object: 'response', status: 'completed', output: [reply(`msg_out${n}`, `answer ${n}`)] },
      input: [user(`msg_in${n}`, `question ${n}`)],
    })
  await turn(1, null)
  await turn(2, 'resp_1')
  await turn(3, 'resp_2')
  return repo
}

describeEachStore('the store of translated responses', (under) => {
  const conversation = () => conversationIn(under)

  it('a response ends the conversation it continued: every earlier turn, then its own; its input is that without its output', async () => {
    const repo = await conversation()
    assert.deepEqual(texts(await repo.conversation('resp_3', 'k1', T0)), ['question 1', 'answer 1', 'question 2', 'answer 2', 'question 3', 'answer 3'])
    assert.deepEqual(texts(await repo.inputItems('resp_3', 'k1', T0)), ['question 1', 'answer 1', 'question 2', 'answer 2', 'question 3'])
    assert.deepEqual(texts((await repo.get('resp_2', 'k1', T0))!.output as any), ['answer 2'])
  })

  it('reads only the key’s own live responses and items', async () => {
    const repo = await conversation()
    assert.equal(await repo.get('resp_2', 'k2', T0), undefined)
    assert.equal(await repo.conversation('resp_2', 'k2', T0), undefined)
    assert.equal(await repo.item('msg_out1', 'k2', T0), undefined)
    assert.deepEqual(texts([(await repo.item('msg_out1', 'k1', T0))!]), ['answer 1'])
    const expiry = T0 + 60_000 + 30 * DAY
    assert.ok(await repo.has('resp_1', 'k1', expiry - 1))
    assert.equal(await repo.has('resp_1', 'k1', expiry), false)
    assert.equal(await repo.item('msg_out1', 'k1', expiry), undefined)
    assert.equal(await repo.delete('resp_1', 'k2', T0), false, 'another key cannot delete it')
    assert.equal(await repo.countForKey('k1', T0), 3)
  })

  it('deleting a turn in the middle copies the conversation before it into the turn that continued it', async () => {
    const repo = await conversation()
    assert.equal(await repo.delete('resp_2', 'k1', T0), true)
    assert.equal(await repo.get('resp_2', 'k1', T0), undefined)
    assert.equal((await repo.item('msg_out2', 'k1', T0))?.id, 'msg_out2', 'the copy in the later turn still holds the item')
    assert.deepEqual(texts(await repo.conversation('resp_3', 'k1', T0)), ['question 1', 'answer 1', 'question 2', 'answer 2', 'question 3', 'answer 3'])
    // And once more, after the first turn goes too: nothing left to walk to.
    assert.equal(await repo.delete('resp_1', 'k1', T0), true)
    assert.deepEqual(texts(await repo.inputItems('resp_3', 'k1', T0)), ['question 1', 'answer 1', 'question 2', 'answer 2', 'question 3'])
  })

  it('pruning deletes expired responses, or those made before a shortened retention, keeping what continued them whole', async () => {
    const repo = await conversation()
    // A retention that ends between turn 1 and turn 2.
    assert.equal(await repo.prune(T0, T0 + 90_000), 1)
    assert.equal(await repo.has('resp_1', 'k1', T0), false)
    assert.deepEqual(texts(await repo.conversation('resp_3', 'k1', T0)), ['question 1', 'answer 1', 'question 2', 'answer 2', 'question 3', 'answer 3'])
    assert.equal(await repo.prune(T0 + 31 * DAY), 2)
    assert.equal(await repo.countForKey('k1', T0), 0)
  })

  it('deletes everything a key kept, and nothing of another key', async () => {
    const repo = await conversation()
    await repo.save({
      id: 'resp_other',
      key_id: 'k2',
      request_id: 'req_o',
      previous_response_id: null,
      created_at: T0,
      expires_at: T0 + DAY,
      response: { id: 'resp_other', object: 'response', output: [] },
      input: [user('msg_o', 'hi')],
    })
    assert.equal(await repo.deleteForKey('k1', T0), 3)
    assert.equal(await repo.countForKey('k1', T0), 0)
    assert.equal(await repo.countForKey('k2', T0), 1)
  })
})
