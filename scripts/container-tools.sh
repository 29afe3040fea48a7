#!/usr/bin/env bash
# The tools the container test drives, installed from Debian only (no container registry, no PyPI):
# podman (builds and runs), runc and catatonit (the OCI runtime and `init: true`), debootstrap (the
# base image, scripts/container-base.sh), and the compose file parsers of Debian 13: docker compose v2
# (`docker-compose`, a Go binary needing only libc) and podman-compose 1.3, whose profile support the
# Debian 12 packages lack. Those two are unpacked from trixie's .debs into the cache, not installed, so
# the host's own packages stay as they are.
#
#   sudo scripts/container-tools.sh [--cache DIR]     # default /var/cache/outpost-test
#
# Prints `DOCKER_COMPOSE=<path>` and `PODMAN_COMPOSE=<path>` (run it with PYTHONPATH=<PODMAN_COMPOSE_PYTHONPATH>)
# for the caller. A second run installs nothing and downloads nothing.
set -euo pipefail
CACHE=/var/cache/outpost-test
while [ $# -gt 0 ]; do
  case "$1" in
    --cache) CACHE=$(realpath -m "$2"); shift 2 ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) echo "unknown option: $1" >&2; exit 2 ;;
  esac
done
[ "$(id -u)" = 0 ] || { echo "container-tools: run as root (apt-get)" >&2; exit 1; }
say() { printf 'container-tools: %s\n' "$*" >&2; }

missing=()
command -v podman >/dev/null || missing+=(podman)
command -v runc >/dev/null || missing+=(runc)
[ -x /usr/libexec/podman/catatonit ] || [ -x /usr/bin/catatonit ] || missing+=(catatonit)
command -v debootstrap >/dev/null || missing+=(debootstrap)
command -v newuidmap >/dev/null || missing+=(uidmap)
/usr/bin/python3 -c 'import yaml, dotenv' 2>/dev/null || missing+=(python3-yaml python3-dotenv)
if [ ${#missing[@]} -gt 0 ]; then
  say "installing ${missing[*]}"
  apt-get update -q >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
fi

# The Debian mirror apt already uses, as scripts/pi-check.sh finds it.
MIRROR=$(sed -n 's#^URIs: *\(https\{0,1\}://[^ ]*/debian\)/\{0,1\}$#\1#p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -n1)
[ -n "$MIRROR" ] || MIRROR=$(sed -n 's#^deb \(\[[^]]*\] \)\{0,1\}\(https\{0,1\}://[^ ]*/debian\)/\{0,1\} .*#\2#p' /etc/apt/sources.list 2>/dev/null | head -n1)
MIRROR=${MIRROR:-http://deb.debian.org/debian}

D=$CACHE/compose-trixie
if [ ! -x "$D/root/usr/bin/docker-compose" ] || [ ! -f "$D/root/usr/bin/podman-compose" ]; then
  say "docker-compose and podman-compose from Debian trixie ($MIRROR)"
  rm -rf "$D"
  mkdir -p "$D/state/lists/partial" "$D/cache/archives/partial" "$D/debs" "$D/root"
  echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $MIRROR trixie main" >"$D/sources.list"
  apt_opts=(-o "Dir::State=$D/state" -o Dir::State::status=/var/lib/dpkg/status -o "Dir::Etc::SourceList=$D/sources.list"
    -o Dir::Etc::SourceParts=/dev/null -o "Dir::Cache=$D/cache" -o APT::Sandbox::User=root)
  apt-get "${apt_opts[@]}" update -q >/dev/null
  (cd "$D/debs" && apt-get "${apt_opts[@]}" download docker-compose podman-compose >/dev/null)
  for deb in "$D"/debs/*.deb; do dpkg-deb -x "$deb" "$D/root"; done
  rm -rf "$D/state" "$D/cache"
fi
echo "DOCKER_COMPOSE=$D/root/usr/bin/docker-compose"
echo "PODMAN_COMPOSE=$D/root/usr/bin/podman-compose"
echo "PODMAN_COMPOSE_PYTHONPATH=$D/root/usr/lib/python3/dist-packages"
