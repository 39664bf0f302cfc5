/** One item of an Electron menu template (the subset the tray uses). */
export interface MenuItem {
  id?: string
  label?: string
  type?: 'normal' | 'separator' | 'checkbox'
  checked?: boolean
  enabled?: boolean
  visible?: boolean
  click?: () => void
}

export interface TrayState {
  /** The OpenAI-compatible base URL clients use, or null while the gateway is off. */
  baseUrl: string | null
  gatewayOn: boolean
  /** Busy starting or stopping. */
  busy: boolean
  openAtLogin: boolean
  /** Start at login is only offered where Electron supports it (macOS, Windows). */
  loginItemSupported: boolean
}

export interface TrayActions {
  copyBaseUrl(): void
  toggleGateway(): void
  openDashboard(): void
  toggleOpenAtLogin(): void
  quit(): void
}

/** The tray (menu bar) menu: the base URL (copy), gateway on/off, open dashboard, start at login, quit. */
export function trayMenu(state: TrayState, actions: TrayActions): MenuItem[] {
  return [
    { id: 'base-url', label: state.baseUrl ? `Base URL: ${state.baseUrl}` : 'Gateway is off', enabled: false },
    { id: 'copy-base-url', label: 'Copy base URL', enabled: state.baseUrl !== null, click: actions.copyBaseUrl },
    { type: 'separator' },
    {
      id: 'gateway-on',
      label: state.busy ? 'Gateway on (working…)' : 'Gateway on',
      type: 'checkbox',
      checked: state.gatewayOn,
      enabled: !state.busy,
      click: actions.toggleGateway,
    },
    { id: 'open-dashboard', label: 'Open dashboard', click: actions.openDashboard },
    {
      id: 'open-at-login',
      label: 'Open at login',
      type: 'checkbox',
      checked: state.openAtLogin,
      visible: state.loginItemSupported,
      click: actions.toggleOpenAtLogin,
    },
    { type: 'separator' },
    { id: 'quit', label: 'Quit GW Gateway', click: actions.quit },
  ]
}

export function trayTooltip(state: TrayState): string {
  return state.baseUrl ? `GW Gateway: ${state.baseUrl}` : 'GW Gateway (off)'
}
