/** The parts of Anthropic's Messages wire format the adapter writes and reads (reference §4). */

export interface CacheControl {
  type: 'ephemeral'
  ttl?: '5m' | '1h'
}

/** Anything a prompt-cache breakpoint can sit on: tool definitions, system blocks, content blocks. */
export interface Cacheable {
  cache_control?: CacheControl
}

export interface TextBlock extends Cacheable {
  type: 'text'
  text: string
}

export interface ImageBlock extends Cacheable {
  type: 'image'
  source: { type: 'base64'; media_type: string; data: string } | { type: 'url'; url: string }
}

export interface ToolUseBlock extends Cacheable {
  type: 'tool_use'
  id: string
  name: string
  input: Record<string, unknown>
}

export interface ToolResultBlock extends Cacheable {
  type: 'tool_result'
  tool_use_id: string
  content?: string | TextBlock[]
}

export type ContentBlock = TextBlock | ImageBlock | ToolUseBlock | ToolResultBlock

export interface Turn {
  role: 'user' | 'assistant'
  content: ContentBlock[]
}

export interface ToolDefinition extends Cacheable {
  name: string
  description?: string
  input_schema: Record<string, unknown>
  strict?: boolean
}

export type ToolChoice =
  { type: 'auto' | 'any'; disable_parallel_tool_use?: boolean } | { type: 'tool'; name: string; disable_parallel_tool_use?: boolean } | { type: 'none' }

export interface MessagesBody {
  model: string
  max_tokens: number
  system?: TextBlock[]
  messages: Turn[]
  tools?: ToolDefinition[]
  tool_choice?: ToolChoice
  stop_sequences?: string[]
  temperature?: number
  top_p?: number
  metadata?: { user_id: string }
  output_config?: { format: { type: 'json_schema'; schema: unknown } }
  stream?: boolean
}

/** Usage as Anthropic reports it: `input_tokens` excludes cache reads and writes. */
export interface AnthropicUsage {
  input_tokens?: number | null
  output_tokens?: number | null
  cache_creation_input_tokens?: number | null
  cache_read_input_tokens?: number | null
  cache_creation?: { ephemeral_5m_input_tokens?: number | null; ephemeral_1h_input_tokens?: number | null } | null
  output_tokens_details?: { thinking_tokens?: number | null } | null
  /** `standard`, `priority` or `batch`. */
  service_tier?: string | null
  /** `fast` when fast mode served the answer. */
  speed?: string | null
  /** Where the answer was served (`us`, `global`). */
  inference_geo?: string | null
  server_tool_use?: { web_search_requests?: number | null; web_fetch_requests?: number | null } | null
}
