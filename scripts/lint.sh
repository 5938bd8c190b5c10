#!/usr/bin/env bash
# Static analysis of server/, proto/ and client/: cppcheck and clang-tidy, each on a documented set
# of checks. Exits 1 on any finding, 0 when both are clean.
# usage: scripts/lint.sh [BUILD_DIR]   (default build-lint; `make lint` runs it)
#   cppcheck   --enable=warning,performance,portability (style is the reviewers' job), C11,
#              suppressions with reasons in scripts/cppcheck-suppressions or inline
#              (// cppcheck-suppress id, with why).
#   clang-tidy the checks of .clang-tidy (each disabled one says why there), every warning an error,
#              on the compile_commands.json of BUILD_DIR (configured here with
#              CMAKE_EXPORT_COMPILE_COMMANDS=ON); inline exceptions are NOLINT(check) with a reason.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build-lint}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
cd "$ROOT"
for tool in cppcheck clang-tidy; do
  command -v "$tool" >/dev/null || { echo "lint: $tool not installed (scripts/deps.sh lint)" >&2; exit 2; }
done
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_EXPORT_COMPILE_COMMANDS=ON -DRBKV_BENCH=OFF \
  >/dev/null || exit 2
sources=$(ls server/*.c server/*/*.c proto/*.c client/*.c)
status=0

echo "lint: cppcheck $(cppcheck --version | cut -d' ' -f2)"
cppcheck -q --std=c11 --enable=warning,performance,portability --inline-suppr \
  --suppressions-list=scripts/cppcheck-suppressions --error-exitcode=1 -j "$JOBS" \
  -D_GNU_SOURCE -DRBKV_VERSION='"lint"' $(printf -- '-I %s ' server/*/) -I proto -I client \
  --template='{file}:{line}: {severity}: {message} [{id}]' $sources || status=1

echo "lint: clang-tidy $(clang-tidy --version | sed -n 's/.*version \([0-9.]*\).*/\1/p' | head -1)"
out=$(printf '%s\n' $sources |
  xargs -P "$JOBS" -n 4 clang-tidy -p "$BUILD" --quiet 2>/dev/null |
  grep -E '^[^ ].*: (warning|error): ')
if [ -n "$out" ]; then
  printf '%s\n' "$out" | sort -u
  echo "lint: clang-tidy: $(printf '%s\n' "$out" | sort -u | wc -l) findings" >&2
  status=1
fi
[ $status = 0 ] && echo "lint: clean"
exit $status
