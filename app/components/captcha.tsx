import { useSubmit } from 'react-router'
import { useCallback, useEffect, useRef, type FormEvent, type RefObject } from 'react'
import { CAPTCHA_TOKEN_FIELD, extraTokenField, type CaptchaAction, type CaptchaSettings } from '~/lib/recaptcha'

/**
 * reCAPTCHA Enterprise in forms, as Identity Platform enforces it (ADR 020): score-based and
 * invisible, a token bound to the call's action obtained on submit. Nothing of it runs, and no
 * script of Google's loads, unless the loader handed the page settings (reCAPTCHA in AUDIT or
 * ENFORCE). Without JavaScript nothing is added: the server says the check needs JavaScript.
 */

const browserHalf = () => import('~/lib/recaptcha.client')

/**
 * "Get a token for action X". With settings, starts loading the script at once; the function resolves a
 * fresh token, '' when none could be had (blocked script: the server then answers), or undefined
 * without settings (the action is not protected: send nothing).
 */
function useCaptchaToken(settings: CaptchaSettings | null | undefined) {
  const siteKey = settings?.siteKey ?? null
  const src = settings?.src ?? null
  useEffect(() => {
    if (siteKey && src) void browserHalf().then((half) => half.preloadCaptcha({ siteKey, src }))
  }, [siteKey, src])
  return useCallback(
    async (action: CaptchaAction): Promise<string | undefined> => {
      if (!siteKey || !src) return undefined
      try {
        return await (await browserHalf()).captchaToken({ siteKey, src }, action)
      } catch {
        return ''
      }
    },
    [siteKey, src],
  )
}

interface CaptchaFormOptions {
  form: RefObject<HTMLFormElement | null>
  /** The loader's settings: null while reCAPTCHA is off. */
  settings: CaptchaSettings | null | undefined
  /** The action's answer; `captcha` in it means the service refused for the captcha: retry once. None: never retried. */
  result?: { captcha?: CaptchaSettings | null }
  /**
   * The action of a submission, from the button that made it (a form may have two); null for a
   * button that calls nothing the captcha protects (single sign-on): it is submitted as it is.
   */
  actionFor: (submitter: HTMLElement | null) => CaptchaAction | null
  /** Actions the submission may lead to on the server: a token for each goes along (extraTokenField). */
  alsoFor?: readonly CaptchaAction[]
}

/**
 * A protected form's submit: gets a token for its action, then submits what was typed plus the
 * token. When the answer says the captcha was refused (the token expired, scored low, or
 * enforcement came on since the page was served), gets a fresh token and submits again, once,
 * from the same fields: what was typed stays in the page (the password too; the server never
 * sends it back). `retrying` is true while that answer is being retried: hide its message and
 * keep the fields.
 */
export function useCaptchaForm({ form, settings, result, actionFor, alsoFor = [] }: CaptchaFormOptions) {
  const submit = useSubmit()
  const getToken = useCaptchaToken(result?.captcha ?? settings)
  const state = useRef({
    phase: 'idle' as 'idle' | 'first' | 'retry',
    retried: null as unknown,
    submitter: null as HTMLElement | null,
    busy: false,
  })
  const latest = useRef({ actionFor, alsoFor })
  latest.current = { actionFor, alsoFor }

  const send = useCallback(
    async (element: HTMLFormElement, submitter: HTMLElement | null) => {
      if (state.current.busy) return
      state.current.busy = true
      try {
        const action = latest.current.actionFor(submitter)
        const token = action === null ? undefined : await getToken(action)
        const extra = action === null ? [] : latest.current.alsoFor
        const extraTokens = await Promise.all(extra.map(async (also) => [also, await getToken(also)] as const))
        const data = new FormData(element, submitter?.getAttribute('type') === 'submit' ? submitter : null)
        if (token !== undefined) data.set(CAPTCHA_TOKEN_FIELD, token)
        for (const [also, value] of extraTokens) if (value !== undefined) data.set(extraTokenField(also), value)
        submit(data, { method: 'post', action: element.getAttribute('action') ?? undefined })
      } finally {
        state.current.busy = false
      }
    },
    [getToken, submit],
  )

  const protectedNow = Boolean(result?.captcha ?? settings)
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    state.current.phase = 'first'
    state.current.submitter = (event.nativeEvent as SubmitEvent).submitter ?? null
    // Not protected: React Router submits the form as it is.
    if (!protectedNow || latest.current.actionFor(state.current.submitter) === null) return
    event.preventDefault()
    void send(event.currentTarget, state.current.submitter)
  }

  const willRetry = Boolean(result?.captcha) && state.current.phase === 'first'
  useEffect(() => {
    if (!willRetry || state.current.phase !== 'first' || !form.current) return
    state.current.phase = 'retry'
    state.current.retried = result
    void send(form.current, state.current.submitter)
  }, [willRetry, result, form, send])

  const retrying = willRetry || (result !== undefined && state.current.retried === result)
  return { onSubmit, retrying }
}
