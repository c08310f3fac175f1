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
unformatted=()
for f in "${files[@]}"; do
  "$format" --dry-run --Werror "$f" >/dev/null 2>&1 || unformatted+=("$f")
done
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
