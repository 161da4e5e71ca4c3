import { Agent, setGlobalDispatcher } from 'undici'

/**
 * The tests' fetch keeps an idle connection 1 s at most. A portal closes one after 6 s (Node's 5 s
 * keep-alive and its 1 s buffer). With undici's own 3 s, a test process that a loaded machine holds
 * for 3 s can send on a socket the portal has just closed and get a reset: the likeliest cause of the
 * one seen, in a burst of 20 sign-ups. The proxy in deploy/ keeps its connections 4 s for the same reason.
 */
setGlobalDispatcher(new Agent({ keepAliveMaxTimeout: 1_000 }))
