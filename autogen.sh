#!/bin/sh
# Regenerate the build system from configure.ac and Makefile.am.
set -eu
cd "$(dirname "$0")"
autoreconf -fi
# automake ships the TAP driver but only copies it on request.
cp -f "$(automake --print-libdir)/tap-driver.sh" build-aux/tap-driver.sh
