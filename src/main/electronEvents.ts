/**
 * A listener for Electron's `on(event, …)`, which is overloaded per event name: each event passes
 * its own arguments. The `*Like` interfaces take one signature that every overload satisfies.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any of Electron's per-event listener signatures
export type ElectronListener = (...args: any[]) => void
