import type { APIRequestContext, APIResponse } from '@playwright/test'
import { csrfTokenIn } from './csrf'

/**
 * Form posts at the HTTP level, as a browser without JavaScript sends them, for assertions on
 * statuses, headers and cookies. The request context keeps cookies between calls.
 */
export async function csrfFrom(request: APIRequestContext, path: string): Promise<string> {
  const response = await request.get(path)
  const html = await response.text()
  const token = csrfTokenIn(html)
  if (!token) throw new Error(`no CSRF token on ${path} (status ${response.status()})`)
  return token
}

export async function postForm(
  request: APIRequestContext,
  path: string,
  fields: Record<string, string>,
  options: { formPage?: string; headers?: Record<string, string> } = {},
): Promise<APIResponse> {
  const csrf = await csrfFrom(request, options.formPage ?? path)
  return request.post(path, { form: { csrf, ...fields }, maxRedirects: 0, headers: options.headers })
}

/** The alert's markup: what a visitor is told, to compare two answers byte for byte. */
export function alertMarkup(html: string): string | null {
  return /<div[^>]*role="alert"[^>]*>[\s\S]*?<\/div>/.exec(html)?.[0] ?? null
}

/** The page's heading as a person reads it: its text, whatever markup keeps its words together. */
export function headingText(html: string): string | undefined {
  return /<h1>(.*?)<\/h1>/s.exec(html)?.[1]?.replace(/<[^>]*>/g, '')
}
