import { spend } from '../../lib/spend'

/** A sum of costs as Overview shows it: "unpriced" or "≥ $x" with what it leaves out in its title, never $0 for an unknown cost. */
export function SpendText({ costUsd, unpriced, requests, testId }: { costUsd: number; unpriced: number; requests: number; testId?: string }) {
  const s = spend(costUsd, unpriced, requests)
  return (
    <span className={s.note ? 'muted' : undefined} title={s.note ?? undefined} data-testid={testId}>
      {s.text}
    </span>
  )
}
