import type Database from 'better-sqlite3'
import { postgresBaseline } from './postgres/schema'
import { countersWithGeminiCounts, exactCountersFromRecords, sharedLimitsSchema, softCapAdmission } from './postgres/sharedLimitsSchema'

export interface Migration {
  version: number
  description: string
  /** The change on SQLite. */
  up(db: Database.Database): void
  /**
   * The change on PostgreSQL, one script run in a transaction; absent before version 13, which
   * creates the whole schema (the PostgreSQL store began there). Every later migration has both.
   */
  postgres?: string
}

/**
 * Saving a key for the built-in gemini stored a row of its kind then, openai, whose base URL
 * (null: the built-in's) was Google's OpenAI layer; the kind gemini reaches that layer itself, under
 * Google's version root. Wire and dialect are settings of kind openai alone. A row pointing
 * elsewhere (a proxy speaking only the OpenAI layer) is the user's choice and keeps its kind and
 * address; the gemini dialect it had from the built-in (which has none now) becomes its own.
 */
const BUILTIN_GEMINI_TO_ITS_KIND = `
  UPDATE providers SET kind = 'gemini', base_url = NULL, wire = NULL, dialect = NULL
  WHERE id = 'gemini' AND kind = 'openai' AND (base_url IS NULL OR base_url IN (
    'https://generativelanguage.googleapis.com/v1beta/openai',
    'https://generativelanguage.googleapis.com/v1beta/openai/'
  ));
  UPDATE providers SET dialect = 'gemini' WHERE id = 'gemini' AND kind = 'openai' AND dialect IS NULL;
`

/**
 * One numbered list for both engines. Append-only: a released migration is never edited, a
 * change is a new entry. Times are Unix milliseconds. Attribution columns and the tag/dimension tables exist so that requests can be
 * filtered and grouped through indexes rather than by scanning JSON.
 */
export const migrations: Migration[] = [
  {
    version: 1,
    description: 'keys, providers, price overrides, request records with attribution indexes',
    up(db) {
      db.exec(`
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        INSERT INTO meta (key, value) VALUES ('config_rev', '0');

        CREATE TABLE keys (
          id TEXT PRIMARY KEY,
          name TEXT NOT NULL,
          lookup TEXT NOT NULL,
          hash TEXT NOT NULL UNIQUE,
          last4 TEXT NOT NULL,
          created_at INTEGER NOT NULL,
          revoked_at INTEGER,
          last_used_at INTEGER
        );
        CREATE INDEX keys_lookup ON keys (lookup);

        CREATE TABLE providers (
          id TEXT PRIMARY KEY,
          kind TEXT NOT NULL,
          base_url TEXT,
          created_at INTEGER NOT NULL,
          updated_at INTEGER NOT NULL
        );

        CREATE TABLE price_overrides (
          model TEXT PRIMARY KEY,
          input REAL NOT NULL,
          output REAL,
          cached_input REAL,
          cache_write REAL,
          context_length INTEGER,
          note TEXT,
          updated_at INTEGER NOT NULL
        );

        CREATE TABLE requests (
          id TEXT PRIMARY KEY,
          created_at INTEGER NOT NULL,
          endpoint TEXT NOT NULL,
          status INTEGER NOT NULL,
          outcome TEXT NOT NULL,
          key_id TEXT,
          model TEXT,
          preset TEXT,
          preset_version INTEGER,
          provider TEXT,
          upstream_model TEXT,
          stream INTEGER NOT NULL DEFAULT 0,
          user_id TEXT,
          trace_id TEXT,
          session_id TEXT,
          prompt_tokens INTEGER,
          completion_tokens INTEGER,
          cost_usd REAL,
          priced INTEGER NOT NULL DEFAULT 0,
          latency_ms INTEGER,
          error_code TEXT,
          detail TEXT NOT NULL
        );
        CREATE INDEX requests_created ON requests (created_at);
        CREATE INDEX requests_key ON requests (key_id, created_at);
        CREATE INDEX requests_model ON requests (model, created_at);
        CREATE INDEX requests_provider ON requests (provider, created_at);
        CREATE INDEX requests_user ON requests (user_id, created_at) WHERE user_id IS NOT NULL;
        CREATE INDEX requests_trace ON requests (trace_id, created_at) WHERE trace_id IS NOT NULL;
        CREATE INDEX requests_session ON requests (session_id, created_at) WHERE session_id IS NOT NULL;

        CREATE TABLE request_tags (
          request_id TEXT NOT NULL REFERENCES requests (id) ON DELETE CASCADE,
          tag TEXT NOT NULL,
          created_at INTEGER NOT NULL,
          PRIMARY KEY (tag, created_at, request_id)
        ) WITHOUT ROWID;
        CREATE INDEX request_tags_request ON request_tags (request_id);

        CREATE TABLE request_dimensions (
          request_id TEXT NOT NULL REFERENCES requests (id) ON DELETE CASCADE,
          name TEXT NOT NULL,
          value TEXT NOT NULL,
          created_at INTEGER NOT NULL,
          PRIMARY KEY (name, value, created_at, request_id)
        ) WITHOUT ROWID;
        CREATE INDEX request_dimensions_request ON request_dimensions (request_id);
      `)
    },
  },
  {
    version: 2,
    description: 'presets with versions, key default preset, policy and spend limits, balance ledger',
    up(db) {
      db.exec(`
        CREATE TABLE presets (
          name TEXT PRIMARY KEY,
          version INTEGER NOT NULL,
          created_at INTEGER NOT NULL,
          updated_at INTEGER NOT NULL,
          deleted_at INTEGER
        );
        CREATE TABLE preset_versions (
          name TEXT NOT NULL,
          version INTEGER NOT NULL,
          model TEXT NOT NULL,
          system_prompt TEXT,
          temperature REAL,
          max_tokens INTEGER,
          top_p REAL,
          fallbacks TEXT NOT NULL DEFAULT '[]',
          description TEXT,
          created_at INTEGER NOT NULL,
          created_by TEXT,
          PRIMARY KEY (name, version)
        ) WITHOUT ROWID;

        ALTER TABLE keys ADD COLUMN default_preset TEXT;
        ALTER TABLE keys ADD COLUMN policy TEXT NOT NULL DEFAULT '{}';
        ALTER TABLE keys ADD COLUMN prepaid INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE keys ADD COLUMN daily_limit_usd REAL;
        ALTER TABLE keys ADD COLUMN monthly_limit_usd REAL;
        CREATE INDEX keys_default_preset ON keys (default_preset) WHERE default_preset IS NOT NULL;

        -- Amounts in pico-dollars (1e-12 USD): costs are exact to the token and a key's balance is
        -- exactly the sum of its entries.
        CREATE TABLE ledger (
          id INTEGER PRIMARY KEY,
          key_id TEXT NOT NULL REFERENCES keys (id),
          created_at INTEGER NOT NULL,
          amount_pico INTEGER NOT NULL,
          kind TEXT NOT NULL CHECK (kind IN ('top_up', 'adjustment', 'usage')),
          request_id TEXT,
          actor TEXT NOT NULL,
          note TEXT
        );
        CREATE INDEX ledger_key ON ledger (key_id, created_at);
        CREATE INDEX requests_key_cost ON requests (key_id, created_at, cost_usd);
      `)
    },
  },
  {
    version: 3,
    description: 'per-provider timeouts',
    up(db) {
      db.exec(`ALTER TABLE providers ADD COLUMN timeouts TEXT NOT NULL DEFAULT '{}'`)
    },
  },
  {
    version: 4,
    description: 'users and sessions, settings, key owners, request source, logged bodies',
    up(db) {
      db.exec(`
        CREATE TABLE users (
          id TEXT PRIMARY KEY,
          username TEXT NOT NULL UNIQUE COLLATE NOCASE,
          password_hash TEXT NOT NULL,
          role TEXT NOT NULL CHECK (role IN ('admin', 'member')),
          created_at INTEGER NOT NULL
        );
        -- Only a hash of the session token is stored: a copied store opens no session.
        CREATE TABLE sessions (
          token_hash TEXT PRIMARY KEY,
          user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
          created_at INTEGER NOT NULL,
          expires_at INTEGER NOT NULL
        );
        CREATE INDEX sessions_user ON sessions (user_id);

        CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);

        ALTER TABLE keys ADD COLUMN owner_id TEXT REFERENCES users (id) ON DELETE SET NULL;
        CREATE INDEX keys_owner ON keys (owner_id);

        ALTER TABLE requests ADD COLUMN source TEXT NOT NULL DEFAULT 'api';
        ALTER TABLE requests ADD COLUMN total_tokens INTEGER;
        UPDATE requests SET total_tokens = COALESCE(prompt_tokens, 0) + COALESCE(completion_tokens, 0) WHERE prompt_tokens IS NOT NULL;
        CREATE INDEX requests_status ON requests (status, created_at);
        CREATE INDEX requests_preset ON requests (preset, created_at) WHERE preset IS NOT NULL;

        CREATE TABLE request_bodies (
          request_id TEXT PRIMARY KEY REFERENCES requests (id) ON DELETE CASCADE,
          request TEXT,
          response TEXT
        );
      `)
    },
  },
  {
    version: 5,
    description: 'covering index for analytics over a time range',
    up(db) {
      // Analytics read these columns for every request in a range; covering them halves overview
      // and group-by times at 100k records (bench/requests-screen.ts). It starts with created_at,
      // so the plain created_at index is redundant.
      db.exec(`
        CREATE INDEX requests_analytics ON requests
          (created_at, outcome, cost_usd, prompt_tokens, completion_tokens, latency_ms, model, key_id, provider);
        DROP INDEX requests_created;
      `)
    },
  },
  {
    version: 6,
    description: 'drop the key index that the key-and-cost index covers',
    up(db) {
      // requests_key_cost starts with the same columns, so it serves every lookup requests_key
      // did; each index is one more B-tree write per recorded request.
      db.exec(`DROP INDEX requests_key`)
    },
  },
  {
    version: 7,
    description: 'model aliases: a glob over requested model ids and where it sends them',
    up(db) {
      db.exec(`
        CREATE TABLE aliases (
          pattern TEXT PRIMARY KEY,
          target TEXT NOT NULL,
          note TEXT,
          created_at INTEGER NOT NULL,
          updated_at INTEGER NOT NULL
        );
      `)
    },
  },
  {
    version: 8,
    description: 'analytics covering index carries the endpoint',
    up(db) {
      // Analytics leave out free token counts (endpoint messages.count_tokens); with the endpoint
      // in the covering index they still read no table row. Last column, so every use of the old
      // index's leading columns is served as before.
      db.exec(`
        DROP INDEX requests_analytics;
        CREATE INDEX requests_analytics ON requests
          (created_at, outcome, cost_usd, prompt_tokens, completion_tokens, latency_ms, model, key_id, provider, endpoint);
      `)
    },
  },
  {
    version: 9,
    description: 'the OpenAI wires a provider serves; the provider id of a stored Responses answer',
    up(db) {
      // Null: the provider's default (built-ins know theirs; an added provider serves chat).
      db.exec(`ALTER TABLE providers ADD COLUMN wire TEXT`)
      // Only Responses answers the provider stored have one: the partial index costs other records nothing.
      db.exec(`
        ALTER TABLE requests ADD COLUMN upstream_id TEXT;
        CREATE INDEX requests_upstream_id ON requests (upstream_id) WHERE upstream_id IS NOT NULL;
      `)
    },
  },
  {
    version: 10,
    description: 'price overrides as full price rows, holiday calendar overrides, a cost history per request',
    up(db) {
      // An override keeps the catalog's whole shape (1-hour writes, long-context tier, schedule,
      // peak hours) as JSON checked by the contract's schema; the old four rates move into it.
      db.exec(`
        CREATE TABLE price_rows (
          model TEXT PRIMARY KEY,
          row TEXT NOT NULL,
          as_of TEXT NOT NULL,
          note TEXT,
          updated_at INTEGER NOT NULL
        );
        CREATE TABLE price_calendars (
          name TEXT PRIMARY KEY,
          calendar TEXT NOT NULL,
          updated_at INTEGER NOT NULL
        );
        -- Each repricing of a request keeps the figure it replaced, newest last.
        CREATE TABLE request_costs (
          id INTEGER PRIMARY KEY,
          request_id TEXT NOT NULL REFERENCES requests (id) ON DELETE CASCADE,
          repriced_at INTEGER NOT NULL,
          old_cost_usd REAL,
          old_priced INTEGER NOT NULL,
          old_cost TEXT,
          new_cost_usd REAL,
          actor TEXT NOT NULL
        );
        CREATE INDEX request_costs_request ON request_costs (request_id, repriced_at);
      `)
      const old = db.prepare(`SELECT * FROM price_overrides`).all() as Array<{
        model: string
        input: number
        output: number | null
        cached_input: number | null
        cache_write: number | null
        context_length: number | null
        note: string | null
        updated_at: number
      }>
      const insert = db.prepare(`INSERT INTO price_rows (model, row, as_of, note, updated_at) VALUES (?, ?, ?, ?, ?)`)
      for (const o of old) {
        const row: Record<string, number> = { input: o.input }
        if (o.output !== null) row.output = o.output
        if (o.cached_input !== null) row.cached_input = o.cached_input
        if (o.cache_write !== null) row.cache_write = o.cache_write
        if (o.context_length !== null) row.context_length = o.context_length
        insert.run(o.model, JSON.stringify(row), new Date(o.updated_at).toISOString().slice(0, 10), o.note, o.updated_at)
      }
      db.exec(`DROP TABLE price_overrides`)
    },
  },
  {
    version: 11,
    description: 'the tool that sent a request and whether its session was derived; session list and timeline read indexes only',
    up(db) {
      // The session list groups a time range's requests by session, tool and key: with the
      // session and the tool at the end of the analytics index it reads no table row (nor does
      // Overview by tool). The session index covers what a session's totals sum, so a session of
      // thousands of requests is summed from its index range alone.
      db.exec(`
        ALTER TABLE requests ADD COLUMN source_tool TEXT;
        ALTER TABLE requests ADD COLUMN session_derived INTEGER NOT NULL DEFAULT 0;
        DROP INDEX requests_analytics;
        CREATE INDEX requests_analytics ON requests
          (created_at, outcome, cost_usd, prompt_tokens, completion_tokens, latency_ms, model, key_id, provider, endpoint, session_id, source_tool);
        DROP INDEX requests_session;
        CREATE INDEX requests_session ON requests
          (session_id, created_at, key_id, source_tool, model, provider, outcome, cost_usd, prompt_tokens, completion_tokens, session_derived)
          WHERE session_id IS NOT NULL;
      `)
    },
  },
  {
    version: 12,
    description: 'the service tier a request asked for and the one that served it',
    up(db) {
      // The tier served is the one billed (a `flex` request may be served at `default`); both
      // are kept so a difference between them can be found.
      db.exec(`
        ALTER TABLE requests ADD COLUMN service_tier_requested TEXT;
        ALTER TABLE requests ADD COLUMN service_tier TEXT;
      `)
    },
  },
  {
    version: 13,
    description: 'responses the gateway answered on a translated path, with their items, for previous_response_id and item_reference',
    postgres: postgresBaseline,
    up(db) {
      // A response keeps its own items only (the input it was sent, its output) and a link to the
      // response it continued: a conversation of n turns costs n turns, not n². `context` rows
      // hold what a removed ancestor contributed, copied in when it goes. The response object is
      // kept without its output, which its items hold.
      db.exec(`
        CREATE TABLE responses (
          id TEXT PRIMARY KEY,
          key_id TEXT NOT NULL,
          request_id TEXT NOT NULL,
          previous_response_id TEXT,
          created_at INTEGER NOT NULL,
          expires_at INTEGER NOT NULL,
          response TEXT NOT NULL
        );
        CREATE INDEX responses_key ON responses (key_id, created_at);
        CREATE INDEX responses_previous ON responses (previous_response_id) WHERE previous_response_id IS NOT NULL;
        CREATE INDEX responses_expiry ON responses (expires_at);
        CREATE TABLE response_items (
          response_id TEXT NOT NULL REFERENCES responses (id) ON DELETE CASCADE,
          seq INTEGER NOT NULL,
          id TEXT NOT NULL,
          part TEXT NOT NULL CHECK (part IN ('context', 'input', 'output')),
          item TEXT NOT NULL,
          PRIMARY KEY (response_id, seq)
        ) WITHOUT ROWID;
        CREATE INDEX response_items_id ON response_items (id);
      `)
    },
  },
  {
    version: 14,
    description: "keys' limits held in the database, for several gateways on one PostgreSQL",
    postgres: sharedLimitsSchema,
    up() {
      // One process serves a SQLite store: it holds limits in its memory, exactly, and needs no tables for them.
    },
  },
  {
    version: 15,
    description: 'the gateway that served each request; failed sign-ins counted in the store, across gateways',
    up(db) {
      // `instance` joins the end of the analytics index, so the instances a Requests filter
      // offers are grouped from the index alone, as tools are. Sign-in failures are keyed by a
      // hash of their throttle key: a user-name field sometimes holds a mistyped password.
      db.exec(`
        ALTER TABLE requests ADD COLUMN instance TEXT;
        DROP INDEX requests_analytics;
        CREATE INDEX requests_analytics ON requests
          (created_at, outcome, cost_usd, prompt_tokens, completion_tokens, latency_ms, model, key_id, provider, endpoint, session_id, source_tool, instance);
        CREATE TABLE sign_in_failures (
          id INTEGER PRIMARY KEY,
          throttle_key TEXT NOT NULL,
          at INTEGER NOT NULL
        );
        CREATE INDEX sign_in_failures_key ON sign_in_failures (throttle_key, at);
      `)
    },
    postgres: `
      ALTER TABLE requests ADD COLUMN instance text;
      DROP INDEX requests_analytics;
      CREATE INDEX requests_analytics ON requests
        (created_at, outcome, cost_usd, prompt_tokens, completion_tokens, latency_ms, model, key_id, provider, endpoint, session_id, source_tool, instance);
      CREATE TABLE sign_in_failures (
        id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
        throttle_key text NOT NULL,
        at bigint NOT NULL
      );
      CREATE INDEX sign_in_failures_key ON sign_in_failures (throttle_key, at);
    `,
  },
  {
    version: 16,
    description: 'provider keys on a PostgreSQL store, encrypted under GW_SECRET_KEY, each row naming the key it is under',
    // Only a PostgreSQL store writes rows here (a SQLite one keeps provider keys in the OS
    // keychain); SQLite has the table too so both engines keep one schema. Each part is base64
    // text, which both engines store and every dump prints the same way.
    up(db) {
      db.exec(`
        CREATE TABLE provider_secrets (
          provider_id TEXT PRIMARY KEY,
          key_id TEXT NOT NULL,
          nonce TEXT NOT NULL,
          ciphertext TEXT NOT NULL,
          tag TEXT NOT NULL,
          updated_at INTEGER NOT NULL
        );
      `)
    },
    postgres: `
      CREATE TABLE provider_secrets (
        provider_id text PRIMARY KEY,
        key_id text NOT NULL,
        nonce text NOT NULL,
        ciphertext text NOT NULL,
        tag text NOT NULL,
        updated_at bigint NOT NULL
      );
    `,
  },
  {
    version: 17,
    description: 'the dialect of the OpenAI wire a provider speaks, which its quirks follow',
    up(db) {
      // Null: the provider's default (a built-in's own, else its base URL's host).
      db.exec(`ALTER TABLE providers ADD COLUMN dialect TEXT`)
    },
    postgres: `ALTER TABLE providers ADD COLUMN dialect text`,
  },
  {
    version: 18,
    description: "the shared limits' counters start from the records' costs summed exactly, in whole pico-dollars",
    postgres: exactCountersFromRecords,
    up() {
      // SQLite holds limits in the gateway's memory, whose sums were made exact in the same change.
    },
  },
  {
    version: 19,
    description: "the built-in gemini's stored settings on its own kind, which speaks Google's native API beside its OpenAI layer",
    up(db) {
      db.exec(BUILTIN_GEMINI_TO_ITS_KIND)
    },
    postgres: BUILTIN_GEMINI_TO_ITS_KIND,
  },
  {
    version: 20,
    description: "a session's count leaves out Google's countTokens, as it does the other token counts",
    postgres: countersWithGeminiCounts,
    up() {
      // SQLite holds session limits in the gateway's memory, which reads isTokenCount.
    },
  },
  {
    version: 21,
    description:
      "the response cache: answers kept for repeats of the same upstream request, a key's and a preset's cache TTL, and which requests a cache answered",
    // `hash` is the SHA-256 of the request as it went upstream and the scope (the key) it is kept
    // for; `answer` is the provider's answer text as it came (JSON, or a stream's SSE text), which
    // both engines store byte for byte. A hit's record names the request that made the answer and
    // what it saved, in columns, so hits and savings are summed without reading JSON.
    up(db) {
      db.exec(`
        CREATE TABLE response_cache (
          hash TEXT PRIMARY KEY,
          scope TEXT NOT NULL,
          request_id TEXT NOT NULL,
          created_at INTEGER NOT NULL,
          expires_at INTEGER NOT NULL,
          bytes INTEGER NOT NULL,
          answer TEXT NOT NULL
        );
        CREATE INDEX response_cache_expiry ON response_cache (expires_at);
        CREATE INDEX response_cache_age ON response_cache (created_at);
        ALTER TABLE keys ADD COLUMN response_cache_ttl_s INTEGER;
        ALTER TABLE preset_versions ADD COLUMN response_cache_ttl_s INTEGER;
        ALTER TABLE preset_versions ADD COLUMN response_cache_shared INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE requests ADD COLUMN cache_hit_of TEXT;
        ALTER TABLE requests ADD COLUMN cache_saved_usd REAL;
      `)
    },
    postgres: `
      CREATE TABLE response_cache (
        hash text PRIMARY KEY,
        scope text NOT NULL,
        request_id text NOT NULL,
        created_at bigint NOT NULL,
        expires_at bigint NOT NULL,
        bytes bigint NOT NULL,
        answer text NOT NULL
      );
      CREATE INDEX response_cache_expiry ON response_cache (expires_at);
      CREATE INDEX response_cache_age ON response_cache (created_at);
      ALTER TABLE keys ADD COLUMN response_cache_ttl_s bigint;
      ALTER TABLE preset_versions ADD COLUMN response_cache_ttl_s bigint;
      ALTER TABLE preset_versions ADD COLUMN response_cache_shared integer NOT NULL DEFAULT 0;
      ALTER TABLE requests ADD COLUMN cache_hit_of text;
      ALTER TABLE requests ADD COLUMN cache_saved_usd double precision;
    `,
  },
  {
    version: 22,
    description: "soft caps: admission sends a request to a key's or preset's cheaper model when a spend limit is near, and its record says so",
    // A key's soft cap is part of its policy, stored as it is; a preset version's is a column (JSON).
    // SQLite holds spend limits in the gateway's memory. The requests column (the limit a request
    // switched at) is for the lists that show it.
    postgres: `${softCapAdmission}
      ALTER TABLE requests ADD COLUMN soft_cap text;
      ALTER TABLE preset_versions ADD COLUMN soft_cap text;`,
    up(db) {
      db.exec(`ALTER TABLE requests ADD COLUMN soft_cap TEXT; ALTER TABLE preset_versions ADD COLUMN soft_cap TEXT;`)
    },
  },
  {
    version: 23,
    description: "a preset's equal candidates: its model and fallbacks are equals, spread across and held per session",
    // A session's moves are in the record's JSON only: nothing filters or sums on them.
    up(db) {
      db.exec(`ALTER TABLE preset_versions ADD COLUMN equal_candidates INTEGER NOT NULL DEFAULT 0;`)
    },
    postgres: `ALTER TABLE preset_versions ADD COLUMN equal_candidates integer NOT NULL DEFAULT 0;`,
  },
  {
    version: 24,
    description: "each request's prompt-cache reads, writes and their money in columns, for the Overview's cache saved, wasted and hit rate",
    // Token counts are null where the cache doctor sees no turn (no usage from a provider, or a
    // response-cache replay); money is null where there is none. Records made before are filled
    // from their JSON. Reads, savings and the response cache's columns join the end of the
    // analytics index, so the Overview sums them without reading table rows; they are null or 0
    // on most records, which SQLite stores in the record header alone and PostgreSQL in its null
    // bitmap. Writes get a partial index covering what finding unread ones reads of them (40 % faster
    // than reading their rows), and the cache reads of requests without a session one where a
    // write's key finds them (at 1M records over 30 days, 55 ms instead of 850 ms of table rows,
    // bench/README.md): only the records that wrote, or read without a session, are in them.
    up(db) {
      db.exec(`
        ALTER TABLE requests ADD COLUMN cached_tokens INTEGER;
        ALTER TABLE requests ADD COLUMN cache_write_tokens INTEGER;
        ALTER TABLE requests ADD COLUMN cache_write_1h_tokens INTEGER;
        ALTER TABLE requests ADD COLUMN cache_savings_usd REAL;
        ALTER TABLE requests ADD COLUMN cache_write_usd REAL;
        UPDATE requests SET
          cached_tokens = COALESCE(json_extract(detail, '$.usage.cached_tokens'), 0),
          cache_write_tokens = COALESCE(json_extract(detail, '$.usage.cache_write_tokens'), 0),
          cache_write_1h_tokens = COALESCE(json_extract(detail, '$.usage.cache_write_1h_tokens'), 0)
        WHERE json_type(detail, '$.usage') = 'object' AND provider IS NOT NULL AND upstream_model IS NOT NULL AND cache_hit_of IS NULL;
        UPDATE requests SET cache_savings_usd = NULLIF(json_extract(detail, '$.cost.cache_savings_usd'), 0)
        WHERE json_type(detail, '$.cost.cache_savings_usd') IN ('integer', 'real');
        UPDATE requests SET cache_write_usd = json_extract(detail, '$.cost.cache_write_usd') WHERE cache_write_tokens > 0;
        DROP INDEX requests_analytics;
        CREATE INDEX requests_analytics ON requests
          (created_at, outcome, cost_usd, prompt_tokens, completion_tokens, latency_ms, model, key_id, provider, endpoint, session_id, source_tool, instance,
           cached_tokens, cache_savings_usd, cache_hit_of, cache_saved_usd);
        CREATE INDEX requests_cache_writes ON requests
          (created_at, session_id, key_id, provider, upstream_model, cached_tokens, cache_write_tokens, cache_write_1h_tokens, cache_write_usd)
          WHERE cache_write_tokens > 0;
        CREATE INDEX requests_cache_reads ON requests (key_id, provider, upstream_model, created_at, cached_tokens)
          WHERE cached_tokens > 0 AND session_id IS NULL;
      `)
    },
    postgres: `
      ALTER TABLE requests ADD COLUMN cached_tokens bigint;
      ALTER TABLE requests ADD COLUMN cache_write_tokens bigint;
      ALTER TABLE requests ADD COLUMN cache_write_1h_tokens bigint;
      ALTER TABLE requests ADD COLUMN cache_savings_usd double precision;
      ALTER TABLE requests ADD COLUMN cache_write_usd double precision;
      UPDATE requests SET
        cached_tokens = COALESCE((detail::json #>> '{usage,cached_tokens}')::bigint, 0),
        cache_write_tokens = COALESCE((detail::json #>> '{usage,cache_write_tokens}')::bigint, 0),
        cache_write_1h_tokens = COALESCE((detail::json #>> '{usage,cache_write_1h_tokens}')::bigint, 0)
      WHERE json_typeof(detail::json -> 'usage') = 'object' AND provider IS NOT NULL AND upstream_model IS NOT NULL AND cache_hit_of IS NULL;
      UPDATE requests SET cache_savings_usd = NULLIF((detail::json #>> '{cost,cache_savings_usd}')::double precision, 0)
      WHERE json_typeof(detail::json #> '{cost,cache_savings_usd}') = 'number';
      UPDATE requests SET cache_write_usd = (detail::json #>> '{cost,cache_write_usd}')::double precision WHERE cache_write_tokens > 0;
      DROP INDEX requests_analytics;
      CREATE INDEX requests_analytics ON requests
        (created_at, outcome, cost_usd, prompt_tokens, completion_tokens, latency_ms, model, key_id, provider, endpoint, session_id, source_tool, instance,
         cached_tokens, cache_savings_usd, cache_hit_of, cache_saved_usd);
      CREATE INDEX requests_cache_writes ON requests
        (created_at, session_id, key_id, provider, upstream_model, cached_tokens, cache_write_tokens, cache_write_1h_tokens, cache_write_usd)
        WHERE cache_write_tokens > 0;
      CREATE INDEX requests_cache_reads ON requests (key_id, provider, upstream_model, created_at, cached_tokens)
        WHERE cached_tokens > 0 AND session_id IS NULL;
    `,
  },
]
