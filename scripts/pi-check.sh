#!/usr/bin/env bash
# Proof on arm64 without a Pi: a Debian 13 (trixie) arm64 root filesystem run under qemu-user, with
# Debian's own nodejs and npm, the release bundle installed by infra/install/install-pi.sh (the steps
# that need no systemd), then the broker, controller and relay node started from it on loopback with
# mock GPIO, each /health checked, and one start -> relay ON through the controller's REST API.
#
#   sudo scripts/pi-check.sh [--bundle outpost-X.tgz] [--cache DIR] [--fresh] [--no-report]
#
#   --bundle FILE  the bundle to check (default: `npm run package` into the cache)
#   --cache DIR    where the root filesystem is kept between runs (default .cache/pi-check)
#   --fresh        build the root filesystem again
#   --no-report    leave bench/REPORT.md alone
#
# Needs root (debootstrap, chroot, binfmt_misc). Reaches the Debian mirror that /etc/apt points at and
# the npm registry to install; the services it starts listen on 127.0.0.1 only. Writes
# bench/results/pi-check.json and regenerates bench/REPORT.md. Slow (Node is emulated): not in npm test.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
CACHE=$ROOT/.cache/pi-check
BUNDLE=
FRESH=0
REPORT=1
while [ $# -gt 0 ]; do
  case "$1" in
    --bundle) BUNDLE=$(realpath "$2"); shift 2 ;;
    --cache) CACHE=$(realpath -m "$2"); shift 2 ;;
    --fresh) FRESH=1; shift ;;
    --no-report) REPORT=0; shift ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "unknown option: $1" >&2; exit 2 ;;
  esac
done
[ "$(id -u)" = 0 ] || { echo "pi-check: run as root (debootstrap, chroot, binfmt_misc)" >&2; exit 1; }

RFS=$CACHE/rootfs
LOG=$CACHE/logs
ADMIN_PASSWORD=pi-check-admin-password
mkdir -p "$CACHE" "$LOG"
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
say() { printf '\033[1mpi-check: %s\033[0m\n' "$*"; }
T0=$(now)
LOAD_BEFORE=$(cut -d' ' -f1 /proc/loadavg)

# --- host tools and binfmt --------------------------------------------------------------------------
missing=()
command -v debootstrap >/dev/null || missing+=(debootstrap)
[ -x /usr/bin/qemu-aarch64-static ] || missing+=(qemu-user-static)
command -v update-binfmts >/dev/null || missing+=(binfmt-support)
if [ ${#missing[@]} -gt 0 ]; then
  say "installing ${missing[*]}"
  apt-get update -q >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >/dev/null
fi
[ -e /proc/sys/fs/binfmt_misc/register ] || mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
update-binfmts --enable qemu-aarch64 >/dev/null 2>&1 || true
[ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ] || { echo "pi-check: qemu-aarch64 binfmt is not registered" >&2; exit 1; }

# The Debian mirror apt already uses (deb822 sources or sources.list).
MIRROR=$(sed -n 's#^URIs: *\(https\{0,1\}://[^ ]*/debian\)/\{0,1\}$#\1#p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -n1)
[ -n "$MIRROR" ] || MIRROR=$(sed -n 's#^deb \(\[[^]]*\] \)\{0,1\}\(https\{0,1\}://[^ ]*/debian\)/\{0,1\} .*#\2#p' /etc/apt/sources.list 2>/dev/null | head -n1)
MIRROR=${MIRROR:-http://deb.debian.org/debian}

# --- the arm64 root filesystem ----------------------------------------------------------------------
mounted=()
cleanup() {
  local i
  if [ -n "${LAUNCHER:-}" ] && kill -0 "$LAUNCHER" 2>/dev/null; then
    kill -INT "$LAUNCHER" 2>/dev/null || true
    for _ in $(seq 1 120); do kill -0 "$LAUNCHER" 2>/dev/null || break; sleep 1; done
    kill -KILL "$LAUNCHER" 2>/dev/null || true
  fi
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -R "${mounted[$i]}" 2>/dev/null || umount -l "${mounted[$i]}" || true; done
}
trap cleanup EXIT
mount_rootfs() {
  mount -t proc proc "$RFS/proc" && mounted+=("$RFS/proc")
  mount --rbind /dev "$RFS/dev" && mount --make-rslave "$RFS/dev" && mounted+=("$RFS/dev")
  cp /etc/resolv.conf "$RFS/etc/resolv.conf"
  if [ -n "${NODE_EXTRA_CA_CERTS:-}" ] && [ -f "$NODE_EXTRA_CA_CERTS" ]; then
    # A fresh minbase root filesystem has no /etc/ssl until ca-certificates is installed into it.
    mkdir -p "$RFS/etc/ssl"
    cp "$NODE_EXTRA_CA_CERTS" "$RFS/etc/ssl/host-extra-ca.pem"
    EXTRA_CA=(NODE_EXTRA_CA_CERTS=/etc/ssl/host-extra-ca.pem)
  fi
}
# A TLS-inspecting proxy's CA that the host trusts through NODE_EXTRA_CA_CERTS is trusted inside too.
EXTRA_CA=()
in_rfs() {
  chroot "$RFS" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
    LANG=C.UTF-8 "${EXTRA_CA[@]}" "$@"
}

if [ "$FRESH" = 1 ] && [ -d "$RFS" ]; then
  if grep -q " $RFS/" /proc/mounts; then echo "pi-check: $RFS has mounts; not removing it" >&2; exit 1; fi
  rm -rf "$RFS" "$CACHE"/*.seconds
fi
ROOTFS_CACHED=true
if [ ! -f "$RFS/.outpost-debootstrap" ]; then
  ROOTFS_CACHED=false
  say "debootstrap trixie arm64 from $MIRROR (several minutes)"
  rm -rf "$RFS"
  t=$(now)
  debootstrap --arch=arm64 --variant=minbase trixie "$RFS" "$MIRROR" >"$LOG/debootstrap.log" 2>&1 ||
    { tail -20 "$LOG/debootstrap.log" >&2; exit 1; }
  since "$t" >"$CACHE/debootstrap.seconds"
  touch "$RFS/.outpost-debootstrap"
fi
mount_rootfs
if [ ! -f "$RFS/.outpost-node" ]; then
  ROOTFS_CACHED=false
  say "Debian's nodejs and npm inside (apt-get under emulation)"
  t=$(now)
  in_rfs sh -c 'export DEBIAN_FRONTEND=noninteractive; apt-get update -q && apt-get install -y -q --no-install-recommends nodejs npm ca-certificates' \
    >"$LOG/node-install.log" 2>&1 || { tail -20 "$LOG/node-install.log" >&2; exit 1; }
  since "$t" >"$CACHE/node-install.seconds"
  touch "$RFS/.outpost-node"
fi
NODE_ARM=$(in_rfs node -v)
NPM_ARM=$(in_rfs npm -v 2>/dev/null)
UNAME_ARM=$(in_rfs uname -m)
say "arm64 rootfs: $UNAME_ARM, node $NODE_ARM, npm $NPM_ARM"
in_rfs node -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>20||(a===20&&b>=19)?0:1)' ||
  { echo "pi-check: Debian's node $NODE_ARM is older than 20.19" >&2; exit 1; }

# --- the bundle, installed as install-pi.sh does it -------------------------------------------------
if [ -z "$BUNDLE" ]; then
  say "npm run package"
  (cd "$ROOT" && npm run package -- --out "$CACHE" >"$LOG/package.log" 2>&1) || { tail -20 "$LOG/package.log" >&2; exit 1; }
  BUNDLE=$(ls -t "$CACHE"/outpost-*.tgz | head -n1)
fi
NAME=$(basename "$BUNDLE" .tgz)
cp "$BUNDLE" "$RFS/root/"
rm -rf "$RFS/root/$NAME"
tar -xzf "$BUNDLE" -C "$RFS/root" "$NAME/infra/install/install-pi.sh"
NPM_CACHE_STATE=$([ -d "$RFS/root/.npm/_cacache" ] && echo warm || echo cold)
say "install-pi.sh --no-system --no-systemd (npm ci --omit=dev under emulation, npm cache $NPM_CACHE_STATE)"
t=$(now)
in_rfs sh "/root/$NAME/infra/install/install-pi.sh" --bundle "/root/$NAME.tgz" --prefix /opt/outpost \
  --data-dir /var/lib/outpost --etc /etc/outpost --no-system --no-systemd >"$LOG/install.log" 2>&1 ||
  { tail -30 "$LOG/install.log" >&2; exit 1; }
INSTALL_S=$(since "$t")
NPM_CI_S=$(sed -n 's/^added [0-9]* packages in \(.*\)$/\1/p' "$LOG/install.log" | tail -n1)
say "installed in ${INSTALL_S} s (npm ci: ${NPM_CI_S:-?})"

# --- start the broker, controller and relay node on loopback ----------------------------------------
read -r P_MQTT P_WS P_CTL P_RLY < <(node -e '
  const net = require("node:net");
  const one = () => new Promise((r) => { const s = net.createServer().listen(0, "127.0.0.1", () => { const p = s.address().port; s.close(() => r(p)); }); });
  (async () => { const ps = []; for (let i = 0; i < 4; i++) ps.push(await one()); console.log(ps.join(" ")); })();')
rm -rf "$RFS/var/lib/outpost/controller" "$RFS/var/lib/outpost/relay-node" "$RFS/var/lib/outpost/postgres"
# Run as root, the launcher starts the embedded PostgreSQL as the outpost system user, which
# install-pi.sh creates only when it may change the system (not with --no-system).
in_rfs sh -c 'id outpost >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin outpost'
say "starting broker, controller and relay-node under emulation"
t=$(now)
chroot "$RFS" /usr/bin/env -i PATH=/usr/bin:/bin HOME=/root LANG=C.UTF-8 NO_COLOR=1 \
  DATA_DIR=/var/lib/outpost HOST=127.0.0.1 GPIO_MODE=mock ADMIN_PASSWORD="$ADMIN_PASSWORD" \
  MQTT_PORT="$P_MQTT" MQTT_WS_PORT="$P_WS" CONTROLLER_PORT="$P_CTL" RELAYNODE_PORT="$P_RLY" \
  START_TIMEOUT_SECONDS=600 node /opt/outpost/scripts/dist/start.js controller relay-node >"$LOG/start.log" 2>&1 &
LAUNCHER=$!
for _ in $(seq 1 1200); do
  grep -q 'Press Ctrl-C to stop.' "$LOG/start.log" && break
  kill -0 "$LAUNCHER" 2>/dev/null || { tail -30 "$LOG/start.log" >&2; exit 1; }
  sleep 0.5
done
grep -q 'Press Ctrl-C to stop.' "$LOG/start.log" || { echo "pi-check: not ready in 10 minutes" >&2; exit 1; }
START_S=$(since "$t")
say "all healthy in ${START_S} s"

# --- /health and one start -> relay ON, driven from the host over loopback ---------------------------
DRIVE=$(CTL="$P_CTL" RLY="$P_RLY" SECRETS="$RFS/var/lib/outpost/secrets.json" ADMIN_PASSWORD="$ADMIN_PASSWORD" node --input-type=module -e '
  import { readFileSync } from "node:fs";
  import { connect } from "node:net";
  const ctl = `http://127.0.0.1:${process.env.CTL}`, rly = `http://127.0.0.1:${process.env.RLY}`;
  const secrets = JSON.parse(readFileSync(process.env.SECRETS, "utf8"));
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const health = {};
  for (const [name, url] of [["controller", ctl], ["relay-node", rly]]) health[name] = (await fetch(`${url}/health`)).status;
  let token;
  for (const password of [process.env.ADMIN_PASSWORD, secrets.ADMIN_PASSWORD]) {
    const r = await fetch(`${ctl}/api/auth/login`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ username: "admin", password }) });
    if (r.ok) { token = (await r.json()).access_token; break; }
  }
  if (!token) throw new Error("controller login refused");
  // The broker state is part of the detail /health shows to a logged-in caller only.
  health.broker = (await fetch(`${ctl}/health`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.json())).broker ?? null;
  const post = (path) => fetch(`${ctl}${path}`, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: "{}" });
  const relayOn = async () => (await (await fetch(`${rly}/api/relay/state`, { headers: { "X-API-Key": secrets.RELAYNODE_API_SECRET } })).json()).relay_on;
  const until = async (what, fn, ms = 120000) => { const end = Date.now() + ms; while (Date.now() < end) { if (await fn()) return; await sleep(20); } throw new Error(`timed out waiting for ${what}`); };
  await until("arm", async () => (await post("/api/generator/arm")).ok);
  const t = performance.now();
  const res = await post("/api/generator/start");
  if (res.status !== 200) throw new Error(`start refused: ${res.status} ${await res.text()}`);
  await until("relay ON", relayOn);
  const startToOn = performance.now() - t;
  await post("/api/generator/stop");
  await until("relay OFF", async () => !(await relayOn()));
  console.log(JSON.stringify({ health, start_to_relay_on_ms: Math.round(startToOn) }));
') || { echo "pi-check: the start -> relay ON check failed" >&2; tail -30 "$LOG/start.log" >&2; exit 1; }
say "checked: $DRIVE"
kill -INT "$LAUNCHER"
for _ in $(seq 1 120); do kill -0 "$LAUNCHER" 2>/dev/null || break; sleep 1; done
kill -0 "$LAUNCHER" 2>/dev/null && { echo "pi-check: the launcher did not stop on SIGINT" >&2; exit 1; }
wait "$LAUNCHER" && STOP_OK=true || STOP_OK=false
LAUNCHER=
TOTAL_S=$(since "$T0")

# --- result -----------------------------------------------------------------------------------------
mkdir -p "$ROOT/bench/results"
OUT=$ROOT/bench/results/pi-check.json
DEBOOTSTRAP_S=$(cat "$CACHE/debootstrap.seconds" 2>/dev/null || echo null)
NODE_INSTALL_S=$(cat "$CACHE/node-install.seconds" 2>/dev/null || echo null)
QEMU=$(qemu-aarch64-static --version | head -n1 | awk '{print $3}')
export OUT NAME NODE_ARM NPM_ARM QEMU LOAD_BEFORE STOP_OK ROOTFS_CACHED DEBOOTSTRAP_S NODE_INSTALL_S INSTALL_S \
  NPM_CI_S NPM_CACHE_STATE START_S TOTAL_S DRIVE
node -e '
  const e = process.env, d = JSON.parse(e.DRIVE), num = (x) => (x === "null" || x === "" ? null : Number(x));
  const cached = e.ROOTFS_CACHED === "true";
  const out = {
    bench: "pi-check",
    at: new Date().toISOString(),
    machine: {
      node: `${e.NODE_ARM} (Debian trixie arm64 under qemu-user ${e.QEMU}), npm ${e.NPM_ARM}`,
      host_node: process.version,
      loadavg_1m_before: num(e.LOAD_BEFORE),
      loadavg_1m_after: Number(require("node:os").loadavg()[0].toFixed(2)),
    },
    bundle: e.NAME,
    health: d.health,
    stopped_on_sigint: e.STOP_OK === "true",
    results: [
      { name: "debootstrap trixie arm64 (minbase)", figure: num(e.DEBOOTSTRAP_S), unit: "s", context: cached ? "cached root filesystem reused; the figure is from the run that built it" : "built in this run" },
      { name: "Debian nodejs + npm install (apt-get, emulated)", figure: num(e.NODE_INSTALL_S), unit: "s", context: `node ${e.NODE_ARM}, npm ${e.NPM_ARM}` + (cached ? "; cached, from the run that installed them" : "") },
      { name: "install-pi.sh --no-system --no-systemd (unpack + npm ci --omit=dev)", figure: num(e.INSTALL_S), unit: "s", context: `npm ci reported ${e.NPM_CI_S || "?"}; npm cache ${e.NPM_CACHE_STATE}` },
      { name: "broker + controller + relay-node start-up to all healthy (emulated)", figure: num(e.START_S), unit: "s", context: `health ${JSON.stringify(d.health)}` },
      { name: "start -> relay ON at the relay node (emulated)", figure: d.start_to_relay_on_ms, unit: "ms", context: "POST /api/generator/start to GET /api/relay/state relay_on, polled every 20 ms" },
      { name: "pi-check total", figure: num(e.TOTAL_S), unit: "s", context: cached ? "with the cached root filesystem" : "including debootstrap" },
    ],
  };
  require("node:fs").writeFileSync(e.OUT, JSON.stringify(out, null, 2) + "\n");
'
say "wrote ${OUT#"$ROOT"/}"
cat "$OUT"
if [ "$REPORT" = 1 ]; then node "$ROOT/bench/report.mjs" --merge; fi
