#!/usr/bin/env bash
# Writes PROGRAM's man page into DIRECTORY from its own help, with swift-argument-parser's generate-manual.
#
#   scripts/generate-man.sh GENERATOR PROGRAM DIRECTORY [generate-manual's options…]      (make man, make man-check)
#
# generate-manual drops every character outside ASCII from the help it writes (an ellipsis, a dash, an arrow; its
# String+Escaping.swift), so the program's help (its --experimental-dump-help JSON, which generate-manual reads) is
# given to it with each such character spelled as an ASCII placeholder, which is then written as the roff escape
# \[uXXXX] that man and mandoc render as the character.
set -euo pipefail
GENERATOR=${1:?usage: $0 GENERATOR PROGRAM DIRECTORY [options]}
PROGRAM=${2:?usage: $0 GENERATOR PROGRAM DIRECTORY [options]}
DIRECTORY=${3:?usage: $0 GENERATOR PROGRAM DIRECTORY [options]}
shift 3

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
"$PROGRAM" --experimental-dump-help | perl -CSD -pe 's/([^\x00-\x7f])/sprintf("PUSHAGENTU%04XU", ord($1))/ge' > "$WORK/help.json"
# generate-manual runs the program it is given with --experimental-dump-help: this one prints the help above.
printf '#!/bin/sh\nexec cat %q\n' "$WORK/help.json" > "$WORK/help"
chmod +x "$WORK/help"
"$GENERATOR" "$WORK/help" --output-directory "$WORK" "$@"
for page in "$WORK"/*.1; do
    perl -pe 's/PUSHAGENTU([0-9A-F]{4,6})U/\\[u$1]/g' "$page" > "$DIRECTORY/$(basename "$page")"
done
