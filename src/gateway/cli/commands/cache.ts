import { parse, type Command } from '../shared'
import { operate } from './api'

const MB = 1024 * 1024

/** `gw cache stats`: what the response cache holds, and its hits and savings as the records tell them. */
export const cacheStats: Command = async (args, io) => {
  const { values } = parse(args, {})
  const stats = await operate(values, io, 'cache.stats', {})
  if (values.json) io.out(JSON.stringify(stats, null, 2))
  else {
    io.out(`${stats.entries} answers kept, ${(stats.bytes / MB).toFixed(1)} of ${(stats.max_bytes / MB).toFixed(0)} MB`)
    io.out(`${stats.hits} requests answered from the cache, $${stats.saved_usd} saved`)
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
