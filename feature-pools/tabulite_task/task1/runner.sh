#!/bin/bash
# usage: runner.sh <tests.patch> [<feature.patch>]   (file names relative to /patches/)
# Resets the repository to the base commit, applies the hidden tests and the
# (optional) implementation, then runs only the test files that tests.patch
# adds or modifies. Exits 0 iff every one of those tests passes.
set -euo pipefail

cleanup() {
    git -C /workspace/repo reset --hard HEAD >/dev/null 2>&1 || true
    git -C /workspace/repo clean -fdx >/dev/null 2>&1 || true
}
trap cleanup EXIT INT TERM

TEST_PATCH="${1:-}"
FEATURE_PATCH="${2:-}"

if [[ -z "$TEST_PATCH" ]]; then
    echo "usage: runner.sh <tests.patch> [<feature.patch>]" >&2
    exit 2
fi

cd /workspace/repo
git reset --hard HEAD >/dev/null
git clean -fdx >/dev/null

if [[ ! -f "/patches/$TEST_PATCH" ]]; then
    echo "Error: test patch /patches/$TEST_PATCH not found"
    exit 1
fi
git apply "/patches/$TEST_PATCH" || { echo "Error: Failed to apply test patch"; exit 1; }

if [[ -n "$FEATURE_PATCH" ]]; then
    if [[ ! -f "/patches/$FEATURE_PATCH" ]]; then
        echo "Error: feature patch /patches/$FEATURE_PATCH not found"
        exit 1
    fi
    if [[ -s "/patches/$FEATURE_PATCH" ]]; then
        git apply "/patches/$FEATURE_PATCH" || { echo "Error: Failed to apply feature patch"; exit 1; }
    else
        echo "Note: feature patch /patches/$FEATURE_PATCH is empty, testing the base code"
    fi
fi

# Test files added or modified by the tests patch ("+++ b/<path>" lines).
mapfile -t TEST_FILES < <(sed -n 's|^+++ b/||p' "/patches/$TEST_PATCH" | sed 's/\t.*$//' | grep -E '\.py$' | sort -u)
EXISTING=()
for file in "${TEST_FILES[@]}"; do
    [[ -f "$file" ]] && EXISTING+=("$file")
done
if [[ ${#EXISTING[@]} -eq 0 ]]; then
    echo "Error: the test patch adds or modifies no Python test files"
    exit 1
fi

echo "Running: python3 -m pytest -rA -p no:cacheprovider ${EXISTING[*]}"
set +e
PYTHONDONTWRITEBYTECODE=1 python3 -m pytest -rA -p no:cacheprovider "${EXISTING[@]}"
status=$?
set -e
# pytest exits 5 when it collected no tests: that is a failure too (non-zero).
exit "$status"
