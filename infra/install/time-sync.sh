#!/bin/sh
# The time step of install-pi.sh, on its own so it can be run and tested by itself. A Pi has no
# real-time clock and a generator shed often has no internet: the relay node's host takes its time
# from the controller host over the LAN with chrony, so the two agree after a power cut.
#
#   infra/install/time-sync.sh serve [--force] CIDR...
#                                              on the controller host: answer NTP from these networks,
#                                              also with no upstream source (local stratum 10). A /0
#                                              (every address) is refused unless --force.
#   infra/install/time-sync.sh follow HOST     on the relay node host: take the time from HOST first
#
# Both write one file of chrony's include folders and leave chrony.conf alone, so a re-run replaces
# only Outpost's part: $CHRONY_DIR/conf.d/outpost-serve.conf, $CHRONY_DIR/sources.d/outpost.sources
# (CHRONY_DIR defaults to /etc/chrony). Restart chrony afterwards (install-pi.sh does).
# The link itself never depends on the clocks agreeing; the node's logs and notifications do.
set -eu
CHRONY_DIR=${CHRONY_DIR:-/etc/chrony}

die() { echo "time-sync: $*" >&2; exit 1; }
usage() { echo "usage: $0 serve [--force] CIDR... | follow HOST" >&2; exit 2; }
[ $# -ge 2 ] || usage

# What goes into chrony's files is checked first: a stray word there stops chronyd from starting.
# Whole-word checks (a case pattern, not grep, which would pass one good line of several).
# A network is an address with an optional prefix length, each part checked strictly (chrony reads
# `a/b` as a name to resolve and stops at start if it does not).
# 0 to 999 without a leading zero (no octal look-alikes).
is_decimal() { case "$1" in ''|*[!0-9]*|0?*) return 1 ;; esac; [ ${#1} -le 3 ]; }
valid_ipv4() {
  case "$1" in *.*.*.*.*|'') return 1 ;; *.*.*.*) ;; *) return 1 ;; esac
  rest=$1
  for _ in 1 2 3 4; do
    octet=${rest%%.*}
    rest=${rest#*.}
    is_decimal "$octet" && [ "$octet" -le 255 ] || return 1
  done
}
valid_ipv6() {
  case "$1" in ''|*[!0-9A-Fa-f:]*|*:::*|*::*::*) return 1 ;; esac
  case "$1" in ::*|*::) ;; :*|*:) return 1 ;; esac
  groups=0
  rest=$1:
  while [ -n "$rest" ]; do
    group=${rest%%:*}
    rest=${rest#*:}
    [ ${#group} -le 4 ] || return 1
    [ -z "$group" ] || groups=$((groups + 1))
  done
  case "$1" in *::*) [ "$groups" -le 7 ] ;; *) [ "$groups" -eq 8 ] ;; esac
}
# valid_cidr NET: 0 when NET is a network chrony reads as one; `prefix` is left holding its length.
valid_cidr() {
  case "$1" in */*/*) return 1 ;; */*) addr=${1%/*}; prefix=${1#*/} ;; *) addr=$1; prefix=none ;; esac
  if valid_ipv4 "$addr"; then max=32; elif valid_ipv6 "$addr"; then max=128; else return 1; fi
  [ "$prefix" = none ] && return 0
  is_decimal "$prefix" && [ "$prefix" -le "$max" ]
}
valid_host() { case "$1" in ''|-*|*[!A-Za-z0-9.:-]*) return 1 ;; esac; }

case "$1" in
  serve)
    shift
    force=0
    if [ "${1:-}" = --force ]; then force=1; shift; fi
    [ $# -ge 1 ] || usage
    lines=
    for net in "$@"; do
      valid_cidr "$net" || die "not a network: $net (e.g. 192.168.1.0/24)"
      # Every address: NTP answered to the internet (an amplifier and a clock for anyone).
      [ "$prefix" != 0 ] || [ "$force" = 1 ] ||
        die "refusing $net: it is every address; name your LAN (e.g. 192.168.1.0/24), or pass --force"
      lines="${lines}allow $net
"
    done
    install -d -m 0755 "$CHRONY_DIR/conf.d"
    {
      echo "# Written by Outpost's install (time-sync.sh serve): relay node hosts take their time from here."
      printf '%s' "$lines"
      # With no internet this host is still the site's clock: a stratum that any real source outranks.
      echo "local stratum 10"
    } > "$CHRONY_DIR/conf.d/outpost-serve.conf"
    echo "time-sync: serving time to $* ($CHRONY_DIR/conf.d/outpost-serve.conf)"
    ;;
  follow)
    [ $# -eq 2 ] || usage
    host=$(printf '%s' "$2" | tr -d '[]')
    valid_host "$host" || die "not a host name or address: $2"
    install -d -m 0755 "$CHRONY_DIR/sources.d"
    {
      echo "# Written by Outpost's install (time-sync.sh follow): the controller host is this Pi's clock."
      # iburst: the first answer within seconds of boot. prefer: over any pool still configured.
      echo "server $host iburst prefer"
    } > "$CHRONY_DIR/sources.d/outpost.sources"
    echo "time-sync: taking the time from $host ($CHRONY_DIR/sources.d/outpost.sources)"
    ;;
  *) usage ;;
esac
