import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node'
import { Form, useLoaderData } from '@remix-run/react'
import { useTranslation } from 'react-i18next'
import i18next from '../i18next.server'

export async function loader({ request }: LoaderFunctionArgs) {
  const t = await i18next.getFixedT(request)
  return { title: t('meta.signIn') }
}

export const meta: MetaFunction<typeof loader> = ({ data }) => [{ title: data?.title }]

/** The portal's sign-in form, plainly. */
export default function Index() {
  const { t } = useTranslation()
  useLoaderData<typeof loader>()
  return (
    <main>
      <h1>{t('signIn.title')}</h1>
      <Form method="post">
        <label htmlFor="email">{t('signIn.email')}</label>
        <input id="email" name="email" type="email" autoComplete="username" required />
        <label htmlFor="password">{t('signIn.password')}</label>
        <input id="password" name="password" type="password" autoComplete="current-password" required />
        <button type="submit">{t('signIn.submit')}</button>
      </Form>
      <a href="/forgot-password">{t('signIn.forgotPassword')}</a>
    </main>
  )
}
