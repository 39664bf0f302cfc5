import { defaultIo, type CliIo, type Command } from './shared'
import { serve } from './commands/serve'
import { keysCreate, keysDeleteResponses, keysList, keysRevoke, keysUpdate } from './commands/keys'
import { presetsDelete, presetsList, presetsSet, presetsShow } from './commands/presets'
import { balanceAdjust, balanceShow, balanceTopUp } from './commands/balance'
import { providersList, providersRemove, providersSet, providersTest } from './commands/providers'
import { pricesList, pricesRefresh, pricesRemove, pricesReprice, pricesSet } from './commands/prices'
import { requestsList, requestsShow } from './commands/requests'
import { sessionsList, sessionsShow } from './commands/sessions'
import { api } from './commands/api'
import { aliasesList, aliasesRemove, aliasesSet } from './commands/aliases'
import { storeCopy } from './commands/store'
import { secretsRotate, secretsStatus } from './commands/secrets'
import { cacheClear, cacheStats } from './commands/cache'

export type { CliIo }

const USAGE = `usage: gw <command> [options]   (every command takes --data-dir DIR, or --database-url postgres://… [--database-schema S]
                                 for a team's PostgreSQL store; --json where it prints data)

  serve [--host H] [--port P] [--allowed-hosts a,b] [--cors-origins o1,o2] [--upstream-connections N]
        [--request-timeout S] [--headers-timeout S]              seconds a client has to send a request, its headers
        [--log-level fatal|error|warn|info|debug|trace|silent] [--log-file FILE]   log: JSON lines (pretty in a terminal)
        [--log-max-size SIZE] [--log-keep N]                     a log file rotates at SIZE (default 10M; 0: never),
                                                                 keeping N rotated files (default 5): FILE.1 … FILE.N
        [--instance-name NAME]                                   the name its request records carry (default host:port)
        [--max-queued-records N] [--max-queued-records-mb MB]   records held while the store is unreachable
                                                                 (default 100000, 256 MB); beyond them: 503
        [--response-cache-mb MB]                                 what the response cache keeps in all (default 256)
        [--metrics | --metrics-port P] [--metrics-token T]       Prometheus /metrics (off by default): on this port, or on
                                                                 127.0.0.1:P; T: scrapes send Authorization: Bearer T
        [--trace-propagate]                                      with tracing on (OTEL_EXPORTER_OTLP_ENDPOINT), send each
                                                                 attempt's traceparent on to the provider

  keys create --name NAME [--balance USD] [key settings]     print the new key (shown once)
  keys update KEY [key settings]                             KEY: id, name or gw- prefix; "none" clears a setting
  keys list
  keys revoke KEY
  keys delete-responses KEY                                  delete the Responses kept for KEY (answered through a provider
                                                             of another wire); clients can no longer continue them
    key settings: --default-preset P  --allow-models a,b*  --allow-providers p1,p2  --preset-only | --no-preset-only
                  --max-tokens N  --max-cost-usd USD  --rpm N  --daily-limit USD  --monthly-limit USD
                  --cache-ttl 1h (the response cache for deterministic requests; none: off)
                  --max-session-usd USD  --max-session-requests N   per session id, requests in flight included
                  --soft-cap-model M --soft-cap-at PERCENT          send requests to M from PERCENT of a spend limit

  presets set NAME --model M [--system TEXT] [--temperature T] [--max-tokens N] [--top-p P]
              [--fallbacks m1,m2] [--description TEXT]       creates or replaces (a new version)
              [--cache-ttl 1h] [--cache-shared]              the response cache for its deterministic requests,
                                                             its answers shared by every key using it
              [--soft-cap-model M --soft-cap-at PERCENT]     M once a key's spend limit is at PERCENT
              [--equal-candidates]                           the model and fallbacks are equals: spread across,
                                                             a session held on the one holding its cache
  presets list
  presets show NAME                                          versions and the keys using it
  presets delete NAME

  aliases set PATTERN --to TARGET [--note TEXT]              send requested models matching PATTERN (* is any run of
                                                             characters) to PROVIDER/MODEL, a catalog model or policy/PRESET
  aliases list
  aliases remove PATTERN

  balance top-up KEY USD [--note TEXT]
  balance adjust KEY USD --note TEXT                         negative to take away
  balance show KEY [--limit N]                               balance and ledger

  providers set ID [--kind openai|anthropic|gemini] [--base-url URL] [--api-key-stdin]
                [--connect-timeout-ms N] [--first-byte-timeout-ms N] [--idle-timeout-ms N]
                [--wire chat|responses|both]                 kind openai: the OpenAI APIs it serves
                [--dialect openai|gemini|xai|generic]        kind openai: whose quirks it has (unset: its base URL's host's)
  providers test ID [--timeout-ms N]                         the cheapest real call: latency or the exact error (made by
                                                             the gateway running on the data dir, if one is, with its key)
  providers list
  providers remove ID

  secrets status                                             where provider keys are kept; on PostgreSQL, the key id each
                                                             stored key is encrypted under (GW_SECRET_KEY's is shown)
  secrets rotate --new-key-stdin                             re-encrypt every provider key in the database under the key
                                                             on stdin (base64 of 32 bytes; GW_SECRET_KEY is the current)

  prices set PROVIDER/MODEL [--file ROW.json|-] [--input USD] [--output USD] [--cached-input USD] [--cache-write USD]
             [--cache-write-1h USD] [--context N] [--max-output N] [--as-of DATE] [--note TEXT]
                                                             a whole price row (long_context, schedule, peak in --file)
  prices list
  prices remove PROVIDER/MODEL
  prices reprice --since DATE [--model M] [--dry-run] [--batch N]
                                                             recompute stored costs with today's prices (prepaid keys
                                                             get the difference as a ledger adjustment)
  prices refresh [--source URL|none] [--yes]                 compare a price listing (OpenRouter's model list shape)
                                                             with the prices in force; --yes saves the differences as
                                                             overrides dated today (--source sets price_source_url)

  requests list [--limit N]
  requests show ID

  sessions list [--since 24h|7d|DATE] [--tool T] [--key KEY_ID] [--sort last|first|cost|requests|tokens] [--limit N]
                                                             coding-agent sessions: tool, key, requests, tokens, cost
  sessions show ID [--limit N] [--offset N]                  a session's requests in order, the cost accumulating

  cache stats [--since 24h|7d|DATE]                          the response cache: answers kept, hits and money saved;
                                                             the prompt cache's hit rate, saved and wasted over the period
  cache clear                                                delete every kept answer

  store copy --from-data-dir DIR --to postgres://… [--database-schema S]
                                                             copy a desktop's store (keys, users, presets, balances,
                                                             records…) into an empty PostgreSQL database, all or nothing

  api list                                                   every management operation
  api OPERATION [--input JSON | --input -]                   run one as the local operator (JSON out)

Prices are USD per 1M tokens.`

const commands: Record<string, Command> = {
  serve,
  'keys create': keysCreate,
  'keys update': keysUpdate,
  'keys list': keysList,
  'keys revoke': keysRevoke,
  'keys delete-responses': keysDeleteResponses,
  'presets set': presetsSet,
  'presets list': presetsList,
  'presets show': presetsShow,
  'presets delete': presetsDelete,
  'aliases set': aliasesSet,
  'aliases list': aliasesList,
  'aliases remove': aliasesRemove,
  'balance top-up': balanceTopUp,
  'balance adjust': balanceAdjust,
  'balance show': balanceShow,
  'providers set': providersSet,
  'providers list': providersList,
  'providers remove': providersRemove,
  'providers test': providersTest,
  'secrets status': secretsStatus,
  'secrets rotate': secretsRotate,
  'prices set': pricesSet,
  'prices list': pricesList,
  'prices remove': pricesRemove,
  'prices reprice': pricesReprice,
  'prices refresh': pricesRefresh,
  'requests list': requestsList,
  'requests show': requestsShow,
  'sessions list': sessionsList,
  'sessions show': sessionsShow,
  'store copy': storeCopy,
  'cache stats': cacheStats,
  'cache clear': cacheClear,
}

export async function runCli(argv: string[], io: CliIo = defaultIo()): Promise<number> {
  const [group, action, ...rest] = argv
  if (!group || ['help', '--help', '-h'].includes(group)) {
    io.out(USAGE)
    return group ? 0 : 2
  }
  if (group === 'serve') return serve(argv.slice(1), io)
  if (group === 'api') return api(argv.slice(1), io)
  const command = commands[`${group} ${action ?? ''}`]
  if (!command) {
    io.err(`gw: unknown command "${`${group} ${action ?? ''}`.trim()}"\n\n${USAGE}`)
    return 2
  }
  return command(rest, io)
}
