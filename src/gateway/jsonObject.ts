/** A JSON object (not an array, not null): what the gateway checks first of every untrusted body or answer it reads. */
export const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
