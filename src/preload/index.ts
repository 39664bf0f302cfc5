import { contextBridge, ipcRenderer } from 'electron'
import { channelOf, operations, type GwApi, type OperationName, type Result } from '../contract'

// Only the contract's functions reach the page; ipcRenderer itself never does.
const api = Object.fromEntries(
  (Object.keys(operations) as OperationName[]).map((name) => [
    name,
    async (input: unknown) => {
      const result = (await ipcRenderer.invoke(channelOf(name), input)) as Result<unknown>
      if (!result.ok) throw Object.assign(new Error(result.error.message), { code: result.error.code })
      return result.value
    },
  ]),
) as GwApi

contextBridge.exposeInMainWorld('gw', api)
