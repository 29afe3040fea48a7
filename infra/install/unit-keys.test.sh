#!/bin/sh
# Test of what write-env.mjs and data-dir-owners.sh (install-pi.sh's steps) leave in DATA_DIR: each unit
# that serves TLS reads its own key and no other unit's, the CA key and the launcher's shared
# server.key are root's alone, and secrets.json is read by root alone: the embedded PostgreSQL's unit
# reads only postgres-secrets.json, the broker's only mqtt-users.json. Each unit's user is a numeric id
# of its own here (no accounts are made); reads are tried as that user with setpriv. Needs root; run by
# scripts/test/infra.test.ts. Prints "ok" last on success.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
[ "$(id -u)" = 0 ] || { echo "skip: needs root to read as other users"; exit 0; }
NODE=${NODE:-$(command -v node)}
GID=64990
export OUTPOST_GROUP=$GID
UNITS="broker controller relay-node notifier simulator dashboard postgres"
uid_of() {
  case "$1" in
    broker) echo 64991 ;; controller) echo 64992 ;; relay-node) echo 64993 ;; notifier) echo 64994 ;;
    simulator) echo 64995 ;; dashboard) echo 64996 ;; postgres) echo 64997 ;;
  esac
}
export OUTPOST_USER_BROKER=64991 OUTPOST_USER_CONTROLLER=64992 OUTPOST_USER_RELAY_NODE=64993 \
  OUTPOST_USER_NOTIFIER=64994 OUTPOST_USER_SIMULATOR=64995 OUTPOST_USER_DASHBOARD=64996 \
  OUTPOST_USER_POSTGRES=64997

WORK=$(mktemp -d /tmp/outpost-unit-keys-test.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
chmod 0755 "$WORK"
fail() { echo "FAIL: $*" >&2; exit 1; }
D="$WORK/data"
E="$WORK/etc"
mkdir -p "$E"
# TLS on (with the local CA), listening on loopback only.
printf 'DATA_DIR=%s\nHOST=127.0.0.1\nTLS=on\nMQTT_URL=mqtts://127.0.0.1:8883\n' "$D" > "$E/outpost.env"
"$NODE" "$ROOT/infra/systemd/write-env.mjs" --data-dir "$D" --out "$E" >/dev/null
install -d -m 0700 "$D"
sh "$HERE/data-dir-owners.sh" "$D"

# Can the unit's user (in the units' group, as its systemd unit runs) read FILE?
reads() { # unit file
  setpriv --reuid="$(uid_of "$1")" --regid=$GID --clear-groups cat -- "$2" >/dev/null 2>&1
}

# 1. Each unit that serves TLS names a key of its own in its own environment file, and tls.env (read by
#    every unit) names none.
grep -q '^TLS_KEY_FILE=' "$E/tls.env" && fail "tls.env names a key every unit would use"
for u in broker controller relay-node notifier simulator dashboard; do
  key=$(sed -n 's/^TLS_KEY_FILE=//p' "$E/$u.env")
  [ "$key" = "$D/tls/$u/server.key" ] || fail "$u.env names the key '$key'"
  cert=$(sed -n 's/^TLS_CERT_FILE=//p' "$E/$u.env")
  [ "$cert" = "$D/tls/$u/server.pem" ] || fail "$u.env names the certificate '$cert'"
done
# A certificate of its own: no two units hold the same key.
dups=$(for u in broker controller relay-node notifier simulator dashboard; do sha256sum < "$D/tls/$u/server.key"; done |
  sort | uniq -d)
[ -z "$dups" ] || fail "two units share a key"

# 2. Each reads its own key and certificate, no other unit's key, and neither the CA key nor the shared key.
for u in $UNITS; do
  for v in broker controller relay-node notifier simulator dashboard; do
    if [ "$u" = "$v" ]; then
      reads "$u" "$D/tls/$v/server.key" || fail "$u cannot read its own key"
    elif reads "$u" "$D/tls/$v/server.key"; then
      fail "$u can read $v's key"
    fi
    reads "$u" "$D/tls/$v/server.pem" || fail "$u cannot read $v's certificate"
  done
  reads "$u" "$D/tls/trust.pem" || fail "$u cannot read the CAs to trust"
  for f in tls/ca.key tls/server.key secrets.json metrics-token; do
    if reads "$u" "$D/$f"; then fail "$u can read $f"; fi
  done
  # Only the database unit reads its passwords, only the broker its accounts.
  if [ "$u" = postgres ]; then reads "$u" "$D/postgres-secrets.json" || fail "postgres cannot read its passwords"
  elif reads "$u" "$D/postgres-secrets.json"; then fail "$u can read postgres-secrets.json"; fi
  if [ "$u" = broker ]; then reads "$u" "$D/mqtt-users.json" || fail "the broker cannot read its accounts"
  elif reads "$u" "$D/mqtt-users.json"; then fail "$u can read mqtt-users.json"; fi
done

# 3. No unit can replace its key (or plant a link in its place): the folder is root's.
[ "$(stat -c '%u %a' "$D/tls/controller")" = "0 755" ] || fail "tls/controller is $(stat -c '%u %a' "$D/tls/controller")"
[ "$(stat -c '%u %a' "$D/tls/controller/server.key")" = "64992 600" ] ||
  fail "the controller's key is $(stat -c '%u %a' "$D/tls/controller/server.key")"
if setpriv --reuid=64992 --regid=$GID --clear-groups sh -c "rm -f '$D/tls/controller/server.key'" 2>/dev/null &&
  [ ! -e "$D/tls/controller/server.key" ]; then
  fail "the controller could remove its key file"
fi

# 4. The postgres-secrets.json the database unit reads holds only its passwords.
"$NODE" -e '
  const f = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  const s = JSON.parse(require("fs").readFileSync(process.argv[2], "utf8"));
  if (Object.keys(f).join() !== "postgres" || JSON.stringify(f.postgres) !== JSON.stringify(s.postgres)) process.exit(1);
' "$D/postgres-secrets.json" "$D/secrets.json" || fail "postgres-secrets.json is not the PostgreSQL part alone"

# 5. A second run (an upgrade) keeps each unit's certificate and its owner.
before=$(cat "$D/tls/controller/server.pem")
"$NODE" "$ROOT/infra/systemd/write-env.mjs" --data-dir "$D" --out "$E" >/dev/null
sh "$HERE/data-dir-owners.sh" "$D"
[ "$(cat "$D/tls/controller/server.pem")" = "$before" ] || fail "an upgrade reissued the controller's certificate"
reads controller "$D/tls/controller/server.key" || fail "after an upgrade the controller cannot read its key"
echo ok
