/**
 * `npm run code-size`: the product's own code in figures a reviewer can recount: lines
 * and files of app/ and server/ (TypeScript, no tests), how many of those lines are comments, the
 * files over 250 lines, and the CSS beside them.
 *
 * `npm run code-size -- --at REV` counts the same at an earlier commit. `--merge REV...` prints the product
 * lines each merge brought to its first parent: what a branch added, counted when it landed.
 */
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { parseArgs } from 'node:util'

const MAX_FILE_LINES = 250
const MAX_COMMENT_SHARE = 0.08

const { values, positionals } = parseArgs({
  options: { at: { type: 'string' }, merge: { type: 'boolean' } },
  allowPositionals: true,
})
const git = (...args: string[]) => execFileSync('git', args, { encoding: 'utf8', maxBuffer: 64 << 20 })
const isProduct = (file: string) => /\.tsx?$/.test(file) && !/\.test\.tsx?$|\.d\.ts$/.test(file)

if (values.merge) {
  for (const rev of positionals) {
    let added = 0
    let removed = 0
    for (const row of git('diff', '--numstat', `${rev}^1`, rev, '--', 'app', 'server').split('\n')) {
      const [plus, minus, file] = row.split('\t')
      if (!file || !isProduct(file)) continue
      added += Number(plus)
      removed += Number(minus)
    }
    console.log(
      `${rev}: +${added} -${removed}, net ${added - removed} product lines (${git('log', '-1', '--format=%s', rev).trim()})`,
    )
  }
  process.exit(0)
}

const at = values.at
const tracked = (
  at ? git('ls-tree', '-r', '--name-only', at, 'app', 'server') : git('ls-files', 'app', 'server')
).split('\n')
const read = (file: string) => (at ? git('show', `${at}:${file}`) : readFileSync(file, 'utf8'))
const product = tracked.filter(isProduct)
const css = tracked.filter((file) => file.endsWith('.css'))

/** Lines inside a block comment or starting with `//`, `/*`, `*` or `{/*` (JSX). */
function commentLines(text: string): number {
  let inBlock = false
  let count = 0
  for (const raw of text.split('\n')) {
    const line = raw.trim()
    if (inBlock) {
      count++
      if (line.includes('*/')) inBlock = false
    } else if (line.startsWith('//')) count++
    else if (line.startsWith('/*') || line.startsWith('{/*')) {
      count++
      inBlock = !line.includes('*/')
    }
  }
  return count
}

const lines = (text: string) => text.replace(/\n$/, '').split('\n').length
const sizes = product.map((file) => {
  const text = read(file)
  return { file, lines: lines(text), comments: commentLines(text) }
})
const total = sizes.reduce((sum, s) => sum + s.lines, 0)
const comments = sizes.reduce((sum, s) => sum + s.comments, 0)
const long = sizes.filter((s) => s.lines > MAX_FILE_LINES).sort((a, b) => b.lines - a.lines)
const share = comments / total

console.log(
  `product${at ? ` at ${at}` : ''}: ${total} lines in ${product.length} files (app/, server/; TypeScript without tests)`,
)
console.log(`comments: ${comments} lines, ${(share * 100).toFixed(1)} % (bound ${MAX_COMMENT_SHARE * 100} %)`)
console.log(`CSS: ${css.reduce((sum, file) => sum + lines(read(file)), 0)} lines in ${css.length} files`)
console.log(`files over ${MAX_FILE_LINES} lines: ${long.length}${long.map((s) => `\n  ${s.file} ${s.lines}`).join('')}`)
