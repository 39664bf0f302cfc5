import { plural, usd } from './format'

/**
 * Spend of a set of requests as Overview and a key's page show it: never $0 for an unknown cost.
 * When every request with a provider is unpriced the sum is "unpriced"; when some are, the priced sum is a
 * lower bound ("≥ $1.23", with a no-break space), and `note` says how many are left out.
 */
export function spend(costUsd: number, unpriced: number, requests: number): { text: string; note: string | null } {
  if (unpriced === 0) return { text: usd(costUsd), note: null }
  const note = `${plural(unpriced, 'unpriced request')} not included`
  if (unpriced >= requests && costUsd === 0) return { text: 'unpriced', note: `${note}: what the provider billed is unknown` }
  // A no-break space: the sign never sits alone on a line above the figure.
  return { text: `≥\u00a0${usd(costUsd)}`, note }
}
