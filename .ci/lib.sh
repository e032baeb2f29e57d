# fastdest: shell functions shared by tests/run and run-example (bash; source it).
# Copyright (c) 2026 fastdest authors; GPL-2.0-or-later (see LICENSE-HEADER.txt).

FD_SRCDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
FD_SYSLOG_NG=${SYSLOG_NG_BIN:-/usr/sbin/syslog-ng}
FD_SYSLOG_NG_CTL=/usr/sbin/syslog-ng-ctl
FD_JOBS=${FD_JOBS:-2}

fd_say() { printf '==> %s\n' "$*" >&2; }
fd_die() { printf 'ERROR: %s\n' "$*" >&2; exit 1; }

# The package list lives in one place: .ci/debian-packages.
fd_packages() {
  sed -e 's/#.*//' "$FD_SRCDIR/.ci/debian-packages" | tr -s ' \t' '\n\n' | grep -v '^$'
}

fd_missing_packages() {
  local p
  for p in $(fd_packages); do
    dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null | grep -q '^ii' || echo "$p"
  done
}

# Install what is missing when root; otherwise print the exact command and stop
# (FASTDEST_IGNORE_MISSING=1 carries on regardless).
fd_ensure_packages() {
  if ! command -v dpkg-query >/dev/null 2>&1; then
    fd_say "not a Debian system: install the equivalents of .ci/debian-packages yourself"
    return 0
  fi
  local missing cmd
  missing=$(fd_missing_packages | tr '\n' ' ' | sed 's/ $//')
  [ -z "$missing" ] && return 0
  cmd="apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $missing"
  if [ "$(id -u)" = 0 ]; then
    fd_say "installing missing Debian packages: $missing"
    sh -c "$cmd" || fd_die "apt-get failed"
  else
    printf 'Missing Debian packages: %s\nRun as root:\n\n  %s\n\n' "$missing" "$cmd" >&2
    [ "${FASTDEST_IGNORE_MISSING:-}" = 1 ] || exit 1
  fi
}

# Debian's python3, not whatever python3 comes first on PATH (pyenv etc.).
fd_python() {
  if [ -x /usr/bin/python3 ]; then echo /usr/bin/python3; else command -v python3; fi
}

# autoreconf in the source tree, configure and build out of tree in $1.
fd_configure() {
  local build=$1; shift
  fd_say "autoreconf -fi in $FD_SRCDIR"
  (cd "$FD_SRCDIR" && autoreconf -fi) || return 1
  mkdir -p "$build" || return 1
  fd_say "configure in $build $*"
  (cd "$build" && "$FD_SRCDIR/configure" PYTHON="$(fd_python)" "$@") || return 1
}

fd_make() {
  local build=$1; shift
  fd_say "make -C $build -j$FD_JOBS $*"
  make -C "$build" -j"$FD_JOBS" "$@"
}

# Stop syslog-ng processes left running by an earlier run in this build dir or
# work dir: they are recognized by the path in their command line, and stopped
# by pid.
fd_stop_stale_syslog_ng() {
  local needle=$1 proc pid cmdline n
  # only ever a specific path: never match other people's syslog-ng
  case $needle in *=/?*/*) ;; *) fd_say "fd_stop_stale_syslog_ng: refusing needle '$needle'"; return 0 ;; esac
  # /proc, not pgrep: procps is not on a minimal Debian
  for proc in /proc/[0-9]*; do
    pid=${proc#/proc/}
    [ "$(cat "$proc/comm" 2>/dev/null)" = syslog-ng ] || continue
    cmdline=$(tr '\0' ' ' < "$proc/cmdline" 2>/dev/null) || continue
    case $cmdline in
      *"$needle"*)
        fd_say "stopping stale syslog-ng pid $pid ($cmdline)"
        kill -TERM "$pid" 2>/dev/null || continue
        for n in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$pid" 2>/dev/null || true
        ;;
    esac
  done
}

# The module path: our freshly built modules first, then syslog-ng's own.
fd_module_path() {
  local build=$1
  echo "$build/modules/fastfile/.libs:$build/modules/structured-event/.libs:$(pkg-config --variable=moduledir syslog-ng)"
}

# TESTS as the generated Makefile has them.
fd_list_tests() {
  local build=$1
  make -s -C "$build" -f Makefile -f - fd-print-tests <<'EOF'
fd-print-tests:
	@for t in $(TESTS); do echo $$t; done
EOF
}

# The sanitizer build's targets: the modules and the unit test programs
# ($2 = sources: the generated sources they need first, i.e. BUILT_SOURCES).
# tail: a Makefile that regenerates itself first prints configure's output.
fd_unit_targets() {
  local build=$1 what=${2:-programs}
  make -s -C "$build" -f Makefile -f - "fd-print-unit-$what" <<'EOF' | tail -n 1
fd-print-unit-programs:
	@echo $(module_LTLIBRARIES) $(filter tests/unit/%,$(check_PROGRAMS))
fd-print-unit-sources:
	@echo $(BUILT_SOURCES)
EOF
}

# ---- the Debian 13 trixie root (syslog-ng 4.8): .ci/trixie-root makes it, .ci/run-in-root runs in it

FD_ROOT_DIR=${FASTDEST_ROOT_DIR:-/var/lib/fastdest/trixie}
FD_CACHE_DIR=${FASTDEST_CACHE_DIR:-/var/cache/fastdest}

# The host's Debian mirror (trixie comes from the same one).
fd_mirror() {
  local uri
  uri=$(sed -n 's/^URIs: *\([^ ]*\).*/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null | grep -v security | head -n 1)
  [ -n "$uri" ] || uri=$(sed -n 's/^deb \(\[[^]]*\] \)\{0,1\}\([^ ]*\) .*/\2/p' /etc/apt/sources.list 2>/dev/null |
                         grep -v security | head -n 1)
  echo "${FASTDEST_MIRROR:-${uri:-http://deb.debian.org/debian}}"
}

# Mount what a test run needs into root $1 (/proc, /sys, /dev, a fresh /run and this source
# tree at its own path); fd_root_umount undoes it.  Processes left running in the root are
# stopped first, by pid.
fd_root_mount() {
  local root=$1
  fd_root_umount "$root"
  mkdir -p "$root$FD_SRCDIR"
  mount -t proc proc "$root/proc"
  mount --rbind /sys "$root/sys" && mount --make-rslave "$root/sys"
  mount --rbind /dev "$root/dev" && mount --make-rslave "$root/dev"
  mount -t tmpfs -o mode=0755 tmpfs "$root/run"
  mkdir -p "$root/run/lock"
  mount --bind "$FD_SRCDIR" "$root$FD_SRCDIR"
  cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
}

# the pids of processes whose root directory is $1
fd_root_pids() {
  local root proc
  root=$(readlink -f "$1")
  for proc in /proc/[0-9]*; do
    [ "$(readlink "$proc/root" 2>/dev/null)" = "$root" ] && echo "${proc#/proc/}"
  done
  return 0
}

fd_root_umount() {
  local root pids m
  root=$(readlink -f "$1")
  pids=$(fd_root_pids "$root")
  if [ -n "$pids" ]; then
    fd_say "stopping processes left in $root: $(echo $pids)"
    # shellcheck disable=SC2086
    kill -TERM $pids 2>/dev/null; sleep 2
    # shellcheck disable=SC2086
    kill -KILL $(fd_root_pids "$root") 2>/dev/null
  fi
  # deepest first
  for m in $(awk -v r="$root/" 'index($2, r) == 1 { print $2 }' /proc/mounts | sort -r); do
    umount -l "$m" 2>/dev/null || true
  done
}

# whether anything is mounted below root $1
fd_root_busy() {
  awk -v r="$(readlink -f "$1")/" 'index($2, r) == 1 { found = 1 } END { exit !found }' /proc/mounts
}
