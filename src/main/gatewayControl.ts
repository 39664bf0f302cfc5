import type { ConfigOverrides } from '../gateway/config'
import type { RunningGateway } from '../gateway/server'

export type StartFn = (overrides: ConfigOverrides) => Promise<RunningGateway>

/** What the user chose when the remembered port is taken. */
export type PortChoice = 'another-port' | 'quit'

export interface PortInUse {
  port: number
  host: string
}

/** The wording of the choice, shared by the dialog and the docs. */
export function portInUseDialog(p: PortInUse) {
  return {
    type: 'warning' as const,
    title: 'Port in use',
    message: `Port ${p.port} is already in use`,
    detail:
      `Another program is listening on ${p.host}:${p.port}, so GW Gateway cannot start there.\n\n` +
      'Use another port: GW Gateway picks a free port and remembers it (Settings → Port); clients must use the new base URL.\n' +
      'Quit: free the port yourself and start GW Gateway again.',
    buttons: ['Use another port', 'Quit'],
    defaultId: 0,
    cancelId: 1,
    noLink: true,
  }
}

const isAddressInUse = (err: unknown) => (err as NodeJS.ErrnoException | null)?.code === 'EADDRINUSE'

/**
 * Starts the gateway on the remembered port. If another program holds it, asks; "use another
 * port" starts on a free port and saves it as `settings.port`, so the next start (and the base
 * URL clients were given) stays on it. Returns null when the user chose to quit.
 */
export async function startWithPortChoice(
  start: StartFn,
  overrides: ConfigOverrides,
  ask: (p: PortInUse) => Promise<PortChoice>,
): Promise<RunningGateway | null> {
  try {
    return await start(overrides)
  } catch (err) {
    if (!isAddressInUse(err)) throw err
    const e = err as NodeJS.ErrnoException & { port?: number; address?: string }
    const choice = await ask({ port: Number(e.port ?? overrides.port ?? 0), host: e.address ?? overrides.host ?? '127.0.0.1' })
    if (choice !== 'another-port') return null
    const running = await start({ ...overrides, port: 0 })
    await running.gateway.store.settings.write({ port: running.config.port })
    await running.gateway.refresh()
    return running
  }
}
