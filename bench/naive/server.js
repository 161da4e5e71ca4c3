// The naive reference's server: express around its React Router build, as the framework's templates do.
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { createRequestHandler } from '@react-router/express'
import express from 'express'

const here = path.dirname(fileURLToPath(import.meta.url))
process.env.LOCALES_DIR = path.resolve(here, '../../locales')
const build = await import(path.join(here, 'build/server/index.js'))
const app = express()
app.disable('x-powered-by')
app.use('/assets', express.static(path.join(here, 'build/client/assets'), { immutable: true, maxAge: '1y' }))
app.get('/healthz', (_req, res) => res.send('ok'))
app.all('*', createRequestHandler({ build, mode: 'production' }))
app.listen(Number(process.env.PORT), '127.0.0.1')
