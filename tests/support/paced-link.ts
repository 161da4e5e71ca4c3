import net from 'node:net'

/** An Ethernet frame's TCP payload. */
const SEGMENT_BYTES = 1_448

export interface PacedLink {
  /** Where to connect instead of the target. */
  port: number
  /** Connections the target reset (ECONNRESET, EPIPE), rather than closing them cleanly. */
  resets(): number
  close(): Promise<void>
}

/**
 * A TCP hop on loopback that carries each direction in segments of 1,448 bytes, one a millisecond, as a
 * network between a proxy and its replicas would (about 1.4 MB/s per connection and direction). Loopback
 * alone carries 64 KB at once: a replica then always has a whole request in hand before it answers, and
 * its answer has always reached the proxy before it closes, which no real network guarantees.
 *
 * What the target wrote and the link has not carried yet stands for the target's send queue: when the
 * target resets the connection (Linux does when a socket is closed with request bytes left unread, or when
 * bytes arrive after it closed), that queue is lost and the client is reset too, as the target's kernel would
 * do. A clean close (FIN) is carried after the bytes before it.
 */
export async function pacedLink(targetPort: number): Promise<PacedLink> {
  let resets = 0
  const sockets = new Set<net.Socket>()
  // Half-open allowed: each side's FIN is carried on its own, after the bytes before it, as TCP does.
  const server = net.createServer({ allowHalfOpen: true }, (client) => {
    const target = net.connect({ port: targetPort, host: '127.0.0.1', allowHalfOpen: true })
    for (const socket of [client, target]) {
      sockets.add(socket)
      socket.once('close', () => sockets.delete(socket))
    }
    const toTarget = pace(target)
    const toClient = pace(client)
    client.on('data', (chunk: Buffer) => toTarget.push(chunk))
    target.on('data', (chunk: Buffer) => toClient.push(chunk))
    client.on('end', () => toTarget.end())
    target.on('end', () => toClient.end())
    target.on('error', () => {
      resets++
      toClient.drop()
      if (!client.destroyed) client.resetAndDestroy()
    })
    client.on('error', () => {
      toTarget.drop()
      if (!target.destroyed) target.resetAndDestroy()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    port: (server.address() as net.AddressInfo).port,
    resets: () => resets,
    async close() {
      for (const socket of sockets) socket.destroy()
      await new Promise((resolve) => server.close(resolve))
    },
  }
}

/** Writes to `socket` what is pushed, one segment a millisecond; `end` once all of it is written. */
function pace(socket: net.Socket) {
  const queue: Buffer[] = []
  let ending = false
  let timer: NodeJS.Timeout | undefined
  const tick = () => {
    timer = undefined
    if (socket.destroyed) return void queue.splice(0)
    const head = queue[0]
    if (head) {
      socket.write(head.subarray(0, SEGMENT_BYTES))
      if (head.length > SEGMENT_BYTES) queue[0] = head.subarray(SEGMENT_BYTES)
      else queue.shift()
    }
    if (queue.length) timer = setTimeout(tick, 1)
    else if (ending) socket.end()
  }
  const schedule = () => {
    if (!timer) timer = setTimeout(tick, 1)
  }
  return {
    push(chunk: Buffer) {
      queue.push(chunk)
      schedule()
    },
    end() {
      ending = true
      schedule()
    },
    drop() {
      queue.splice(0)
      ending = false
      clearTimeout(timer)
      timer = undefined
    },
  }
}
