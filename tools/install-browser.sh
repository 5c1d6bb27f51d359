#!/usr/bin/env bash
# Install what the browser tests need: Debian's Chromium (driven headless by Playwright),
# CJK fonts so screenshots show Chinese and Japanese, and the Playwright Python package.
# Playwright's own browser download is never used (no `playwright install`): tests launch
# /usr/bin/chromium. Safe to run twice.
set -euo pipefail

PYTHON="${PYTHON:-.venv/bin/python}"
SUDO=""
if [ "$(id -u)" != "0" ] && command -v sudo >/dev/null 2>&1; then
    SUDO="sudo"
fi

if [ ! -x /usr/bin/chromium ] || ! fc-list 2>/dev/null | grep -qi "Noto Sans CJK"; then
    $SUDO apt-get update
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends chromium fonts-noto-cjk
fi

"$PYTHON" -m pip install --quiet "playwright>=1.45"
