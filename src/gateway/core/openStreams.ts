/**
 * Streamed answers being relayed now, for the metrics to read when scraped. The core counts a
 * stream when its delivery begins (the provider answered 200 and the relay starts) and uncounts
 * it when its request is recorded, however it ended: the one start and the one end every stream
 * has, on every wire, with no event per chunk. Two additions per streamed request, kept whether
 * or not metrics are on: cheaper than asking whether anyone listens.
 */
export class OpenStreams {
  open = 0
}
