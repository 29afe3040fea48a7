#!/bin/sh
# Test of install-pi.sh's secrets step on an upgrade: an earlier version left DATA_DIR owned by a service
# account, which plants links there under the temporary names root's writers used
# (postgres-secrets.json.tmp and the like) pointing at a root-only file. The step is run
# exactly as install-pi.sh has it (its lines from FIRST_INSTALL=0 to the time step), and must neither
# write through a link nor run any root write before DATA_DIR is root's. Needs root (it plants as the
# user nobody) and the built scripts (scripts/dist); run by scripts/test/infra.test.ts. Prints "ok" last.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
[ "$(id -u)" = 0 ] || { echo "skip: needs root to plant links as another user"; exit 0; }
[ -f "$ROOT/scripts/dist/secrets.js" ] || { echo "FAIL: build the scripts first (scripts/dist)" >&2; exit 1; }
AS_USER="setpriv --reuid=65534 --regid=65534 --clear-groups"
export OUTPOST_GROUP=nogroup OUTPOST_USER_POSTGRES=nobody OUTPOST_USER_BROKER=nobody \
  OUTPOST_USER_SIMULATOR=nobody OUTPOST_USER_RELAY_NODE=nobody OUTPOST_USER_CONTROLLER=nobody \
  OUTPOST_USER_NOTIFIER=nobody OUTPOST_USER_DASHBOARD=nobody

WORK=$(mktemp -d /tmp/outpost-upgrade-test.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
chmod 0755 "$WORK"
fail() { echo "FAIL: $*" >&2; exit 1; }
D="$WORK/data"
E="$WORK/etc"
# A stand-in for /etc/shadow: root's, 0600.
printf 'root-only\n' > "$WORK/shadow"
chmod 0600 "$WORK/shadow"

# The step as install-pi.sh runs it, with its own variables; node goes through a wrapper that notes who
# owns DATA_DIR each time root runs a writer there.
STEP="$WORK/step.sh"
{
  echo 'say() { echo "==> $*"; }'
  echo 'die() { echo "install-pi: $*" >&2; exit 1; }'
  sed -n '/^FIRST_INSTALL=0$/,/^if \[ "\$TIME_FROM_CONTROLLER" = 1 \] || /p' "$ROOT/infra/install/install-pi.sh" | sed '$d'
} > "$STEP"
grep -q 'write-env.mjs' "$STEP" || fail "install-pi.sh's secrets step was not found"
cat > "$WORK/node" <<WRAP
#!/bin/sh
stat -c '%u' "$D" >> "$WORK/owner-at-write"
exec "$(command -v node)" "\$@"
WRAP
chmod 0755 "$WORK/node"
run_step() {
  (cd "$ROOT" && DATA_DIR=$D ETC=$E NODE="$WORK/node" SYSTEM=1 JOIN= MQTT_URL= DATABASE_URL= sh -eu "$STEP") \
    > "$WORK/step.log" 2>&1 || { cat "$WORK/step.log" >&2; fail "the step failed"; }
}

# 1. The first install, then DATA_DIR as an earlier version left it: the database account's.
run_step
[ -f "$D/postgres-secrets.json" ] || fail "the first install wrote no postgres-secrets.json"
chown 65534:65534 "$D"
: > "$WORK/owner-at-write"

# 2. Links planted by that account under every temporary name it can guess, to the root-only file.
for name in postgres-secrets.json.tmp secrets.json.tmp metrics-token.tmp mqtt-users.json.tmp; do
  $AS_USER ln -s "$WORK/shadow" "$D/$name"
done
# And the file behind the probed link removed, so the upgrade writes it afresh (as from a version
# without it): root's writer then creates postgres-secrets.json.tmp, the planted name, first.
$AS_USER rm -f "$D/postgres-secrets.json"

# 3. The upgrade.
run_step
[ "$(cat "$WORK/shadow")" = "root-only" ] || fail "root wrote through a planted link: $(head -c 80 "$WORK/shadow")"
[ "$(stat -c '%u:%g %a' "$WORK/shadow")" = "0:0 600" ] || fail "the root-only file was re-owned"
grep -qv '^0$' "$WORK/owner-at-write" && fail "root ran a writer while DATA_DIR was owned by uid $(grep -v '^0$' "$WORK/owner-at-write" | head -n 1)"
[ -s "$WORK/owner-at-write" ] || fail "the step ran no writer"
[ ! -L "$D/postgres-secrets.json" ] && [ -f "$D/postgres-secrets.json" ] || fail "postgres-secrets.json is not a file"
grep -q 'roles' "$D/postgres-secrets.json" || fail "postgres-secrets.json lost its passwords"
[ "$(stat -c '%u %a' "$D")" = "0 751" ] || fail "DATA_DIR is $(stat -c '%u %a' "$D")"
echo ok
