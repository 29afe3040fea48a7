#!/usr/bin/env bash
# Builds the image here without a container registry: the release bundle (npm run package), the
# Debian 13 base (scripts/container-base.sh), then the Dockerfile with podman. For arm64 the base and
# the build's RUN steps run under qemu-user, the same binfmt setup as scripts/pi-check.sh (slow: the
# first run debootstraps and installs nodejs under emulation).
#
#   sudo scripts/container-build.sh [--arch amd64|arm64] [--tag NAME] [--cache DIR]
#
# Default tag localhost/outpost:<arch>. Prints the timings and the image size at the end.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
ARCH=$(dpkg --print-architecture)
CACHE=/var/cache/outpost-test
TAG=
while [ $# -gt 0 ]; do
  case "$1" in
    --arch) ARCH=$2; shift 2 ;;
    --tag) TAG=$2; shift 2 ;;
    --cache) CACHE=$(realpath -m "$2"); shift 2 ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    *) echo "unknown option: $1" >&2; exit 2 ;;
  esac
done
TAG=${TAG:-localhost/outpost:$ARCH}
[ "$(id -u)" = 0 ] || { echo "container-build: run as root (debootstrap, podman)" >&2; exit 1; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.0f", b - a }'; }

"$ROOT/scripts/container-tools.sh" --cache "$CACHE" >/dev/null
t=$(now)
BASE=$("$ROOT/scripts/container-base.sh" --arch "$ARCH" --cache "$CACHE" | tail -n1)
BASE_S=$(since "$t")

CTX=$(mktemp -d)
trap 'rm -rf "$CTX"' EXIT
(cd "$ROOT" && npm run package -- --out "$CTX" >/dev/null)
cp "$ROOT/Dockerfile" "$CTX/"
# crun refuses a cgroup v1/v2 hybrid host; runc works there and elsewhere.
RUNTIME=()
podman run --rm --network host --ulimit nofile=4096:4096 --ulimit nproc=4096:4096 "$BASE" true >/dev/null 2>&1 ||
  RUNTIME=(--runtime runc)
CA=()
if [ -n "${NODE_EXTRA_CA_CERTS:-}" ] && [ -f "$NODE_EXTRA_CA_CERTS" ]; then
  CA=(-v "$NODE_EXTRA_CA_CERTS:/run/outpost-build-ca.pem:ro" --build-arg NODE_EXTRA_CA_CERTS=/run/outpost-build-ca.pem)
fi
t=$(now)
podman "${RUNTIME[@]}" build --format docker --network host --arch "$ARCH" \
  --ulimit nofile=4096:4096 --ulimit nproc=4096:4096 \
  --build-arg BASE="$BASE" "${CA[@]}" -t "$TAG" "$CTX" >&2
BUILD_S=$(since "$t")
# The install stage's image is of no further use (npm's cache mount keeps the downloads).
podman image prune -f --filter label=org.outpost.stage=install >/dev/null
SIZE=$(podman image inspect "$TAG" --format '{{.Size}}')
echo "container-build: $TAG ($ARCH) base ${BASE_S} s, build ${BUILD_S} s, size $((SIZE / 1000000)) MB"
