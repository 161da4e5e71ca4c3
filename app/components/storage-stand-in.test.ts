import { runInNewContext } from 'node:vm'
import { describe, expect, it } from 'vitest'
import { STORAGE_STAND_IN } from './storage-stand-in'

/** A window whose sessionStorage is refused (as with cookies blocked) or given. */
function windowWith(storage: 'refused' | 'given') {
  const window: Record<string, unknown> = {}
  window.window = window
  const given = { length: 0, getItem: () => 'given' }
  Object.defineProperty(window, 'sessionStorage', {
    configurable: true,
    get() {
      if (storage === 'refused') throw new Error('SecurityError: The operation is insecure.')
      return given
    },
  })
  return window
}

describe('the sessionStorage stand-in', () => {
  it('takes the place of a refused storage, in memory, for the scripts that follow', () => {
    const window = windowWith('refused')
    runInNewContext(STORAGE_STAND_IN, window)
    const read = runInNewContext(
      `sessionStorage.setItem('positions', '{"a":1}'); const v = sessionStorage.getItem('positions');
       sessionStorage.removeItem('positions'); [v, sessionStorage.getItem('positions'), sessionStorage.length]`,
      window,
    ) as unknown[]
    expect(read).toEqual(['{"a":1}', null, 0])
  })

  it('leaves a storage the browser gives alone', () => {
    const window = windowWith('given')
    runInNewContext(STORAGE_STAND_IN, window)
    expect(runInNewContext(`sessionStorage.getItem('x')`, window)).toBe('given')
  })
})
