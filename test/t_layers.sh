#!/bin/sh
# The folders' layers (scripts/check-layers.py): no include or call from a
# folder into one it may not use, no circle of calls in the library, the
# cluster module, the filter or the command's lib/, job/, feat/, engines/
# and report/.  It reads the objects `make check` built.
cd "$(dirname "$0")/.." || exit 1
command -v python3 >/dev/null || { echo "python3 is needed"; exit 77; }
exec python3 scripts/check-layers.py
