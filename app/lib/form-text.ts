/** Without zod, so a page can read its form in the browser without shipping the schemas. */
export function formText(form: FormData, name: string): string {
  const value = form.get(name)
  return typeof value === 'string' ? value : ''
}
