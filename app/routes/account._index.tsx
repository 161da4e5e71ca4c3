import { Link, useSearchParams } from 'react-router'
import { lazy, Suspense } from 'react'
import { useTranslation } from 'react-i18next'
import { FormAlert } from '~/components/forms'
import { SecondFactorList } from '~/components/second-factor-list'
import { SecureForm } from '~/components/secure-form'
import { routeHeaders } from '~/lib/headers'
import { NOT_INDEXED, pageTitle } from '~/lib/meta'
import { AccountFormSchema } from '~/lib/schemas'
import type { TranslationKey } from '~/lib/i18n'
import { providerName } from '~/lib/providers'
import { endOtherSession, requireSignedIn, verifyOwnEmail } from '~/.server/auth/account'
import { sentView } from '~/.server/auth/email-sent'
import { readAccount, readPasskeys } from '~/.server/auth/identity-admin'
import { refOf } from '~/.server/auth/passkeys'
import { getFlags } from '~/.server/ops/flags'
import { listSessions } from '~/.server/auth/session'
import { offeredFactors } from '~/.server/auth/second-factor-kinds'
import { PasskeyList } from '~/components/passkey-list'
import { SessionList } from '~/components/session-list'
import { getLocale } from '~/.server/i18n'
import { guardForm, page, parseForm, respond, unavailable } from '~/.server/result'
import { withPageStrings, withSentStrings } from '~/lib/i18n-browser'
import type { Route } from './+types/account._index'

export const headers = routeHeaders

/** A browser loads it only once sent: the page's first visit is at its JavaScript budget (ADR 083). */
const CheckEmailAgain = import.meta.env.SSR
  ? (await import('~/components/check-email-again')).default
  : lazy(() => withSentStrings(import('~/components/check-email-again')))

export const meta: Route.MetaFunction = ({ matches }) => pageTitle(matches, 'meta.account', NOT_INDEXED)

export const clientLoader = (args: Route.ClientLoaderArgs) => withPageStrings(args)

export async function loader({ request }: Route.LoaderArgs) {
  const user = await requireSignedIn(request)
  const passkeysOn = (await getFlags()).passkeys
  const [account, sessions, passkeys, offered] = await Promise.all([
    readAccount(user.uid),
    listSessions(user),
    passkeysOn ? readPasskeys(user.uid) : null,
    offeredFactors(),
  ]).catch(() => {
    throw respond(unavailable())
  })
  // Dates in the page's language, on the server (the same text with and without JavaScript), in UTC.
  const format = new Intl.DateTimeFormat(getLocale(request), { dateStyle: 'long', timeStyle: 'short', timeZone: 'UTC' })
  const when = (millis: number | null) => (millis === null ? null : format.format(millis) + ' UTC')
  return respond(
    page({
      email: account.email ?? user.email ?? '',
      verified: account.emailVerified,
      // The wait before "Send the email again", once this browser had it sent (ADR 083).
      sent: new URL(request.url).searchParams.get('verification') === 'sent' ? sentView(request, 'verify') : null,
      methods: account.providers.map((p) =>
        p.providerId === 'password'
          ? { kind: 'password' as const }
          : /^(saml|oidc)\./.test(p.providerId)
            ? { kind: 'sso' as const }
            : { kind: 'provider' as const, name: providerName(p.providerId) ?? p.providerId },
      ),
      secondFactors: account.secondFactors.map(({ enrolledAt, ...factor }) => ({ ...factor, added: when(enrolledAt) })),
      offered,
      created: when(account.createdAt),
      lastSignIn: when(account.lastLoginAt),
      hasPassword: account.providers.some((p) => p.providerId === 'password'),
      // By a digest of the credential id: no id reaches the page (ADR 067).
      passkeys: passkeys?.map((p) => ({ ref: refOf(p.credentialId), name: p.name })) ?? null,
      // This browser first, then the others newest first. The key names a record; only its cookie opens it.
      sessions: sessions
        .filter((s) => s.createdAt >= (account.validSince ?? 0))
        .map((s) => ({
          key: s.key,
          current: s.key === user.sessionKey,
          device: s.device,
          ip: s.ip,
          method: s.method,
          secondFactor: s.secondFactor,
          signedIn: when(s.createdAt)!,
          lastActive: when(s.lastSeenAt)!,
        }))
        .sort((a, b) => Number(b.current) - Number(a.current)),
    }),
  )
}

/** "Send verification email" (the page then says how it went, `verification`), or "End session" on another browser. */
export async function action({ request, context }: Route.ActionArgs) {
  const { form } = await guardForm(request, context)
  const user = await requireSignedIn(request)
  const parsed = parseForm(AccountFormSchema, form, {})
  if (!parsed.ok) return respond(parsed.result)
  if (parsed.data.intent === 'end-session') return respond(await endOtherSession(user, parsed.data.session, context))
  return respond(await verifyOwnEmail(request, user, context, parsed.data.intent === 'resend'))
}

/** What the page says after a change made elsewhere (`done`). */
const DONE: Partial<Record<string, TranslationKey>> = {
  password: 'account.passwordChanged',
  'totp-added': 'secondFactors.totpAdded',
  'phone-added': 'phoneEnrolment.added',
  'factor-removed': 'secondFactors.removed',
  'session-ended': 'sessions.ended',
  'session-gone': 'sessions.gone',
  'passkey-added': 'passkeys.added',
  'passkey-removed': 'passkeys.removed',
}

const VERIFICATION_ERRORS: Partial<Record<string, TranslationKey>> = {
  limited: 'error.tooManyRequests',
  failed: 'error.unexpected',
}

export default function Account({ loaderData, actionData: tooSoon }: Route.ComponentProps) {
  const { t } = useTranslation()
  const { email, verified, sent, methods, secondFactors, offered, created, lastSignIn, hasPassword, passkeys, sessions } =
    loaderData
  const [searchParams] = useSearchParams()
  const done = DONE[searchParams.get('done') ?? ''] ?? null
  const verificationError = VERIFICATION_ERRORS[searchParams.get('verification') ?? ''] ?? null
  const loginMethods = methods.map((m) =>
    m.kind === 'password' ? t('account.methodPassword') : m.kind === 'sso' ? t('account.methodSso') : m.name,
  )
  return (
    <div className="account-page">
      <div className="account-head">
        <h1>{t('account.title')}</h1>
        <SecureForm action="/logout">
          <button type="submit" className="button-secondary">
            {t('signIn.logout')}
          </button>
        </SecureForm>
      </div>
      {done ? <FormAlert tone="success">{t(done)}</FormAlert> : null}
      {sent ? (
        <Suspense>
          <CheckEmailAgain
            message={t('account.verificationSent')}
            sent={{ ...sent, address: email }}
            ownAddress
            retryAt={tooSoon && 'retryAt' in tooSoon ? tooSoon.retryAt : null}
            label="checkEmail.resend"
          />
        </Suspense>
      ) : null}
      {verificationError ? <FormAlert>{t(verificationError)}</FormAlert> : null}
      {!verified && !sent ? (
        // First on the page, and the way to ask again: an unverified account signs in, but is not finished.
        <div className="alert alert-notice">
          <p>{t('account.unverifiedNotice')}</p>
          <SecureForm className="stack">
            <button type="submit" name="intent" value="verify" className="button-secondary button-block">
              {t('account.sendVerification')}
            </button>
          </SecureForm>
        </div>
      ) : null}
      <section className="account-section" aria-labelledby="profile">
        <h2 id="profile">{t('accountPage.profile')}</h2>
        <dl className="account-rows">
          <div className="account-row">
            <dt>{t('account.email')}</dt>
            {/* Whole, wrapped anywhere when long; kept out of Session Replay (ADR 030). */}
            <dd className="account-address" data-personal>
              {email}
            </dd>
            <dd>
              <span className={verified ? 'badge badge-on' : 'badge badge-off'}>
                {verified ? t('account.verified') : t('account.unverified')}
              </span>
            </dd>
            {hasPassword ? (
              <dd className="account-row-action">
                <Link to="/account/email" className="button-secondary button-link">
                  {t('account.changeEmail')}
                </Link>
              </dd>
            ) : null}
          </div>
          {created ? (
            <div className="account-row">
              <dt>{t('account.created')}</dt>
              <dd>{created}</dd>
            </div>
          ) : null}
          {lastSignIn ? (
            <div className="account-row">
              <dt>{t('account.lastSignIn')}</dt>
              <dd>{lastSignIn}</dd>
            </div>
          ) : null}
        </dl>
      </section>
      <section className="account-section" aria-labelledby="security">
        <h2 id="security">{t('accountPage.security')}</h2>
        <div className="account-body">
          <dl className="account-rows">
            <div className="account-row">
              <dt>{t('account.methods')}</dt>
              {loginMethods.map((name, i) => (
                <dd key={i}>{name}</dd>
              ))}
              {hasPassword ? (
                <dd className="account-row-action">
                  <Link to="/account/password" className="button-secondary button-link">
                    {t('account.changePassword')}
                  </Link>
                </dd>
              ) : null}
            </div>
          </dl>
          <SecondFactorList factors={secondFactors} verified={verified} offered={offered} />
          {passkeys ? <PasskeyList passkeys={passkeys} /> : null}
        </div>
      </section>
      <SessionList sessions={sessions} />
      <section className="account-section account-danger" aria-labelledby="danger">
        <h2 id="danger">{t('accountPage.danger')}</h2>
        <div className="account-rows">
          <div className="account-row">
            <p>{t('accountPage.everywhereNote')}</p>
            <SecureForm action="/logout" className="account-row-action">
              <button type="submit" name="intent" value="everywhere" className="button-secondary button-danger">
                {t('account.logoutEverywhere')}
              </button>
            </SecureForm>
          </div>
          {/* Deleting asks for the address typed again; an account of a provider confirms through it. */}
          {email ? (
            <div className="account-row">
              <p>{t('accountPage.deleteNote')}</p>
              <p className="account-row-action">
                <Link to="/account/delete" className="button-secondary button-link button-danger">
                  {t('account.deleteAccount')}
                </Link>
              </p>
            </div>
          ) : null}
        </div>
      </section>
    </div>
  )
}
