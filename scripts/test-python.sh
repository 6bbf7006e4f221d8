#!/usr/bin/env bash
# Runs the Python implementation's tests (python/tests: conformance vectors and export
# fixtures shared with the TypeScript protocol package, the wheel build, and the SDK against
# the local stack). Needs Python 3.11+ with cryptography, pytest, build and hatchling: on
# Debian, `apt-get install python3-cryptography python3-pytest python3-build python3-hatchling`
# (.ci/run does). $PYTHON picks another interpreter.
set -euo pipefail
cd "$(dirname "$0")/.."
has_all() { "$1" -c 'import sys, cryptography, pytest, build, hatchling; sys.exit(sys.version_info < (3, 11))' >/dev/null 2>&1; }
python="${PYTHON:-}"
if [ -z "$python" ]; then
  # Every python3 on PATH, in PATH order (a version manager's first, then Debian's).
  for candidate in $(type -ap python3); do
    if has_all "$candidate"; then python="$candidate"; break; fi
  done
fi
if [ -z "$python" ]; then
  echo "no Python 3.11+ with cryptography, pytest, build and hatchling; on Debian: apt-get install python3-cryptography python3-pytest python3-build python3-hatchling" >&2
  exit 1
fi
cd python
exec "$python" -m pytest -p no:cacheprovider -q "$@"
