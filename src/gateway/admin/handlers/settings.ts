import type { AdminContext } from '../context'
import type { Handlers } from './types'
import { tracingStatus } from '../../tracing/tracingConfig'

export const settingsHandlers: Handlers<'settings.get' | 'settings.update' | 'gateway.status' | 'gateway.showLog'> = {
  'settings.get': (ctx) => ctx.gw.settings,

  async 'settings.update'(ctx: AdminContext, input) {
    await ctx.gw.store.settings.write(input)
    await ctx.gw.refresh()
    // A shorter retention applies at once rather than at the next hourly clean-up.
    if (input.retention_days !== undefined || input.response_retention_days !== undefined) await ctx.gw.pruneRecords()
    return ctx.gw.settings
  },

  // Over HTTP and the CLI the path is the answer; the desktop app's IPC transport also opens the folder.
  'gateway.showLog': (ctx) => ({ path: ctx.status.log_file, shown: false }),

  async 'gateway.status'(ctx) {
    await ctx.gw.records.flushed()
    return {
      ...ctx.status,
      keys: (await ctx.gw.store.keys.all()).filter((k) => k.revoked_at === null).length,
      requests: await ctx.gw.store.requests.count(),
      tracing: tracingStatus(ctx.gw.options.tracing ?? null),
    }
  },
}
