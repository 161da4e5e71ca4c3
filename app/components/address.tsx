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

/**
 * A translated sentence with the given addresses shown as {@link Address}: each occurrence of an
 * address in `text` is wrapped, with the punctuation that follows it (everything up to the next space).
 */
export function withAddresses(text: string, addresses: Array<string | null | undefined>): ReactNode {
  const wanted = [...new Set(addresses.filter((a): a is string => Boolean(a)))].sort((a, b) => b.length - a.length)
  if (wanted.length === 0) return text
  // Split out: text, address, punctuation, text… (the longest address first where two start at one place).
  const escaped = wanted.map((a) => a.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
  const parts = text.split(new RegExp(`(${escaped.join('|')})(\\S*)`, 'u'))
  return parts.map((part, i) =>
    i % 3 === 1 ? <Address key={i} email={part} after={parts[i + 1]} /> : i % 3 === 0 ? part : null,
  )
}
