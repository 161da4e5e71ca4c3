import { createContext, useContext } from 'react'

/** Server only: the browser hides the nonce and needs none after hydration. */
export const NonceContext = createContext('')
export const useNonce = () => useContext(NonceContext)
