export const CSRF_FIELD = 'csrf'
