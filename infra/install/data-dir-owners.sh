#!/bin/sh
# The ownership step of install-pi.sh, on its own so it can be run and tested by itself:
#
#   infra/install/data-dir-owners.sh DATA_DIR
#
# DATA_DIR and the files root keeps there (secrets.json, mqtt-users.json, metrics-token, tls/) belong to
# root; each unit gets only its own state folder (relay-node/, postgres/, the simulator's password file).
# Root never follows a symbolic link here: a unit's user can plant one wherever it may write (its state
# folder, or DATA_DIR itself as an earlier version left it), and chown or chmod would otherwise act on
# the target (secrets.json -> /etc/shadow). A link where root keeps a file stops the install, naming it.
# The account names can be overridden (OUTPOST_GROUP, OUTPOST_USER_POSTGRES, OUTPOST_USER_BROKER,
# OUTPOST_USER_SIMULATOR, OUTPOST_USER_RELAY_NODE, OUTPOST_GROUP_POSTGRES, OUTPOST_GROUP_BROKER) for a
# test run without those accounts.
set -eu
[ $# -eq 1 ] || { echo "usage: $0 DATA_DIR" >&2; exit 2; }
DATA_DIR=$1
GROUP=${OUTPOST_GROUP:-outpost}
U_POSTGRES=${OUTPOST_USER_POSTGRES:-outpost-postgres}
U_BROKER=${OUTPOST_USER_BROKER:-outpost-broker}
U_SIMULATOR=${OUTPOST_USER_SIMULATOR:-outpost-simulator}
U_RELAY_NODE=${OUTPOST_USER_RELAY_NODE:-outpost-relay-node}
# The groups that read secrets.json and mqtt-users.json (as install-pi.sh has always named them).
G_POSTGRES=${OUTPOST_GROUP_POSTGRES:-$U_POSTGRES}
G_BROKER=${OUTPOST_GROUP_BROKER:-$U_BROKER}

die() { echo "install-pi: $*" >&2; exit 1; }
no_link() { [ ! -L "$1" ] || die "refusing $1: it is a symbolic link (planted by a service account?); remove it and run again"; }

# Owner and mode of one file or folder that may be absent, never through a link. chown -h would change a
# link itself, but chmod always follows one: so a link is refused before either runs.
own() { # path owner:group mode
  [ -e "$1" ] || [ -L "$1" ] || return 0
  no_link "$1"
  chown -h "$2" "$1"
  chmod "$3" "$1"
}

no_link "$DATA_DIR"
[ -d "$DATA_DIR" ] || die "no folder $DATA_DIR"
# Root's alone to write; the units' group may traverse it to their own folders and to tls/.
chown -h "root:$GROUP" "$DATA_DIR"
chmod 0751 "$DATA_DIR"
# The embedded PostgreSQL provisions its roles from secrets.json; the services get theirs from /etc/outpost.
own "$DATA_DIR/secrets.json" "root:$G_POSTGRES" 0640
own "$DATA_DIR/mqtt-users.json" "root:$G_BROKER" 0640
own "$DATA_DIR/metrics-token" root:root 0600
own "$DATA_DIR/simulator-password" "$U_SIMULATOR:$GROUP" 0600
# The state folders (systemd's StateDirectory= hands them to their units too). -R with -h and without
# -L follows no link inside; the folder itself is checked first.
for pair in "relay-node:$U_RELAY_NODE" "postgres:$U_POSTGRES"; do
  d="$DATA_DIR/${pair%%:*}"
  [ -e "$d" ] || [ -L "$d" ] || continue
  no_link "$d"
  chown -hR "${pair#*:}:$GROUP" "$d"
  chmod 0700 "$d"
done
# TLS: every unit reads the certificate, the key and the CAs through the group; the CA key stays root's.
if [ -e "$DATA_DIR/tls" ] || [ -L "$DATA_DIR/tls" ]; then
  own "$DATA_DIR/tls" "root:$GROUP" 0750
  for f in "$DATA_DIR"/tls/* "$DATA_DIR"/tls/.[!.]*; do
    [ -e "$f" ] || [ -L "$f" ] || continue
    no_link "$f"
    case "$f" in
      */ca.key) own "$f" root:root 0600 ;;
      */server.key) own "$f" "root:$GROUP" 0640 ;;
      *.pem) own "$f" "root:$GROUP" 0644 ;;
      *) own "$f" root:root 0600 ;;
    esac
  done
fi
