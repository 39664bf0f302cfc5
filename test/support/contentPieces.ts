/** Splits content on word boundaries (spaces kept) into at least three pieces when it is long enough, as a real stream would arrive. */
export function contentPieces(text: string): string[] {
  const words = text.match(/\s*\S+|\s+/g) ?? []
  if (words.length >= 3) return words
  const chars = Array.from(text)
  const size = Math.ceil(chars.length / 3)
  const pieces: string[] = []
  for (let i = 0; i < chars.length; i += size) pieces.push(chars.slice(i, i + size).join(''))
  return pieces
}
