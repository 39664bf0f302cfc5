/** A glob over model ids as an anchored regex: `*` matches any run of characters; nothing else is special. */
export const globRegex = (pattern: string): RegExp =>
  new RegExp(
    `^${pattern
      .split('*')
      .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  )
