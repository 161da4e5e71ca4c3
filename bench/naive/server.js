// The naive reference's server: express around its React Router build, as the framework's templates do,
// with React Router's own Node adapter (the portal has no @react-router/express: ADR 032).
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { createRequestListener } from '@react-router/node'
import express from 'express'

const here = path.dirname(fileURLToPath(import.meta.url))
process.env.LOCALES_DIR = path.resolve(here, '../../locales')
const build = await import(path.join(here, 'build/server/index.js'))
const app = express()
app.disable('x-powered-by')
app.use('/assets', express.static(path.join(here, 'build/client/assets'), { immutable: true, maxAge: '1y' }))
app.get('/healthz', (_req, res) => res.send('ok'))
const listener = createRequestListener({ build, mode: 'production' })
app.all('*', (req, res) => listener(req, res))
app.listen(Number(process.env.PORT), '127.0.0.1')
