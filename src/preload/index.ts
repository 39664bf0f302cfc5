import { contextBridge, ipcRenderer } from 'electron'
import { buildBridge } from './bridge'

// Only the contract's functions reach the page, as `window.gw`; ipcRenderer itself never does.
// Bundled as one CommonJS file (zod included) so the renderer runs sandboxed.
contextBridge.exposeInMainWorld('gw', buildBridge(ipcRenderer))
