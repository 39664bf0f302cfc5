import type { z } from 'zod'
import type { OperationName, Operations, Output, StreamingName } from '../../../contract'
import type { AdminContext } from '../context'

/** Input as the contract's schema parsed it (defaults applied). */
export type ParsedInput<N extends OperationName> = z.output<Operations[N]['input']>

/** One handler per operation; streaming ones emit their events through the context and return nothing. */
export type Handlers<K extends OperationName> = {
  [N in K]: (ctx: AdminContext, input: ParsedInput<N>) => N extends StreamingName ? Promise<void> : Promise<Output<N>> | Output<N>
}
