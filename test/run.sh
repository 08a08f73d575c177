#!/bin/sh
# npm test. The type-check (npm run typecheck) runs beside the tests rather than before them, and
# the run fails if either fails (the recipes in examples/ are type-checked by their own test). It is
# skipped when the files it reads (src, tools, test, the
# tsconfigs, package.json and the lock file) are byte for byte those it last passed on: their
# digest is the one compile.mjs names builds and test fixtures by. Arguments go to vitest:
# npm test -- test/http/search.test.ts
digest=$(node src/launcher/compile.mjs --digest src tools test tsconfig.json package.json) || exit 1
passed=".cache/tsc/passed-$digest"
typecheck=
if [ -f "$passed" ]; then
  echo "npm test: the type-check passed on these very files before ($passed); not run again"
else
  (npm run -s typecheck && mkdir -p .cache/tsc && rm -f .cache/tsc/passed-* && touch "$passed") &
  typecheck=$!
fi
vitest run --config test/vitest.config.ts "$@"
tests=$?
if [ -n "$typecheck" ] && ! wait "$typecheck"; then
  echo 'npm test: the type-check failed (its errors are above)' >&2
  exit 1
fi
exit "$tests"
