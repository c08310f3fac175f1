#!/usr/bin/env bash
# The house style, checked (CI runs it first, scripts/run-tests.sh):
#  1. every C++ file in engine/ app/ widgets/ tests/ bench/ is as .clang-format (clang-format 14)
#     writes it — fix with `clang-format -i FILE`, or `git clang-format` for the lines you changed;
#  2. no function in engine/ app/ widgets/ bench/ is longer than 80 lines (scripts/function-lengths.sh).
# Exits non-zero naming every file or function that breaks a rule.
set -uo pipefail
cd "$(dirname "$0")/.."
status=0
format=$(command -v clang-format-14 || command -v clang-format || true)
if [ -z "$format" ]; then
  echo "[style] clang-format is not installed (scripts/setup.sh installs clang-format-14)"; exit 1
fi
mapfile -t files < <(git ls-files -- 'engine/*.h' 'engine/*.cpp' 'app/*.h' 'app/*.cpp' 'widgets/*.h' 'widgets/*.cpp' \
                                     'tests/*.h' 'tests/*.cpp' 'bench/*.h' 'bench/*.cpp')
# clang-format on batches of files, on every core; each file it would change is named in an
# "error: code should be clang-formatted" line on its stderr.
mapfile -t unformatted < <(printf '%s\0' "${files[@]}" |
  xargs -0 -n 64 -P "$(nproc)" "$format" --dry-run --Werror 2>&1 |
  sed -n 's/^\(.*\):[0-9]*:[0-9]*: error: code should be clang-formatted.*/\1/p' | sort -u)
if ((${#unformatted[@]})); then
  echo "[style] ${#unformatted[@]} of ${#files[@]} files are not formatted (clang-format -i FILE):"
  printf '  %s\n' "${unformatted[@]}"
  status=1
else
  echo "[style] all ${#files[@]} C++ files formatted"
fi
if ! scripts/function-lengths.sh 80 engine app widgets bench; then
  echo "[style] functions over 80 lines above: split them into named steps"
  status=1
fi
exit $status
