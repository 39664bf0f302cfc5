import { z } from 'zod'

/**
 * The management contract: every operation that crosses a process boundary, with its input and
 * output schemas. Transports (Electron IPC now; HTTP and the CLI as the dashboard grows) are
 * generated from this table, so an operation cannot exist on one side only.
 */
export const operations = {
  'gateway.status': {
    input: z.object({}).strict(),
    output: z.object({
      baseUrl: z.string(),
      version: z.string(),
      dataDir: z.string(),
      keys: z.number().int(),
      requests: z.number().int(),
    }),
  },
} as const

export type OperationName = keyof typeof operations
export type Input<N extends OperationName> = z.input<(typeof operations)[N]['input']>
export type Output<N extends OperationName> = z.output<(typeof operations)[N]['output']>

/** The IPC channel of an operation. */
export const channelOf = (name: OperationName) => `gw:${name}`

/** What the renderer can call: one async function per operation, nothing else. */
export type GwApi = { [N in OperationName]: (input: Input<N>) => Promise<Output<N>> }

/** Errors cross a process boundary as values, not as thrown objects with stacks. */
export type Result<T> = { ok: true; value: T } | { ok: false; error: { message: string; code: string } }
