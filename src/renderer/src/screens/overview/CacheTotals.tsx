import type { Output } from '../../../../contract'
import { compact, pct, plural, usd } from '../../lib/format'
import { Stat } from './Totals'

type CacheFigures = Output<'analytics.overview'>['cache']

/** What caching did over the period: the provider's prompt cache (as the sessions' doctor counts it) and the gateway's response cache. */
export function CacheTotals({ cache }: { cache: CacheFigures }) {
  const p = cache.prompt
  return (
    <div className="stats" data-testid="cache-totals">
      <Stat
        label="Prompt cache hit rate"
        value={pct(p.hit_rate)}
        hint={`${compact(p.cached_tokens)} of ${compact(p.prompt_tokens)} prompt tokens read from the cache`}
        testId="total-cache-hit-rate"
      />
      <Stat
        label="Cache saved"
        value={usd(p.saved_usd)}
        hint="cached reads against the input rate, less what writes cost above it"
        testId="total-cache-saved"
      />
      <Stat
        label="Cache wasted"
        value={usd(p.wasted_usd)}
        hint={`${plural(p.unread_writes, 'write')} never read · ${compact(p.wasted_tokens)} tokens`}
        testId="total-cache-wasted"
      />
      <Stat label="Response cache" value={plural(cache.response.hits, 'hit')} hint={`${usd(cache.response.saved_usd)} saved`} testId="total-response-cache" />
    </div>
  )
}
