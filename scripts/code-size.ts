/**
 * `npm run code-size`: the product's own code in figures a reviewer can recount: lines
 * and files of app/ and server/ (TypeScript, no tests), how many of those lines are comments, the
 * files over 250 lines, and the CSS beside them.
 */
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'

const MAX_FILE_LINES = 250
const MAX_COMMENT_SHARE = 0.08

const tracked = execFileSync('git', ['ls-files', 'app', 'server'], { encoding: 'utf8' }).split('\n')
const product = tracked.filter((file) => /\.tsx?$/.test(file) && !/\.test\.tsx?$|\.d\.ts$/.test(file))
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

const lines = (file: string) => readFileSync(file, 'utf8').replace(/\n$/, '').split('\n').length
const sizes = product.map((file) => ({ file, lines: lines(file), comments: commentLines(readFileSync(file, 'utf8')) }))
const total = sizes.reduce((sum, s) => sum + s.lines, 0)
const comments = sizes.reduce((sum, s) => sum + s.comments, 0)
const long = sizes.filter((s) => s.lines > MAX_FILE_LINES).sort((a, b) => b.lines - a.lines)
const share = comments / total

console.log(`product: ${total} lines in ${product.length} files (app/, server/; TypeScript without tests)`)
console.log(`comments: ${comments} lines, ${(share * 100).toFixed(1)} % (bound ${MAX_COMMENT_SHARE * 100} %)`)
console.log(`CSS: ${css.reduce((sum, file) => sum + lines(file), 0)} lines in ${css.length} files`)
console.log(`files over ${MAX_FILE_LINES} lines: ${long.length}${long.map((s) => `\n  ${s.file} ${s.lines}`).join('')}`)
