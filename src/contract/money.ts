/** Exact money: the ledger and the sums a client adds up count whole pico-dollars (10⁻¹² USD). */
export const PICO_PER_USD = 1_000_000_000_000n

/** Whole pico-dollars from a USD amount given by a person (at most 12 decimals count). */
export function usdToPico(usd: number): bigint {
  if (!Number.isFinite(usd)) throw new Error(`not a USD amount: ${usd}`)
  const [whole, frac = ''] = Math.abs(usd).toFixed(12).split('.')
  const pico = BigInt(whole) * PICO_PER_USD + BigInt(frac.padEnd(12, '0'))
  return usd < 0 ? -pico : pico
}

export const picoToUsdNumber = (pico: bigint) => Number(pico) / 1e12
