import { MissingSecretKey } from '../../secrets/databaseSecretStore'
import { parseSecretKey, SECRET_KEY_VAR, secretKeyProblem } from '../../secrets/secretKey'
import { UnreadableSecret } from '../../secrets/secretStore'
import { AdminError, conflict, invalid, secretKeyMissing } from '../adminError'
import type { Handlers } from './types'

export const secretHandlers: Handlers<'secrets.status' | 'secrets.rotate'> = {
  async 'secrets.status'(ctx) {
    const stored = ctx.gw.databaseSecrets
    if (!stored) return { store: 'keychain' as const, key_id: null, keys: [] }
    const keyId = stored.key?.id ?? null
    return {
      store: 'database' as const,
      key_id: keyId,
      keys: (await stored.rows()).map((r) => ({ provider: r.provider_id, key_id: r.key_id, updated_at: r.updated_at, current: r.key_id === keyId })),
    }
  },

  async 'secrets.rotate'(ctx, input) {
    const stored = ctx.gw.databaseSecrets
    if (!stored) {
      throw conflict(
        `this gateway's store is SQLite, whose provider keys are in ${ctx.gw.secrets.description}: nothing is encrypted under ${SECRET_KEY_VAR} to rotate`,
      )
    }
    const problem = secretKeyProblem(input.new_key)
    if (problem) throw invalid('new_key', problem)
    const next = parseSecretKey(input.new_key, 'new_key')
    try {
      return { ...(await stored.rotate(next)), key_id: next.id }
    } catch (err) {
      if (err instanceof MissingSecretKey) throw secretKeyMissing(err.message)
      if (err instanceof UnreadableSecret) throw new AdminError(409, 'secret_unreadable', err.message)
      throw err
    }
  },
}
