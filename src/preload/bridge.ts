import { CANCEL_CHANNEL, channelOf, operations, type ContractError, type GwApi, type OperationName, type Result } from '../contract'

/** What the bridge needs of Electron's ipcRenderer (and what tests fake). */
export interface IpcRendererLike {
  invoke(channel: string, ...args: unknown[]): Promise<unknown>
  send(channel: string, ...args: unknown[]): void
  on(channel: string, listener: (event: unknown, ...args: unknown[]) => void): unknown
  removeListener(channel: string, listener: (event: unknown, ...args: unknown[]) => void): unknown
}

/**
 * How a failed call reaches the page. contextBridge copies an Error thrown across it as a new
 * Error with only its message (code, field and status would be lost), but copies a plain object
 * with all its properties. So a failed call rejects with a plain ContractError-shaped object:
 * the renderer's `toApiError` reads `code`, `message`, `field` and `status` from it.
 */
export function bridgeError(e: ContractError): ContractError & { name: string } {
  return { name: 'ApiError', code: e.code, message: e.message, status: e.status, ...(e.field !== undefined ? { field: e.field } : {}) }
}

/**
 * One async function per contract operation, and nothing else: never ipcRenderer itself. Each
 * calls `gw:<name>` and unwraps the Result; streaming ones pass a call id and deliver the events
 * that come back on `gw:<name>:<callId>` to the page's callback until the call settles, and give
 * the page a function that cancels the call (the page's objects cannot cross contextBridge as
 * they are, an AbortSignal included, but functions can, both ways).
 */
export function buildBridge(ipcRenderer: IpcRendererLike): GwApi {
  let calls = 0
  const api: Record<string, (input: unknown, onEvent?: (e: unknown) => void, cancellable?: (cancel: () => void) => void) => Promise<unknown>> = {}
  for (const name of Object.keys(operations) as OperationName[]) {
    const streaming = 'stream' in operations[name]
    api[name] = async (input, onEvent, cancellable) => {
      const callId = `${Date.now().toString(36)}-${++calls}`
      const channel = `${channelOf(name)}:${callId}`
      const listener = (_e: unknown, event: unknown) => {
        if (typeof onEvent === 'function') onEvent(event)
      }
      if (streaming) ipcRenderer.on(channel, listener)
      if (streaming && typeof cancellable === 'function') cancellable(() => ipcRenderer.send(CANCEL_CHANNEL, callId))
      let result: Result<unknown>
      try {
        result = (await (streaming ? ipcRenderer.invoke(channelOf(name), input, callId) : ipcRenderer.invoke(channelOf(name), input))) as Result<unknown>
      } catch (err) {
        // The main process failed outside the contract (it should not): still a structured error.
        throw bridgeError({ status: 500, code: 'ipc_failed', message: (err as Error)?.message ?? String(err) })
      } finally {
        if (streaming) ipcRenderer.removeListener(channel, listener)
      }
      if (!result || typeof result !== 'object' || !('ok' in result))
        throw bridgeError({ status: 500, code: 'ipc_failed', message: 'the main process sent no result' })
      if (!result.ok) throw bridgeError(result.error)
      return streaming ? undefined : result.value
    }
  }
  return Object.freeze(api) as unknown as GwApi
}
