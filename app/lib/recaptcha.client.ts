import type { CaptchaAction, CaptchaSettings } from './recaptcha'

/** The script is inserted by our own nonced code: CSP 'strict-dynamic' lets it run. */

interface Enterprise {
  ready(callback: () => void): void
  execute(siteKey: string, options: { action: CaptchaAction }): Promise<string>
}

declare global {
  interface Window {
    grecaptcha?: { enterprise?: Enterprise }
  }
}

/** Past this the script is blocked or hangs. */
const TOKEN_WAIT_MS = 10_000

const loading = new Map<string, Promise<Enterprise>>()

function load(src: string): Promise<Enterprise> {
  let promise = loading.get(src)
  if (!promise) {
    promise = new Promise<Enterprise>((resolve, reject) => {
      const script = document.createElement('script')
      script.src = src
      script.async = true
      script.addEventListener('load', () => {
        const enterprise = window.grecaptcha?.enterprise
        if (enterprise) resolve(enterprise)
        else reject(new Error('reCAPTCHA script loaded without grecaptcha.enterprise'))
      })
      script.addEventListener('error', () => reject(new Error('reCAPTCHA script failed to load')))
      document.head.appendChild(script)
    })
    // A failed load may be tried again on the next submission.
    promise.catch(() => loading.delete(src))
    loading.set(src, promise)
  }
  return promise
}

export function preloadCaptcha(settings: CaptchaSettings): void {
  load(settings.src).catch(() => undefined)
}

/** A token is good for one call. */
export function captchaToken(settings: CaptchaSettings, action: CaptchaAction): Promise<string> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const token = load(settings.src).then(
    (enterprise) => new Promise<string>((resolve, reject) => enterprise.ready(() => enterprise.execute(settings.siteKey, { action }).then(resolve, reject))),
  )
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('no reCAPTCHA token in time')), TOKEN_WAIT_MS)
  })
  return Promise.race([token, late]).finally(() => clearTimeout(timer))
}
