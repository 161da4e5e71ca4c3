# syntax=docker/dockerfile:1
# The portal as a container: `npm run serve` on the production build, no dev dependencies.

FROM node:26.12.1-bookworm-slim AS build
WORKDIR /app
# .npmrc first: it turns install scripts off (ADR 001), which would otherwise need Python and a compiler.
COPY package.json package-lock.json .npmrc ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

FROM node:26.12.1-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
# Optional packages too are left out: the portal uses none (firebase-admin's Firestore and Storage
# clients, TypeScript as an optional peer), and they are a third of the install (ADR 032).
RUN npm ci --omit=dev --omit=optional --no-audit --no-fund

FROM node:26.12.1-bookworm-slim
ARG VERSION=0.1.0
ARG REVISION=unknown
LABEL org.opencontainers.image.title="auth-portal" \
      org.opencontainers.image.description="Sign-in, password reset and account pages in front of an Identity Toolkit service" \
      org.opencontainers.image.version="$VERSION" \
      org.opencontainers.image.revision="$REVISION"
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000
WORKDIR /app
# Owned by root, read-only to user 1000: the process cannot rewrite its own code.
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/build ./build
COPY package.json ./
# Without Redis, sessions live in an SQLite file on this volume (ADR 063): mount one that outlives the
# container, or every restart signs everyone out. The rest of the filesystem can stay read-only.
RUN mkdir -p /var/lib/portal && chown 1000:1000 /var/lib/portal
ENV SESSION_STORE_PATH=/var/lib/portal/sessions.sqlite
VOLUME /var/lib/portal
# Numeric: Kubernetes' runAsNonRoot can only check a number (the image's `node` user is 1000:1000).
USER 1000:1000
# 3000: the portal. 9464: Prometheus metrics, only when METRICS_PORT=9464 is set (keep it off the public network).
EXPOSE 3000 9464
# Liveness only: /readyz (identity service, Redis) is for the load balancer, a dependency outage
# must not get every container restarted.
HEALTHCHECK --interval=15s --timeout=3s --start-period=10s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# What `npm run serve` runs, without npm and a shell in between: node is PID 1 and gets SIGTERM itself,
# then drains for up to SHUTDOWN_TIMEOUT_MS (10 s). Give `docker stop` / Kubernetes more than that (15 s).
STOPSIGNAL SIGTERM
# V8 sizes its heap from the machine's memory, and glibc gives each thread a malloc arena: a capped old
# space (ADR 013), an 8 MB young generation, two V8 workers and two arenas, and two JIT tiers instead of
# four keep RSS under 200 MB (ADR 064, ADR 084).
ENV NODE_OPTIONS="--max-old-space-size=192 --max-semi-space-size=4 --v8-pool-size=2" MALLOC_ARENA_MAX=2
CMD ["node", "--heap-growing-percent=10", "--no-sparkplug", "--no-maglev", "build/http/main.js"]
