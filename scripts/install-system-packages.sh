#!/usr/bin/env bash
# Installs the Debian packages some parts of vecz-py need, by group:
#   csmith    the Csmith bridge (fuzz.csmith, docs/csmith.md):
#               csmith         the random C program generator (Csmith 2.3.0)
#               libcsmith-dev  its runtime headers (csmith.h, safe_math.h, ...)
#   oclgrind  the cross-check of the oracle (oracle.crosscheck, docs/crosscheck.md):
#               oclgrind       the OpenCL device simulator (oclgrind-kernel)
#   all       every group above
# Usage: install-system-packages.sh [csmith|oclgrind|all]...
# With no argument it installs the csmith group (what it always did; the
# callers that predate the groups rely on that).
#
# Idempotent: exits 0 at once when every requested package is installed;
# runs `apt-get update` only when apt has no candidate for them yet (a fresh
# container has no lists). Runs that overlap (pytest workers installing two
# groups at once) wait for each other on a lock instead of fighting over
# dpkg's. fuzz.csmith.ensure_csmith() and oracle.oclgrind.ensure_oclgrind()
# run this script when they run as root and their tools are missing, so CI
# (root) installs them itself.
# Exit status: 0 installed; 2 bad usage, no apt, or not root.
set -euo pipefail

group_packages() {
    case "$1" in
        csmith) echo "csmith libcsmith-dev" ;;
        oclgrind) echo "oclgrind" ;;
        all) echo "csmith libcsmith-dev oclgrind" ;;
        *) return 1 ;;
    esac
}

GROUPS_WANTED=("$@")
[ ${#GROUPS_WANTED[@]} -eq 0 ] && GROUPS_WANTED=(csmith)
PACKAGES=()
for g in "${GROUPS_WANTED[@]}"; do
    if ! pkgs=$(group_packages "$g"); then
        echo "install-system-packages: unknown group '$g' (expected csmith, oclgrind or all)" >&2
        exit 2
    fi
    for p in $pkgs; do
        case " ${PACKAGES[*]-} " in *" $p "*) ;; *) PACKAGES+=("$p") ;; esac
    done
done

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
    echo "install-system-packages: apt-get not found; install ${PACKAGES[*]} with your system's package manager" >&2
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

# One install at a time: a second run waits here, then finds the packages
# the first one installed (or installs its own).
if command -v flock >/dev/null 2>&1; then
    exec 9>"${TMPDIR:-/tmp}/vecz-install-system-packages.lock"
    flock -w 1200 9 || { echo "install-system-packages: another install holds the lock for 20 min" >&2; exit 2; }
    if installed; then
        echo "install-system-packages: ${PACKAGES[*]} already installed" >&2
        exit 0
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
# DPkg::Lock::Timeout: wait for an apt run this script did not start.
"${SUDO[@]}" apt-get install -y -qq --no-install-recommends -o DPkg::Lock::Timeout=600 "${PACKAGES[@]}" >&2
installed
echo "install-system-packages: done" >&2
