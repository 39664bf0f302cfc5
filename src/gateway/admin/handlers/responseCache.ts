import { picoToUsdNumber } from '../../../contract/money'
import type { Handlers } from './types'

export const responseCacheHandlers: Handlers<'cache.stats' | 'cache.clear'> = {
  async 'cache.stats'(ctx) {
    const cache = ctx.gw.store.responseCache
    // Hits and savings are the records' own: the ones still queued count too.
    await ctx.gw.records.flushed()
    const [held, recorded] = await Promise.all([cache.footprint(), cache.recordedHits()])
    return { ...held, max_bytes: ctx.gw.responseCache.maxBytes, hits: recorded.hits, saved_usd: picoToUsdNumber(recorded.savedPico) }
  },

  async 'cache.clear'(ctx) {
    return { deleted: await ctx.gw.store.responseCache.clear() }
  },
}
