import type { MetaFunction } from '@remix-run/node'
import { Form, Link, useSearchParams } from '@remix-run/react'
import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import { Field, SubmitButton } from '~/components/forms'

export const meta: MetaFunction = () => [{ title: 'Sign In' }]

export default function SignIn() {
  const { t } = useTranslation()
  const [searchParams] = useSearchParams()
  const redirectTo = searchParams.get('redirect')
  const [email, setEmail] = useState(searchParams.get('email') ?? '')
  const forgot = new URLSearchParams()
  if (email) forgot.set('email', email)
  if (redirectTo !== null) forgot.set('redirect', redirectTo)

  return (
    <>
      <h1>{t('signIn.title')}</h1>
      <Form method="post" className="stack">
        {redirectTo !== null ? <input type="hidden" name="redirect" value={redirectTo} /> : null}
        <Field
          label={t('signIn.email')}
          name="email"
          type="email"
          autoComplete="username"
          placeholder={t('signIn.emailPlaceholder')}
          required
          value={email}
          onChange={(e) => setEmail(e.currentTarget.value)}
        />
        <Field
          label={t('signIn.password')}
          name="password"
          type="password"
          autoComplete="current-password"
          placeholder={t('signIn.passwordPlaceholder')}
          required
        />
        <SubmitButton pendingLabel={t('signIn.pending')}>{t('signIn.submit')}</SubmitButton>
      </Form>
      <p className="links">
        <Link to={`/forgot-password${forgot.size ? `?${forgot}` : ''}`}>{t('signIn.forgotPassword')}</Link>
      </p>
    </>
  )
}
