import { Fragment, type ReactNode } from 'react'

/**
 * An account's address, shown whole: it may wrap at any character (an address has no spaces, and
 * one longer than the line must neither overflow nor be cut with an ellipsis, since the visitor
 * reads it to check it is theirs). The punctuation that follows it in the sentence is kept on the
 * line of its last character, so a full stop never starts a line alone. Its text is the address
 * and the punctuation as written: search, copy and screen readers see nothing added.
 */
export function Address({ email, after = '' }: { email: string; after?: string }) {
  const chars = [...email]
  const last = chars.pop() ?? ''
  // Where a line had better end: before the '@' and each '.', as typographers break addresses.
  const pieces = chars.join('').split(/(?=[@.])/u)
  return (
    <span className="address">
      {pieces.map((piece, i) => (
        <Fragment key={i}>
          {i > 0 ? <wbr /> : null}
          {piece}
        </Fragment>
      ))}
      <span className="address-end">{`${last}${after}`}</span>
    </span>
  )
}

/** The punctuation right after an address, which stays with it: everything up to the next space. */
const GLUED = /^[^\s]*/u

/**
 * A translated sentence with the given addresses shown as {@link Address}: each occurrence of an
 * address in `text` is wrapped, with the punctuation that follows it.
 */
export function withAddresses(text: string, addresses: Array<string | null | undefined>): ReactNode {
  const wanted = [...new Set(addresses.filter((a): a is string => Boolean(a)))].sort((a, b) => b.length - a.length)
  if (wanted.length === 0) return text
  const parts: ReactNode[] = []
  let rest = text
  for (;;) {
    const hits = wanted.map((a) => ({ a, at: rest.indexOf(a) })).filter((h) => h.at !== -1)
    if (hits.length === 0) break
    const { a, at } = hits.reduce((x, y) => (y.at < x.at ? y : x))
    const after = GLUED.exec(rest.slice(at + a.length))?.[0] ?? ''
    parts.push(rest.slice(0, at), <Address email={a} after={after} />)
    rest = rest.slice(at + a.length + after.length)
  }
  parts.push(rest)
  return parts.map((part, i) => <Fragment key={i}>{part}</Fragment>)
}
