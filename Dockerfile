# Webhook Debugger: two stages on the same Apify base image (Alpine, Node 20).
# The builder compiles the native modules (better-sqlite3, isolated-vm) and the TypeScript sources;
# the final stage receives only what the service needs at run time.

# ---------- builder ----------
FROM apify/actor-node:20 AS builder

# Package installs and compilers need root; nothing from this stage runs in production.
USER root

# Toolchain for native addons that have no prebuilt binary for this platform.
RUN apk add --no-cache python3 make g++

# Start from an empty app folder (the base image ships a sample app there).
RUN rm -rf /usr/src/app && mkdir -p /usr/src/app
WORKDIR /usr/src/app

# Dependencies first, so this layer is reused while only sources change.
# package*.json matches package-lock.json when it is present; without it npm install is used.
COPY package*.json ./
RUN if [ -f package-lock.json ]; then \
        npm ci --include=dev --no-audit --no-fund; \
    else \
        npm install --include=dev --no-audit --no-fund; \
    fi

# Both native addons must load here, on this libc and Node ABI: a broken build fails the image
# build instead of the first request that needs it.
RUN node --no-node-snapshot -e "require('better-sqlite3')(':memory:').close(); new (require('isolated-vm').Isolate)({ memoryLimit: 8 }).dispose()"

# Sources, then compile to dist/ and drop the dev dependencies.
COPY . ./
RUN npm run build \
 && npm prune --omit=dev --no-audit --no-fund \
 && mkdir -p public

# ---------- runtime ----------
FROM apify/actor-node:20

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
# `npm start` runs scripts/build-if-needed.mjs first (a no-op here: dist/ is newer than its inputs).
COPY --from=builder --chown=myuser:myuser /usr/src/app/scripts ./scripts

ENV NODE_ENV=production
# The base image sets a heap far larger than any run's memory; the start command below sets one
# that fits ACTOR_MEMORY_MBYTES (scripts/heap-options.sh).
ENV NODE_OPTIONS=

# The service writes its local storage (read model, run input) under the app folder.
USER myuser

# `npm start` is `node --no-node-snapshot dist/main.js` (isolated-vm needs the flag on Node 20);
# exec makes npm PID 1 (no idle shell in between); npm passes SIGTERM on to the service.
CMD ["sh", "-c", "NODE_OPTIONS=\"$(sh scripts/heap-options.sh)\" exec npm start"]
