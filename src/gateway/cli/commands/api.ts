import os from 'node:os'
import { operations } from '../../../contract'
import type { PlaygroundEvent } from '../../../contract/playground'
import { AdminService, type Invocation } from '../../admin/adminService'
import { VERSION } from '../../app'
import { resolveConfig } from '../../config'
import { Gateway } from '../../gateway'
import { parse, table, type CliIo, type Command } from '../shared'

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
  const { result } = await invokeAsOperator(values['data-dir'], io, name, input, (event) => io.out(JSON.stringify(event)))
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
export async function withOperator<T>(dataDir: string | undefined, io: CliIo, fn: (invoke: Invoke) => Promise<T>): Promise<T> {
  const config = resolveConfig({ dataDir, port: 0 }, io.env)
  const gw = new Gateway({ config, env: io.env, secrets: io.secrets })
  try {
    const admin = new AdminService(gw, { base_url: `http://${config.host}:${config.port}/v1`, version: VERSION, data_dir: config.dataDir, log_file: config.logFile })
    const operator = { id: 'operator', username: `cli:${os.userInfo().username}`, role: 'admin' as const, created_at: 0 }
    return await fn((name, input, onEvent) => admin.invoke(name, input, { user: operator, sessionToken: null, address: 'local', operator: true }, onEvent))
  } finally {
    await gw.close()
  }
}

type Operate = <T>(name: string, input: unknown) => Promise<T>

/** Runs operations as the local operator, on one open store; a refusal throws, naming the field the contract found wrong. */
export const operating = <R>(dataDir: string | undefined, io: CliIo, fn: (operate: Operate) => Promise<R>) =>
  withOperator(dataDir, io, (invoke) =>
    fn(async <T>(name: string, input: unknown) => {
      const { result } = await invoke(name, input)
      if (!result.ok) throw new Error(result.error.field ? `${result.error.field}: ${result.error.message}` : result.error.message)
      return result.value as T
    }),
  )

/** Runs one management operation as the local operator. */
export const invokeAsOperator = (dataDir: string | undefined, io: CliIo, name: string, input: unknown, onEvent?: (event: PlaygroundEvent) => void) =>
  withOperator(dataDir, io, (invoke) => invoke(name, input, onEvent))
