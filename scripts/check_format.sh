#!/usr/bin/env bash
# Fails when a tracked C or C++ file differs from what clang-format makes of it (.clang-format at
# the root; Debian 12's clang-format 14, which scripts/bootstrap.sh installs). Fix with:
#   git ls-files '*.cpp' '*.hpp' '*.h' '*.c' | xargs clang-format -i --style=file
set -euo pipefail
cd "$(dirname "$0")/.."
git ls-files -z '*.cpp' '*.hpp' '*.h' '*.c' | xargs -0 "${CLANG_FORMAT:-clang-format}" --dry-run --Werror --style=file
echo "check_format: $(git ls-files '*.cpp' '*.hpp' '*.h' '*.c' | wc -l) files as clang-format writes them"
