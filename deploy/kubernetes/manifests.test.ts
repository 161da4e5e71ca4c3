import { readFileSync, readdirSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { parseAllDocuments } from 'yaml'
import { describe, expect, it } from 'vitest'
import { SETTINGS } from '../../app/.server/config-schema'
import { settingsOf } from '../../scripts/settings-doc'
import { parseConfig } from '../../app/.server/config'

/**
 * The Kubernetes manifests checked by schema, without a cluster: each object against the typed
 * models of Kubernetes' OpenAPI (kubernetes-models) twice, by their validators (types, enums,
 * formats) and by TypeScript (an object literal with a field the API does not know is an error,
 * as `kubeconform -strict` would say), then against what the portal needs of them.
 */

const dir = path.dirname(fileURLToPath(import.meta.url))

/** apiVersion/kind → the module and type that describe it. */
const MODELS: Record<string, { module: string; type: string }> = {
  'v1/ConfigMap': { module: 'kubernetes-models/v1/ConfigMap', type: 'IConfigMap' },
  'v1/Service': { module: 'kubernetes-models/v1/Service', type: 'IService' },
  'apps/v1/Deployment': { module: 'kubernetes-models/apps/v1/Deployment', type: 'IDeployment' },
  'apps/v1/StatefulSet': { module: 'kubernetes-models/apps/v1/StatefulSet', type: 'IStatefulSet' },
  'policy/v1/PodDisruptionBudget': { module: 'kubernetes-models/policy/v1/PodDisruptionBudget', type: 'IPodDisruptionBudget' },
  'autoscaling/v2/HorizontalPodAutoscaler': {
    module: 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler',
    type: 'IHorizontalPodAutoscaler',
  },
  'networking.k8s.io/v1/NetworkPolicy': { module: 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy', type: 'INetworkPolicy' },
  'monitoring.coreos.com/v1/ServiceMonitor': {
    module: '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor',
    type: 'IServiceMonitor',
  },
}

interface Manifest {
  file: string
  apiVersion: string
  kind: string
  metadata: { name: string; labels?: Record<string, string> }
  spec?: Record<string, unknown>
  data?: Record<string, string>
  [field: string]: unknown
}

function load(file: string): Manifest[] {
  return parseAllDocuments(readFileSync(path.join(dir, file), 'utf8')).map((doc) => {
    if (doc.errors.length) throw new Error(`${file}: ${doc.errors.map((e) => e.message).join('; ')}`)
    return { ...(doc.toJS() as Omit<Manifest, 'file'>), file } as Manifest
  })
}

const kustomization = load('kustomization.yaml')[0] as unknown as { resources: string[]; [field: string]: unknown }
const manifests = kustomization.resources.flatMap(load)
const byKind = (kind: string, name: string) => {
  const found = manifests.find((m) => m.kind === kind && m.metadata.name === name)
  if (!found) throw new Error(`no ${kind} ${name}`)
  return found
}

/** What the models say of these objects: validator errors and TypeScript's diagnostics, one line each. */
async function schemaProblems(objects: Manifest[]): Promise<string[]> {
  const problems: string[] = []
  const lines: string[] = []
  for (const [index, { file, ...object }] of objects.entries()) {
    const model = MODELS[`${object.apiVersion}/${object.kind}`]
    if (!model) {
      problems.push(`${file}: no schema for ${object.apiVersion} ${object.kind}`)
      continue
    }
    const exported = model.type.slice(1)
    const Model = ((await import(model.module)) as Record<string, new (data: unknown) => { validate(): void }>)[exported]!
    try {
      new Model(object).validate()
    } catch (error) {
      problems.push(`${file} ${object.kind} ${object.metadata.name}: ${(error as Error).message}`)
    }
    lines.push(`import type { ${model.type} as T${index} } from '${model.module}'`)
    lines.push(`export const m${index}: T${index} = ${JSON.stringify(object)}`)
  }
  // A virtual module beside the manifests, so that the models resolve from this repository's node_modules.
  const source = path.join(dir, '__manifests__.ts')
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    skipLibCheck: true,
    types: [],
  }
  const host = ts.createCompilerHost(options)
  const getSourceFile = host.getSourceFile
  host.getSourceFile = (name, language, ...rest) =>
    name === source ? ts.createSourceFile(name, lines.join('\n'), language) : getSourceFile(name, language, ...rest)
  const fileExists = host.fileExists
  host.fileExists = (name) => name === source || fileExists(name)
  const program = ts.createProgram([source], options, host)
  for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
    const line = diagnostic.file && diagnostic.start !== undefined ? diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start).line : -1
    const object = objects[Math.floor((line - 1) / 2)]
    const where = object ? `${object.file} ${object.kind} ${object.metadata.name}` : 'manifests'
    problems.push(`${where}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ')}`)
  }
  return problems
}

describe('the Kubernetes manifests (deploy/kubernetes)', () => {
  it('list every file of the folder, and nothing else', () => {
    const files = readdirSync(dir).filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml')
    expect([...kustomization.resources].sort()).toEqual(files.sort())
    expect(Object.keys(kustomization).sort()).toEqual(['apiVersion', 'file', 'images', 'kind', 'labels', 'resources'])
  })

  it('are valid against the Kubernetes schemas, with no unknown field', async () => {
    expect(await schemaProblems(manifests)).toEqual([])
  }, 60_000)

  it('a misspelt or mistyped field is caught (the check can fail)', async () => {
    const broken = (change: (container: Record<string, unknown>) => void) => {
      const deployment = structuredClone(byKind('Deployment', 'auth-portal')) as Manifest & {
        spec: { template: { spec: { containers: Array<Record<string, unknown>> } } }
      }
      change(deployment.spec.template.spec.containers[0]!)
      return schemaProblems([deployment])
    }
    const misspelt = await broken((container) => (container.imagePullPolcy = 'Always'))
    expect(misspelt.join('\n')).toMatch(/imagePullPolcy.*does not exist in type 'IContainer'/)
    const mistyped = await broken((container) => (container.ports = [{ containerPort: 'http' }]))
    expect(mistyped.join('\n')).toMatch(/containerPort must be integer/)
  }, 60_000)

  it('run the portal as the product needs: probes, drain, non-root, read-only, settings it knows', () => {
    const deployment = byKind('Deployment', 'auth-portal') as Manifest & { spec: { template: { spec: PodSpec } } }
    const pod = deployment.spec.template.spec
    const [portal] = pod.containers
    expect(portal?.livenessProbe?.httpGet?.path).toBe('/healthz')
    expect(portal?.readinessProbe?.httpGet?.path).toBe('/readyz')
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: expect.any(Number) })
    expect(portal?.securityContext).toEqual({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
    })
    expect(portal?.resources?.requests).toBeDefined()
    expect(portal?.resources?.limits?.memory).toBeDefined()

    // Every setting in the ConfigMap is one the portal reads, and together with the secrets they parse.
    const settings = byKind('ConfigMap', 'auth-portal').data ?? {}
    const known = new Set(settingsOf(SETTINGS).map(([name]) => name))
    expect(Object.keys(settings).filter((name) => !known.has(name))).toEqual([])
    const secrets = portal?.env?.map((e) => e.name) ?? []
    expect(secrets).toEqual(expect.arrayContaining(['SESSION_SECRET', 'IDENTITY_API_KEY']))
    const parsed = parseConfig({ ...settings, SESSION_SECRET: 's'.repeat(32), IDENTITY_API_KEY: 'key' })
    expect(parsed.ok ? [] : parsed.errors).toEqual([])

    // The grace period covers the drain delay, the drain and closing the pools (2 s).
    const delay = Number(settings.SHUTDOWN_DELAY_MS)
    const drain = Number(settings.SHUTDOWN_TIMEOUT_MS)
    expect(delay).toBeGreaterThan(0)
    expect(pod.terminationGracePeriodSeconds * 1000).toBeGreaterThan(delay + drain + 2_000)
  })

  it('select the pods they mean, and open only the named ports', () => {
    const labels = (byKind('Deployment', 'auth-portal').spec as { template: { metadata: { labels: Record<string, string> } } })
      .template.metadata.labels
    for (const m of manifests.filter((m) => m.kind !== 'ConfigMap' && m.metadata.name === 'auth-portal')) {
      const spec = m.spec as { selector?: { matchLabels?: Record<string, string> } | Record<string, string>; podSelector?: { matchLabels: Record<string, string> } }
      const selector = m.kind === 'Service' ? spec.selector : (spec.selector as { matchLabels?: Record<string, string> })?.matchLabels ?? spec.podSelector?.matchLabels
      if (m.kind === 'HorizontalPodAutoscaler') continue
      expect(selector, `${m.kind}`).toBeDefined()
      expect(labels, `${m.kind} selects the portal`).toMatchObject(selector as Record<string, string>)
    }
  })

  it('give the portal a replicated Redis whose sentinels it names', () => {
    const redis = byKind('StatefulSet', 'auth-portal-redis').spec as { replicas: number; serviceName: string }
    expect(redis.replicas).toBe(3)
    expect(byKind('ConfigMap', 'auth-portal-redis').data?.['redis.sh']).toMatch(/--appendonly yes .*--maxmemory-policy noeviction/)
    const pods = Array.from({ length: redis.replicas }, (_, i) => `auth-portal-redis-${i}.${redis.serviceName}`)
    const settings = byKind('ConfigMap', 'auth-portal-redis-settings').data ?? {}
    expect(settings.SENTINELS).toBe(pods.join(' '))
    expect(settings.FIRST).toBe(pods[0])
    const portal = byKind('ConfigMap', 'auth-portal').data ?? {}
    expect(portal.REDIS_SENTINELS).toBe(pods.map((pod) => `${pod}:${settings.SENTINEL_PORT}`).join(','))
    expect(portal.REDIS_SENTINEL_MASTER).toBe(settings.MASTER_NAME)
  })
})

interface PodSpec {
  terminationGracePeriodSeconds: number
  securityContext?: Record<string, unknown>
  containers: Array<{
    args?: string[]
    env?: Array<{ name: string }>
    livenessProbe?: { httpGet?: { path: string } }
    readinessProbe?: { httpGet?: { path: string } }
    securityContext?: Record<string, unknown>
    resources?: { requests?: Record<string, string>; limits?: Record<string, string> }
  }>
}
