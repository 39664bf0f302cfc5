import { operations, type ContractError, type Input, type OperationName, type Output } from '../../../contract'
import type { PlaygroundEvent } from '../../../contract/playground'
import { AdminService, type Invocation } from '../../admin/adminService'
import { logRotationStatus, operatorCaller } from '../../admin/context'
import { VERSION } from '../../app'
import { resolveConfig } from '../../config'
import { findRunning, OPERATOR_HEADER } from '../../http/api/runningGateway'
import { Gateway } from '../../gateway'
import { parse, storeOverrides, table, type CliIo, type Command, type StoreFlags } from '../shared'

/**
 * Any management operation from the shell, as the local operator: `gw api keys.list`,
 * `gw api presets.save --input '{"name":"p","model":"gpt-6-luna"}'` (`--input -` reads stdin).
 * The same admin service as the dashboard and IPC, so the same validation and answers.
 */
export const api: Command = async (args, io) => {
  const { values, positionals } = parse(args, { input: { type: 'string' } })
  const name = positionals[0]
  if (!name || name === 'list') {
    io.out(table([['OPERATION', 'ACCESS', 'SUMMARY'], ...Object.entries(operations).map(([n, o]) => [n, o.access, o.summary])]))
    return name ? 0 : 2
  }
  let input: unknown = {}
  const raw = values.input === '-' ? await io.readStdin() : values.input
  if (raw !== undefined) {
    try {
      input = JSON.parse(raw)
    } catch (err) {
      throw new Error(`--input is not JSON: ${(err as Error).message}`, { cause: err })
    }
  }
  const { result } = await invokeAsOperator(values, io, name, input, (event) => io.out(JSON.stringify(event)))
  if (!result.ok) {
    io.err(JSON.stringify({ error: result.error }))
    return 1
  }
  if (result.value !== null) io.out(JSON.stringify(result.value, null, 2))
  return 0
}

type Invoke = (name: string, input: unknown, onEvent?: (event: PlaygroundEvent) => void) => Promise<Invocation>

/**
 * Opens the store once and runs management operations through the admin service as the local
 * operator (an admin that owns nothing): the same validation and answers as the dashboard and IPC.
 */
export async function withOperator<T>(where: StoreFlags, io: CliIo, fn: (invoke: Invoke) => Promise<T>): Promise<T> {
  const config = resolveConfig({ ...storeOverrides(where), port: 0 }, io.env)
  const gw = await Gateway.open({ config, env: io.env, secrets: io.secrets })
  try {
    const admin = new AdminService(gw, {
      base_url: `http://${config.host}:${config.port}/v1`,
      version: VERSION,
      data_dir: config.dataDir,
      log_file: config.logFile,
      log_rotation: logRotationStatus(config.logRotation),
      // The CLI's own gateway serves nothing, metrics included.
      metrics: null,
    })
    return await fn((name, input, onEvent) => admin.invoke(name, input, operatorCaller(), onEvent))
  } finally {
    await gw.close()
  }
}

/** Runs one management operation as the local operator. */
export const invokeAsOperator = (where: StoreFlags, io: CliIo, name: string, input: unknown, onEvent?: (event: PlaygroundEvent) => void) =>
  withOperator(where, io, (invoke) => invoke(name, input, onEvent))

/** One management operation whose refusal is the CLI's error line. */
export type Operate = <N extends OperationName>(name: N, input: Input<N>) => Promise<Output<N>>

/**
 * The admin service's refusal as the CLI says it: the message as every transport has it, with a
 * field the command takes as a flag named as that flag (`kind: …` → `--kind: …`).
 */
export function refusal(error: ContractError, flags: Record<string, string> = {}): Error {
  const flag = error.field === undefined ? undefined : flags[error.field]
  const prefix = `${error.field}: `
  return new Error(flag && error.message.startsWith(prefix) ? `${flag}: ${error.message.slice(prefix.length)}` : error.message)
}

/** Runs `fn` with operations as the local operator on one open store; a refusal throws. */
export const operating = <R>(where: StoreFlags, io: CliIo, fn: (operate: Operate) => Promise<R>, flags: Record<string, string> = {}) =>
  withOperator(where, io, (invoke) => {
    const run = async <N extends OperationName>(name: N, input: Input<N>): Promise<Output<N>> => {
      const { result } = await invoke(name, input)
      if (!result.ok) throw refusal(result.error, flags)
      return result.value as Output<N>
    }
    return fn(run)
  })

/** Runs one operation as the local operator; a refusal throws. */
export const operate = <N extends OperationName>(where: StoreFlags, io: CliIo, name: N, input: Input<N>, flags?: Record<string, string>) =>
  operating(where, io, (run) => run(name, input), flags)

/**
 * The gateway running on the data dir, as an operator reaches it over its management API (with
 * the token it announced), or null when none runs there. Its answers come from its own process:
 * its environment, its keychain, its connections.
 */
export function runningOperator(where: StoreFlags, io: CliIo): { url: string; run: Operate } | null {
  const running = findRunning(resolveConfig(storeOverrides(where), io.env).dataDir)
  if (!running) return null
  const run = async <N extends OperationName>(name: N, input: Input<N>): Promise<Output<N>> => {
    const res = await fetch(`${running.url}/api/${name}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [OPERATOR_HEADER]: running.operator_token },
      body: JSON.stringify(input),
    })
    const body = (await res.json()) as Output<N> | { error: ContractError }
    if (!res.ok) throw refusal((body as { error: ContractError }).error)
    return body as Output<N>
  }
  return { url: running.url, run }
}
