import { CANCEL_CHANNEL, channelOf, operations, type ContractError, type OperationName, type Output, type Result } from '../contract'
import type { AdminService } from '../gateway/admin/adminService'
import type { Caller } from '../gateway/admin/context'
import { ClientAbort } from '../gateway/upstream/clientAbort'
import type { DesktopSession } from './session'

export interface IpcSenderFrame {
  url: string
  /** The parent frame; null for a window's top frame. */
  parent?: unknown
}

export interface IpcEvent {
  senderFrame: IpcSenderFrame | null
  sender: { send(channel: string, ...args: unknown[]): void; isDestroyed?(): boolean }
}

export type Handler = (event: IpcEvent, ...args: unknown[]) => Promise<unknown>
export type Listener = (event: IpcEvent, ...args: unknown[]) => void

export interface IpcMainLike {
  handle(channel: string, listener: Handler): void
  removeHandler(channel: string): void
  on(channel: string, listener: Listener): void
  removeListener(channel: string, listener: Listener): void
}

/** The channel on which a streaming call's events come back, one per call. */
export const eventChannelOf = (name: OperationName, callId: string) => `${channelOf(name)}:${callId}`

const CALL_ID = /^[A-Za-z0-9_-]{1,64}$/

const failure = (error: ContractError): Result<never> => ({ ok: false, error })

export const FORBIDDEN_SENDER: ContractError = { status: 403, code: 'forbidden_sender', message: 'This window may not call the gateway.' }
export const GATEWAY_OFF: ContractError = { status: 503, code: 'gateway_off', message: 'The gateway is off; turn it on from the tray menu.' }

export interface IpcOptions {
  /** The running gateway's admin service, or null while the gateway is off. */
  admin: () => AdminService | null
  session: DesktopSession
  isOwnRenderer: (url: string) => boolean
  /** Opens the file manager at a file (Electron's shell.showItemInFolder). */
  showInFolder: (file: string) => void
}

/** The desktop's part of `gateway.showLog`: the admin service says where the log is; here its folder opens too. */
function showLog(result: Result<unknown>, showInFolder: (file: string) => void): Result<unknown> {
  if (!result.ok) return result
  const answer = result.value as Output<'gateway.showLog'>
  if (!answer.path) return result
  showInFolder(answer.path)
  return { ok: true, value: { ...answer, shown: true } }
}

/**
 * Registers exactly one handler per contract operation (`gw:<name>`). Each refuses calls from
 * any frame but the top frame of the app's own renderer, then hands the call to the admin
 * service, which checks access and validates the input with the contract's zod schema exactly
 * as it does for HTTP. Errors cross as values (`Result`), never as thrown objects. Streaming
 * operations send their events on `gw:<name>:<callId>` to the calling window only, and end when
 * that window sends the call id on `gw:cancel` (the Playground's Stop).
 * Returns a function that removes the handlers.
 */
export function registerIpc(ipcMain: IpcMainLike, options: IpcOptions): () => void {
  const names = Object.keys(operations) as OperationName[]
  // Each window's streaming calls under way: a window can end only its own.
  const running = new WeakMap<IpcEvent['sender'], Map<string, ClientAbort>>()
  const cancel: Listener = (event, callId) => {
    if (typeof callId === 'string') running.get(event.sender)?.get(callId)?.abort()
  }
  for (const name of names) {
    const streaming = 'stream' in operations[name]
    ipcMain.handle(channelOf(name), async (event, input, callId): Promise<Result<unknown>> => {
      const frame = event.senderFrame
      if (!frame || (frame.parent !== undefined && frame.parent !== null) || !options.isOwnRenderer(frame.url)) return failure(FORBIDDEN_SENDER)
      if (streaming && (typeof callId !== 'string' || !CALL_ID.test(callId))) {
        return failure({ status: 400, code: 'invalid_input', message: 'callId: a streaming call needs a call id' })
      }
      const admin = options.admin()
      if (!admin) return failure(GATEWAY_OFF)
      const { session } = options
      const caller: Caller = { user: await session.user(admin), sessionToken: session.token, address: 'local' }
      let abort: ClientAbort | undefined
      let calls: Map<string, ClientAbort> | undefined
      if (streaming) {
        abort = new ClientAbort()
        calls = running.get(event.sender) ?? new Map<string, ClientAbort>()
        running.set(event.sender, calls)
        calls.set(callId as string, abort)
      }
      // A window closed mid-stream ends its call, as a closed browser tab does over HTTP.
      const onEvent = streaming
        ? (e: unknown) => {
            if (event.sender.isDestroyed?.()) abort!.abort()
            else event.sender.send(eventChannelOf(name, callId as string), e)
          }
        : undefined
      let invocation
      try {
        invocation = await admin.invoke(name, input, caller, onEvent, abort)
      } finally {
        calls?.delete(callId as string)
      }
      const { result, session: change } = invocation
      if (change) await session.apply(change)
      return name === 'gateway.showLog' ? showLog(result, options.showInFolder) : result
    })
  }
  ipcMain.on(CANCEL_CHANNEL, cancel)
  return () => {
    names.forEach((name) => ipcMain.removeHandler(channelOf(name)))
    ipcMain.removeListener(CANCEL_CHANNEL, cancel)
  }
}
