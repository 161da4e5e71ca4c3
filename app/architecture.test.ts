import { readFileSync, readdirSync, statSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'

/**
 * The import rules of docs/architecture.md, checked over every product module of app/ (tests
 * excluded): no import circle, and no import from a lower layer to a higher one. Type-only imports
 * (`import type`) are left out: they are erased from the build, and React Router's typed loaders are
 * meant to be named from below (`useRouteLoaderData<typeof rootLoader>`).
 */

const APP = import.meta.dirname

/**
 * Top to bottom: a module may import its own layer and those below it, never one above. Six layers, as a
 * reader thinks of them: the pages, the HTTP server, the flows and their guards, the identity client, the
 * server's foundations, and the shared code.
 */
const LAYERS = [
  // what the visitor gets: pages, their pieces, the document and its start-up
  ['routes', 'root.tsx', 'entry.server.tsx', 'entry.client.tsx', 'components'],
  // the express app, the React Router handler, readiness, serve()
  ['.server/http'],
  // the flows and their building blocks: sign-in, session, second factor...; preferences; the guards
  // (CSRF, redirects, limits, common passwords); result.ts, a route's way in (guardForm) and out (respond)
  ['.server/auth', '.server/preferences', '.server/policy', '.server/result'],
  // the Identity Toolkit client
  ['.server/identity'],
  // the server's foundations: logger, metrics, Redis, i18n, the load context, the brand, cookies, keys,
  // configuration
  [
    '.server/ops',
    '.server/redis',
    '.server/i18n',
    '.server/context',
    '.server/brand',
    '.server/cookies',
    '.server/keys',
    '.server/config',
    '.server/config-schema',
    '.server/config-values',
    '.server/brand-logo',
  ],
  // isomorphic and pure: imports nothing of the app
  ['lib', 'i18next.d.ts'],
]

function modules(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name)
    if (statSync(file).isDirectory()) return modules(file)
    return /\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name) ? [file] : []
  })
}

function resolve(from: string, specifier: string): string | null {
  const base = specifier.startsWith('~/')
    ? path.join(APP, specifier.slice(2))
    : specifier.startsWith('.')
      ? path.resolve(path.dirname(from), specifier)
      : null
  if (!base) return null
  const candidates = [base, `${base}.ts`, `${base}.tsx`, path.join(base, 'index.ts'), path.join(base, 'index.tsx')]
  return candidates.find((c) => c.startsWith(APP) && statSync(c, { throwIfNoEntry: false })?.isFile()) ?? null
}

const IMPORT =
  /(?:^|\n)\s*(?:import|export)\s(?!type\s)[^'"]*?from\s+['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g
const graph = new Map<string, string[]>()
for (const file of modules(APP)) {
  const source = readFileSync(file, 'utf8')
  graph.set(
    file,
    [...source.matchAll(IMPORT)].flatMap((m) => resolve(file, (m[1] ?? m[2])!) ?? []),
  )
}
const name = (file: string) => path.relative(APP, file)

function layerOf(file: string): number {
  const relative = name(file)
  const index = LAYERS.findIndex((layer) =>
    layer.some((l) => relative === l || relative.startsWith(`${l}/`) || relative === `${l}.ts`),
  )
  if (index < 0) throw new Error(`${relative} is in no layer: add it to LAYERS and docs/architecture.md`)
  return index
}

describe('the import graph of app/', () => {
  it('reads the modules and their imports', () => {
    expect(graph.size).toBeGreaterThan(50)
    expect(graph.get(path.join(APP, 'routes/_index.tsx'))?.length).toBeGreaterThan(3)
  })

  it('has no import circle', () => {
    const circles: string[] = []
    const state = new Map<string, 'open' | 'done'>()
    const visit = (file: string, trail: string[]) => {
      if (state.get(file) === 'done') return
      if (state.get(file) === 'open') {
        circles.push([...trail.slice(trail.indexOf(file)), file].map(name).join(' → '))
        return
      }
      state.set(file, 'open')
      for (const next of graph.get(file) ?? []) visit(next, [...trail, file])
      state.set(file, 'done')
    }
    for (const file of graph.keys()) visit(file, [])
    expect(circles).toEqual([])
  })

  // A page's flow (`routes/<page>.server.ts`) sits beside it but is a flow, not a route module.
  const isRoute = (file: string) => name(file).startsWith('routes/') && !name(file).endsWith('.server.ts')

  it('keeps routes off the cookie registry: cookies are set by the flows', () => {
    const registry = ['.server/cookies.ts', '.server/keys.ts'].map((file) => path.join(APP, file))
    const reaching = [...graph].flatMap(([file, imports]) =>
      isRoute(file)
        ? imports.filter((to) => registry.includes(to)).map((to) => `${name(file)} → ${name(to)}`)
        : [],
    )
    expect(reaching).toEqual([])
  })

  it('leaves Set-Cookie and Retry-After to respond(): no route writes them or imports a cookie maker', () => {
    const routes = [...graph.keys()].filter(isRoute)
    const offences = (file: string) => {
      const source = readFileSync(file, 'utf8')
      const headers = ['Set-Cookie', 'Retry-After'].filter((header) => source.includes(header))
      const makers = [...source.matchAll(/import\s+(?!type\s)\{([^}]*)\}\s*from\s*['"]~\/\.server\/[^'"]+['"]/g)]
        .flatMap((m) => m[1]!.split(','))
        .map((imported) => imported.trim().split(/\s+as\s+/)[0]!)
        .filter((imported) => !imported.startsWith('type ') && /Cookies?$/.test(imported))
      return [...headers, ...makers]
    }
    const found = routes.flatMap((file) => offences(file).map((offence) => `${name(file)}: ${offence}`))
    expect(found).toEqual([])
  })

  it('has six layers at most, each a part a reader can name', () => {
    expect(LAYERS.length).toBeLessThanOrEqual(6)
  })

  it('imports only downwards, layer by layer', () => {
    const upwards = [...graph].flatMap(([file, imports]) =>
      imports.filter((to) => layerOf(to) < layerOf(file)).map((to) => `${name(file)} → ${name(to)}`),
    )
    expect(upwards).toEqual([])
  })
})

/** The route modules (app/routes/ and the root): how they answer (ADR 079) and how they are typed (ADR 080). */
describe('the route modules', () => {
  // A page's own server module beside it (routes/<page>.server.ts) is not a route: routes.ts leaves it out.
  const routeModules = [...graph.keys()].filter(
    (file) => (name(file).startsWith('routes/') && !name(file).endsWith('.server.ts')) || name(file) === 'root.tsx',
  )
  const sources = new Map(routeModules.map((file) => [name(file), readFileSync(file, 'utf8')]))

  it('answer one way, through respond(): none imports data() or redirect() or builds a Response of its own', () => {
    const found = [...sources].flatMap(([file, source]) => {
      const fromRouter = [...source.matchAll(/import\s+\{([^}]*)\}\s*from\s*['"]react-router['"]/g)]
        .flatMap((m) => m[1]!.split(','))
        .map((imported) => imported.trim())
        .filter((imported) => imported === 'data' || imported === 'redirect')
      // The single sign-on callback answers an HTML page of its own, not a route's data (ADR 079).
      const responses = file === 'routes/sso.callback.tsx' ? [] : (source.match(/\bnew Response\(/g) ?? [])
      return [...fromRouter, ...responses].map((offence) => `${file}: ${offence}`)
    })
    expect(found).toEqual([])
  })

  it('take their types from React Router (./+types/<route>), never cast the loader or action data', () => {
    const found = [...sources].flatMap(([file, source]) => {
      const own = `./+types/${path.basename(file).replace(/\.tsx$/, '')}`
      const typed = source.includes(`import type { Route } from '${own}'`) ? [] : [`no import of ${own}`]
      const casts = [...source.matchAll(/\buse(?:Loader|Action)Data(?:<[^>]*>)?\(\)(?:\?\.\w+)?\s+as\s/g)].map(
        (m) => m[0],
      )
      return [...typed, ...casts].map((offence) => `${file}: ${offence}`)
    })
    expect(found).toEqual([])
  })
})

it('passes ref as a prop (React 19): no ref-forwarding wrapper in app/', () => {
  // Spelt in two, so that a search of app/ for the wrapper finds none.
  const wrapper = 'forward' + 'Ref'
  const found = [...graph.keys()].filter((file) => readFileSync(file, 'utf8').includes(wrapper)).map(name)
  expect(found).toEqual([])
})
