import { describe, expect, it } from 'vitest'
import { WorkerServers } from './worker-servers'

/** A stand-in server: what was started and stopped, in order. */
function recorder() {
  const events: string[] = []
  return {
    events,
    start: (name: string) => async () => (events.push(`start ${name}`), name),
    stop: async (name: string) => void events.push(`stop ${name}`),
  }
}

describe('WorkerServers', () => {
  it('starts a server once and hands the same one to every later test that asks', async () => {
    const { events, start, stop } = recorder()
    const servers = new WorkerServers()
    const key = Symbol('portal')
    expect(await servers.get(key, start('a'), stop)).toBe('a')
    expect(await servers.get(key, start('a again'), stop)).toBe('a')
    expect(events).toEqual(['start a'])
  })

  it('keeps three: a fourth stops the least recently used, not the oldest started', async () => {
    const { events, start, stop } = recorder()
    const servers = new WorkerServers()
    const [a, b, c, d] = [Symbol('a'), Symbol('b'), Symbol('c'), Symbol('d')]
    await servers.get(a, start('a'), stop)
    await servers.get(b, start('b'), stop)
    await servers.get(c, start('c'), stop)
    await servers.get(a, start('a'), stop)
    await servers.get(d, start('d'), stop)
    // (The next one starts while the evicted one stops.)
    expect(events.slice(3).sort()).toEqual(['start d', 'stop b'])
    // b was stopped, so asking again starts it anew; c is now the least recently used.
    await servers.get(b, start('b'), stop)
    expect(events.slice(5).sort()).toEqual(['start b', 'stop c'])
  })

  it('forgets a start that failed: the next test starts it again', async () => {
    const servers = new WorkerServers()
    const key = Symbol('flaky')
    let attempts = 0
    const start = async () => {
      attempts++
      if (attempts === 1) throw new Error('port taken')
      return 'up'
    }
    await expect(servers.get(key, start, async () => {})).rejects.toThrow('port taken')
    expect(await servers.get(key, start, async () => {})).toBe('up')
    expect(attempts).toBe(2)
  })

  it('close() stops every kept server, and a stop that fails does not keep the others running', async () => {
    const { events, start } = recorder()
    const servers = new WorkerServers()
    const stop = async (name: string) => {
      events.push(`stop ${name}`)
      if (name === 'a') throw new Error('already gone')
    }
    await servers.get(Symbol('a'), start('a'), stop)
    await servers.get(Symbol('b'), start('b'), stop)
    await servers.close()
    expect(events).toEqual(['start a', 'start b', 'stop a', 'stop b'])
  })
})
