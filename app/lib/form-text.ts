/**
 * A form field as a string (a repeated field takes its first value; a file is ignored). Its own
 * module, without zod, so that a page can read its form in the browser without shipping the schemas.
 */
export function formText(form: FormData, name: string): string {
  const value = form.get(name)
  return typeof value === 'string' ? value : ''
}
