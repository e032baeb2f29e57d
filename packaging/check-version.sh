#!/bin/sh
# The version lives in configure.ac's AC_INIT; every other place that states it
# must agree: packaging/debian/changelog, the RPM spec (Version: and the newest
# %changelog entry) and CHANGELOG.md's newest section.  Exit 1 naming each
# file that disagrees.
# Copyright (c) 2026 fastdest authors; GPL-2.0-or-later (see LICENSE-HEADER.txt).
set -u
top=${FASTDEST_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}

version=$(sed -n 's/^AC_INIT(\[[^]]*\], *\[\([^]]*\)\].*/\1/p' "$top/configure.ac")
if [ -z "$version" ]; then
  echo "FAIL: no version in AC_INIT in $top/configure.ac"
  exit 1
fi
echo "configure.ac AC_INIT: $version"

status=0
check() {  # check WHAT FOUND
  if [ "$2" = "$version" ]; then
    echo "ok: $1: $2"
  else
    echo "FAIL: $1 says '$2', configure.ac says '$version'"
    status=1
  fi
}

# debian/changelog: "syslog-ng-mod-fastdest (0.1.0-1) unstable; ..." -> upstream part 0.1.0
deb=$(sed -n '1s/^[^ ]* (\([^)]*\)).*/\1/p' "$top/packaging/debian/changelog")
deb_upstream=$(echo "$deb" | sed 's/^[0-9]*://; s/-[^-]*$//')
check "packaging/debian/changelog (newest entry $deb)" "$deb_upstream"

spec=$top/packaging/rpm/syslog-ng-mod-fastdest.spec
check "spec Version:" "$(sed -n 's/^Version:[[:space:]]*//p' "$spec")"
# newest %changelog entry: "* Mon Nov 30 2026 Name <mail> - 0.1.0-1"
spec_cl=$(sed -n '/^%changelog/,$ { /^\* / { s/.* - \([^ ]*\)$/\1/p; q; } }' "$spec")
check "spec %changelog (newest entry $spec_cl)" "${spec_cl%-*}"

check "CHANGELOG.md newest section" "$(sed -n 's/^## \[\([^]]*\)\].*/\1/p' "$top/CHANGELOG.md" | head -n 1)"

exit $status
