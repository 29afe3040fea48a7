#!/bin/sh
# Installs Outpost on a Raspberry Pi (Raspberry Pi OS / Debian bookworm, arm64 or armhf) as systemd
# services. Run from a checkout, as root:
#
#   sudo infra/install/install-pi.sh [--services "broker controller relay-node notifier"]
#                                    [--prefix /opt/outpost] [--gpio] [--gpio-root] [--mqtt-url URL]
#                                    [--database-url URL] [--no-start]
#
#   --services   units to enable (default: broker controller relay-node notifier). A relay-node-only Pi
#                talking to a controller elsewhere: --services relay-node --mqtt-url mqtt://...
#   --gpio       install raspi-io (optional dependency) and the pigpio library for real GPIO
#   --gpio-root  run the relay node and controller as root (pigpio needs /dev/mem; see infra/README.md)
#   --mqtt-url   use this broker instead of the embedded one (leave broker out of --services)
#   --database-url  PostgreSQL instead of PGlite under /var/lib/outpost
# Re-running it upgrades in place: code and units are replaced, secrets and settings are kept.
set -eu

PREFIX=/opt/outpost
SERVICES="broker controller relay-node notifier"
GPIO=0
GPIO_ROOT=0
START=1
MQTT_URL=mqtt://127.0.0.1:1883
DATABASE_URL=
DATA_DIR=/var/lib/outpost
ETC=/etc/outpost
SRC=$(cd "$(dirname "$0")/../.." && pwd)

while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) PREFIX=$2; shift 2 ;;
    --services) SERVICES=$2; shift 2 ;;
    --gpio) GPIO=1; shift ;;
    --gpio-root) GPIO=1; GPIO_ROOT=1; shift ;;
    --mqtt-url) MQTT_URL=$2; shift 2 ;;
    --database-url) DATABASE_URL=$2; shift 2 ;;
    --no-start) START=0; shift ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "unknown option: $1" >&2; exit 2 ;;
  esac
done

say() { printf '\033[1m==> %s\033[0m\n' "$*"; }
[ "$(id -u)" = 0 ] || { echo "run as root (sudo)" >&2; exit 1; }

case "$(uname -m)" in
  aarch64|arm64) ARCH=arm64 ;;
  armv7l|armv8l) ARCH=armhf ;;
  armv6l) echo "ARMv6 (Pi 1, Pi Zero W) has no Node 20 build; use a Pi Zero 2 W, 3, 4 or 5" >&2; exit 1 ;;
  x86_64) ARCH=amd64 ;;
  *) echo "unsupported machine $(uname -m)" >&2; exit 1 ;;
esac
say "machine: $ARCH"

say "packages"
apt-get update -q
apt-get install -y -q ca-certificates curl gnupg rsync iputils-ping
node_major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
if [ "$node_major" -lt 20 ]; then
  say "Node.js 20 (NodeSource, $ARCH)"
  install -d -m 0755 /etc/apt/keyrings
  curl -fsSL https://deb.nodesource.com/gpgkey/nodesource-repo.gpg.key | gpg --dearmor --yes -o /etc/apt/keyrings/nodesource.gpg
  echo "deb [arch=$ARCH signed-by=/etc/apt/keyrings/nodesource.gpg] https://deb.nodesource.com/node_20.x nodistro main" \
    > /etc/apt/sources.list.d/nodesource.list
  apt-get update -q
  apt-get install -y -q nodejs
fi
NODE=$(command -v node)
if [ "$GPIO" = 1 ]; then
  # raspi-io drives the pins through the pigpio C library.
  apt-get install -y -q pigpio || apt-get install -y -q libpigpio-dev
fi

say "user outpost"
getent group outpost >/dev/null || groupadd --system outpost
id outpost >/dev/null 2>&1 || useradd --system --gid outpost --home-dir "$DATA_DIR" --shell /usr/sbin/nologin outpost
for g in gpio dialout; do getent group "$g" >/dev/null || groupadd --system "$g"; usermod -aG "$g" outpost; done

say "code -> $PREFIX"
install -d -m 0755 "$PREFIX"
rsync -a --delete --exclude node_modules --exclude /data --exclude /.git --exclude dist "$SRC/" "$PREFIX/"
cd "$PREFIX"
if [ "$GPIO" = 1 ]; then npm ci --no-audit --no-fund; else npm ci --no-audit --no-fund --omit=optional; fi
npx turbo run build --concurrency=1

say "secrets and environment -> $ETC"
install -d -m 0700 -o outpost -g outpost "$DATA_DIR"
install -d -m 0755 "$ETC"
"$NODE" infra/systemd/write-env.mjs --data-dir "$DATA_DIR" --out "$ETC" --mqtt-url "$MQTT_URL"
if [ -n "$DATABASE_URL" ] && ! grep -q '^DATABASE_URL=' "$ETC/outpost.env"; then
  echo "DATABASE_URL=$DATABASE_URL" >> "$ETC/outpost.env"
fi
chown -R outpost:outpost "$DATA_DIR"

say "systemd units"
for f in infra/systemd/*.service infra/systemd/outpost.target; do
  sed -e "s#/opt/outpost#$PREFIX#g" -e "s#/usr/bin/node#$NODE#g" "$f" > "/etc/systemd/system/$(basename "$f")"
done
if [ "$GPIO_ROOT" = 1 ]; then
  for u in outpost-relay-node outpost-controller; do
    install -D -m 0644 infra/systemd/gpio-root.conf "/etc/systemd/system/$u.service.d/gpio-root.conf"
  done
fi
if [ -d /etc/polkit-1/rules.d ]; then install -m 0644 infra/polkit/50-outpost.rules /etc/polkit-1/rules.d/; fi
systemctl daemon-reload
systemctl enable outpost.target
for s in $SERVICES; do systemctl enable "outpost-$s.service"; done

if [ "$START" = 1 ]; then
  say "starting"
  systemctl restart outpost.target
  for s in $SERVICES; do systemctl restart "outpost-$s.service"; done
  sleep 5
  systemctl --no-pager --lines=0 status $(for s in $SERVICES; do printf 'outpost-%s.service ' "$s"; done) || true
fi
ADMIN=$(node -p "JSON.parse(require('fs').readFileSync('$DATA_DIR/secrets.json','utf8')).ADMIN_PASSWORD")
say "done. Controller login: admin / $ADMIN (also in $DATA_DIR/secrets.json)"
