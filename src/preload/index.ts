import { contextBridge, ipcRenderer } from 'electron'
import { channelOf, operations, type GwApi, type OperationName, type Result } from '../contract'

let calls = 0

// Only the contract's functions reach the page; ipcRenderer itself never does.
const api = Object.fromEntries(
  (Object.keys(operations) as OperationName[]).map((name) => {
    const streaming = 'stream' in operations[name]
    return [
      name,
      async (input: unknown, onEvent?: (e: unknown) => void) => {
        const callId = String(++calls)
        const channel = `${channelOf(name)}:${callId}`
        const listener = (_e: unknown, event: unknown) => onEvent?.(event)
        if (streaming) ipcRenderer.on(channel, listener)
        try {
          const result = (await ipcRenderer.invoke(channelOf(name), input, callId)) as Result<unknown>
          if (!result.ok) throw Object.assign(new Error(result.error.message), result.error)
          return result.value
        } finally {
          if (streaming) ipcRenderer.removeListener(channel, listener)
        }
      },
    ]
  }),
) as unknown as GwApi

contextBridge.exposeInMainWorld('gw', api)
