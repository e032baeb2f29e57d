#!/bin/sh
# configure accepts only the syslog-ng series fastdest is tested against and
# names them when it refuses another: run it against syslog-ng.pc files that
# claim 4.3.1 (Ubuntu 24.04) and 3.39.0, everything else the real ones.
# Copyright (c) 2026 fastdest authors; GPL-2.0-or-later (see LICENSE-HEADER.txt).
set -u
top=${FASTDEST_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
pcdir=$(pkg-config --variable=pcfiledir syslog-ng) || { echo "no syslog-ng.pc"; exit 1; }
work=$(mktemp -d /tmp/fastdest-configure.XXXXXX)
trap 'rm -rf "$work"' EXIT
status=0
for version in 4.3.1 3.39.0; do
  mkdir -p "$work/pc-$version" "$work/build-$version"
  sed "s/^Version: .*/Version: $version/" "$pcdir/syslog-ng.pc" > "$work/pc-$version/syslog-ng.pc"
  out=$(cd "$work/build-$version" && PKG_CONFIG_PATH="$work/pc-$version" "$top/configure" PYTHON="${PYTHON:-python3}" 2>&1)
  rc=$?
  want="syslog-ng $version is not supported: fastdest builds against the tested releases 3.38.x (Debian 12 bookworm) and 4.8.x (Debian 13 trixie) only"
  if [ $rc -ne 0 ] && printf '%s\n' "$out" | grep -qF "$want"; then
    echo "ok: syslog-ng $version refused: $want"
  else
    echo "FAIL: syslog-ng $version: configure exit $rc, expected the refusal naming the tested releases"
    printf '%s\n' "$out" | tail -n 5
    status=1
  fi
done
exit $status
