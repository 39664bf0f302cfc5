import { channelOf, operations, type OperationName, type Result } from '../contract'
import type { Caller } from '../gateway/admin/context'
import type { AdminService } from '../gateway/admin/adminService'

export interface IpcEvent {
  senderFrame: { url: string } | null
  sender: { send(channel: string, ...args: unknown[]): void }
}

export interface IpcMainLike {
  handle(channel: string, listener: (event: IpcEvent, ...args: unknown[]) => Promise<unknown>): void
}

/** The desktop window's session: one user at a time, held in the main process, never in the page. */
export interface DesktopSession {
  token: string | null
}

/** The channel on which a streaming call's events come back, one per call. */
export const eventChannelOf = (name: OperationName, callId: string) => `${channelOf(name)}:${callId}`

/**
 * Registers exactly one handler per contract operation. Each refuses calls from any frame but
 * the app's own renderer, then hands the call to the admin service, which validates input and
 * permissions exactly as it does for HTTP. Errors cross as values.
 */
export function registerIpc(
  ipcMain: IpcMainLike,
  admin: AdminService,
  session: DesktopSession,
  isOwnRenderer: (url: string) => boolean,
  currentUser: (token: string | null) => Caller['user'],
): void {
  for (const name of Object.keys(operations) as OperationName[]) {
    const streaming = 'stream' in operations[name]
    ipcMain.handle(channelOf(name), async (event, input, callId): Promise<Result<unknown>> => {
      if (!event.senderFrame || !isOwnRenderer(event.senderFrame.url)) {
        return { ok: false, error: { status: 403, code: 'forbidden_sender', message: 'this window may not call the gateway' } }
      }
      const caller: Caller = { user: currentUser(session.token), sessionToken: session.token, address: 'local' }
      const onEvent = streaming ? (e: unknown) => event.sender.send(eventChannelOf(name, String(callId)), e) : undefined
      const { result, session: change } = await admin.invoke(name, input, caller, onEvent)
      if (change) session.token = 'set' in change ? change.set.token : null
      return result
    })
  }
}
