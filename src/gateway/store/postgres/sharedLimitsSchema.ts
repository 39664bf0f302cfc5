/**
 * What several gateways on one database need to hold keys' limits together (migration 14): every
 * admission of a limited key is one call of `gw_admit`, which takes the key's row lock, checks
 * every limit against what all gateways committed and reserved, and reserves; `gw_settle` books
 * what the request cost and releases its reservation. SQLite keeps these in the one process's
 * memory and has no such tables.
 *
 * - `key_limits`: per key, the prepaid balance (kept equal to the sum of the key's ledger by a
 *   trigger, so any writer of the ledger keeps it right: a top-up, a debit, a batch's queued
 *   debit, a repricing, a copy) and the spend of the current UTC day and month.
 * - `session_limits`: per key and session, the requests admitted and the spend recorded.
 * - `limit_holds`: one row per request in flight that reserved money, by the gateway that holds
 *   it; `gateway_instances` says which gateways are alive (each writes `seen_at` every second),
 *   so the holds of a gateway that died are released.
 * - `rate_buckets`: admitted requests of a key with a request rate, per second, for the sliding minute.
 *
 * Times in these functions are the database's clock, so gateways whose clocks disagree still
 * share one minute; period starts come from the gateway (the request's own time, as its record has it).
 */

/**
 * The token counts' endpoints (a session's count leaves them out) as each migration wrote them:
 * literals, since a released migration never changes, whatever endpoints come later.
 */
const FIRST_TOKEN_COUNTS = `'messages.count_tokens', 'responses.input_tokens'`
const WITH_GEMINI_COUNTS = `'messages.count_tokens', 'responses.input_tokens', 'countTokens'`

/**
 * The parts of `gw_admit` every version of it has, word for word: the key's row lock, the check
 * that the counters it needs have started, and the request rate; `no` ends each refusal's row
 * (a version that answers more columns fills them with it).
 */
const admissionPrelude = (no: string) => `  -- The key's row lock orders every admission and settlement of the key, on every gateway: each
  -- statement after it reads what the one before committed.
  SELECT * INTO k FROM key_limits WHERE key_id = p_key FOR UPDATE;
  IF NOT FOUND THEN
    INSERT INTO key_limits (key_id) VALUES (p_key) ON CONFLICT (key_id) DO NOTHING;
    SELECT * INTO k FROM key_limits WHERE key_id = p_key FOR UPDATE;
  END IF;

  IF NOT p_may_start AND (
    (p_day_limit IS NOT NULL AND (k.day_start IS NULL OR k.day_start < p_day_start)) OR
    (p_month_limit IS NOT NULL AND (k.month_start IS NULL OR k.month_start < p_month_start)) OR
    (p_session IS NOT NULL AND NOT EXISTS (SELECT 1 FROM session_limits WHERE key_id = p_key AND session_id = p_session))
  ) THEN
    RETURN QUERY SELECT 'unstarted'::text, 0::bigint, 0::bigint${no};
    RETURN;
  END IF;

  -- The minute is counted in one-second buckets, the current one and the 60 before it: 61 rows
  -- at most whatever the rate, a span that holds every 60 s window ending now, so no 60 s ever
  -- admits more than the rate (a request may be refused up to a second before a millisecond
  -- count would take it). A request refused by a later limit has still taken its place in the
  -- minute, as on one gateway.
  IF p_rpm IS NOT NULL THEN
    DELETE FROM rate_buckets WHERE key_id = p_key AND second < now_ms / 1000 - 60;
    SELECT COALESCE(SUM(n), 0) INTO counted FROM rate_buckets WHERE key_id = p_key;
    IF counted >= p_rpm THEN
      -- The wait: until enough of the oldest buckets have left the span for one more request.
      FOR bucket IN SELECT second, n FROM rate_buckets WHERE key_id = p_key ORDER BY second LOOP
        counted := counted - bucket.n;
        IF counted < p_rpm THEN
          RETURN QUERY SELECT 'rpm'::text, (bucket.second + 61) * 1000 - now_ms, 0::bigint${no};
          RETURN;
        END IF;
      END LOOP;
    END IF;
    INSERT INTO rate_buckets AS r (key_id, second, n) VALUES (p_key, now_ms / 1000, 1)
      ON CONFLICT (key_id, second) DO UPDATE SET n = r.n + 1;
  END IF;
`

/** `gw_admit`'s start of a session's counter from the records, when the session is new. */
const sessionCounterStart = (sum: string, tokenCounts: string) => `      INSERT INTO session_limits (key_id, session_id, spent_pico, requests, used_at)
        SELECT p_key, p_session, ${sum} + p_unwritten_session, count(*) + p_unwritten_session_requests, now_ms
        FROM requests
        WHERE key_id = p_key AND session_id = p_session AND endpoint NOT IN (${tokenCounts})
        RETURNING * INTO s;
`

/** `gw_admit`'s roll of a key's day and month counters to the request's periods, started from the records. */
const periodRoll = `  IF p_day_limit IS NOT NULL AND (k.day_start IS NULL OR k.day_start < p_day_start) THEN
    k.day_start := p_day_start;
    k.day_pico := gw_spent_since(p_key, p_day_start) + p_unwritten_day;
    rolled := true;
  END IF;
  IF p_month_limit IS NOT NULL AND (k.month_start IS NULL OR k.month_start < p_month_start) THEN
    k.month_start := p_month_start;
    k.month_pico := gw_spent_since(p_key, p_month_start) + p_unwritten_month;
    rolled := true;
  END IF;
  IF rolled THEN
    UPDATE key_limits SET day_start = k.day_start, day_pico = k.day_pico, month_start = k.month_start, month_pico = k.month_pico
      WHERE key_id = p_key;
  END IF;
`

/**
 * The two functions that start a counter from the records (`gw_spent_since` for a key's day and
 * month, `gw_admit` for a session), with `sum` as the records' spend in pico-dollars. Migration 14
 * made them summing the USD costs as floats and rounding the total; migration 18 makes them again
 * turning each cost into pico-dollars before summing, so a counter starts exact to the pico.
 */
const countersFromRecords = (create: 'CREATE FUNCTION' | 'CREATE OR REPLACE FUNCTION', sum: string, tokenCounts = FIRST_TOKEN_COUNTS) => `
-- What a key's records say it spent since a time (records not yet written are not in it: the
-- counters below start from it once, and every settlement adds to them from then on).
${create} gw_spent_since(p_key text, p_since bigint) RETURNS bigint LANGUAGE sql STABLE AS $$
  SELECT ${sum} FROM requests WHERE key_id = p_key AND created_at >= p_since
$$;

-- Admits one request of a key or says why not: refusal is null when admitted, else one of rpm
-- (a: milliseconds to wait), session_requests (a: requests made), session_usd and
-- session_usd_request (a: spent, b: reserved), balance (a: balance, b: reserved), daily and
-- monthly (a: spent, b: reserved), or unstarted: a counter must start from the records and
-- p_may_start is false (nothing was done: the gateway commits what its record writer holds, then
-- calls again with p_may_start and what the writer still holds in p_unwritten_). A null limit is
-- not checked.
${create} gw_admit(
  p_request text, p_instance text, p_key text, p_rpm bigint,
  p_prepaid boolean, p_expected bigint,
  p_day_start bigint, p_day_limit bigint, p_month_start bigint, p_month_limit bigint,
  p_session text, p_session_requests bigint, p_session_limit bigint,
  p_unwritten_day bigint, p_unwritten_month bigint, p_unwritten_session bigint, p_unwritten_session_requests bigint,
  p_may_start boolean
) RETURNS TABLE (refusal text, a bigint, b bigint) LANGUAGE plpgsql AS $$
DECLARE
  k key_limits%ROWTYPE;
  s session_limits%ROWTYPE;
  now_ms bigint := gw_now_ms();
  counted bigint;
  bucket record;
  held bigint := 0;
  rolled boolean := false;
BEGIN
${admissionPrelude('')}
  IF p_session IS NOT NULL THEN
    SELECT * INTO s FROM session_limits WHERE key_id = p_key AND session_id = p_session;
    IF NOT FOUND THEN
${sessionCounterStart(sum, tokenCounts)}    END IF;
    IF p_session_requests IS NOT NULL AND s.requests >= p_session_requests THEN
      RETURN QUERY SELECT 'session_requests'::text, s.requests, 0::bigint;
      RETURN;
    END IF;
    IF p_session_limit IS NOT NULL THEN
      SELECT COALESCE(SUM(pico), 0) INTO held FROM limit_holds WHERE key_id = p_key AND session_id = p_session;
      IF s.spent_pico + held >= p_session_limit THEN
        RETURN QUERY SELECT 'session_usd'::text, s.spent_pico, held;
        RETURN;
      END IF;
      IF s.spent_pico + held + p_expected > p_session_limit THEN
        RETURN QUERY SELECT 'session_usd_request'::text, s.spent_pico, held;
        RETURN;
      END IF;
    END IF;
  END IF;

  IF p_prepaid OR p_day_limit IS NOT NULL OR p_month_limit IS NOT NULL THEN
    SELECT COALESCE(SUM(pico), 0) INTO held FROM limit_holds WHERE key_id = p_key;
  END IF;
  IF p_prepaid THEN
    IF k.balance_pico - held <= 0 THEN
      RETURN QUERY SELECT 'balance'::text, k.balance_pico, held;
      RETURN;
    END IF;
  END IF;

  -- A period's counter starts from the records when it begins (or when the limit is first used),
  -- and never goes back to an earlier period for a request that began before it.
${periodRoll}  IF p_day_limit IS NOT NULL AND k.day_pico + held >= p_day_limit THEN
    RETURN QUERY SELECT 'daily'::text, k.day_pico, held;
    RETURN;
  END IF;
  IF p_month_limit IS NOT NULL AND k.month_pico + held >= p_month_limit THEN
    RETURN QUERY SELECT 'monthly'::text, k.month_pico, held;
    RETURN;
  END IF;

  IF p_expected > 0 AND (p_prepaid OR p_session_limit IS NOT NULL OR p_day_limit IS NOT NULL OR p_month_limit IS NOT NULL) THEN
    INSERT INTO limit_holds (request_id, instance_id, key_id, session_id, pico) VALUES (p_request, p_instance, p_key, p_session, p_expected);
  END IF;
  IF p_session IS NOT NULL THEN
    UPDATE session_limits SET requests = requests + 1, used_at = now_ms WHERE key_id = p_key AND session_id = p_session;
  END IF;
  RETURN QUERY SELECT NULL::text, 0::bigint, 0::bigint;
END $$;
`

const EXACT_SUM = 'COALESCE(SUM(round(cost_usd * 1e12)::bigint), 0)'

/** Migration 18: the counters' starts summed exactly, in whole pico-dollars per record. */
export const exactCountersFromRecords = countersFromRecords('CREATE OR REPLACE FUNCTION', EXACT_SUM)

/** Migration 20: Google's countTokens joins the token counts a session's count leaves out. */
export const countersWithGeminiCounts = countersFromRecords('CREATE OR REPLACE FUNCTION', EXACT_SUM, WITH_GEMINI_COUNTS)

export const sharedLimitsSchema = `
CREATE FUNCTION gw_now_ms() RETURNS bigint LANGUAGE sql VOLATILE AS
  $$ SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint $$;

CREATE TABLE gateway_instances (
  id text PRIMARY KEY,
  name text NOT NULL,
  started_at bigint NOT NULL,
  seen_at bigint NOT NULL
);

CREATE TABLE key_limits (
  key_id text PRIMARY KEY,
  balance_pico bigint NOT NULL DEFAULT 0,
  day_start bigint,
  day_pico bigint NOT NULL DEFAULT 0,
  month_start bigint,
  month_pico bigint NOT NULL DEFAULT 0
);
INSERT INTO key_limits (key_id, balance_pico) SELECT key_id, SUM(amount_pico) FROM ledger GROUP BY key_id;

CREATE FUNCTION gw_ledger_balance() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO key_limits AS k (key_id, balance_pico) VALUES (NEW.key_id, NEW.amount_pico)
  ON CONFLICT (key_id) DO UPDATE SET balance_pico = k.balance_pico + EXCLUDED.balance_pico;
  RETURN NULL;
END $$;
CREATE TRIGGER ledger_balance AFTER INSERT ON ledger FOR EACH ROW EXECUTE FUNCTION gw_ledger_balance();

CREATE TABLE session_limits (
  key_id text NOT NULL,
  session_id text NOT NULL,
  spent_pico bigint NOT NULL,
  requests bigint NOT NULL,
  used_at bigint NOT NULL,
  PRIMARY KEY (key_id, session_id)
);
CREATE INDEX session_limits_used ON session_limits (used_at);

CREATE TABLE limit_holds (
  request_id text PRIMARY KEY,
  instance_id text NOT NULL,
  key_id text NOT NULL,
  session_id text,
  pico bigint NOT NULL
);
CREATE INDEX limit_holds_key ON limit_holds (key_id, session_id);

CREATE TABLE rate_buckets (
  key_id text NOT NULL,
  second bigint NOT NULL,
  n bigint NOT NULL,
  PRIMARY KEY (key_id, second)
);

${countersFromRecords('CREATE FUNCTION', 'COALESCE(round(SUM(cost_usd) * 1e12), 0)::bigint')}

-- Settles one admitted request: releases its hold, writes its prepaid debit when asked (the
-- trigger takes it off the balance), and adds its cost to the periods and the session. Returns
-- the session's spend after it (null when the session is not held).
CREATE FUNCTION gw_settle(
  p_request text, p_key text, p_charge bigint, p_debit boolean, p_at bigint,
  p_day_start bigint, p_month_start bigint, p_session text
) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  k key_limits%ROWTYPE;
  spent bigint := NULL;
BEGIN
  DELETE FROM limit_holds WHERE request_id = p_request;
  IF p_charge <= 0 THEN
    RETURN NULL;
  END IF;
  IF p_debit THEN
    INSERT INTO ledger (key_id, created_at, amount_pico, kind, request_id, actor, note) VALUES (p_key, p_at, -p_charge, 'usage', p_request, 'gateway', NULL);
  END IF;
  IF p_day_start IS NOT NULL OR p_month_start IS NOT NULL THEN
    SELECT * INTO k FROM key_limits WHERE key_id = p_key FOR UPDATE;
    -- A period not begun on the counter yet starts from the records, which do not hold this
    -- request's yet: it is added below either way.
    IF p_day_start IS NOT NULL AND k.day_start IS NOT NULL AND k.day_start < p_day_start THEN
      k.day_start := p_day_start;
      k.day_pico := gw_spent_since(p_key, p_day_start);
    END IF;
    IF p_month_start IS NOT NULL AND k.month_start IS NOT NULL AND k.month_start < p_month_start THEN
      k.month_start := p_month_start;
      k.month_pico := gw_spent_since(p_key, p_month_start);
    END IF;
    UPDATE key_limits SET
      day_start = k.day_start,
      day_pico = k.day_pico + CASE WHEN p_day_start IS NOT NULL AND k.day_start IS NOT NULL THEN p_charge ELSE 0 END,
      month_start = k.month_start,
      month_pico = k.month_pico + CASE WHEN p_month_start IS NOT NULL AND k.month_start IS NOT NULL THEN p_charge ELSE 0 END
      WHERE key_id = p_key;
  END IF;
  IF p_session IS NOT NULL THEN
    UPDATE session_limits SET spent_pico = spent_pico + p_charge WHERE key_id = p_key AND session_id = p_session RETURNING spent_pico INTO spent;
  END IF;
  RETURN spent;
END $$;
`

/**
 * Migration 22: the soft cap. `gw_admit` takes, for a key with a soft cap that may serve the
 * request, what the request would reserve on the cap's model (`p_soft_expected`) and the share of
 * each limit from which it goes there (`p_soft_day`, `p_soft_month`, `p_soft_session`; null where
 * not checked), and answers in `soft` the limit it switched at (null: it did not). The decision is
 * made under the key's row lock, on the figures the limits are then checked on with what it will
 * reserve, so parallel requests on any gateways split exactly as their reservations say. Every
 * figure is now read before the first money check, so the decision can see them all; the checks
 * keep their order and wording.
 */
export const softCapAdmission = `
DROP FUNCTION gw_admit(text, text, text, bigint, boolean, bigint, bigint, bigint, bigint, bigint, text, bigint, bigint, bigint, bigint, bigint, bigint, boolean);

CREATE FUNCTION gw_admit(
  p_request text, p_instance text, p_key text, p_rpm bigint,
  p_prepaid boolean, p_expected bigint,
  p_day_start bigint, p_day_limit bigint, p_month_start bigint, p_month_limit bigint,
  p_session text, p_session_requests bigint, p_session_limit bigint,
  p_unwritten_day bigint, p_unwritten_month bigint, p_unwritten_session bigint, p_unwritten_session_requests bigint,
  p_may_start boolean,
  p_soft_expected bigint, p_soft_day bigint, p_soft_month bigint, p_soft_session bigint
) RETURNS TABLE (refusal text, a bigint, b bigint, soft text) LANGUAGE plpgsql AS $$
DECLARE
  k key_limits%ROWTYPE;
  s session_limits%ROWTYPE;
  now_ms bigint := gw_now_ms();
  counted bigint;
  bucket record;
  held bigint := 0;
  session_held bigint := 0;
  rolled boolean := false;
  expected bigint := p_expected;
  switched text := NULL;
BEGIN
${admissionPrelude(', NULL::text')}
  IF p_session IS NOT NULL THEN
    SELECT * INTO s FROM session_limits WHERE key_id = p_key AND session_id = p_session;
    IF NOT FOUND THEN
${sessionCounterStart(EXACT_SUM, WITH_GEMINI_COUNTS)}    END IF;
    IF p_session_requests IS NOT NULL AND s.requests >= p_session_requests THEN
      RETURN QUERY SELECT 'session_requests'::text, s.requests, 0::bigint, NULL::text;
      RETURN;
    END IF;
    IF p_session_limit IS NOT NULL THEN
      SELECT COALESCE(SUM(pico), 0) INTO session_held FROM limit_holds WHERE key_id = p_key AND session_id = p_session;
    END IF;
  END IF;

  IF p_prepaid OR p_day_limit IS NOT NULL OR p_month_limit IS NOT NULL THEN
    SELECT COALESCE(SUM(pico), 0) INTO held FROM limit_holds WHERE key_id = p_key;
  END IF;
${periodRoll}
  -- The soft cap: the session first, as a gateway on SQLite decides it.
  IF p_soft_expected IS NOT NULL THEN
    IF p_soft_session IS NOT NULL AND p_session_limit IS NOT NULL AND p_session IS NOT NULL AND
       (s.spent_pico + session_held >= p_soft_session OR s.spent_pico + session_held + p_expected > p_session_limit) THEN
      switched := 'session';
    ELSIF p_soft_day IS NOT NULL AND p_day_limit IS NOT NULL AND k.day_pico + held >= p_soft_day THEN
      switched := 'daily';
    ELSIF p_soft_month IS NOT NULL AND p_month_limit IS NOT NULL AND k.month_pico + held >= p_soft_month THEN
      switched := 'monthly';
    END IF;
    IF switched IS NOT NULL THEN
      expected := p_soft_expected;
    END IF;
  END IF;

  IF p_session IS NOT NULL AND p_session_limit IS NOT NULL THEN
    IF s.spent_pico + session_held >= p_session_limit THEN
      RETURN QUERY SELECT 'session_usd'::text, s.spent_pico, session_held, switched;
      RETURN;
    END IF;
    IF s.spent_pico + session_held + expected > p_session_limit THEN
      RETURN QUERY SELECT 'session_usd_request'::text, s.spent_pico, session_held, switched;
      RETURN;
    END IF;
  END IF;
  IF p_prepaid AND k.balance_pico - held <= 0 THEN
    RETURN QUERY SELECT 'balance'::text, k.balance_pico, held, switched;
    RETURN;
  END IF;
  IF p_day_limit IS NOT NULL AND k.day_pico + held >= p_day_limit THEN
    RETURN QUERY SELECT 'daily'::text, k.day_pico, held, switched;
    RETURN;
  END IF;
  IF p_month_limit IS NOT NULL AND k.month_pico + held >= p_month_limit THEN
    RETURN QUERY SELECT 'monthly'::text, k.month_pico, held, switched;
    RETURN;
  END IF;

  IF expected > 0 AND (p_prepaid OR p_session_limit IS NOT NULL OR p_day_limit IS NOT NULL OR p_month_limit IS NOT NULL) THEN
    INSERT INTO limit_holds (request_id, instance_id, key_id, session_id, pico) VALUES (p_request, p_instance, p_key, p_session, expected);
  END IF;
  IF p_session IS NOT NULL THEN
    UPDATE session_limits SET requests = requests + 1, used_at = now_ms WHERE key_id = p_key AND session_id = p_session;
  END IF;
  RETURN QUERY SELECT NULL::text, 0::bigint, 0::bigint, switched;
END $$;
`
