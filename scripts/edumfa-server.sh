#!/usr/bin/env bash
# A real eduMFA server (PyPI edumfa, the privacyIDEA fork) on 127.0.0.1, for the integration tests: the same script as
# privacyIDEA's, in its eduMFA flavour (scripts/privacyidea-server.sh describes the configuration).
#
#   scripts/edumfa-server.sh install              create the cached venv in .cache/edumfa (idempotent)
#   scripts/edumfa-server.sh serve DIR PORT       configure DIR on first use, then run the server in the foreground
exec "$(dirname "$0")/privacyidea-server.sh" --edumfa "$@"
