#!/usr/bin/env bash
# Runs before `npm test` (the `pretest` step) and first thing in `.ci/run`: the suites drive real peers
# (an SMTP server, D-Bus with python3-dbusmock, a Modbus generator controller on python3-pymodbus, gpsd fed
# through socat, Chromium, Mosquitto, promtool…),
# so each one missing is installed with apt-get, as root or through `sudo -n`. Without either it stops
# with one line naming the Debian packages to install. When everything is there it does nothing.
# Under CI=true it also starts, on loopback, the servers the suites reach by TEST_DATABASE_URL,
# TEST_MQTT_URL and TEST_REDIS_URL (PostgreSQL, Mosquitto, Redis) when they are not listening.
set -uo pipefail

have() { command -v "$1" >/dev/null 2>&1; }
# The suites run Debian's own interpreter, where the python3-* packages install their modules.
py_has() { /usr/bin/python3 -c "import $1" >/dev/null 2>&1; }

missing() {
  pkgs=()
  have mosquitto || pkgs+=(mosquitto)
  have mosquitto_passwd || pkgs+=(mosquitto-clients)
  have pg_ctlcluster || pkgs+=(postgresql)
  have pg_dump || pkgs+=(postgresql-client)
  have redis-server || pkgs+=(redis-server)
  have gpsd || pkgs+=(gpsd)
  have gpspipe || pkgs+=(gpsd-clients)
  have socat || pkgs+=(socat)
  have ping || pkgs+=(iputils-ping)
  have dbus-daemon || pkgs+=(dbus)
  have promtool || pkgs+=(prometheus)
  # Two hosts on one machine: the relay node's clock set apart, and faults between network namespaces.
  [ -e /usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1 ] || [ -e /usr/lib/aarch64-linux-gnu/faketime/libfaketimeMT.so.1 ] || pkgs+=(faketime)
  have nft || pkgs+=(nftables)
  have ip || pkgs+=(iproute2)
  # install-pi.sh's time step is tested against a real chronyd, in a namespace of its own.
  have chronyd || pkgs+=(chrony)
  [ -x /usr/bin/chromium ] || pkgs+=(chromium)
  if [ -x /usr/bin/python3 ]; then
    py_has aiosmtpd || pkgs+=(python3-aiosmtpd)
    py_has dbusmock || pkgs+=(python3-dbusmock)
    # The relay node's fake generator controller: pymodbus's server, over TCP and over a serial pty.
    py_has pymodbus || pkgs+=(python3-pymodbus)
    py_has serial_asyncio || pkgs+=(python3-serial-asyncio)
  else
    pkgs+=(python3 python3-aiosmtpd python3-dbusmock python3-pymodbus python3-serial-asyncio)
  fi
}

listening() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && exec 3>&- 3<&-; }

# Under CI the suites use the machine's own servers: each one not listening is started as Debian would.
start_servers() {
  [ "${CI:-}" = true ] || return 0
  if ! listening 5432; then
    echo "outpost: starting PostgreSQL"
    as_root pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -1)" main start || true
    for _ in $(seq 1 50); do listening 5432 && break; sleep 0.2; done
  fi
  # A fresh install has no trust auth on TCP: give postgres a password and make sure the test database exists.
  as_root su postgres -c "psql -qtAc \"ALTER USER postgres PASSWORD 'postgres'\"" >/dev/null 2>&1 || true
  as_root su postgres -c "psql -qtAc \"SELECT 1 FROM pg_database WHERE datname='test'\"" 2>/dev/null | grep -q 1 ||
    as_root su postgres -c "createdb test" >/dev/null 2>&1 || true
  if ! listening 1883; then
    echo "outpost: starting Mosquitto"
    as_root mosquitto -d -c /etc/mosquitto/mosquitto.conf || true
    for _ in $(seq 1 50); do listening 1883 && break; sleep 0.2; done
  fi
  if ! listening 6379; then
    echo "outpost: starting Redis"
    as_root mkdir -p /var/lib/redis /var/log/redis
    as_root redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
      --dir /var/lib/redis --logfile /var/log/redis/ci.log || true
    for _ in $(seq 1 50); do listening 6379 && break; sleep 0.2; done
  fi
}

if [ "$(id -u)" = 0 ]; then
  as_root() { "$@"; }
elif have sudo && sudo -n true >/dev/null 2>&1; then
  as_root() { sudo -n "$@"; }
else
  as_root() { return 1; }
fi

missing
if [ ${#pkgs[@]} -eq 0 ]; then
  start_servers
  exit 0
fi

if ! as_root true; then
  echo "outpost: npm test needs these Debian packages: ${pkgs[*]} (sudo apt-get install ${pkgs[*]}), or run it as root" >&2
  exit 1
fi
if ! have apt-get; then
  echo "outpost: npm test needs these packages, and apt-get is not here to install them: ${pkgs[*]}" >&2
  exit 1
fi

echo "outpost: installing the test peers: ${pkgs[*]}"
# The packages' own daemons (chrony would reach for the public NTP pool, gpsd for a GPS) must not start:
# the suites run their own, on loopback. Debian's policy-rc.d says no to every service start meanwhile.
policy=/usr/sbin/policy-rc.d
own_policy=0
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' | as_root tee "$policy" >/dev/null && as_root chmod 755 "$policy" && own_policy=1
fi
# Another apt-get at work holds dpkg's lock: wait for it rather than fail.
lock=(-o DPkg::Lock::Timeout=300)
as_root apt-get "${lock[@]}" update -qq >/dev/null
DEBIAN_FRONTEND=noninteractive as_root apt-get "${lock[@]}" install -y -qq --no-install-recommends "${pkgs[@]}" >/dev/null
[ "$own_policy" = 1 ] && as_root rm -f "$policy"
# gpsd's package starts a system daemon on some images (through its socket unit); the tests run their own.
as_root systemctl stop gpsd.socket gpsd >/dev/null 2>&1 || true
as_root systemctl disable --now chrony >/dev/null 2>&1 || true

missing
if [ ${#pkgs[@]} -gt 0 ]; then
  echo "outpost: npm test needs these Debian packages, still missing after apt-get install: ${pkgs[*]}" >&2
  exit 1
fi
start_servers
