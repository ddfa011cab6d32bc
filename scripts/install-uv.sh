#!/usr/bin/env bash
# Install uv with pip when it is missing (fresh machines, CI). Tries the plain, --user and PEP 668 ways.
set -euo pipefail
if command -v uv >/dev/null 2>&1 || [ -x "$HOME/.local/bin/uv" ] || python3 -m uv --version >/dev/null 2>&1; then
  exit 0
fi
echo "installing uv with pip" >&2
python3 -m pip install --quiet uv 2>/dev/null \
  || python3 -m pip install --quiet --user uv 2>/dev/null \
  || python3 -m pip install --quiet --user --break-system-packages uv
"$(dirname "$0")/uv" --version >/dev/null || { echo "uv installation failed" >&2; exit 1; }
