#!/usr/bin/env bash
# scripts/install-packages.sh PACKAGE...: installs from Debian those of PACKAGE not installed yet, without letting
# their maintainer scripts start system services (postgresql, nginx, redis): the tests and benchmarks start their
# own private instances and stop them by PID.
set -euo pipefail
missing=""
for package in "$@"; do
    # Installed, not merely known to dpkg: a removed package keeps its configuration and `dpkg -s` still succeeds.
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "ok installed" || missing="$missing $package"
done
[ -n "$missing" ] || exit 0
echo "installing:$missing"
if [ "$(id -u)" = 0 ]; then sudo=""; else sudo=sudo; fi
# policy-rc.d exit 101: "action forbidden", which invoke-rc.d and deb-systemd-invoke honour.
policy=/usr/sbin/policy-rc.d
if [ ! -e $policy ]; then
    printf '#!/bin/sh\nexit 101\n' | $sudo tee $policy >/dev/null
    $sudo chmod +x $policy
    trap '$sudo rm -f $policy' EXIT
fi
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing >/dev/null
