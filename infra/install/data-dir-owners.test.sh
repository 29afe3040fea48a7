#!/bin/sh
# Test of data-dir-owners.sh (install-pi.sh's ownership step): a service account that could write in
# DATA_DIR (as the embedded PostgreSQL's user could before) or in its own state folder plants links to
# a root-only file, and the step run as root must neither chown nor chmod that file. Needs root (it
# plants as the user nobody); run by scripts/test/infra.test.ts. Prints "ok" last on success.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
STEP="$HERE/data-dir-owners.sh"
[ "$(id -u)" = 0 ] || { echo "skip: needs root to plant links as another user"; exit 0; }
AS_USER="setpriv --reuid=65534 --regid=65534 --clear-groups"
export OUTPOST_GROUP=nogroup OUTPOST_USER_POSTGRES=nobody OUTPOST_USER_BROKER=nobody \
  OUTPOST_USER_SIMULATOR=nobody OUTPOST_USER_RELAY_NODE=nobody OUTPOST_USER_CONTROLLER=nobody \
  OUTPOST_USER_NOTIFIER=nobody OUTPOST_USER_DASHBOARD=nobody

WORK=$(mktemp -d /tmp/outpost-owners-test.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
chmod 0755 "$WORK" # the planting user reaches DATA_DIR inside it
fail() { echo "FAIL: $*" >&2; exit 1; }
# A stand-in for /etc/shadow: root's, 0600.
victim() { printf 'root-only\n' > "$WORK/$1"; chown root:root "$WORK/$1"; chmod 0600 "$WORK/$1"; }
unchanged() { # file
  set -- "$1" "$(stat -c '%u:%g %a' "$1")"
  [ "$2" = "0:0 600" ] || fail "$1 was changed to $2"
}
# DATA_DIR as an earlier install left it: owned by the database account, with root's files in it.
layout() { # dir
  mkdir -p "$1/tls" "$1/relay-node" "$1/postgres"
  for f in secrets.json mqtt-users.json metrics-token tls/ca.pem tls/server.key tls/ca.key; do
    printf '{}\n' > "$1/$f"
  done
  chown 65534:65534 "$1" "$1/relay-node" "$1/postgres"
}

# 1. secrets.json replaced by a link: refused, naming the file; the target untouched.
victim shadow1
D="$WORK/data1"; layout "$D"
$AS_USER sh -c "rm -f '$D/secrets.json' && ln -s '$WORK/shadow1' '$D/secrets.json'"
if out=$(sh "$STEP" "$D" 2>&1); then fail "a linked secrets.json was accepted"; fi
case "$out" in *"$D/secrets.json"*"symbolic link"*) ;; *) fail "no line names the link: $out" ;; esac
unchanged "$WORK/shadow1"

# 2. tls/ swapped for a link to a folder holding a root file named like a certificate.
victim shadow2
D="$WORK/data2"; layout "$D"
mkdir "$WORK/evil-tls"
ln "$WORK/shadow2" "$WORK/evil-tls/ca.pem" # the same file under a certificate's name
$AS_USER sh -c "mv '$D/tls' '$D/tls.old' && ln -s '$WORK/evil-tls' '$D/tls'"
if sh "$STEP" "$D" >/dev/null 2>&1; then fail "a linked tls/ was accepted"; fi
unchanged "$WORK/shadow2"

# 3. Links inside the units' own state folders: the step succeeds and follows none of them.
victim shadow3
victim shadow4
D="$WORK/data3"; layout "$D"
$AS_USER ln -s "$WORK/shadow3" "$D/relay-node/settings.json"
$AS_USER ln -s "$WORK/shadow4" "$D/postgres/PG_VERSION"
sh "$STEP" "$D" || fail "the ownership step failed on links inside state folders"
unchanged "$WORK/shadow3"
unchanged "$WORK/shadow4"
[ -L "$D/relay-node/settings.json" ] || fail "the link itself was replaced"

# 4. The result: DATA_DIR root's and writable by root alone; root's files stay root's.
[ "$(stat -c '%u %a' "$D")" = "0 751" ] || fail "DATA_DIR is $(stat -c '%u %a' "$D")"
[ "$(stat -c '%u %a' "$D/secrets.json")" = "0 600" ] || fail "secrets.json is $(stat -c '%u %a' "$D/secrets.json")"
[ "$(stat -c '%u %a' "$D/tls/ca.key")" = "0 600" ] || fail "ca.key is $(stat -c '%u %a' "$D/tls/ca.key")"
[ "$(stat -c '%U %a' "$D/relay-node")" = "nobody 700" ] || fail "relay-node/ is $(stat -c '%U %a' "$D/relay-node")"
# The database account can no longer replace root's files: DATA_DIR is not its to write.
if $AS_USER sh -c "rm -f '$D/secrets.json'" 2>/dev/null && [ ! -e "$D/secrets.json" ]; then
  fail "the database account could still remove secrets.json"
fi
echo ok
