# AX_COMPARE_VERSION_FD(VERSION, MINIMUM, [IF-OK], [IF-TOO-OLD]): dotted version compare.
AC_DEFUN([AX_COMPARE_VERSION_FD],
[AS_IF([test "`printf '%s\n%s\n' "$2" "$1" | sort -V | head -n 1`" = "$2"], [$3], [$4])])
