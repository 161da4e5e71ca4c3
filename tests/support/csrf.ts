/** The CSRF token a form page carries in its hidden `csrf` field (undefined when it has none). */
export function csrfTokenIn(html: string): string | undefined {
  return /name="csrf" value="([^"]+)"/.exec(html)?.[1]
}
