import type { MatchExtended, ZxcvbnFactory } from '@zxcvbn-ts/core'
import { MIN_GUESSES_LOG10, emailWords, type GuessReason } from '~/lib/guessability'

/**
 * The server's guessability verdict: zxcvbn-ts (@zxcvbn-ts/core) with the common-password list,
 * the diceware words and keyboard layouts (@zxcvbn-ts/language-common), and English and French
 * words, names and Wikipedia terms (@zxcvbn-ts/language-en, -fr). The browser cannot afford it and
 * makes a light check of its own (app/lib/guessability.ts, ADR 062): this verdict decides.
 */

/** Longer passwords are judged on their start: beyond this, length alone defeats these guesses. */
const JUDGED_LENGTH = 64
/**
 * How many l33t swaps zxcvbn tries in one password (its default, 100, costs ~50 ms a password; 8 costs
 * ~8 ms and finds the same words in the project's examples).
 */
const L33T_MAX_SUBSTITUTIONS = 8

let zxcvbn: Promise<ZxcvbnFactory> | undefined

/**
 * Made on first use, not at start: the dictionaries are ~30 MB of heap, which a process that never
 * judges a new password does not need. Kept for the life of the process.
 */
function estimator(): Promise<ZxcvbnFactory> {
  zxcvbn ??= Promise.all([
    import('@zxcvbn-ts/core'),
    import('@zxcvbn-ts/language-common'),
    import('@zxcvbn-ts/language-en'),
    import('@zxcvbn-ts/language-fr'),
  ]).then(
    ([{ ZxcvbnFactory }, common, en, fr]) =>
      new ZxcvbnFactory({
        graphs: common.adjacencyGraphs,
        dictionary: { ...common.dictionary, ...en.dictionary, ...fr.dictionary },
        maxLength: JUDGED_LENGTH,
        l33tMaxSubstitutions: L33T_MAX_SUBSTITUTIONS,
      }),
  )
  return zxcvbn
}

/** Why `password` takes fewer than 10^10 guesses (zxcvbn's score 4), or null when it takes enough. */
export async function serverGuessabilityProblem(password: string, email?: string | null): Promise<GuessReason | null> {
  const result = (await estimator()).check(password, emailWords(email))
  return result.guessesLog10 < MIN_GUESSES_LOG10 ? reasonOf(result.sequence) : null
}

const WORD_PATTERNS = ['dictionary', 'wordSequence']
const OTHER_PATTERNS = ['spatial', 'sequence', 'repeat', 'regex', 'date']

/** The address first (the most telling), else the kind of piece that covers most of the password. */
function reasonOf(sequence: MatchExtended[]): GuessReason {
  if (sequence.some((match) => match.dictionaryName === 'userInputs')) return 'newPassword.guessableEmail'
  const covered = (patterns: string[]) =>
    sequence.filter((match) => patterns.includes(match.pattern)).reduce((sum, match) => sum + match.j - match.i + 1, 0)
  const words = covered(WORD_PATTERNS)
  return words > 0 && words >= covered(OTHER_PATTERNS) ? 'newPassword.guessableWord' : 'newPassword.guessablePattern'
}
