import type { z } from 'zod'

/**
 * Who may call an operation: anyone (sign-in, first-run setup), any signed-in user (members see
 * only their own keys and requests), or admins.
 */
export type Access = 'public' | 'user' | 'admin'

export interface Operation<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> {
  input: I
  output: O
  access: Access
  summary: string
  /** The answer is a stream of events (Playground); HTTP sends it as SSE, IPC as messages. */
  stream?: true
}

/** Keeps each operation's exact schema types (and `stream: true` as a literal) for inference. */
export const op = <T extends Operation>(o: T) => o
