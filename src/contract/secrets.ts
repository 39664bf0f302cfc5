import { z } from 'zod'
import { op } from './op'
import { empty, time } from './common'

/**
 * Provider keys kept in a PostgreSQL store, encrypted under GW_SECRET_KEY: which key each is
 * under, and re-encrypting them all under a new one. Never a key itself, in or out.
 */
export const secretOps = {
  'secrets.status': op({
    summary: 'Where provider keys are kept and, in the database, the key id each is encrypted under',
    access: 'admin',
    input: empty,
    output: z.object({
      /** keychain: the OS keychain beside a SQLite store; database: encrypted in a PostgreSQL store. */
      store: z.enum(['keychain', 'database']),
      /** The key id of this gateway's GW_SECRET_KEY; null when it has none, or its store is SQLite. */
      key_id: z.string().nullable(),
      keys: z.array(
        z.object({
          provider: z.string(),
          key_id: z.string(),
          updated_at: time,
          /** Encrypted under this gateway's GW_SECRET_KEY: it can use the key. */
          current: z.boolean(),
        }),
      ),
    }),
  }),
  'secrets.rotate': op({
    summary: 'Re-encrypt every provider key in the database under a new GW_SECRET_KEY, in one transaction',
    access: 'admin',
    input: z
      .object({
        /** The new key: 32 random bytes in base64. The current one is the gateway's GW_SECRET_KEY. */
        new_key: z.string().max(200),
      })
      .strict(),
    output: z.object({
      rotated: z.number().int(),
      /** Already under the new key (a rotation run again). */
      unchanged: z.number().int(),
      key_id: z.string(),
    }),
  }),
}
