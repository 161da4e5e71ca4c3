import {
  data,
  Form,
  Link,
  useLoaderData,
  useSearchParams,
  type ActionFunctionArgs,
  type LoaderFunctionArgs,
  type MetaFunction,
} from 'react-router'
import { useTranslation } from 'react-i18next'
import { FormAlert } from '~/components/forms'
import { SecondFactorName } from '~/components/second-factor-name'
import { SecureForm } from '~/components/secure-form'
import { NO_STORE, routeHeaders } from '~/lib/headers'
import { NOT_INDEXED, pageTitle } from '~/lib/meta'
import { AccountFormSchema } from '~/lib/schemas'
import type { TranslationKey } from '~/lib/i18n'
import { providerName } from '~/lib/providers'
import { endOtherSession, requireSignedIn, verifyOwnEmail } from '~/.server/auth/account'
import { readAccount, readPasskeys } from '~/.server/auth/identity-admin'
import { refOf } from '~/.server/auth/passkeys'
import { offeredFactors } from '~/.server/auth/second-factor-kinds'
import { getFlags } from '~/.server/ops/flags'
import { listSessions } from '~/.server/auth/session'
import { PasskeyList } from '~/components/passkey-list'
import { SessionList } from '~/components/session-list'
import { getLocale } from '~/.server/i18n'
import { guardForm } from '~/.server/policy/csrf'
import { parseForm, respond, unavailable } from '~/.server/result'

export const headers = routeHeaders

export const meta: MetaFunction = ({ matches }) => pageTitle(matches, 'meta.account', NOT_INDEXED)

export async function loader({ request }: LoaderFunctionArgs) {
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
  const format = new Intl.DateTimeFormat(getLocale(request), {
    dateStyle: 'long',
    timeStyle: 'short',
    timeZone: 'UTC',
  })
  const when = (millis: number | null) => (millis === null ? null : format.format(millis) + ' UTC')
  return data(
    {
      email: account.email ?? user.email ?? '',
      verified: account.emailVerified,
      methods: account.providers.map((p) =>
        p.providerId === 'password'
          ? { kind: 'password' as const }
          : /^(saml|oidc)\./.test(p.providerId)
            ? { kind: 'sso' as const }
            : { kind: 'provider' as const, name: providerName(p.providerId) ?? p.providerId },
      ),
      secondFactors: account.secondFactors.map(({ enrolledAt, ...factor }) => ({ ...factor, added: when(enrolledAt) })),
      // Only the kinds the identity project enables (ADR 072).
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
    },
    { headers: NO_STORE },
  )
}

/** "Send verification email" (the page then says how it went, `verification`), or "End session" on another browser. */
export async function action({ request, context }: ActionFunctionArgs) {
  const { form } = await guardForm(request, context)
  const user = await requireSignedIn(request)
  const parsed = parseForm(AccountFormSchema, form, {})
  if (!parsed.ok) return respond(parsed.result)
  if (parsed.data.intent === 'end-session') return respond(await endOtherSession(user, parsed.data.session, context))
  return respond(await verifyOwnEmail(request, user, context))
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

export default function Account() {
  const { t } = useTranslation()
  const { email, verified, methods, secondFactors, offered, created, lastSignIn, hasPassword, passkeys, sessions } =
    useLoaderData<typeof loader>()
  const [searchParams] = useSearchParams()
  const done = DONE[searchParams.get('done') ?? ''] ?? null
  const verification = searchParams.get('verification')
  const sent = verification === 'sent'
  const verificationError = VERIFICATION_ERRORS[verification ?? ''] ?? null
  return (
    <>
      <h1>{t('account.title')}</h1>
      {done ? <FormAlert tone="success">{t(done)}</FormAlert> : null}
      {sent ? <FormAlert tone="success">{t('account.verificationSent')}</FormAlert> : null}
      {verificationError ? <FormAlert>{t(verificationError)}</FormAlert> : null}
      <h2 className="visually-hidden">{t('account.details')}</h2>
      <dl className="account-facts">
        <div>
          <dt>{t('account.email')}</dt>
          {/* Whole, wrapped anywhere when long; kept out of Session Replay (ADR 030). */}
          <dd className="account-address" data-personal>
            {email}
          </dd>
          <dd>{verified ? t('account.verified') : t('account.unverified')}</dd>
        </div>
        <div>
          <dt>{t('account.methods')}</dt>
          {methods.map((m, i) => (
            <dd key={i}>
              {m.kind === 'password' ? t('account.methodPassword') : m.kind === 'sso' ? t('account.methodSso') : m.name}
            </dd>
          ))}
        </div>
        {created ? (
          <div>
            <dt>{t('account.created')}</dt>
            <dd>{created}</dd>
          </div>
        ) : null}
        {lastSignIn ? (
          <div>
            <dt>{t('account.lastSignIn')}</dt>
            <dd>{lastSignIn}</dd>
          </div>
        ) : null}
      </dl>
      <section className="factors" aria-labelledby="second-factors">
        <h2 id="second-factors">{t('account.secondFactors')}</h2>
        {secondFactors.length ? (
          <ul className="factor-list" aria-labelledby="second-factors">
            {secondFactors.map((f, i) => (
              <li key={f.id}>
                <SecondFactorName factor={f} id={`factor-${i}`} added={f.added} />
                {/* A GET to the confirmation page, which names the factor: the removal itself is its POST. */}
                <Form action="/account/second-factor/remove">
                  <input type="hidden" name="factor" value={f.id} />
                  <button type="submit" className="button-secondary" aria-describedby={`factor-${i}`}>
                    {t('secondFactors.remove')}
                  </button>
                </Form>
              </li>
            ))}
          </ul>
        ) : (
          <p>{t('account.noSecondFactor')}</p>
        )}
        {offered.length === 0 ? null : verified ? (
          // Links, not buttons: their labels are too long for one line of a button at 320 px (ADR 035).
          <ul className="factor-add">
            {offered.includes('totp') ? (
              <li>
                <Link to="/account/second-factor/totp">{t('secondFactors.addTotp')}</Link>
              </li>
            ) : null}
            {offered.includes('phone') ? (
              <li>
                <Link to="/account/second-factor/phone">{t('secondFactors.addPhone')}</Link>
              </li>
            ) : null}
          </ul>
        ) : (
          <>
            <p>{t('secondFactors.needsVerified')}</p>
            {!sent ? (
              <SecureForm className="stack">
                <button type="submit" name="intent" value="verify" className="button-secondary button-block">
                  {t('account.sendVerification')}
                </button>
              </SecureForm>
            ) : null}
          </>
        )}
      </section>
      {passkeys ? <PasskeyList passkeys={passkeys} /> : null}
      <SessionList sessions={sessions} />
      <h2 className="visually-hidden">{t('account.actions')}</h2>
      <div className="actions">
        {hasPassword ? (
          <Link to="/account/password" className="button-secondary button-link">
            {t('account.changePassword')}
          </Link>
        ) : null}
        {hasPassword ? (
          <Link to="/account/email" className="button-secondary button-link">
            {t('account.changeEmail')}
          </Link>
        ) : null}
        <SecureForm action="/logout" className="stack">
          <button type="submit" name="intent" value="everywhere" className="button-secondary button-block">
            {t('account.logoutEverywhere')}
          </button>
        </SecureForm>
        {/* Deleting asks for the address typed again; an account of a provider confirms through it. */}
        {email ? <Link to="/account/delete">{t('account.deleteAccount')}</Link> : null}
      </div>
    </>
  )
}
