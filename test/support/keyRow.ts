import { parseKey, type Key } from '../../src/gateway/pipeline/keyRules'
import type { KeyRow } from '../../src/gateway/store/keysRepo'

/** A key as the key index holds it, for a test that needs no store of keys: unlimited, no policy, named after its id unless told. */
export const keyRow = (id: string, row: Partial<KeyRow> = {}): Key =>
  parseKey({
    id,
    name: id,
    lookup: '',
    hash: '',
    last4: '',
    created_at: 0,
    revoked_at: null,
    last_used_at: null,
    default_preset: null,
    policy: '{}',
    prepaid: 0,
    daily_limit_usd: null,
    monthly_limit_usd: null,
    owner_id: null,
    response_cache_ttl_s: null,
    ...row,
  })
