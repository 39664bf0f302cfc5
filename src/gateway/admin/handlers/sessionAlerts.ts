import { isAdmin } from '../context'
import { visibleKeys } from './keys'
import type { Handlers } from './types'

export const sessionAlertHandlers: Handlers<'sessions.alerts'> = {
  async 'sessions.alerts'(ctx, input) {
    const alerts = ctx.gw.sessionAlerts.since(input.since ?? 0)
    if (isAdmin(ctx)) return alerts
    const mine = new Set((await visibleKeys(ctx)).map((k) => k.id))
    return alerts.filter((a) => mine.has(a.key_id))
  },
}
