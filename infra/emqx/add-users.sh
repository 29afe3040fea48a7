#!/bin/sh
# Puts the launcher's MQTT accounts (DATA_DIR/secrets.json) into EMQX's built-in database through its
# REST API, so the services log in unchanged. Needs node and curl, and an EMQX API key.
#   EMQX_API=http://emqx.lan:18083 EMQX_API_KEY=key EMQX_API_SECRET=secret infra/emqx/add-users.sh [DATA_DIR]
# An account that exists gets its password updated.
set -eu
DATA_DIR=${1:-./data}
: "${EMQX_API:?set EMQX_API, e.g. http://127.0.0.1:18083}"
: "${EMQX_API_KEY:?set EMQX_API_KEY}"
: "${EMQX_API_SECRET:?set EMQX_API_SECRET}"
SECRETS="$DATA_DIR/secrets.json"
[ -f "$SECRETS" ] || { echo "no $SECRETS: run npm start once (or infra/systemd/write-env.mjs) first" >&2; exit 1; }
USERS="$EMQX_API/api/v5/authentication/password_based:built_in_database/users"
node -e '
  const s = JSON.parse(require("node:fs").readFileSync(process.argv[1], "utf8"));
  for (const [user, password] of Object.entries(s.mqtt)) console.log(`${user}\t${password}`);
' "$SECRETS" | while IFS="$(printf '\t')" read -r user password; do
  body=$(printf '{"user_id":"%s","password":"%s","is_superuser":false}' "$user" "$password")
  code=$(curl -sS -o /dev/null -w '%{http_code}' -u "$EMQX_API_KEY:$EMQX_API_SECRET" \
    -H 'Content-Type: application/json' -d "$body" "$USERS")
  if [ "$code" = 409 ]; then
    code=$(curl -sS -o /dev/null -w '%{http_code}' -u "$EMQX_API_KEY:$EMQX_API_SECRET" -X PUT \
      -H 'Content-Type: application/json' -d "$(printf '{"password":"%s","is_superuser":false}' "$password")" "$USERS/$user")
  fi
  case "$code" in 2*) echo "$user: ok" ;; *) echo "$user: HTTP $code" >&2; exit 1 ;; esac
done
