#!/bin/sh
# Copies the launcher's TLS certificate, key and CA (DATA_DIR/tls, made by `npm start` with TLS on) to
# where docker.conf's TLS listeners read them, so LAN clients reach the Compose Mosquitto over MQTTS
# (8883) and WSS (8884) with the site's CA, while plain 1883 and 9001 stay on the host's loopback.
#   infra/mosquitto/make-tls.sh [DATA_DIR] [OUT]    defaults: ./data  infra/mosquitto/tls
# Mosquitto reads them after dropping to its own user: for Docker give the folder to uid 1883
# (`sudo chown -R 1883 infra/mosquitto/tls`). The key is mode 0600, the folder 0700.
set -eu
DATA_DIR=${1:-./data}
OUT=${2:-$(dirname "$0")/tls}
SRC="$DATA_DIR/tls"
for f in server.pem server.key ca.pem; do
  # A link could point the copy at any file this user may read.
  [ -f "$SRC/$f" ] && [ ! -L "$SRC/$f" ] ||
    { echo "no $SRC/$f: run npm start once with TLS on (HOST not loopback) first, or give your own files" >&2; exit 1; }
done
umask 077
install -d -m 0700 "$OUT"
for f in server.pem server.key ca.pem; do
  # A fresh file under a random name, then renamed: a link planted in OUT is replaced, never followed.
  tmp=$(mktemp "$OUT/.$f.XXXXXX")
  cat "$SRC/$f" > "$tmp"
  case "$f" in *.key) chmod 0600 "$tmp" ;; *) chmod 0644 "$tmp" ;; esac
  mv -f "$tmp" "$OUT/$f"
done
echo "wrote $OUT/{server.pem,server.key,ca.pem}"
