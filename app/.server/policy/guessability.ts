import type { MatchExtended, ZxcvbnFactory } from '@zxcvbn-ts/core'
import { MIN_GUESSES_LOG10, emailWords, type GuessReason } from '~/lib/guessability'

// The browser cannot afford zxcvbn-ts with its dictionaries and makes
// a lighter check (app/lib/guessability.ts): this verdict decides.

/** Beyond this, length alone defeats these guesses. */
const JUDGED_LENGTH = 64
/** zxcvbn's default, 100, costs ~50 ms a password; 8 costs ~8 ms and finds the same words. */
const L33T_MAX_SUBSTITUTIONS = 8

let zxcvbn: Promise<ZxcvbnFactory> | undefined

/** Made on first use: the dictionaries take ~30 MB of heap. */
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

export async function serverGuessabilityProblem(password: string, email?: string | null): Promise<GuessReason | null> {
  const result = (await estimator()).check(password, emailWords(email))
  return result.guessesLog10 < MIN_GUESSES_LOG10 ? reasonOf(result.sequence) : null
}

const WORD_PATTERNS = ['dictionary', 'wordSequence']
const OTHER_PATTERNS = ['spatial', 'sequence', 'repeat', 'regex', 'date']

function reasonOf(sequence: MatchExtended[]): GuessReason {
  if (sequence.some((match) => match.dictionaryName === 'userInputs')) return 'newPassword.guessableEmail'
  const covered = (patterns: string[]) =>
    sequence.filter((match) => patterns.includes(match.pattern)).reduce((sum, match) => sum + match.j - match.i + 1, 0)
  const words = covered(WORD_PATTERNS)
  return words > 0 && words >= covered(OTHER_PATTERNS) ? 'newPassword.guessableWord' : 'newPassword.guessablePattern'
}
