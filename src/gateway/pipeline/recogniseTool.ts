/**
 * Which tool sent a request, and which of its sessions the request belongs to, from what the tool
 * sends anyway: coding agents name their session in headers (Codex's `session-id`, Claude Code's
 * `x-claude-code-session-id`) or in the body (Claude Code's `metadata.user_id`), and every client
 * names itself in `user-agent`. What is read here is derived by the gateway: the caller's own
 * `gw.session_id` or `X-Gw-Session-Id` always wins over it.
 */

/**
 * The headers read here, first value of each; the attribution pass over the headers fills it. A
 * class, so that every request's object has one shape: a plain object given these names as they
 * came cost ~1.5 µs per request more (dictionary properties).
 */
export class ToolHeaders {
  'user-agent': string | undefined = undefined
  originator: string | undefined = undefined
  'session-id': string | undefined = undefined
  'thread-id': string | undefined = undefined
  'x-codex-turn-metadata': string | undefined = undefined
  'x-claude-code-session-id': string | undefined = undefined
  'anthropic-beta': string | undefined = undefined
  'x-stainless-lang': string | undefined = undefined
  'x-stainless-package-version': string | undefined = undefined
}

/** The names of `ToolHeaders` (lower case). */
export const TOOL_HEADERS: ReadonlySet<string> = new Set(Object.keys(new ToolHeaders()))

/** As long as any attribution string may be (spec section 8). */
const MAX_LENGTH = 128

const bounded = (s: string | null | undefined): string | null => (s && s.length <= MAX_LENGTH ? s : null)

/** The official SDKs: `OpenAI/JS 6.1.0`, `Anthropic/Python 0.70.0`. */
const SDK = /^(OpenAI|Anthropic)\/(\w+) (\S+)/
/** Tools whose product token is not the name their users know them by. */
const KNOWN: Record<string, string> = { 'claude-cli': 'claude-code', GeminiCLI: 'gemini-cli' }

/** The name users know a tool by; Gemini CLI adds its client to its token (`GeminiCLI-tui`, `GeminiCLI-acp-vscode`). */
const knownName = (name: string): string => KNOWN[name] ?? (name.startsWith('GeminiCLI-') ? 'gemini-cli' : name)

/** The user agent's first product token as `name version` (`curl/8.5.0` → `curl 8.5.0`), named as users know it. */
function fromUserAgent(ua: string): string | null {
  const sdk = ua.startsWith('OpenAI/') || ua.startsWith('Anthropic/') ? SDK.exec(ua) : null
  if (sdk) return `${sdk[1].toLowerCase()}-${sdk[2].toLowerCase()} ${sdk[3]}`
  const trimmed = ua.trim()
  const space = trimmed.search(/\s/)
  const token = space < 0 ? trimmed : trimmed.slice(0, space)
  if (!token) return null
  // The version is the first segment after a slash that starts with a digit: a name may hold
  // slashes (`ai-sdk/openai/2.0.30`), and Gemini CLI puts its model after its version
  // (`GeminiCLI-tui/0.61.0/gemini-3.8-flash`).
  const segments = token.split('/')
  const at = segments.findIndex((seg, i) => i > 0 && /^\d/.test(seg))
  const name = at > 0 ? segments.slice(0, at).join('/') : token
  const version = at > 0 ? segments[at] : ''
  return `${knownName(name)}${version ? ` ${version}` : ''}`.slice(0, MAX_LENGTH)
}

/**
 * The tool, from `originator` (Codex), the user agent, Claude Code's beta flag or the SDKs'
 * `x-stainless-*` headers: `claude-code 2.1.330`, `codex_exec 0.169.0`, `openai-js 6.1.0`, or an
 * unknown tool's product token (`curl 8.5.0`); null when no header says.
 */
export function toolOf(h: ToolHeaders | null): string | null {
  if (!h) return null
  const ua = h['user-agent']
  const browser = ua === undefined || ua.startsWith('Mozilla/')
  if (h.originator) {
    // Codex's user agent begins with its originator and version: `codex_exec/0.169.0 (Debian…)`.
    const version = ua?.startsWith(`${h.originator}/`) ? ua.slice(h.originator.length + 1).split(/\s/, 1)[0] : ''
    return bounded(`${h.originator}${version ? ` ${version}` : ''}`)
  }
  if (!browser) return fromUserAgent(ua)
  if (h['anthropic-beta']?.includes('claude-code-')) return 'claude-code'
  // An SDK in a browser cannot set its user agent; its own headers still say what it is.
  if (h['x-stainless-lang'])
    return bounded(`stainless-${h['x-stainless-lang']}${h['x-stainless-package-version'] ? ` ${h['x-stainless-package-version']}` : ''}`)
  return ua === undefined ? null : 'browser'
}

/** Codex's session: its `session-id` header, else `thread-id`, else the one in its turn metadata (JSON). */
function codexSession(h: ToolHeaders): string | null {
  const direct = h['session-id'] ?? h['thread-id']
  if (direct !== undefined) return bounded(direct)
  const meta = h['x-codex-turn-metadata']
  if (meta === undefined) return null
  try {
    const session = (JSON.parse(meta) as { session_id?: unknown }).session_id
    return typeof session === 'string' ? bounded(session) : null
  } catch {
    return null
  }
}

/**
 * The session in Claude Code's `metadata.user_id`: a JSON string (`{"device_id":…,
 * "account_uuid":…,"session_id":"<uuid>"}`) since 2.1, `user_<hash>_account_<uuid>_session_<uuid>`
 * before. Null for any other value (a user id an SDK caller chose is not a session).
 */
export function sessionOfUserId(userId: unknown): string | null {
  if (typeof userId !== 'string') return null
  if (userId.startsWith('{')) {
    try {
      const session = (JSON.parse(userId) as { session_id?: unknown }).session_id
      return typeof session === 'string' ? bounded(session) : null
    } catch {
      return null
    }
  }
  const old = /_session_([\w-]+)$/.exec(userId)
  return old ? bounded(old[1]) : null
}

/**
 * The session the tool names: Claude Code's header, Codex's, or else the one `bodySession` reads
 * from the body (called only then, so a body field is parsed only where headers say nothing).
 */
export function toolSession(h: ToolHeaders | null, bodySession: (() => string | null) | null): string | null {
  return (h && (bounded(h['x-claude-code-session-id']) ?? codexSession(h))) ?? bodySession?.() ?? null
}
