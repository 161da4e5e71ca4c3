/**
 * The words many pages share, in each language: the contract the tests hold, written once. A spec's
 * own table spreads these and adds its page's words (the browser specs, through tests/e2e/fixtures.ts,
 * and the Firefox suite).
 */
export const COMMON_LABELS = {
  en: {
    email: 'Email',
    password: 'Password',
    signIn: 'Login',
    signedIn: 'You are signed in',
    account: 'Your account',
    confirm: "Confirm it's you",
    continue: 'Continue',
    logout: 'Log out',
    signedOut: 'Your session in this browser has ended.',
    linkButton: 'Email me a sign-in link',
    linkSent: 'If this email address is valid, you will receive an email with a link to sign in.',
    remember: 'Keep me signed in',
    step: 'Two-step verification',
    verify: 'Verify',
  },
  fr: {
    email: 'Adresse électronique',
    password: 'Mot de passe',
    signIn: 'Se connecter',
    signedIn: 'Votre session est ouverte',
    account: 'Votre compte',
    confirm: 'Confirmez votre identité',
    continue: 'Continuer',
    logout: 'Se déconnecter',
    signedOut: 'Ce navigateur n’a plus accès à votre compte.',
    linkButton: 'Recevoir un lien de connexion',
    linkSent: 'Si cette adresse électronique est valide, vous recevrez un courriel contenant un lien de connexion.',
    remember: 'Garder ma session ouverte',
    step: 'Vérification en deux étapes',
    verify: 'Vérifier',
  },
} as const
