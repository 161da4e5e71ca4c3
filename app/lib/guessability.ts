import { COMMON_WORDS } from './common-words'

// The browser's light check, small enough to ship: it knows the 100 most
// common words only. The server's zxcvbn-ts verdict decides (see ADR 062).

export type GuessReason = 'newPassword.guessableWord' | 'newPassword.guessableEmail' | 'newPassword.guessablePattern'

export interface GuessOptions {
  email?: string | null
}

/** zxcvbn's score 4: what an offline attack on a leaked hash makes slow. */
export const MIN_GUESSES_LOG10 = 10

/** Beyond this, length alone defeats these guesses. */
const JUDGED_LENGTH = 64
const MAX_WORD = 32
const BRUTE_FORCE_LOG10 = 1
const EXTRA_PIECE_LOG10 = 4
/** Starting keys × average neighbours (zxcvbn's estimate for a straight walk). */
const KEYBOARD_WALK = 432
const KEYBOARD_ROWS = ['1234567890', 'qwertyuiop', 'asdfghjkl', 'zxcvbnm', 'azertyuiop', 'qsdfghjklm', 'wxcvbn', 'qwertzuiop', 'yxcvbnm']
const L33T: Array<Record<string, string>> = [
  { '4': 'a', '@': 'a', '8': 'b', '3': 'e', '6': 'g', '9': 'g', '1': 'i', '!': 'i', '|': 'i', '0': 'o', $: 's', '5': 's', '7': 't', '+': 't', '2': 'z' },
  { '1': 'l', '|': 'l' },
]
const REFERENCE_YEAR = 2026

let browserWords: ReadonlyMap<string, number> | undefined
const commonWords = () => (browserWords ??= new Map(Object.entries(COMMON_WORDS)))

interface Piece {
  start: number
  end: number
  log10: number
  kind: 'word' | 'email' | 'pattern' | 'brute'
}

export function estimateGuesses(password: string, options: GuessOptions = {}): { log10: number; reason: GuessReason } {
  const chars = Array.from(password).slice(0, JUDGED_LENGTH)
  const mine = new Map(emailWords(options.email).map((word, i) => [word, i + 1]))
  const { log10, pieces } = cheapestRun(chars, pieceCandidates(chars, commonWords(), mine))
  return { log10, reason: reasonOf(pieces) }
}

export function guessabilityProblem(password: string, options: GuessOptions = {}): GuessReason | null {
  const { log10, reason } = estimateGuesses(password, options)
  return log10 < MIN_GUESSES_LOG10 ? reason : null
}

export function emailWords(email: string | null | undefined): string[] {
  if (!email) return []
  const local = email.slice(0, email.lastIndexOf('@') === -1 ? undefined : email.lastIndexOf('@')).toLowerCase()
  const words = [local, ...local.split(/[^\p{L}]+/u), ...local.split(/[^\p{L}\p{N}]+/u)]
  return [...new Set(words.filter((word) => Array.from(word).length >= 3))]
}

function pieceCandidates(chars: string[], words: ReadonlyMap<string, number>, mine: ReadonlyMap<string, number>): Piece[] {
  const lower = chars.map((c) => c.toLowerCase())
  const pieces: Piece[] = []
  for (let start = 0; start < chars.length; start++) {
    for (let end = start + 3; end <= Math.min(chars.length, start + MAX_WORD); end++) {
      const text = lower.slice(start, end).join('')
      const cased = Math.log10(capitalVariants(chars.slice(start, end)))
      for (const [variant, swapped] of spellings(text)) {
        const extra = cased + (swapped ? Math.log10(2) : 0)
        const own = mine.get(variant)
        if (own !== undefined) pieces.push({ start, end, log10: Math.log10(own) + extra, kind: 'email' })
        const rank = words.get(variant)
        if (rank !== undefined) pieces.push({ start, end, log10: Math.log10(rank) + extra, kind: 'word' })
      }
      const pattern = patternGuesses(text, chars.slice(start, end))
      if (pattern !== null) pieces.push({ start, end, log10: Math.log10(pattern), kind: 'pattern' })
    }
  }
  return pieces
}

function spellings(text: string): Array<[string, boolean]> {
  const found: Array<[string, boolean]> = [[text, false]]
  let swaps = { ...L33T[0] }
  for (const table of L33T) {
    swaps = { ...swaps, ...table }
    const read = Array.from(text, (c) => swaps[c] ?? c).join('')
    if (read !== text && !found.some(([seen]) => seen === read)) found.push([read, true])
  }
  return found
}

function patternGuesses(text: string, chars: string[]): number | null {
  const codes = Array.from(text, (c) => c.codePointAt(0)!)
  const step = codes[1]! - codes[0]!
  const sameClass = /^(?:\d+|[a-z]+)$/.test(text)
  const candidates: number[] = []
  if (sameClass && Math.abs(step) === 1 && codes.every((code, i) => i === 0 || code - codes[i - 1]! === step)) {
    const base = 'az019'.includes(text[0]!) ? 4 : /\d/.test(text[0]!) ? 10 : 26
    candidates.push(base * codes.length * (step < 0 ? 2 : 1))
  }
  if (KEYBOARD_ROWS.some((row) => row.includes(text) || [...row].reverse().join('').includes(text))) {
    candidates.push(KEYBOARD_WALK * (codes.length - 1))
  }
  const block = repeatedBlock(chars)
  if (block) candidates.push(10 ** Math.min(block.length, 6) * (chars.length / block.length))
  if (/^(?:19|20)\d\d$/.test(text)) candidates.push(Math.max(Math.abs(Number(text) - REFERENCE_YEAR), 20))
  return candidates.length ? Math.min(...candidates) : null
}

function repeatedBlock(chars: string[]): string[] | null {
  for (let size = 1; size <= chars.length / 2; size++) {
    if (chars.length % size === 0 && chars.every((c, i) => c === chars[i % size])) return chars.slice(0, size)
  }
  return null
}

function capitalVariants(chars: string[]): number {
  const upper = chars.filter((c) => c !== c.toLowerCase()).length
  const lower = chars.filter((c) => c !== c.toUpperCase()).length
  if (upper === 0) return 1
  if (lower === 0 || (upper === 1 && chars[0] !== chars[0]!.toLowerCase())) return 2
  let variants = 0
  for (let i = 1; i <= Math.min(upper, lower); i++) variants += choose(upper + lower, i)
  return variants
}

function choose(n: number, k: number): number {
  let result = 1
  for (let i = 1; i <= k; i++) result = (result * (n - k + i)) / i
  return result
}

// zxcvbn's search: the product of the pieces' guesses, times the
// orders they could come in (k!), plus a floor for each extra piece.
function cheapestRun(chars: string[], pieces: Piece[]): { log10: number; pieces: Piece[] } {
  const n = chars.length
  if (n === 0) return { log10: 0, pieces: [] }
  const endingAt: Piece[][] = Array.from({ length: n + 1 }, () => [])
  for (const piece of pieces) endingAt[piece.end]!.push(piece)
  for (let end = 1; end <= n; end++) {
    for (let start = 0; start < end; start++) {
      endingAt[end]!.push({ start, end, log10: (end - start) * BRUTE_FORCE_LOG10, kind: 'brute' })
    }
  }
  // best[end][count]: the cheapest product covering chars[0, end) with `count` pieces.
  const best: Array<Array<{ log10: number; last: Piece | null } | undefined>> = Array.from({ length: n + 1 }, () => [])
  best[0]![0] = { log10: 0, last: null }
  for (let end = 1; end <= n; end++) {
    for (const piece of endingAt[end]!) {
      best[piece.start]!.forEach((before, count) => {
        if (!before) return
        const log10 = before.log10 + piece.log10
        const current = best[end]![count + 1]
        if (!current || log10 < current.log10) best[end]![count + 1] = { log10, last: piece }
      })
    }
  }
  let total = Infinity
  let chosen = 0
  best[n]!.forEach((run, count) => {
    if (!run) return
    const ordered = run.log10 + logFactorial(count)
    const log10 = Math.max(ordered, EXTRA_PIECE_LOG10 * (count - 1)) + Math.log10(1 + 10 ** -Math.abs(ordered - EXTRA_PIECE_LOG10 * (count - 1)))
    if (log10 < total) [total, chosen] = [log10, count]
  })
  const run: Piece[] = []
  for (let end = n, count = chosen; count > 0; count--) {
    const piece = best[end]![count]!.last!
    run.unshift(piece)
    end = piece.start
  }
  return { log10: total, pieces: run }
}

function logFactorial(count: number): number {
  let log10 = 0
  for (let i = 2; i <= count; i++) log10 += Math.log10(i)
  return log10
}

function reasonOf(pieces: Piece[]): GuessReason {
  if (pieces.some((piece) => piece.kind === 'email')) return 'newPassword.guessableEmail'
  const covered = (kind: Piece['kind']) =>
    pieces.filter((piece) => piece.kind === kind).reduce((sum, piece) => sum + piece.end - piece.start, 0)
  return covered('word') >= covered('pattern') && covered('word') > 0 ? 'newPassword.guessableWord' : 'newPassword.guessablePattern'
}
