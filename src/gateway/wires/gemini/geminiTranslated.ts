import type { AnswerGrammar } from '../deliver'
import { translatedGrammar } from '../translatedAnswer'
import { GeminiEvents } from './chatStreamToGemini'
import { badArguments, chatToGemini, type GeminiShape } from './chatToGemini'
import type { GeminiBody } from './geminiBody'

/** A provider's chat answer, whole or streamed, as generateContent's; `model` is the one the caller asked for (the URL's). */
export function translatedGemini(body: GeminiBody, model: string): AnswerGrammar {
  const shape: GeminiShape = { model, includeThoughts: body.generationConfig?.thinkingConfig?.includeThoughts === true }
  return translatedGrammar({
    whole(completion, usage, out) {
      const { response, badArguments: bad } = chatToGemini(completion, usage, shape)
      for (const i of bad) out.ignore(badArguments(i, out.target.provider.id))
      return { body: response }
    },
    events: (out) => new GeminiEvents(out, shape),
    prompt: [body.systemInstruction, body.contents],
  })
}
