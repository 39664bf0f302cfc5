import { z } from 'zod'
import { op } from './op'
import { time, usd } from './common'

/** A session whose cost passed the settings' `session_alert_usd`. */
export const sessionAlert = z.object({
  /** When the request that took it past the threshold was made. */
  at: time,
  key_id: z.string(),
  key_name: z.string(),
  session_id: z.string(),
  /** The coding tool that made the session, where the gateway recognised it. */
  tool: z.string().nullable(),
  /** The session's cost when it passed the threshold. */
  cost_usd: usd,
  threshold_usd: usd,
})
export type SessionAlert = z.infer<typeof sessionAlert>

export const sessionAlertOps = {
  'sessions.alerts': op({
    summary: 'Sessions that passed the alert threshold since a time (a member sees their own keys’)',
    access: 'user',
    input: z.object({ since: time.optional() }).strict(),
    output: z.array(sessionAlert),
  }),
}
