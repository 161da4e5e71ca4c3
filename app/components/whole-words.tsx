/**
 * Text whose hyphenated words never break at their hyphen ("Sign-On", "e-mail"): a browser may
 * end a line after any hyphen, which leaves "Sign-" alone at 320 px. Each such word is kept whole;
 * the text and its accessible name are unchanged.
 */
export function WholeWords({ text }: { text: string }) {
  return text.split(/(\S+-\S+)/).map((part, i) =>
    i % 2 === 1 ? (
      <span key={i} className="nowrap">
        {part}
      </span>
    ) : (
      part
    ),
  )
}
