import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import OpenAI from 'openai'
import { readSse, startTestGateway, TEST_STORE, type TestGateway } from '../support/harness'
import { withStoreSql } from '../support/storeFile'

const hi = [{ role: 'user' as const, content: 'n' }]
/** The fake's default usage (12 prompt, 5 completion tokens) on gpt-4o-mini, in pico-dollars. */
const C_PICO = 4_800_000

describe('accounting a provider cannot break', () => {
  let t: TestGateway
  const keyWith = async (name: string, balanceUsd: number) => {
    const { secret, info } = await t.running.gateway.store.keys.create(name, { balanceUsd })
    return { id: info.id, secret, client: new OpenAI({ baseURL: t.baseURL, apiKey: secret, maxRetries: 0 }) }
  }
  /** Read over a connection of its own, as a process started after a crash would read the store: only what is committed. */
  const debitsOf = async (keyId: string) =>
    (
      await withStoreSql(t.dataDir, (sql) =>
        sql.all<{ request_id: string; amount: string }>(
          `SELECT request_id, CAST(amount_pico AS TEXT) AS amount FROM ledger WHERE key_id = ? AND kind = 'usage' ORDER BY id`,
          [keyId],
        ),
      )
    ).map((d) => ({ request_id: d.request_id, amount_pico: BigInt(d.amount) }))
  const storedRecord = (id: string) =>
    withStoreSql(t.dataDir, async (sql) => (await sql.get<{ detail: string }>(`SELECT detail FROM requests WHERE id = ?`, [id]))?.detail)
  const balanceOf = async (id: string) => {
    await t.records()
    const { total } = (await withStoreSql(t.dataDir, (sql) =>
      sql.get<{ total: string }>(`SELECT CAST(SUM(amount_pico) AS TEXT) AS total FROM ledger WHERE key_id = ?`, [id]),
    ))!
    return Number(BigInt(total)) / 1e12
  }
  /** A trigger that refuses every usage debit with "ledger refuses" (each engine's own form), or its removal. */
  const refuseUsageDebits = (on: boolean) =>
    withStoreSql(t.dataDir, async (sql) => {
      if (TEST_STORE === 'sqlite') {
        await sql.run(
          on
            ? `CREATE TRIGGER refuse_usage BEFORE INSERT ON ledger WHEN NEW.kind = 'usage' BEGIN SELECT RAISE(ABORT, 'ledger refuses'); END`
            : `DROP TRIGGER refuse_usage`,
        )
      } else if (on) {
        await sql.run(`CREATE FUNCTION refuse_usage() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'ledger refuses'; END $$`)
        await sql.run(`CREATE TRIGGER refuse_usage BEFORE INSERT ON ledger FOR EACH ROW WHEN (NEW.kind = 'usage') EXECUTE FUNCTION refuse_usage()`)
      } else {
        await sql.run(`DROP TRIGGER refuse_usage ON ledger`)
        await sql.run(`DROP FUNCTION refuse_usage()`)
      }
    })
  const chat = (secret: string, body: Record<string, unknown>) =>
    fetch(`${t.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: hi, ...body }),
    })

  before(async () => {
    t = await startTestGateway()
  })
  after(() => t.close())

  it("a prepaid answer's debit is in the store before the client has the answer, JSON and streamed", async () => {
    const { id, secret, client } = await keyWith('durable', 1)
    const res: any = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: hi })
    // No flush, no wait: read at once by another connection.
    assert.deepEqual(await debitsOf(id), [{ request_id: res.gw.request_id, amount_pico: -BigInt(C_PICO) }])
    const events = await readSse(await chat(secret, { stream: true }))
    assert.equal(events.at(-1), '[DONE]')
    const streamedId = (events.at(-2) as any).gw.request_id
    assert.deepEqual(
      (await debitsOf(id)).map((d) => d.request_id),
      [res.gw.request_id, streamedId],
    )
    // The record batch does not debit a second time.
    await t.records()
    assert.equal((await debitsOf(id)).length, 2)
    assert.equal(await balanceOf(id), 1 - (2 * C_PICO) / 1e12)
  })

  it('an answer whose debit the store refuses is withheld and not charged', async () => {
    const { id, secret, client } = await keyWith('refused-debit', 1)
    await refuseUsageDebits(true)
    try {
      const err: any = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: hi }).catch((e) => e)
      assert.equal(err.status, 503)
      assert.equal(err.code, 'ledger_unavailable')
      assert.match(err.message, /could not be stored, so the answer is withheld: ([A-Z0-9_]+: )?ledger refuses/)
      const events = await readSse(await chat(secret, { stream: true }))
      assert.ok(!events.includes('[DONE]'), 'a stream is left unfinished')
      assert.ok(!events.some((e) => e !== '[DONE]' && e.choices?.[0]?.finish_reason), 'no finishing chunk')
      assert.match((events.at(-1) as any).error.message, /answer is withheld/)
    } finally {
      await refuseUsageDebits(false)
    }
    const records = (await t.records()).filter((r) => r.key_id === id)
    assert.equal(records.length, 2)
    for (const r of records) assert.equal(r.outcome, 'error')
    assert.deepEqual(await debitsOf(id), [])
    assert.equal(await balanceOf(id), 1)
  })

  it('absurd usage (1e306 tokens) is recorded unpriced with the reason, and the reservation is released', async () => {
    const { id, client } = await keyWith('absurd', 1)
    t.fake.script({ kind: 'reply', usage: { prompt_tokens: 1e306 } })
    const res: any = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: hi })
    assert.equal(res.gw.cost.priced, false)
    assert.equal(res.gw.cost.final_usd, null)
    assert.equal(res.gw.cost.prompt_tokens, 0)
    assert.match(
      res.gw.cost.unpriced_reason,
      /the provider reported prompt_tokens = 1e\+306, total_tokens = 1e\+306; a token count is a whole number from 0 to 1,000,000,000/,
    )
    const record = await t.record(res.gw.request_id)
    assert.deepEqual(record.cost, res.gw.cost)
    assert.equal(record.usage!.prompt_tokens, 0)
    // Never free: a prepaid key is charged what admission reserved for the request.
    const [debit] = await debitsOf(id)
    assert.equal(debit.request_id, res.gw.request_id)
    assert.ok(debit.amount_pico < 0n && debit.amount_pico > -1_000_000_000n, `charged ${debit.amount_pico} pico`)

    // A key whose balance the reserved charge overdraws: its next request is refused for the
    // balance alone, with nothing held by a request in flight.
    const tiny = await keyWith('absurd-tiny', 0.0000001)
    t.fake.script({ kind: 'reply', usage: { prompt_tokens: 1e306 } })
    await tiny.client.chat.completions.create({ model: 'gpt-4o-mini', messages: hi })
    const err: any = await tiny.client.chat.completions.create({ model: 'gpt-4o-mini', messages: hi }).catch((e) => e)
    assert.equal(err.status, 402)
    assert.doesNotMatch(err.message, /reserved by requests in flight/)
    // The first key, with money left, is admitted.
    const next: any = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: hi })
    assert.equal(next.gw.cost.final_usd, C_PICO / 1e12)
  })

  it('a count that is not a whole number, on a stream, is flagged the same way', async () => {
    const { client } = await keyWith('absurd-stream', 1)
    t.fake.script({ kind: 'reply', usage: { completion_tokens: 2.5 } })
    const stream = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: hi, stream: true, stream_options: { include_usage: true } })
    let cost: any = null
    for await (const chunk of stream) cost = (chunk as any).gw?.cost ?? cost
    assert.equal(cost.priced, false)
    assert.match(cost.unpriced_reason, /completion_tokens = 2\.5/)
  })

  it('1e14 tokens on a prepaid key: no overdraft, and the records of every key keep being stored', async () => {
    const { id, client } = await keyWith('huge', 1)
    t.fake.script({ kind: 'reply', usage: { prompt_tokens: 1e14 } })
    const res: any = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: hi })
    // Other keys' requests after it are all stored.
    const after = await Promise.all(Array.from({ length: 5 }, () => t.client.chat.completions.create({ model: 'gpt-4o-mini', messages: hi })))
    await t.records()
    for (const r of [res, ...after]) assert.ok(await storedRecord((r as any).gw.request_id), `record ${(r as any).gw.request_id} stored`)
    assert.equal(res.gw.cost.priced, false)
    const balance = await balanceOf(id)
    assert.ok(balance > 0.99 && balance < 1, `balance ${balance}`)
    // The running gateway's own view agrees: the key still has money.
    const again: any = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: hi })
    assert.equal(again.gw.cost.priced, true)
  })

  it('a price so high that a cost passes $9,007 is unpriced, not overflowed', async () => {
    const gw = t.running.gateway
    await gw.store.prices.set({ model: 'openai/gpt-4o-mini', row: { input: 1e9, output: 1e9 }, as_of: '2026-11-23', note: null })
    await gw.configChanged()
    try {
      t.fake.script({ kind: 'reply', usage: { prompt_tokens: 999_999_000 } })
      const res: any = await t.client.chat.completions.create({ model: 'gpt-4o-mini', messages: hi })
      assert.equal(res.gw.cost.priced, false)
      assert.match(res.gw.cost.unpriced_reason, /a cost beyond \$9,007 for one request is not plausible/)
      assert.ok((await storedRecord(res.gw.request_id)) ?? (await t.record(res.gw.request_id)))
    } finally {
      await gw.store.prices.remove('openai/gpt-4o-mini')
      await gw.configChanged()
    }
  })
})
