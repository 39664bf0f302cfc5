import { z } from 'zod'
import { op } from './op'
import { empty } from './common'

export const settings = z.object({
  /** Applied at the next start (the listening socket cannot move under running clients); 0 picks a free port. */
  port: z.number().int().min(0, '0 picks a free port').max(65535),
  bind: z.string().min(1),
  allowed_hosts: z.array(z.string().min(1)),
  cors_origins: z.array(z.string().min(1)),
  /** Keep request and response bodies with the records (off by default: they may hold personal data). */
  log_bodies: z.boolean(),
  /** Days to keep records; null keeps them forever. */
  retention_days: z.number().int().positive().nullable(),
  /**
   * Days the gateway keeps the Responses it answered through a provider of another wire (for
   * `previous_response_id`, `item_reference` and `GET /v1/responses/{id}`); 0 keeps none.
   */
  response_retention_days: z.number().int('a whole number of days').min(0, 'must be between 0 and 3650').max(3650, 'must be between 0 and 3650'),
  /** A session whose cost passes this many USD raises an alert (dashboard banner, desktop notification); null for none. */
  session_alert_usd: z.number().positive().nullable(),
  /**
   * Where `gw prices refresh` pulls a current price listing (OpenRouter's model list shape, e.g.
   * https://openrouter.ai/api/v1/models). Null, the default: prices are never fetched.
   */
  price_source_url: z
    .string()
    .url()
    .refine((u) => /^https?:\/\//i.test(u), 'an http:// or https:// address')
    .nullable(),
})
export type Settings = z.infer<typeof settings>

export const settingsOps = {
  'settings.get': op({ summary: 'Gateway settings', access: 'admin', input: empty, output: settings }),
  'settings.update': op({
    summary: 'Change settings (port and bind apply at the next start)',
    access: 'admin',
    input: settings.partial().strict(),
    output: settings,
  }),
}
