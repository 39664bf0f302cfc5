import type { ApiError } from '../errors'
import { namedFrame, openAIGrammar, type Grammar } from './replySink'

/**
 * The Responses API's: named events as OpenAI sends them, no end marker (the stream ends after
 * `response.completed`, `response.incomplete` or `response.failed`), errors before the stream in
 * OpenAI's shape and inside it as the API's `error` event.
 */
export const responsesGrammar: Grammar = {
  frame: namedFrame,
  done: '',
  streamError: (error: ApiError) => namedFrame({ type: 'error', code: error.code ?? error.type, message: error.message, param: error.param }),
  errorReply: openAIGrammar.errorReply,
}
