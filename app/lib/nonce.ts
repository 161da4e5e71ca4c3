import { createContext, useContext } from 'react'

/** The CSP nonce of this response (server only; the browser hides it and needs none after hydration). */
export const NonceContext = createContext('')
export const useNonce = () => useContext(NonceContext)
