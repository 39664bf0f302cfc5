import { z } from 'zod'
import { op, type Operation } from './op'
import { empty } from './common'
import { authOps } from './auth'
import { presetOps } from './presets'
import { aliasOps } from './aliases'
import { keyOps } from './keys'
import { providerOps } from './providers'
import { priceOps } from './prices'
import { requestOps } from './requests'
import { analyticsOps } from './analytics'
import { sessionOps } from './sessions'
import { settingsOps } from './settings'
import { playgroundOps } from './playground'
import { sessionAlertOps } from './sessionAlerts'
import { secretOps } from './secrets'
import { responseCacheOps } from './responseCache'

/**
 * The management contract: every operation that crosses a process boundary, with its input and
 * output schemas and who may call it. The admin service implements it once; every transport
 * (HTTP under /api, the CLI, Electron IPC) is generated from this table, so an operation cannot
 * exist on one side only.
 */
export const operations = {
  'gateway.status': op({
    summary: 'Where the gateway listens and how much it holds',
    access: 'user',
    input: empty,
    output: z.object({
      base_url: z.string(),
      version: z.string(),
      data_dir: z.string(),
      /** Null when the log goes to standard output. */
      log_file: z.string().nullable(),
      /** When the log file is rotated (`--log-max-size`, in bytes) and how many rotated files are kept (`--log-keep`); null when it is not rotated. */
      log_rotation: z.object({ max_bytes: z.number().int(), keep: z.number().int() }).nullable(),
      /** Where Prometheus scrapes `/metrics`, and whether a bearer token is asked (never the token itself); null while metrics are off. */
      metrics: z.object({ url: z.string(), token_required: z.boolean() }).nullable(),
      keys: z.number().int(),
      requests: z.number().int(),
      /** Where this gateway's OpenTelemetry traces go; null when tracing is off. */
      tracing: z
        .object({
          /** The OTLP/HTTP traces URL, without credentials (user, password, query); headers are never shown. */
          endpoint: z.string(),
          /** Each upstream attempt's `traceparent` goes on to the provider. */
          propagate: z.boolean(),
          /** Prompts and completions go into spans while body logging is on. */
          capture_content: z.boolean(),
        })
        .nullable(),
    }),
  }),
  'gateway.showLog': op({
    summary: "The log file's path; the desktop app also opens its folder",
    access: 'admin',
    input: empty,
    output: z.object({ path: z.string().nullable(), shown: z.boolean() }),
  }),
  ...authOps,
  ...presetOps,
  ...aliasOps,
  ...keyOps,
  ...providerOps,
  ...secretOps,
  ...priceOps,
  ...requestOps,
  ...analyticsOps,
  ...sessionOps,
  ...settingsOps,
  ...playgroundOps,
  ...sessionAlertOps,
  ...responseCacheOps,
} satisfies Record<string, Operation>

export type Operations = typeof operations
export type OperationName = keyof Operations
export type Input<N extends OperationName> = z.input<Operations[N]['input']>
export type Output<N extends OperationName> = z.output<Operations[N]['output']>
export type StreamingName = { [N in OperationName]: Operations[N] extends { stream: true } ? N : never }[OperationName]

/** The IPC channel of an operation. */
export const channelOf = (name: OperationName) => `gw:${name}`

/** The IPC channel on which a window ends one of its streaming calls, by call id. */
export const CANCEL_CHANNEL = 'gw:cancel'

/**
 * What a client can call: one async function per operation; streaming ones deliver events to a
 * callback, and hand `cancellable` the function that ends the call.
 */
export type GwApi = {
  [N in OperationName]: N extends StreamingName
    ? (input: Input<N>, onEvent: (event: Output<N>) => void, cancellable?: (cancel: () => void) => void) => Promise<void>
    : (input: Input<N>) => Promise<Output<N>>
}

/** Errors cross a process boundary as values, not as thrown objects with stacks. */
export interface ContractError {
  code: string
  message: string
  /** Field path for invalid input, e.g. `temperature` or `policy.rpm`. */
  field?: string
  status: number
}
export type Result<T> = { ok: true; value: T } | { ok: false; error: ContractError }

export type { Operation, Access } from './op'
