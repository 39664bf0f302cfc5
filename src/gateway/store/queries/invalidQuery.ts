/** A query's input the store refuses (an unknown sort column, a range too long), naming the field. */
export class InvalidQuery extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`)
  }
}

export const invalid = (field: string, message: string) => new InvalidQuery(field, message)
