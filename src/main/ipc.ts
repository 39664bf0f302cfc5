import { channelOf, operations, type OperationName, type Result } from '../contract'

export interface IpcMainLike {
  handle(channel: string, listener: (event: { senderFrame: { url: string } | null }, input: unknown) => Promise<unknown>): void
}

export type Handlers = { [N in OperationName]: (input: unknown) => Promise<unknown> }

/**
 * Registers exactly one handler per contract operation. Each checks that the call comes from the
 * app's own renderer and validates input and output against the contract before answering.
 */
export function registerIpc(ipcMain: IpcMainLike, handlers: Handlers, isOwnRenderer: (url: string) => boolean): void {
  for (const name of Object.keys(operations) as OperationName[]) {
    const op = operations[name]
    ipcMain.handle(channelOf(name), async (event, raw): Promise<Result<unknown>> => {
      if (!event.senderFrame || !isOwnRenderer(event.senderFrame.url)) {
        return { ok: false, error: { code: 'forbidden_sender', message: 'this window may not call the gateway' } }
      }
      const input = op.input.safeParse(raw ?? {})
      if (!input.success) {
        return { ok: false, error: { code: 'invalid_input', message: input.error.issues.map((i) => `${i.path.join('.') || 'input'}: ${i.message}`).join('; ') } }
      }
      try {
        return { ok: true, value: op.output.parse(await handlers[name](input.data)) }
      } catch (err) {
        return { ok: false, error: { code: 'failed', message: (err as Error).message } }
      }
    })
  }
}
