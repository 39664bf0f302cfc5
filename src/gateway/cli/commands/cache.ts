import type { Output } from '../../../contract'
import { parse, since, when, type Command } from '../shared'
import { operate, operating } from './api'

const MB = 1024 * 1024

type CacheFigures = Output<'analytics.overview'>['cache']

/** The Overview's cache figures for a period, as lines. */
function periodLines(from: number, c: CacheFigures): string[] {
  const p = c.prompt
  const rate = p.hit_rate === null ? '-' : `${Math.round(p.hit_rate * 100)}%`
  return [
    `since ${when(from)}:`,
    `prompt cache    ${rate} of ${p.prompt_tokens} prompt tokens read from the cache (${p.cached_tokens}); saved ${p.saved_usd < 0 ? '-' : ''}$${Math.abs(p.saved_usd)}`,
    `                wasted $${p.wasted_usd} on ${p.unread_writes} writes never read (${p.wasted_tokens} tokens)`,
    `response cache  ${c.response.hits} requests answered, $${c.response.saved_usd} saved`,
  ]
}

/**
 * `gw cache stats [--since 24h|7d|DATE]`: what the response cache holds and its hits and savings
 * as the records tell them, then the Overview's cache figures for the period (24 hours unless said).
 */
export const cacheStats: Command = async (args, io) => {
  const { values } = parse(args, { since: { type: 'string' } })
  const from = since(values.since ?? '24h')
  const { stats, period } = await operating(values, io, async (operate) => ({
    stats: await operate('cache.stats', {}),
    period: (await operate('analytics.overview', { from, to: Date.now() + 1, bucket: 'day' })).cache,
  }))
  if (values.json) io.out(JSON.stringify({ ...stats, period: { from, ...period } }, null, 2))
  else {
    io.out(`${stats.entries} answers kept, ${(stats.bytes / MB).toFixed(1)} of ${(stats.max_bytes / MB).toFixed(0)} MB`)
    io.out(`${stats.hits} requests answered from the cache, $${stats.saved_usd} saved`)
    io.out(periodLines(from, period).join('\n'))
  }
  return 0
}

/** `gw cache clear`: every kept answer deleted; the next request of each kind goes to its provider. */
export const cacheClear: Command = async (args, io) => {
  const { values } = parse(args, {})
  const { deleted } = await operate(values, io, 'cache.clear', {})
  io.out(values.json ? JSON.stringify({ deleted }) : `deleted ${deleted} cached answers`)
  return 0
}
