import { Form, useLoaderData, type LoaderFunctionArgs, type MetaFunction } from 'react-router'
import { useTranslation } from 'react-i18next'
import { getInstance } from '../i18next.server'

export function loader({ context }: LoaderFunctionArgs) {
  return { title: getInstance(context).t('signIn.title') }
}

export const meta: MetaFunction<typeof loader> = ({ loaderData }) => [{ title: loaderData?.title }]

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
