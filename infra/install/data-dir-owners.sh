#!/bin/sh
# The ownership step of install-pi.sh, on its own so it can be run and tested by itself:
#
#   infra/install/data-dir-owners.sh DATA_DIR
#
# DATA_DIR and the files root keeps there (secrets.json, metrics-token, tls/) belong to root and only
# root reads them; each unit gets only what is its own: its state folder (relay-node/, postgres/), the
# embedded PostgreSQL its roles' passwords (postgres-secrets.json), the broker its accounts
# (mqtt-users.json), the simulator its password file, and every unit serving TLS its own key
# (tls/<unit>/server.key, written by write-env.mjs). Each is owned by that unit's user, mode 0600, in a
# folder only root may write, so the unit can read it and neither replace it nor read another's.
# Root never follows a symbolic link here: a unit's user can plant one wherever it may write (its state
# folder, or DATA_DIR itself as an earlier version left it), and chown or chmod would otherwise act on
# the target (secrets.json -> /etc/shadow). A link where root keeps a file stops the install, naming it.
# The account names can be overridden (OUTPOST_GROUP, OUTPOST_USER_POSTGRES, OUTPOST_USER_BROKER,
# OUTPOST_USER_SIMULATOR, OUTPOST_USER_RELAY_NODE, OUTPOST_USER_CONTROLLER, OUTPOST_USER_NOTIFIER,
# OUTPOST_USER_DASHBOARD; names or numeric ids) for a test run without those accounts.
set -eu
[ $# -eq 1 ] || { echo "usage: $0 DATA_DIR" >&2; exit 2; }
DATA_DIR=$1
GROUP=${OUTPOST_GROUP:-outpost}
U_POSTGRES=${OUTPOST_USER_POSTGRES:-outpost-postgres}
U_BROKER=${OUTPOST_USER_BROKER:-outpost-broker}
U_SIMULATOR=${OUTPOST_USER_SIMULATOR:-outpost-simulator}
U_RELAY_NODE=${OUTPOST_USER_RELAY_NODE:-outpost-relay-node}
U_CONTROLLER=${OUTPOST_USER_CONTROLLER:-outpost-controller}
U_NOTIFIER=${OUTPOST_USER_NOTIFIER:-outpost-notifier}
U_DASHBOARD=${OUTPOST_USER_DASHBOARD:-outpost-dashboard}
# The user of each unit that serves TLS (unit-tls.ts, TLS_UNITS).
unit_user() {
  case "$1" in
    broker) echo "$U_BROKER" ;; controller) echo "$U_CONTROLLER" ;; relay-node) echo "$U_RELAY_NODE" ;;
    notifier) echo "$U_NOTIFIER" ;; simulator) echo "$U_SIMULATOR" ;; dashboard) echo "$U_DASHBOARD" ;;
    *) return 1 ;;
  esac
}

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
# Every secret, root's alone: the services get theirs from /etc/outpost. The embedded PostgreSQL reads
# only its roles' passwords, the broker only its accounts' hashes.
own "$DATA_DIR/secrets.json" root:root 0600
own "$DATA_DIR/postgres-secrets.json" "$U_POSTGRES:root" 0600
own "$DATA_DIR/mqtt-users.json" "$U_BROKER:root" 0600
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
# TLS: the units' group may traverse tls/ and read the certificates and CAs; every key is one user's
# alone: the CA key and the launcher's shared server.key root's, each unit's key that unit's.
if [ -e "$DATA_DIR/tls" ] || [ -L "$DATA_DIR/tls" ]; then
  own "$DATA_DIR/tls" "root:$GROUP" 0750
  for f in "$DATA_DIR"/tls/* "$DATA_DIR"/tls/.[!.]*; do
    [ -e "$f" ] || [ -L "$f" ] || continue
    no_link "$f"
    if [ -d "$f" ]; then
      u=$(unit_user "${f##*/}") || { own "$f" root:root 0700; continue; }
      own "$f" root:root 0755
      for g in "$f"/* "$f"/.[!.]*; do
        [ -e "$g" ] || [ -L "$g" ] || continue
        case "$g" in
          */server.key) own "$g" "$u:root" 0600 ;;
          *.pem) own "$g" root:root 0644 ;;
          *) own "$g" root:root 0600 ;;
        esac
      done
      continue
    fi
    case "$f" in
      *.pem) own "$f" "root:$GROUP" 0644 ;;
      *) own "$f" root:root 0600 ;;
    esac
  done
fi
