/**
 * Every error the gateway answers with has OpenAI's shape and status codes, so clients' existing
 * error handling and retry logic stay valid.
 */
export interface OpenAIErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null }
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
    readonly code: string | null = null,
    readonly param: string | null = null,
    /** Extra response headers (retry-after, x-should-retry). */
    readonly headers: Record<string, string> = {},
  ) {
    super(message)
  }

  toBody(): OpenAIErrorBody {
    return { error: { message: this.message, type: this.type, param: this.param, code: this.code } }
  }
}

export const invalidRequest = (message: string, param: string | null = null, code: string | null = null) =>
  new ApiError(400, 'invalid_request_error', message, code, param)

export const invalidApiKey = (message: string) => new ApiError(401, 'invalid_request_error', message, 'invalid_api_key')

export const modelNotFound = (model: string, why?: string) =>
  new ApiError(404, 'invalid_request_error', `The model \`${model}\` does not exist${why ? `: ${why}` : ''}.`, 'model_not_found', 'model')

export const notFound = (message: string, param: string | null = null) => new ApiError(404, 'invalid_request_error', message, 'not_found', param)
