import { number, parse, table, when, type Command } from '../shared'
import { operating } from './api'
import { findKey } from './keys'

export const balanceTopUp: Command = async (args, io) => {
  const { values, positionals } = parse(args, { note: { type: 'string' } })
  const amount = number(positionals[1] ?? '', 'USD', (n) => n > 0, 'a positive amount of USD')
  const key = await operating(values, io, async (run) => {
    const found = await findKey(run, positionals[0], 'balance top-up needs KEY USD')
    return run('keys.topUp', { id: found.id, amount_usd: amount, note: values.note })
  })
  io.out(values.json ? JSON.stringify({ key_id: key.id, balance_usd: key.balance_usd }) : `${key.name}: topped up $${amount}, balance $${key.balance_usd}`)
  return 0
}

export const balanceAdjust: Command = async (args, io) => {
  const { values, positionals } = parse(args, { note: { type: 'string' } })
  const amount = number(positionals[1] ?? '', 'USD', (n) => n !== 0, 'a non-zero amount of USD (negative to take away)')
  if (!values.note) throw new Error('balance adjust needs --note TEXT saying why')
  const key = await operating(values, io, async (run) => {
    const found = await findKey(run, positionals[0], 'balance adjust needs KEY USD --note TEXT')
    return run('keys.adjust', { id: found.id, amount_usd: amount, note: values.note! })
  })
  io.out(values.json ? JSON.stringify({ key_id: key.id, balance_usd: key.balance_usd }) : `${key.name}: adjusted by $${amount}, balance $${key.balance_usd}`)
  return 0
}

export const balanceShow: Command = async (args, io) => {
  const { values, positionals } = parse(args, { limit: { type: 'string' } })
  const limit = values.limit === undefined ? 50 : number(values.limit, '--limit', (n) => Number.isInteger(n) && n > 0, 'a positive integer')
  const { key, ledger: entries } = await operating(
    values,
    io,
    async (run) => {
      const found = await findKey(run, positionals[0], 'balance show needs KEY')
      return run('keys.get', { id: found.id, ledger_limit: limit })
    },
    { ledger_limit: '--limit' },
  )
  if (values.json) io.out(JSON.stringify({ key_id: key.id, balance_usd: key.balance_usd, entries }, null, 2))
  else {
    io.out(`${key.name} (${key.id}): ${key.balance_usd === null ? 'unlimited (no prepaid balance)' : `balance $${key.balance_usd}`}`)
    if (entries.length) {
      io.out(
        table([
          ['TIME', 'KIND', 'USD', 'BY', 'NOTE / REQUEST'],
          ...entries.map((e) => [when(e.created_at), e.kind, String(e.amount_usd), e.actor, e.note ?? e.request_id ?? '']),
        ]),
      )
    }
  }
  return 0
}
