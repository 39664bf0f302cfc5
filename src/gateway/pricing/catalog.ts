import type { CatalogModel, HolidayCalendar, LongContextTier, PeakPricing, PriceCatalog, TokenRates } from './types'

/*
 * List prices (USD per 1M tokens, standard tier, pay-as-you-go) compiled 2026-11-21 from
 * providers' pricing pages and dated registries, with the price history they give (promotions,
 * cuts, cache-read changes) as schedule rows, so a request is priced at the rate in force when
 * it ran. Models already shut down are left out because requests
 * to them fail; models whose price is not known at all are left out so they are reported unpriced
 * rather than costed at a guess (claude-mythos-preview, groq qwen/qwen3.8-27b, Mistral Large 4).
 * Service tiers (Flex, Priority/Fast, Anthropic fast mode), Anthropic's `inference_geo` uplift and
 * per-call web-search fees are row data too, priced from what the provider reports serving.
 * Not modelled: Batch (never sent through the gateway), OpenAI regional processing (not reported
 * in responses), audio/image input rates, Gemini explicit-cache storage and its monthly free
 * grounding allowance, OpenAI's 12-hour cache write.
 */

type Extra = Partial<Omit<CatalogModel, 'provider' | 'model' | 'kind' | keyof TokenRates>>

const chat =
  (provider: string) =>
  (model: string, rates: TokenRates, extra: Extra = {}): CatalogModel => ({ provider, model, kind: 'chat', ...rates, ...extra })

const embedding = (provider: string, model: string, input: number, extra: Extra = {}): CatalogModel => ({
  provider,
  model,
  kind: 'embedding',
  input,
  ...extra,
})

// ---------------------------------------------------------------------------------------------
// Anthropic: writes are 1.25x (5m) and 2x (1h) input. 4.6 and later are flat to 1M except Haiku 5.5.

const anthropic = chat('anthropic')
/**
 * Web search is $10 per 1,000 searches on every Claude model (Anthropic's pricing page; not in
 * the 2026-11 table, so flagged here).
 */
const CLAUDE_WEB_SEARCH = { call_fees: { web_search: 10 } }
// Every 1M-context model is Claude 4.6 or later: `inference_geo: "us"` bills all tokens at 1.1x.
const CLAUDE_1M = { context_length: 1_000_000, max_output_tokens: 128_000, inference_geo: { us: 1.1 }, ...CLAUDE_WEB_SEARCH }
const CLAUDE_200K = { context_length: 200_000, max_output_tokens: 64_000, ...CLAUDE_WEB_SEARCH }
/** Fast mode (usage `speed: "fast"`): 2x every rate, cache multipliers on top (Opus 5.5 $8/$40, Opus 5 and 4.8 $10/$50). */
const FAST_MODE = { service_tiers: { fast: 2 } }
const claude = (input: number, cached_input: number, output: number): TokenRates => ({
  input,
  cache_write: input * 1.25,
  cache_write_1h: input * 2,
  cached_input,
  output,
})

/** 4.6 models billed prompts over 200K at a higher row until long-context pricing was dropped on 2026-03-13. */
const LONG_CONTEXT_UNTIL_MARCH = (flat: TokenRates, long: TokenRates) => ({
  schedule: [{ until: '2026-03-13', ...flat, long_context: { above_prompt_tokens: 200_000, ...long } }],
})

const anthropicModels: CatalogModel[] = [
  // The 1-hour write on the 5.2 models is only seen in trackers, not on a first-party page.
  anthropic('claude-fable-5-2', claude(8, 0.2, 40), { ...CLAUDE_1M, unconfirmed: true }),
  anthropic('claude-mythos-5-2', claude(8, 0.2, 40), { ...CLAUDE_1M, unconfirmed: true, status: 'limited access' }),
  anthropic('claude-fable-5-1', claude(10, 0.25, 50), { ...CLAUDE_1M, status: 'superseded by claude-fable-5-2' }),
  anthropic('claude-mythos-5-1', claude(10, 0.25, 50), { ...CLAUDE_1M, status: 'limited access' }),
  anthropic('claude-fable-5', claude(10, 1, 50), { ...CLAUDE_1M, status: 'legacy' }),
  anthropic('claude-mythos-5', claude(10, 1, 50), { ...CLAUDE_1M, status: 'limited access' }),
  anthropic('claude-opus-5-5', claude(4, 0.2, 20), { ...CLAUDE_1M, ...FAST_MODE }),
  anthropic('claude-opus-5', claude(5, 0.5, 25), { ...CLAUDE_1M, ...FAST_MODE, status: 'legacy' }),
  // Fast mode on Opus 4.8 is deprecated and is refused from 2026-11-30.
  anthropic('claude-opus-4-8', claude(5, 0.5, 25), { ...CLAUDE_1M, ...FAST_MODE, status: 'legacy' }),
  anthropic('claude-opus-4-7', claude(5, 0.5, 25), { ...CLAUDE_1M, status: 'legacy' }),
  anthropic('claude-opus-4-6', claude(5, 0.5, 25), {
    ...CLAUDE_1M,
    ...LONG_CONTEXT_UNTIL_MARCH(claude(5, 0.5, 25), claude(10, 1, 37.5)),
    status: 'legacy',
  }),
  anthropic('claude-opus-4-5', claude(5, 0.5, 25), {
    ...CLAUDE_200K,
    status: 'legacy; retirement not before 2026-11-24',
    aliases: ['claude-opus-4-5-20251101'],
  }),
  // Cache reads were halved on 2026-10-07. CONFLICT: 0.10 is the rate verified on the pricing page
  // after the cut; localized overview copies still show the old 0.20.
  anthropic('claude-sonnet-5-5', claude(2, 0.1, 10), {
    ...CLAUDE_1M,
    schedule: [{ until: '2026-10-07', ...claude(2, 0.2, 10) }],
    unconfirmed: true,
  }),
  anthropic('claude-sonnet-5', claude(2, 0.2, 10), { ...CLAUDE_1M, status: 'legacy' }),
  // CONFLICT: max output 128K per Anthropic's overview page; models.dev and resellers say 64K.
  anthropic('claude-sonnet-4-6', claude(3, 0.3, 15), {
    ...CLAUDE_1M,
    ...LONG_CONTEXT_UNTIL_MARCH(claude(3, 0.3, 15), claude(6, 0.6, 22.5)),
    status: 'legacy',
    unconfirmed: true,
  }),
  // The >200K tier only applies under the old 1M-context beta, which may no longer be offered;
  // a prompt that large can only have been served through it.
  anthropic('claude-sonnet-4-5', claude(3, 0.3, 15), {
    ...CLAUDE_200K,
    long_context: { above_prompt_tokens: 200_000, ...claude(6, 0.6, 22.5) },
    status: 'deprecated; retires 2026-11-30 (use claude-sonnet-5-5)',
    unconfirmed: true,
    aliases: ['claude-sonnet-4-5-20250929'],
  }),
  anthropic('claude-haiku-5-5', claude(0.1, 0.01, 0.5), {
    ...CLAUDE_1M,
    long_context: { above_prompt_tokens: 100_000, ...claude(0.5, 0.05, 2.5) },
  }),
  anthropic('claude-haiku-4-5', claude(1, 0.1, 5), {
    ...CLAUDE_200K,
    status: 'legacy; retirement floor 2026-10-15 passed, no notice seen',
    aliases: ['claude-haiku-4-5-20251001'],
  }),
]

// ---------------------------------------------------------------------------------------------
// OpenAI: prompts over 272,000 tokens bill the whole request at 2x input/cache and 1.5x output.
// Cache writes are charged on GPT-5.6 and later only.

const openai = chat('openai')
/**
 * GPT-5 and later: Flex 0.5x, Fast (named Priority until 2026-07-30; both names are reported) 2x,
 * stacking with cache rates. Web search tool calls are $10 per 1,000 (OpenAI's pricing page; not in
 * the 2026-11 table, so flagged here).
 */
const GPT_TIERS = { service_tiers: { flex: 0.5, priority: 2, fast: 2 }, call_fees: { web_search: 10 } }
const GPT_1M = { context_length: 1_050_000, max_output_tokens: 128_000, ...GPT_TIERS }
const GPT_400K = { context_length: 400_000, max_output_tokens: 128_000, ...GPT_TIERS }
const OPENAI_LC_ABOVE = 272_000
const gptLong = (rates: TokenRates): LongContextTier => ({ above_prompt_tokens: OPENAI_LC_ABOVE, ...rates })

const openaiModels: CatalogModel[] = [
  // Cached rate derived from "60% cheaper than GPT-6 Astra's $1"; write and LC from the 1.25x/2x/1.5x rules.
  openai(
    'gpt-6.2-astra',
    { input: 8, cached_input: 0.4, cache_write: 10, output: 40 },
    { ...GPT_1M, long_context: gptLong({ input: 16, cached_input: 0.8, cache_write: 20, output: 60 }), unconfirmed: true },
  ),
  // Announced at "the same price as GPT-6.1 Sol"; its cache rates are taken from that model.
  openai(
    'gpt-6.2-sol',
    { input: 2, cached_input: 0.1, cache_write: 2.5, output: 10 },
    { ...GPT_1M, long_context: gptLong({ input: 4, cached_input: 0.2, cache_write: 5, output: 15 }), unconfirmed: true },
  ),
  openai(
    'gpt-6.1-sol',
    { input: 2, cached_input: 0.1, cache_write: 2.5, output: 10 },
    { ...GPT_1M, long_context: gptLong({ input: 4, cached_input: 0.2, cache_write: 5, output: 15 }) },
  ),
  openai(
    'gpt-6.1-terra',
    { input: 1, cached_input: 0.05, cache_write: 1.25, output: 5 },
    { ...GPT_1M, long_context: gptLong({ input: 2, cached_input: 0.1, cache_write: 2.5, output: 7.5 }) },
  ),
  openai(
    'gpt-6-astra',
    { input: 10, cached_input: 1, cache_write: 12.5, output: 50 },
    {
      ...GPT_1M,
      long_context: gptLong({ input: 20, cached_input: 2, cache_write: 25, output: 75 }),
      // Fast $20/$100 and Ultrafast $60/$300.
      service_tiers: { ...GPT_TIERS.service_tiers, ultrafast: 6 },
      status: 'superseded by gpt-6.2-astra',
    },
  ),
  openai(
    'gpt-6-sol',
    { input: 2, cached_input: 0.2, cache_write: 2.5, output: 10 },
    { ...GPT_1M, long_context: gptLong({ input: 4, cached_input: 0.4, cache_write: 5, output: 15 }) },
  ),
  openai(
    'gpt-6-luna',
    { input: 0.1, cached_input: 0.01, cache_write: 0.125, output: 0.5 },
    { ...GPT_1M, long_context: gptLong({ input: 0.2, cached_input: 0.02, cache_write: 0.25, output: 0.75 }) },
  ),
  // The $4/$20 promotion is guaranteed only "at least through 2026-11-21" and no extension was
  // announced, so list price applies from 2026-11-22. If OpenAI extends it, override the price.
  openai(
    'gpt-5.6-sol',
    { input: 4, cached_input: 0.4, cache_write: 5, output: 20 },
    {
      ...GPT_1M,
      long_context: gptLong({ input: 8, cached_input: 0.8, cache_write: 10, output: 30 }),
      schedule: [
        {
          from: '2026-11-22',
          input: 5,
          cached_input: 0.5,
          cache_write: 6.25,
          output: 30,
          long_context: gptLong({ input: 10, cached_input: 1, cache_write: 12.5, output: 45 }),
        },
      ],
      status: 'legacy; $4/$20 promo through 2026-11-21, list $5/$30 from 2026-11-22',
      aliases: ['gpt-5.6'],
    },
  ),
  openai(
    'gpt-5.6-terra',
    { input: 2, cached_input: 0.2, cache_write: 2.5, output: 12 },
    { ...GPT_1M, long_context: gptLong({ input: 4, cached_input: 0.4, cache_write: 5, output: 18 }), status: 'legacy' },
  ),
  openai(
    'gpt-5.6-luna',
    { input: 0.2, cached_input: 0.02, cache_write: 0.25, output: 1.2 },
    { ...GPT_1M, long_context: gptLong({ input: 0.4, cached_input: 0.04, cache_write: 0.5, output: 1.8 }), status: 'legacy' },
  ),
  openai(
    'gpt-5.5',
    { input: 5, cached_input: 0.5, output: 30 },
    // Fast is 2.5x on GPT-5.5.
    {
      ...GPT_1M,
      long_context: gptLong({ input: 10, cached_input: 1, output: 45 }),
      service_tiers: { flex: 0.5, priority: 2.5, fast: 2.5 },
      status: 'legacy',
    },
  ),
  openai('gpt-5.5-pro', { input: 30, output: 180 }, { ...GPT_1M, long_context: gptLong({ input: 60, output: 270 }), status: 'legacy' }),
  openai(
    'gpt-5.4',
    { input: 2.5, cached_input: 0.25, output: 15 },
    { ...GPT_1M, long_context: gptLong({ input: 5, cached_input: 0.5, output: 22.5 }), status: 'legacy' },
  ),
  openai('gpt-5.4-pro', { input: 30, output: 180 }, { ...GPT_1M, long_context: gptLong({ input: 60, output: 270 }), status: 'legacy' }),
  // 400K-context models cap input at 272K, so the long-context tier can never apply.
  openai('gpt-5.4-mini', { input: 0.75, cached_input: 0.075, output: 4.5 }, { ...GPT_400K, status: 'legacy' }),
  openai('gpt-5.4-nano', { input: 0.2, cached_input: 0.02, output: 1.25 }, { ...GPT_400K, status: 'deprecated; shutdown 2027-04-01' }),
  openai('gpt-5.2', { input: 1.75, cached_input: 0.175, output: 14 }, { ...GPT_400K, status: 'legacy' }),
  openai('gpt-5.1', { input: 1.25, cached_input: 0.125, output: 10 }, { ...GPT_400K, status: 'deprecated; shutdown 2027-04-01' }),
  openai('gpt-5', { input: 1.25, cached_input: 0.125, output: 10 }, { ...GPT_400K, status: 'deprecated; shutdown 2026-12-11' }),
  openai('gpt-5-mini', { input: 0.25, cached_input: 0.025, output: 2 }, { ...GPT_400K, status: 'deprecated; shutdown 2026-12-11' }),
  openai('gpt-5-nano', { input: 0.05, cached_input: 0.005, output: 0.4 }, { ...GPT_400K, status: 'deprecated; shutdown 2026-12-11' }),
  openai('gpt-5-pro', { input: 15, output: 120 }, { context_length: 400_000, max_output_tokens: 272_000, status: 'deprecated; shutdown 2026-12-11' }),
  openai(
    'gpt-4.1',
    { input: 2, cached_input: 0.5, output: 8 },
    { context_length: 1_047_576, max_output_tokens: 32_768, status: 'deprecated; shutdown 2027-01-14' },
  ),
  openai(
    'gpt-4.1-mini',
    { input: 0.4, cached_input: 0.1, output: 1.6 },
    { context_length: 1_047_576, max_output_tokens: 32_768, status: 'deprecated; shutdown 2027-01-14' },
  ),
  // gpt-4o-2024-05-13 was shut down on 2026-10-23 and is deliberately not an alias.
  openai(
    'gpt-4o',
    { input: 2.5, cached_input: 1.25, output: 10 },
    {
      context_length: 128_000,
      max_output_tokens: 16_384,
      status: 'deprecated; shutdown 2027-01-14',
      aliases: ['gpt-4o-2024-08-06', 'gpt-4o-2024-11-20'],
    },
  ),
  openai(
    'gpt-4o-mini',
    { input: 0.15, cached_input: 0.075, output: 0.6 },
    { context_length: 128_000, max_output_tokens: 16_384, status: 'deprecated; shutdown 2027-01-14' },
  ),
  openai('o3', { input: 2, cached_input: 0.5, output: 8 }, { context_length: 200_000, max_output_tokens: 100_000, status: 'deprecated; shutdown 2026-12-11' }),
  openai('o3-pro', { input: 20, output: 80 }, { context_length: 200_000, max_output_tokens: 100_000, status: 'deprecated; shutdown 2026-12-11' }),
  embedding('openai', 'text-embedding-3-small', 0.02, { context_length: 8_191 }),
  embedding('openai', 'text-embedding-3-large', 0.13, { context_length: 8_191 }),
  embedding('openai', 'text-embedding-ada-002', 0.1, { context_length: 8_191, status: 'lifecycle unconfirmed', unconfirmed: true }),
]

// ---------------------------------------------------------------------------------------------
// Google Gemini (Developer API, paid tier, text input rates).

const gemini = chat('gemini')
/** Flex 0.5x; Priority about 1.8x (the published figure is approximate: override it once billed). */
const GEMINI_TIERS = { service_tiers: { flex: 0.5, priority: 1.8 } }
const GEMINI_1M = { context_length: 1_048_576, max_output_tokens: 65_536, ...GEMINI_TIERS }
/** Google Search grounding on Gemini 3.x: $14 per 1,000 grounded queries (the 5,000 free each month are not modelled). */
const GEMINI_3 = { ...GEMINI_1M, call_fees: { web_search: 14 } }
// Flash 3.6-3.8 are half price through 2026-12-31.
const FLASH_LIST = { from: '2027-01-01', input: 1.5, cached_input: 0.15, output: 7.5 }
const flashPromo = { input: 0.75, cached_input: 0.075, output: 3.75 }

const geminiModels: CatalogModel[] = [
  // CONFLICT on limits: 1,048,576 / 65,536 is the changelog figure; 32K output and "up to 1M" also published.
  gemini(
    'gemini-4-argon',
    { input: 2, cached_input: 0.1, output: 10 },
    {
      ...GEMINI_3,
      schedule: [{ from: '2026-12-01', input: 4, cached_input: 0.2, output: 20 }],
      status: 'launch price through 2026-11-30; doubles 2026-12-01',
      unconfirmed: true,
    },
  ),
  gemini('gemini-3.8-flash', flashPromo, { ...GEMINI_3, schedule: [FLASH_LIST], status: 'promo through 2026-12-31; doubles 2027-01-01' }),
  // Requests are re-routed to gemini-3.8-flash; billing at those (identical) rates is assumed.
  gemini('gemini-3.7-flash', flashPromo, {
    ...GEMINI_3,
    schedule: [FLASH_LIST],
    status: 'deprecated; routed to gemini-3.8-flash; retires 2027-01-28',
    unconfirmed: true,
  }),
  // A third-party registry lists retirement on 2026-11-19; no first-party confirmation, so kept.
  gemini('gemini-3.6-flash', flashPromo, {
    ...GEMINI_3,
    schedule: [FLASH_LIST],
    status: 'superseded; retirement 2026-11-19 reported (unconfirmed)',
    unconfirmed: true,
  }),
  // Re-routed to gemini-3.6-flash; which rates a re-routed call bills at is unknown, so its own list price.
  gemini(
    'gemini-3.5-flash',
    { input: 1.5, cached_input: 0.15, output: 9 },
    {
      ...GEMINI_3,
      status: 'deprecated; routed to gemini-3.6-flash',
      unconfirmed: true,
    },
  ),
  gemini('gemini-3.5-flash-lite', { input: 0.3, cached_input: 0.03, output: 2.5 }, GEMINI_3),
  gemini(
    'gemini-3.1-pro-preview',
    { input: 2, cached_input: 0.2, output: 12 },
    {
      ...GEMINI_3,
      long_context: { above_prompt_tokens: 200_000, input: 4, cached_input: 0.4, output: 18 },
      status: 'preview',
      aliases: ['gemini-3.1-pro-preview-customtools'],
    },
  ),
  gemini('gemini-3.1-flash-lite', { input: 0.25, cached_input: 0.025, output: 1.5 }, { ...GEMINI_3, status: 'shutdown 2027-05-07' }),
  gemini('gemini-3-flash-preview', { input: 0.5, cached_input: 0.05, output: 3 }, { ...GEMINI_3, status: 'preview' }),
  gemini(
    'gemini-2.5-pro',
    { input: 1.25, cached_input: 0.125, output: 10 },
    {
      ...GEMINI_1M,
      long_context: { above_prompt_tokens: 200_000, input: 2.5, cached_input: 0.25, output: 15 },
      status: 'existing projects only',
    },
  ),
  gemini('gemini-2.5-flash', { input: 0.3, cached_input: 0.03, output: 2.5 }, { ...GEMINI_1M, status: 'existing projects only' }),
  gemini('gemini-2.5-flash-lite', { input: 0.1, cached_input: 0.01, output: 0.4 }, { ...GEMINI_1M, status: 'existing projects only' }),
  embedding('gemini', 'gemini-embedding-2', 0.2, { context_length: 8_192 }),
  embedding('gemini', 'gemini-embedding-001', 0.15, { context_length: 2_048 }),
]

// ---------------------------------------------------------------------------------------------
// Mistral (La Plateforme). `mistral-large-latest` is not aliased: it may now point to Large 4,
// whose id and price are unknown.

const mistral = chat('mistral')
const MISTRAL_256K = { context_length: 262_144 }
const MISTRAL_128K = { context_length: 131_072 }

const mistralModels: CatalogModel[] = [
  // Cache-read rate unknown: cached tokens bill at the input rate (an upper bound).
  mistral(
    'mistral-medium-3-5',
    { input: 1.5, output: 7.5 },
    {
      ...MISTRAL_256K,
      unconfirmed: true,
      aliases: ['mistral-medium-latest', 'mistral-medium-2604'],
    },
  ),
  mistral('mistral-large-2512', { input: 0.5, cached_input: 0.05, output: 1.5 }, MISTRAL_256K),
  mistral('mistral-small-2603', { input: 0.15, cached_input: 0.015, output: 0.6 }, { ...MISTRAL_256K, aliases: ['mistral-small-latest'] }),
  mistral('devstral-2512', { input: 0.4, cached_input: 0.04, output: 2 }, MISTRAL_256K),
  mistral('codestral-2508', { input: 0.3, cached_input: 0.03, output: 0.9 }, { ...MISTRAL_256K, aliases: ['codestral-latest'] }),
  mistral('magistral-medium-latest', { input: 2, output: 5 }, MISTRAL_128K),
  mistral('magistral-small', { input: 0.5, output: 1.5 }, MISTRAL_128K),
  // Ministral 3 8B ($0.15) is left out: its API id is not in the source.
  mistral('ministral-3b-2512', { input: 0.1, cached_input: 0.01, output: 0.1 }),
  mistral('ministral-14b-2512', { input: 0.2, cached_input: 0.02, output: 0.2 }),
  embedding('mistral', 'mistral-embed', 0.1, { context_length: 8_192 }),
]

// ---------------------------------------------------------------------------------------------
// DeepSeek: base rates are off-peak; peak (2x) is 09:00-12:00 and 14:00-18:00 Beijing time,
// Monday to Friday, except on Chinese public holidays (the `cn` calendar below). The peak/off-peak
// split started on 2026-08-16; the earlier flat rates are not in the catalog (their cache-hit rate
// is not known), so a request from before then is priced at today's rates.

const deepseek = chat('deepseek')
const DEEPSEEK_LIMITS = { context_length: 1_000_000, max_output_tokens: 384_000 }
const deepseekPeak = (rates: TokenRates): PeakPricing => ({
  windows_utc: [
    [1, 4],
    [6, 10],
  ],
  weekdays_only: true,
  calendar: 'cn',
  rates,
})

/*
 * China's public holidays as Beijing dates, for DeepSeek's off-peak days.
 * 2026: the State Council's arrangement (国务院办公厅关于2026年部分节假日安排的通知, 2025-11-04, as
 * published by Xinhua). DeepSeek's rule as published says "Monday to Friday, except public
 * holidays", so the make-up working days of that arrangement (Sundays 01-04 and 09-20, Saturdays
 * 02-14, 02-28, 05-09 and 10-10) are assumed off-peak like any weekend and are not listed as
 * workdays; add them with an override if DeepSeek bills them at peak.
 * 2027: the arrangement was not published by 2026-11-21. Listed are the statutory days of the
 * national holiday regulations (as revised for 2025 on): 1 January, the Spring Festival eve and its
 * first three days, Qingming, 1-2 May, Dragon Boat, Mid-Autumn and 1-3 October; the lunar dates are
 * computed (Spring Festival 2027-02-06). Replace the table when the arrangement is out.
 */
const chinaHolidays: HolidayCalendar = {
  utc_offset_minutes: 480,
  holidays: [
    ...['01-01', '01-02', '01-03'],
    ...['02-15', '02-16', '02-17', '02-18', '02-19', '02-20', '02-21', '02-22', '02-23'],
    ...['04-04', '04-05', '04-06'],
    ...['05-01', '05-02', '05-03', '05-04', '05-05'],
    ...['06-19', '06-20', '06-21'],
    ...['09-25', '09-26', '09-27'],
    ...['10-01', '10-02', '10-03', '10-04', '10-05', '10-06', '10-07'],
  ]
    .map((d) => `2026-${d}`)
    .concat(['01-01', '02-05', '02-06', '02-07', '02-08', '04-05', '05-01', '05-02', '06-09', '09-15', '10-01', '10-02', '10-03'].map((d) => `2027-${d}`)),
  workdays: [],
  as_of: '2026-11-21',
  source: 'State Council holiday arrangement for 2026 (2025-11-04); statutory days only for 2027',
}

const deepseekModels: CatalogModel[] = [
  deepseek(
    'deepseek-flash',
    { input: 0.15, cached_input: 0.003, output: 0.6 },
    {
      ...DEEPSEEK_LIMITS,
      peak: deepseekPeak({ input: 0.3, cached_input: 0.006, output: 1.2 }),
      // Legacy names served by V4.1-Flash and billed at its rates.
      aliases: ['deepseek-v4-flash', 'deepseek-v4-flash-vision-exp'],
    },
  ),
  deepseek(
    'deepseek-v4-pro',
    { input: 0.66, cached_input: 0.022, output: 1.98 },
    {
      ...DEEPSEEK_LIMITS,
      peak: deepseekPeak({ input: 1.32, cached_input: 0.044, output: 3.96 }),
    },
  ),
]

// ---------------------------------------------------------------------------------------------
// xAI: a prompt of 200,000 tokens or more bills every token (cached included) at double rates.

const xai = chat('xai')
const grokLong = (rates: TokenRates): LongContextTier => ({ above_prompt_tokens: 199_999, ...rates })

const xaiModels: CatalogModel[] = [
  xai(
    'grok-4.7',
    { input: 2, cached_input: 0.5, output: 6 },
    {
      context_length: 500_000,
      long_context: grokLong({ input: 4, cached_input: 1, output: 12 }),
    },
  ),
  xai(
    'grok-4.6',
    { input: 2, cached_input: 0.5, output: 6 },
    {
      context_length: 500_000,
      long_context: grokLong({ input: 4, cached_input: 1, output: 12 }),
    },
  ),
  // CONFLICT: cached 0.50 is the figure quoted from xAI's docs; aicostbudget lists 0.30.
  xai(
    'grok-4.5',
    { input: 2, cached_input: 0.5, output: 6 },
    {
      context_length: 500_000,
      long_context: grokLong({ input: 4, cached_input: 1, output: 12 }),
      unconfirmed: true,
    },
  ),
  // Slugs retired on 2026-05-15 are redirected here and bill at these rates.
  xai(
    'grok-4.3',
    { input: 1.25, cached_input: 0.2, output: 2.5 },
    {
      context_length: 1_000_000,
      long_context: grokLong({ input: 2.5, cached_input: 0.4, output: 5 }),
      aliases: ['grok-4-0709', 'grok-4-fast*', 'grok-4-1-fast*', 'grok-3*'],
    },
  ),
  xai(
    'grok-4.20-0309-reasoning',
    { input: 1.25, cached_input: 0.2, output: 2.5 },
    {
      context_length: 1_000_000,
      long_context: grokLong({ input: 2.5, cached_input: 0.4, output: 5 }),
    },
  ),
  xai(
    'grok-4.20-0309-non-reasoning',
    { input: 1.25, cached_input: 0.2, output: 2.5 },
    {
      context_length: 1_000_000,
      long_context: grokLong({ input: 2.5, cached_input: 0.4, output: 5 }),
    },
  ),
  // CONFLICT: models.dev's $1.25/$2.50 matches the cut 4.20 family price; genai-prices' $2/$6 is the
  // launch price. No long-context tier is published for it.
  xai(
    'grok-4.20-multi-agent-0309',
    { input: 1.25, cached_input: 0.2, output: 2.5 },
    {
      context_length: 1_000_000,
      status: 'beta',
      unconfirmed: true,
    },
  ),
  xai(
    'grok-build-0.1',
    { input: 1, cached_input: 0.2, output: 2 },
    {
      context_length: 256_000,
      long_context: grokLong({ input: 2, cached_input: 0.4, output: 4 }),
    },
  ),
]

// ---------------------------------------------------------------------------------------------
// Groq on-demand. Model ids carry the upstream vendor prefix (`openai/...`) and are kept whole.

const groq = chat('groq')

const groqModels: CatalogModel[] = [
  // CONFLICT: the gpt-oss cached rates are in Groq's docs per llm-kit; some trackers say unpublished.
  groq(
    'openai/gpt-oss-120b',
    { input: 0.15, cached_input: 0.075, output: 0.6 },
    {
      context_length: 131_072,
      max_output_tokens: 65_536,
      unconfirmed: true,
    },
  ),
  groq(
    'openai/gpt-oss-20b',
    { input: 0.075, cached_input: 0.0375, output: 0.3 },
    {
      context_length: 131_072,
      max_output_tokens: 65_536,
      unconfirmed: true,
    },
  ),
  groq('openai/gpt-oss-safeguard-20b', { input: 0.075, output: 0.3 }, { context_length: 131_072, max_output_tokens: 65_536, status: 'beta' }),
  groq(
    'llama-3.1-8b-instant',
    { input: 0.05, output: 0.08 },
    {
      context_length: 131_072,
      max_output_tokens: 131_072,
      status: 'paid tiers only since 2026-08-16',
    },
  ),
  groq(
    'llama-3.3-70b-versatile',
    { input: 0.59, output: 0.79 },
    {
      context_length: 131_072,
      max_output_tokens: 32_768,
      status: 'paid tiers only since 2026-08-16',
    },
  ),
  groq('qwen/qwen3.6-27b', { input: 0.6, output: 3 }, { context_length: 131_072, max_output_tokens: 16_384, status: 'preview' }),
  groq(
    'meta-llama/llama-4-scout-17b-16e-instruct',
    { input: 0.11, output: 0.34 },
    {
      context_length: 131_072,
      max_output_tokens: 8_192,
      status: 'paid-tier availability unconfirmed',
      unconfirmed: true,
    },
  ),
  groq('qwen/qwen3-32b', { input: 0.29, output: 0.59 }, { context_length: 131_072, max_output_tokens: 40_960, status: 'preview' }),
]

export const builtinCatalog: PriceCatalog = {
  as_of: '2026-11-21',
  source: 'prices-2026-11.md (list prices compiled 2026-11-21)',
  models: [...anthropicModels, ...openaiModels, ...geminiModels, ...mistralModels, ...deepseekModels, ...xaiModels, ...groqModels],
  calendars: { cn: chinaHolidays },
}
