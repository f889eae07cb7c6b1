#!/bin/bash
# Usage: runner.sh <tests.patch> [<feature.patch>]
# Both file names are relative to /patches/. Resets the repository, applies
# the tests patch and then (if given and non-empty) the feature patch, and
# runs with `node --test` only the test files that the tests patch adds or
# modifies. Exits 0 iff at least one test ran and every test passed.
set -uo pipefail

TEST_PATCH="${1:-}"
FEATURE_PATCH="${2:-}"
REPO=/workspace/repo

cleanup() {
  cd "$REPO" 2>/dev/null && { git reset -q --hard HEAD || true; git clean -q -fdx || true; }
}
trap cleanup EXIT INT TERM

if [[ -z "$TEST_PATCH" ]]; then
  echo "Usage: runner.sh <tests.patch> [<feature.patch>]" >&2
  exit 2
fi

cd "$REPO" || { echo "Error: $REPO not found"; exit 1; }
git reset -q --hard HEAD
git clean -q -fdx

if [[ ! -f "/patches/$TEST_PATCH" ]]; then
  echo "Error: test patch /patches/$TEST_PATCH not found"
  exit 1
fi
if ! git apply --whitespace=nowarn "/patches/$TEST_PATCH"; then
  echo "Error: Failed to apply test patch /patches/$TEST_PATCH"
  exit 1
fi

if [[ -n "$FEATURE_PATCH" ]]; then
  if [[ ! -f "/patches/$FEATURE_PATCH" ]]; then
    echo "Error: feature patch /patches/$FEATURE_PATCH not found"
    exit 1
  fi
  if [[ -s "/patches/$FEATURE_PATCH" ]]; then
    if ! git apply --whitespace=nowarn "/patches/$FEATURE_PATCH"; then
      echo "Error: Failed to apply feature patch /patches/$FEATURE_PATCH"
      exit 1
    fi
  else
    echo "Note: feature patch /patches/$FEATURE_PATCH is empty, testing the base"
  fi
fi

# Test files the tests patch adds or modifies (deleted files have +++ /dev/null).
mapfile -t TEST_FILES < <(
  grep -E '^\+\+\+ b/' "/patches/$TEST_PATCH" \
    | sed -E 's#^\+\+\+ b/##; s#[[:space:]]+$##' \
    | grep -E '\.(m|c)?js$' \
    | sort -u
)
EXISTING=()
for f in "${TEST_FILES[@]}"; do
  [[ -f "$f" ]] && EXISTING+=("$f")
done
if [[ ${#EXISTING[@]} -eq 0 ]]; then
  echo "Error: the test patch adds or modifies no JavaScript test file"
  exit 1
fi

echo "Running: node --test --test-reporter=tap ${EXISTING[*]}"
OUTPUT_FILE=$(mktemp)
node --test --test-reporter=tap "${EXISTING[@]}" 2>&1 | tee "$OUTPUT_FILE"
STATUS=${PIPESTATUS[0]}

# Node 18 reports a test file that defines no test as one passing "test" named
# after the file's path, so count only top-level results that are not files.
TESTS_RUN=$(sed -nE 's/^# tests ([0-9]+).*/\1/p' "$OUTPUT_FILE" | tail -1)
REAL_TESTS=$(grep -E '^(not )?ok [0-9]+ - ' "$OUTPUT_FILE" | grep -cvF -- " - $REPO/")
rm -f "$OUTPUT_FILE"
if [[ "$STATUS" -eq 0 && ( "${TESTS_RUN:-0}" -eq 0 || "$REAL_TESTS" -eq 0 ) ]]; then
  echo "Error: no tests were run"
  exit 1
fi
exit "$STATUS"
