#!/bin/sh
# Writes a Mosquitto password file with the accounts and passwords the launcher generated in
# DATA_DIR/secrets.json, so services started by `npm start` or the systemd units log in unchanged.
#   infra/mosquitto/make-passwd.sh [DATA_DIR] [OUT]    defaults: ./data  infra/mosquitto/passwd
# Needs node and mosquitto_passwd. The file is mode 0640; for Docker give it to uid 1883
# (`sudo chown 1883 infra/mosquitto/passwd`), on Debian to the mosquitto user.
set -eu
DATA_DIR=${1:-./data}
OUT=${2:-$(dirname "$0")/passwd}
SECRETS="$DATA_DIR/secrets.json"
[ -f "$SECRETS" ] || { echo "no $SECRETS: run npm start once (or infra/systemd/write-env.mjs) first" >&2; exit 1; }
umask 027
# A new file under a random name (mktemp: O_EXCL), so a link planted at a guessable name is never written
# through; the mv replaces OUT itself.
TMP=$(mktemp "$OUT.tmp.XXXXXX")
trap 'rm -f "$TMP"' EXIT
chmod 0640 "$TMP"
node -e '
  const s = JSON.parse(require("node:fs").readFileSync(process.argv[1], "utf8"));
  for (const [user, password] of Object.entries(s.mqtt)) console.log(`${user}\t${password}`);
' "$SECRETS" | while IFS="$(printf '\t')" read -r user password; do
  mosquitto_passwd -b "$TMP" "$user" "$password"
done
mv "$TMP" "$OUT"
trap - EXIT
echo "wrote $OUT"
