# Sourced by the scripts that run a package from PyPI for the tests (privacyidea-server.sh, firebase-admin-send.sh).
#
#   ensure_venv VENV REQUIREMENT...    create VENV with the requirements installed, once; later calls reuse it
#
# VENV's parent directory is the cache: pip's download cache and the install lock sit beside the venvs.
# $PYTHON (default python3) must be 3.10 or newer with the venv module (Debian: python3-venv).

ensure_venv() {
    local venv=$1 cache
    shift
    cache=$(dirname "$venv")
    mkdir -p "$cache"
    # Two test processes may start at once: one installs, the other waits for it. The lock is released before
    # returning, so that a long-running program started afterwards does not hold it.
    exec 9>"$cache/install.lock"
    flock 9
    if [ ! -f "$venv/.installed" ]; then
        local python=${PYTHON:-python3}
        if ! "$python" -c 'import sys, venv; sys.exit(sys.version_info < (3, 10))' 2>/dev/null; then
            echo "$(basename "$0"): $* needs Python 3.10 or newer with the venv module ($python is not); install python3-venv" >&2
            exit 1
        fi
        echo "$(basename "$0"): installing $* into $venv (once; later runs reuse it)" >&2
        rm -rf "$venv"
        "$python" -m venv "$venv"
        "$venv/bin/pip" install --quiet --disable-pip-version-check --cache-dir "$cache/pip" "$@"
        touch "$venv/.installed"
    fi
    exec 9>&-
}
