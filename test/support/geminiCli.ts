/**
 * The real Gemini CLI (`@google/gemini-cli`, installed for tests by agentCli) run once in headless
 * mode, `gemini -p PROMPT --yolo`, against a base URL speaking Google's generateContent API (the
 * gateway, or fake-gemini directly) as a user sets it up: `GOOGLE_GEMINI_BASE_URL` and
 * `GEMINI_API_KEY`, in a fresh home whose settings pick the API-key sign-in.
 *
 * Offline: with the settings below it connects to nothing but the base URL (seen with strace).
 * Without `privacy.usageStatisticsEnabled: false` it resolves play.googleapis.com (its usage
 * statistics); without `security.auth.selectedType` it stops with "Invalid auth method selected."
 * (exit 41); without the folder trusted (here: folder trust off) it refuses to run headless (exit 55).
 *
 * What 0.61.0 sends, seen against fake-gemini: `POST {base}/v1beta/models/{model}:streamGenerateContent?alt=sse`
 * for each turn (the model as given with `-m`, slashes unencoded: `models/openai/gpt-4o-mini:…`);
 * without `-m` first one `:generateContent` to `gemini-3.5-flash-lite` (the router: a JSON answer
 * with a schema, `{complexity_reasoning, complexity_score}`) per prompt, then flash
 * (`gemini-3.8-flash`) or pro (`gemini-3.1-pro-preview-customtools`). Headers: `x-goog-api-key`,
 * `user-agent: GeminiCLI-tui/0.61.0/<model> (linux; x64; terminal)`, `x-goog-api-client:
 * google-genai-sdk/1.30.0 gl-node/<node>`, no session header. No countTokens (only for prompts
 * with media), no model list, no embeddings. Errors go to stderr, exit 1: 400, 401, 403 and 404
 * at once; 429 and 5xx retried (5 s, doubling, at most 30 s; a 429's RetryInfo only lengthens it)
 * up to `general.maxAttempts` attempts (default 10: about 4 minutes; set it for short tests). A
 * daily-quota 429 is final. It never switches model on a 429 with an API key.
 */
import fs from 'node:fs'
import path from 'node:path'
import { agentCli, runAsync, type AgentCli } from './agentCli'
import { tempDir } from './tempDir'

export const GEMINI_CLI = { pkg: '@google/gemini-cli', version: '0.61.0', bin: 'gemini' }

/** The pinned Gemini CLI, installed on first use, or why it cannot be (tests skip with that). */
export const geminiCli = (): Promise<AgentCli> => agentCli(GEMINI_CLI.pkg, GEMINI_CLI.version, GEMINI_CLI.bin)

const SETTINGS = {
  // An API key from the environment, not a Google sign-in in a browser.
  security: { auth: { selectedType: 'gemini-api-key' }, folderTrust: { enabled: false } },
  privacy: { usageStatisticsEnabled: false },
  telemetry: { enabled: false },
  general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
  ide: { enabled: false },
}

export interface GeminiCliRun {
  code: number | null
  stdout: string
  stderr: string
  timedOut: boolean
  elapsedMs: number
}

/**
 * `gemini -p PROMPT --yolo [-m MODEL] ...args` in a fresh home (removed afterwards), its working
 * folder `cwd` or an empty one in that home. `settings` are merged over the defaults above,
 * one level deep.
 */
export async function runGeminiCli(
  bin: string,
  opts: {
    baseUrl: string
    apiKey: string
    prompt: string
    model?: string
    args?: string[]
    cwd?: string
    settings?: Record<string, Record<string, unknown>>
    env?: Record<string, string>
    timeoutMs?: number
  },
): Promise<GeminiCliRun> {
  const home = tempDir('gw-gemini-home-')
  try {
    const settings: Record<string, unknown> = { ...SETTINGS }
    for (const [section, values] of Object.entries(opts.settings ?? {})) {
      settings[section] = { ...(SETTINGS as Record<string, object>)[section], ...values }
    }
    fs.mkdirSync(path.join(home, '.gemini'))
    fs.writeFileSync(path.join(home, '.gemini', 'settings.json'), JSON.stringify(settings, null, 2))
    const cwd = opts.cwd ?? path.join(home, 'work')
    fs.mkdirSync(cwd, { recursive: true })
    const args = ['-p', opts.prompt, '--yolo', ...(opts.model ? ['-m', opts.model] : []), ...(opts.args ?? [])]
    const started = Date.now()
    const run = await runAsync(bin, args, {
      cwd,
      timeoutMs: opts.timeoutMs ?? 90_000,
      env: {
        PATH: process.env.PATH,
        HOME: home,
        TMPDIR: home,
        GOOGLE_GEMINI_BASE_URL: opts.baseUrl,
        GEMINI_API_KEY: opts.apiKey,
        // It would otherwise start itself again as a child with a larger heap, which a timeout's
        // kill of this process would leave running.
        GEMINI_CLI_NO_RELAUNCH: 'true',
        NO_COLOR: '1',
        ...opts.env,
      },
    })
    return { ...run, elapsedMs: Date.now() - started }
  } finally {
    fs.rmSync(home, { recursive: true, force: true })
  }
}
