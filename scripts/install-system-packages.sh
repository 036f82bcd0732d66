#!/usr/bin/env bash
# Installs the system packages the Csmith bridge (fuzz.csmith) needs:
#   csmith         the random C program generator (Debian: Csmith 2.3.0)
#   libcsmith-dev  its runtime headers (csmith.h, safe_math.h, ...)
# Idempotent: exits 0 at once when both are installed; runs `apt-get update`
# only when apt has no candidate for them yet (a fresh container has no lists).
# fuzz.csmith.ensure_csmith() runs this script when it runs as root and the
# packages are missing, so CI (root) installs them itself; see docs/csmith.md.
set -euo pipefail

PACKAGES=(csmith libcsmith-dev)

installed() {
    local p
    for p in "${PACKAGES[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || return 1
    done
}

if command -v dpkg-query >/dev/null 2>&1 && installed; then
    echo "install-system-packages: ${PACKAGES[*]} already installed" >&2
    exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
    echo "install-system-packages: apt-get not found; install ${PACKAGES[*]} (Csmith 2.3 and its runtime headers) with your system's package manager" >&2
    exit 2
fi

SUDO=()
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
        SUDO=(sudo -n)
    else
        echo "install-system-packages: must run as root (or with password-less sudo) to apt-get install ${PACKAGES[*]}" >&2
        exit 2
    fi
fi

has_candidate() {
    local p
    for p in "${PACKAGES[@]}"; do
        apt-cache policy "$p" 2>/dev/null | grep -q 'Candidate: [0-9]' || return 1
    done
}

export DEBIAN_FRONTEND=noninteractive
if ! has_candidate; then
    echo "install-system-packages: apt-get update" >&2
    "${SUDO[@]}" apt-get update -qq
fi
echo "install-system-packages: apt-get install -y ${PACKAGES[*]}" >&2
"${SUDO[@]}" apt-get install -y -qq --no-install-recommends "${PACKAGES[@]}" >&2
installed
echo "install-system-packages: done" >&2
