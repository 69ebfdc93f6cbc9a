#!/usr/bin/env bash
# Runs the end-to-end test (e2e.test.mjs): the packaged extension in code-server, in headless chromium.
# Needs the pieces e2e/setup.sh installs and dist/adaexplore-<version>.vsix (npm run package).
# Exit 0 on a pass; 1 on a failure; 2 (with a loud message) when a piece is missing.
# ADAEXPLORE_PYTHON: the interpreter the extension's server uses (default: the project's .venv).
set -euo pipefail

EXT_DIR="$(cd "$(dirname "$0")/.." && pwd)"
CACHE="${ADAEXPLORE_E2E_CACHE:-$HOME/.cache/adaexplore-e2e}"
VERSION="$(node -p 'require(process.argv[1]).version' "$EXT_DIR/package.json")"
VSIX="$EXT_DIR/dist/adaexplore-$VERSION.vsix"
# (made absolute without resolving symlinks: a venv's python is a link to the base interpreter)
ADAEXPLORE_PYTHON="$(realpath -s -m "${ADAEXPLORE_PYTHON:-$EXT_DIR/../.venv/bin/python}")"
export ADAEXPLORE_PYTHON

missing() {
  {
    echo "=================================================================================="
    echo "WARNING: the VS Code end-to-end test was NOT run: $1"
    echo "WARNING: install its pieces with: bash vscode-extension/e2e/setup.sh"
    echo "=================================================================================="
  } >&2
  exit 2
}

[ -f "$CACHE/env.sh" ] || missing "no $CACHE/env.sh"
# shellcheck source=/dev/null
. "$CACHE/env.sh"
[ -x "$ADAEXPLORE_E2E_NODE" ] || missing "Node 24 not found at $ADAEXPLORE_E2E_NODE"
[ -f "$ADAEXPLORE_E2E_CODE_SERVER" ] || missing "code-server not found at $ADAEXPLORE_E2E_CODE_SERVER"
[ -x "$ADAEXPLORE_E2E_CHROMIUM" ] || missing "chromium not found at $ADAEXPLORE_E2E_CHROMIUM"
[ -f "$EXT_DIR/e2e/node_modules/playwright-core/package.json" ] || missing "playwright-core not installed in e2e/"
[ -f "$VSIX" ] || missing "no $VSIX (run npm run package first)"
[ -x "$ADAEXPLORE_PYTHON" ] || missing "no Python at $ADAEXPLORE_PYTHON"

export ADAEXPLORE_E2E_VSIX="$VSIX"
# folders given relative to where this was called from
for name in ADAEXPLORE_E2E_SCREENSHOTS ADAEXPLORE_E2E_ARTIFACTS; do
  if [ -n "${!name:-}" ]; then export "$name=$(realpath -s -m "${!name}")"; fi
done
cd "$EXT_DIR/e2e"
exec node --test --test-reporter=spec e2e.test.mjs
