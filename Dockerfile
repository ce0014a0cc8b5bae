# Webhook Debugger: two stages on the same Apify base image (Alpine, Node 22: the maintained line;
# apify/actor-node:20 is no longer rebuilt).
# The builder compiles the native modules (better-sqlite3, isolated-vm) and the TypeScript sources;
# the final stage receives only what the service needs at run time.

# ---------- builder ----------
FROM apify/actor-node:22 AS builder

# Package installs and compilers need root; nothing from this stage runs in production.
USER root

# Toolchain for native addons that have no prebuilt binary for this platform.
RUN apk add --no-cache python3 make g++

# Start from an empty app folder (the base image ships a sample app there).
RUN rm -rf /usr/src/app && mkdir -p /usr/src/app
WORKDIR /usr/src/app

# Dependencies first, so this layer is reused while only sources change. `npm ci` installs exactly
# the committed lock (it fails when the lock and package.json disagree); .ci/run installs the same way.
COPY package.json package-lock.json ./
RUN npm ci --include=dev --no-audit --no-fund

# Both native addons must load here, on this libc and Node ABI: a broken build fails the image
# build instead of the first request that needs it.
RUN node --no-node-snapshot -e "require('better-sqlite3')(':memory:').close(); new (require('isolated-vm').Isolate)({ memoryLimit: 8 }).dispose()"

# Sources, then compile to dist/ and drop the dev dependencies.
COPY . ./
RUN npm run build \
 && npm prune --omit=dev --no-audit --no-fund \
 && mkdir -p public

# ---------- runtime ----------
FROM apify/actor-node:22

USER root
RUN rm -rf /usr/src/app \
 && mkdir -p /usr/src/app \
 && chown myuser:myuser /usr/src/app
WORKDIR /usr/src/app

COPY --from=builder --chown=myuser:myuser /usr/src/app/package.json ./package.json
COPY --from=builder --chown=myuser:myuser /usr/src/app/node_modules ./node_modules
COPY --from=builder --chown=myuser:myuser /usr/src/app/dist ./dist
COPY --from=builder --chown=myuser:myuser /usr/src/app/INPUT_SCHEMA.json ./INPUT_SCHEMA.json
COPY --from=builder --chown=myuser:myuser /usr/src/app/.actor ./.actor
# The dashboard, built from web/ by `npm run build` (Vite); served from our own origin.
COPY --from=builder --chown=myuser:myuser /usr/src/app/public ./public
# heap-options.sh sizes the heap at start (the CMD below).
COPY --from=builder --chown=myuser:myuser /usr/src/app/scripts ./scripts

ENV NODE_ENV=production
# A container is reached through its published port, never on its own loopback: listen on every
# interface, IPv6 and IPv4, as Node listens by default (without LISTEN_HOST, a service with no authKey
# would listen on 127.0.0.1 only).
ENV LISTEN_HOST=::
# The base image sets a heap far larger than any run's memory; the start command below sets one
# that fits ACTOR_MEMORY_MBYTES (scripts/heap-options.sh). Clearing it also drops the base image's
# --max-http-header-size=80000: the service sets its own header limit (64 KB) on its HTTP server,
# so it holds under `npm start` and here alike.
ENV NODE_OPTIONS=

# The service writes its local storage (read model, run input) under the app folder.
USER myuser

# Node itself, not `npm start`: npm's prestart would rebuild when a file looks newer than dist/
# (file times after COPY --from are not promised) and this stage has no TypeScript; npm would also
# stay resident (~55 MB). exec makes the service PID 1, so the platform's SIGTERM reaches it.
# --no-node-snapshot: isolated-vm needs it (as in `npm start`).
CMD ["sh", "-c", "NODE_OPTIONS=\"$(sh scripts/heap-options.sh)\" exec node --no-node-snapshot dist/main.js"]
