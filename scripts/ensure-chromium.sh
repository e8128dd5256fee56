#!/usr/bin/env bash
# Make a headless Chromium available for the report-rendering test.
# Installs Debian's `chromium` when missing and we are root with apt-get;
# otherwise says why the browser test will be skipped (CI requires it).
set -eu
for exe in chromium chromium-browser google-chrome; do
  if command -v "$exe" >/dev/null 2>&1; then exit 0; fi
done
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing Debian's chromium for the report-rendering test..." >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq --no-install-recommends chromium >/dev/null
  exit 0
fi
echo "note: no chromium found and cannot install it here; the browser test will be skipped" >&2
if [ "${CI:-}" = "true" ]; then
  echo "error: CI needs chromium for the report-rendering test" >&2
  exit 1
fi
