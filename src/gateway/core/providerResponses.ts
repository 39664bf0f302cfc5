import { servesResponses } from '../providers/registry'
import { retrieve, type Retrieved } from '../routing/retrieve'
import type { RoutingDeps } from '../routing/route'
import type { ClientAbort } from '../upstream/clientAbort'
import { responseNotFound, type Conversations } from '../wires/responses/conversations'

/** What a retrieval takes: routing's sources, and the conversations that know which provider made a response for which key. */
export interface ResponseRetrievalSources extends RoutingDeps {
  conversations: Pick<Conversations, 'madeUpstream'>
}

/** What is asked of a response a provider keeps: it, its input items, or its deletion. */
export interface ResponseRetrieval {
  method: 'GET' | 'DELETE'
  /** '' for the response, '/input_items' for its input. */
  tail: '' | '/input_items'
  /** The caller's query string, `?` included, or ''. */
  query: string
}

/**
 * A response a provider keeps, asked of the provider that made it (the request's record keeps the
 * provider's id) and answered as the provider answers, a replayed stream included. Only the key
 * that made it may: the gateway's credential would otherwise let any key read or delete whatever
 * is kept under the provider account, so another key's id is not found, as an unknown one is.
 */
export async function retrieveProviderResponse(
  sources: ResponseRetrievalSources,
  keyId: string,
  id: string,
  r: ResponseRetrieval,
  signal: ClientAbort,
): Promise<Retrieved> {
  const made = await sources.conversations.madeUpstream(id)
  const provider = made && made.key_id === keyId ? sources.registry.get(made.provider) : undefined
  if (!provider || !servesResponses(provider)) throw responseNotFound(id)
  return retrieve(sources, provider, { method: r.method, path: `responses/${encodeURIComponent(id)}${r.tail}${r.query}` }, signal)
}
