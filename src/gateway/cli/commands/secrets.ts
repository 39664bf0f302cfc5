import { parse, table, when, type Command } from '../shared'
import { operate } from './api'

/** `gw secrets status`: where provider keys are kept and, in the database, which key id each is encrypted under. */
export const secretsStatus: Command = async (args, io) => {
  const { values } = parse(args, {})
  const status = await operate(values, io, 'secrets.status', {})
  if (values.json) {
    io.out(JSON.stringify(status, null, 2))
    return 0
  }
  if (status.store === 'keychain') {
    io.out('provider keys are kept in the OS keychain beside this SQLite store: nothing is encrypted under GW_SECRET_KEY')
    return 0
  }
  io.out(status.key_id ? `GW_SECRET_KEY here has key id ${status.key_id}` : 'GW_SECRET_KEY is not set here: no stored key can be read')
  if (status.keys.length === 0) io.out('no provider key is stored in the database')
  else
    io.out(
      table([
        ['PROVIDER', 'KEY ID', 'UPDATED', ''],
        ...status.keys.map((k) => [k.provider, k.key_id, when(k.updated_at), k.current ? 'this key' : 'another key']),
      ]),
    )
  return 0
}

/**
 * `gw secrets rotate --new-key-stdin`: every provider key in the database re-encrypted under the
 * key read from standard input (never a flag: it would stay in the shell's history and the
 * process list), the current one being GW_SECRET_KEY. Says how many and the new key id, never a key.
 */
export const secretsRotate: Command = async (args, io) => {
  const { values } = parse(args, { 'new-key-stdin': { type: 'boolean' } })
  if (!values['new-key-stdin'])
    throw new Error('secrets rotate reads the new key from standard input: gw secrets rotate --new-key-stdin (GW_SECRET_KEY holds the current one)')
  const done = await operate(values, io, 'secrets.rotate', { new_key: (await io.readStdin()).trim() }, { new_key: '--new-key-stdin' })
  if (values.json) {
    io.out(JSON.stringify(done))
    return 0
  }
  const keys = (n: number) => `${n} provider ${n === 1 ? 'key' : 'keys'}`
  io.out(
    `re-encrypted ${keys(done.rotated)} under key id ${done.key_id}${done.unchanged > 0 ? ` (${keys(done.unchanged)} already under it)` : ''}, in one transaction. ` +
      'Give every gateway on the database the new key as GW_SECRET_KEY and restart it: until then one with the old key cannot read them.',
  )
  return 0
}
