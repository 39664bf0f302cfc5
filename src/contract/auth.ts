import { z } from 'zod'
import { op } from './op'
import { empty, ok, time } from './common'

export const role = z.enum(['admin', 'member'])
export const username = z
  .string()
  .trim()
  .regex(/^[a-zA-Z0-9._@-]{2,64}$/, 'use 2–64 letters, digits, ., _, @ or -')
export const password = z.string().min(10, 'must be at least 10 characters').max(200)

export const user = z.object({ id: z.string(), username: z.string(), role, created_at: time })
export type User = z.infer<typeof user>

export const authOps = {
  'auth.status': op({
    summary: 'Whether first-run setup is needed, and who is signed in',
    access: 'public',
    input: empty,
    output: z.object({ setup_required: z.boolean(), user: user.nullable() }),
  }),
  'auth.setup': op({
    summary: 'Create the owner account on first run (refused once any user exists) and sign in',
    access: 'public',
    input: z.object({ username, password }).strict(),
    output: user,
  }),
  'auth.signIn': op({
    summary: 'Sign in; attempts are throttled per user name and client',
    access: 'public',
    input: z.object({ username: z.string().max(64), password: z.string().max(200), remember: z.boolean().default(false) }).strict(),
    output: user,
  }),
  'auth.signOut': op({ summary: 'End this session', access: 'user', input: empty, output: ok }),
  'users.list': op({ summary: 'All users', access: 'admin', input: empty, output: z.array(user) }),
  'users.create': op({
    summary: 'Add a user',
    access: 'admin',
    input: z.object({ username, password, role }).strict(),
    output: user,
  }),
  'users.remove': op({
    summary: 'Remove a user, ending their sessions (the last admin cannot be removed)',
    access: 'admin',
    input: z.object({ id: z.string() }).strict(),
    output: ok,
  }),
}
