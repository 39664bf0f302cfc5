import type { Target } from '../pipeline/resolveModel'
import type { MoveReason } from '../store/requestsRepo'

/** Where a session's turns under one preset were last answered: the provider and model holding its prompt cache. */
export interface Held {
  provider: string
  upstreamModel: string
  /** A soft cap sent that turn to its cheaper model. */
  softCap: boolean
}

/** The store's answer for a session this gateway does not know: its newest answered turn under the preset. */
export type HeldLookup = (keyId: string, sessionId: string, preset: string) => Promise<Held | null>

/** Sessions remembered; beyond this the one answered longest ago is forgotten (and read from the store if it returns). */
export const MAX_HELD_SESSIONS = 10_000

const sessionKey = (keyId: string, sessionId: string, preset: string) => `${keyId}\n${sessionId}\n${preset}`

export const heldName = (held: Held) => `${held.provider}/${held.upstreamModel}`

export const isHeld = (t: Target, held: Held) => t.provider.id === held.provider && t.upstreamModel === held.upstreamModel

/** FNV-1a: a session id's stable spot among equal candidates, the same on every gateway. */
function spot(text: string, n: number): number {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193)
  return (h >>> 0) % n
}

/**
 * Which provider and model each session was last answered by, per key and preset, so that its
 * next turn goes where its prompt cache is (sticky sessions). The last record of the session is
 * the truth, wherever it was made: this map is the fast path, filled by the turns this gateway
 * answers, and a session it does not know (after a restart, or one whose turns reached another
 * gateway) is read from the store once. Requests without a session never come here.
 */
export class SessionRoutes {
  private readonly held = new Map<string, Held | null>()
  /** Each equal-candidates preset's next turn for requests without a session. */
  private readonly turns = new Map<string, number>()

  constructor(private readonly lookup: HeldLookup) {}

  /** Where the session's previous turn under the preset was answered (null: nowhere yet); a promise only when this gateway does not know the session. */
  of(keyId: string, sessionId: string, preset: string): Held | null | Promise<Held | null> {
    const k = sessionKey(keyId, sessionId, preset)
    const known = this.held.get(k)
    if (known !== undefined) return known
    return this.lookup(keyId, sessionId, preset).then(
      (found) => {
        // A turn this gateway answered while the store was read is newer than what the store had.
        if (!this.held.has(k)) this.remember(k, found)
        return this.held.get(k) ?? null
      },
      // A store that cannot answer holds nothing: the turn is routed as a first one.
      () => null,
    )
  }

  /**
   * The session's turn was answered by `target` (sent there by a soft cap or not): its next turn
   * goes there. The session becomes the most recently answered, the last to be forgotten.
   */
  answered(keyId: string, sessionId: string, preset: string, target: Target, softCap: boolean): void {
    const k = sessionKey(keyId, sessionId, preset)
    const known = this.held.get(k)
    const same = known && isHeld(target, known) && known.softCap === softCap
    this.held.delete(k)
    this.remember(k, same ? known : { provider: target.provider.id, upstreamModel: target.upstreamModel, softCap })
  }

  private remember(k: string, held: Held | null): void {
    this.held.set(k, held)
    if (this.held.size > MAX_HELD_SESSIONS) this.held.delete(this.held.keys().next().value!)
  }

  /**
   * The candidates in the order to try them. A session's held target goes first (then the rest in
   * the preset's order), wherever it stands: after a failure cleared, a session that moved to a
   * fallback stays there. Without a held target, equal candidates begin at the session's stable
   * spot, or, for a request without a session, at the preset's next turn (round robin on this
   * gateway), and go round from there; otherwise the preset's order stands.
   */
  arrange(candidates: Target[], preset: string, equal: boolean, sessionId: string | null, held: Held | null): Target[] {
    if (held) {
      const i = candidates.findIndex((t) => isHeld(t, held))
      if (i > 0) return [candidates[i], ...candidates.slice(0, i), ...candidates.slice(i + 1)]
      if (i === 0) return candidates
    }
    if (!equal || candidates.length < 2) return candidates
    let start: number
    if (sessionId !== null) start = spot(sessionId, candidates.length)
    else {
      const turn = this.turns.get(preset) ?? 0
      this.turns.set(preset, turn + 1)
      start = turn % candidates.length
    }
    return start === 0 ? candidates : [...candidates.slice(start), ...candidates.slice(0, start)]
  }
}

/**
 * Why a session's turn was not answered where its previous turn was: a soft cap sent it to its
 * cheaper model, or sent the previous turn there and no longer applies; the preset no longer
 * names that target; the target was cooling down or refused by the key's policy before it was
 * tried (`passedOver`); else it failed on this turn.
 */
export function moveReason(held: Held, candidates: Target[], softCap: boolean, passedOver: MoveReason | null): MoveReason {
  if (softCap || held.softCap) return 'soft_cap'
  if (!candidates.some((t) => isHeld(t, held))) return 'preset_changed'
  return passedOver ?? 'failed'
}
