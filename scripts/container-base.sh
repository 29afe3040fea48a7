#!/usr/bin/env bash
# A Debian 13 (trixie) base image with Debian's own nodejs and npm, built here without any container
# registry: debootstrap a minbase root filesystem, install nodejs/npm/ca-certificates into it, and import
# it into podman's local store as localhost/outpost-base:trixie-<arch>. The Dockerfile then builds on it
# with --build-arg BASE=localhost/outpost-base:trixie-<arch>. Users keep the default BASE.
#
#   sudo scripts/container-base.sh [--arch amd64|arm64] [--cache DIR] [--fresh]
#
#   --arch ARCH   amd64 (default: the host's) or arm64 (under qemu-user, as scripts/pi-check.sh does)
#   --cache DIR   where the root filesystem is kept between runs (default /var/cache/outpost-test)
#   --fresh       build the root filesystem again
#
# Prints the image name on its last line. Needs root (debootstrap, chroot). Reaches the Debian mirror
# that /etc/apt points at. The root filesystem and the imported image are reused while they exist, so a
# second run takes seconds.
set -euo pipefail

ARCH=$(dpkg --print-architecture)
CACHE=/var/cache/outpost-test
FRESH=0
while [ $# -gt 0 ]; do
  case "$1" in
    --arch) ARCH=$2; shift 2 ;;
    --cache) CACHE=$(realpath -m "$2"); shift 2 ;;
    --fresh) FRESH=1; shift ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) echo "unknown option: $1" >&2; exit 2 ;;
  esac
done
[ "$(id -u)" = 0 ] || { echo "container-base: run as root (debootstrap, chroot)" >&2; exit 1; }
say() { printf 'container-base: %s\n' "$*" >&2; }

RFS=$CACHE/base-trixie-$ARCH
IMAGE=localhost/outpost-base:trixie-$ARCH
mkdir -p "$CACHE"

missing=()
command -v debootstrap >/dev/null || missing+=(debootstrap)
command -v podman >/dev/null || missing+=(podman)
if [ "$ARCH" != "$(dpkg --print-architecture)" ]; then
  [ -x /usr/bin/qemu-aarch64-static ] || missing+=(qemu-user-static)
  command -v update-binfmts >/dev/null || missing+=(binfmt-support)
fi
if [ ${#missing[@]} -gt 0 ]; then
  say "installing ${missing[*]}"
  apt-get update -q >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
fi
if [ "$ARCH" = arm64 ] && [ "$(dpkg --print-architecture)" != arm64 ]; then
  [ -e /proc/sys/fs/binfmt_misc/register ] || mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
  update-binfmts --enable qemu-aarch64 >/dev/null 2>&1 || true
  [ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ] || { echo "container-base: qemu-aarch64 binfmt is not registered" >&2; exit 1; }
fi

# The Debian mirror apt already uses (deb822 sources or sources.list), as pi-check.sh finds it.
MIRROR=$(sed -n 's#^URIs: *\(https\{0,1\}://[^ ]*/debian\)/\{0,1\}$#\1#p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -n1)
[ -n "$MIRROR" ] || MIRROR=$(sed -n 's#^deb \(\[[^]]*\] \)\{0,1\}\(https\{0,1\}://[^ ]*/debian\)/\{0,1\} .*#\2#p' /etc/apt/sources.list 2>/dev/null | head -n1)
MIRROR=${MIRROR:-http://deb.debian.org/debian}

if [ "$FRESH" = 1 ]; then
  rm -rf "$RFS"
  podman rmi -f "$IMAGE" >/dev/null 2>&1 || true
fi

mounted=()
cleanup() {
  local i
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -R "${mounted[$i]}" 2>/dev/null || umount -l "${mounted[$i]}" || true; done
}
trap cleanup EXIT

if [ ! -f "$RFS/.outpost-node" ]; then
  if [ ! -f "$RFS/.outpost-debootstrap" ]; then
    say "debootstrap trixie $ARCH (minbase) from $MIRROR"
    rm -rf "$RFS"
    debootstrap --arch="$ARCH" --variant=minbase trixie "$RFS" "$MIRROR" >"$CACHE/debootstrap-$ARCH.log" 2>&1 ||
      { tail -20 "$CACHE/debootstrap-$ARCH.log" >&2; exit 1; }
    touch "$RFS/.outpost-debootstrap"
  fi
  say "Debian's nodejs and npm inside"
  mount -t proc proc "$RFS/proc" && mounted+=("$RFS/proc")
  mount --rbind /dev "$RFS/dev" && mount --make-rslave "$RFS/dev" && mounted+=("$RFS/dev")
  cp /etc/resolv.conf "$RFS/etc/resolv.conf"
  chroot "$RFS" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive \
    sh -c 'apt-get update -q && apt-get install -y -q --no-install-recommends nodejs npm ca-certificates && apt-get clean' \
    >"$CACHE/node-install-$ARCH.log" 2>&1 || { tail -20 "$CACHE/node-install-$ARCH.log" >&2; exit 1; }
  cleanup
  mounted=()
  # What an image does not need: apt lists, docs, the host's resolver.
  rm -rf "$RFS"/var/lib/apt/lists/* "$RFS"/usr/share/doc/* "$RFS"/usr/share/man/* "$RFS"/usr/share/locale/*
  : >"$RFS/etc/resolv.conf"
  touch "$RFS/.outpost-node"
  podman rmi -f "$IMAGE" >/dev/null 2>&1 || true
fi

if ! podman image exists "$IMAGE"; then
  say "importing $IMAGE"
  tar -C "$RFS" --exclude=./.outpost-debootstrap --exclude=./.outpost-node --exclude=./proc/* --exclude=./dev/* -c . |
    podman import --arch "$ARCH" --change 'CMD ["/bin/sh"]' - "$IMAGE" >/dev/null
fi
echo "$IMAGE"
