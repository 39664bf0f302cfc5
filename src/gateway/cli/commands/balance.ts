import { LedgerRepo, picoToUsdNumber, usdToPico } from '../../store/ledgerRepo'
import { cliActor, number, parse, table, when, withStore, type Command } from '../shared'
import { findKey } from './keys'

export const balanceTopUp: Command = async (args, io) => {
  const { values, positionals } = parse(args, { note: { type: 'string' } })
  const amount = number(positionals[1] ?? '', 'USD', (n) => n > 0, 'a positive amount of USD')
  return withStore(values['data-dir'], io, (db) => {
    const key = findKey(db, positionals[0], 'balance top-up needs KEY USD')
    const ledger = new LedgerRepo(db)
    ledger.credit(key.id, usdToPico(amount), 'top_up', cliActor(), values.note ?? null)
    const balance = picoToUsdNumber(ledger.balance(key.id))
    io.out(values.json ? JSON.stringify({ key_id: key.id, balance_usd: balance }) : `${key.name}: topped up $${amount}, balance $${balance}`)
    return 0
  })
}

export const balanceAdjust: Command = async (args, io) => {
  const { values, positionals } = parse(args, { note: { type: 'string' } })
  const amount = number(positionals[1] ?? '', 'USD', (n) => n !== 0, 'a non-zero amount of USD (negative to take away)')
  if (!values.note) throw new Error('balance adjust needs --note TEXT saying why')
  return withStore(values['data-dir'], io, (db) => {
    const key = findKey(db, positionals[0], 'balance adjust needs KEY USD --note TEXT')
    if (!key.prepaid) throw new Error(`key ${key.name} has no prepaid balance; use balance top-up to give it one`)
    const ledger = new LedgerRepo(db)
    ledger.credit(key.id, usdToPico(amount), 'adjustment', cliActor(), values.note!)
    const balance = picoToUsdNumber(ledger.balance(key.id))
    io.out(values.json ? JSON.stringify({ key_id: key.id, balance_usd: balance }) : `${key.name}: adjusted by $${amount}, balance $${balance}`)
    return 0
  })
}

export const balanceShow: Command = async (args, io) => {
  const { values, positionals } = parse(args, { limit: { type: 'string' } })
  const limit = values.limit === undefined ? 50 : number(values.limit, '--limit', (n) => Number.isInteger(n) && n > 0, 'a positive integer')
  return withStore(values['data-dir'], io, (db) => {
    const key = findKey(db, positionals[0], 'balance show needs KEY')
    const ledger = new LedgerRepo(db)
    const balance = key.prepaid ? picoToUsdNumber(ledger.balance(key.id)) : null
    const entries = ledger.entries(key.id, limit)
    if (values.json) io.out(JSON.stringify({ key_id: key.id, balance_usd: balance, entries }, null, 2))
    else {
      io.out(`${key.name} (${key.id}): ${balance === null ? 'unlimited (no prepaid balance)' : `balance $${balance}`}`)
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
  })
}
