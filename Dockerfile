# Webhook Debugger: two stages on the same Apify base image (Alpine, Node 20).
# The builder compiles native modules (better-sqlite3) and the TypeScript sources;
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
# Always exists (created in the builder), possibly empty.
COPY --from=builder --chown=myuser:myuser /usr/src/app/public ./public

ENV NODE_ENV=production

# The service writes its local storage (read model, run input) under the app folder.
USER myuser

# --no-node-snapshot: needed by isolated-vm (custom scripts) on Node 20.
CMD ["node", "--no-node-snapshot", "dist/main.js"]
