#!/bin/sh
# npm test. The type-check (npm run typecheck) runs beside the tests rather than before them, and
# the run fails if either fails. Arguments go to vitest: npm test -- test/http/search.test.ts
npm run -s typecheck &
typecheck=$!
vitest run --config test/vitest.config.ts "$@"
tests=$?
if ! wait "$typecheck"; then
  echo 'npm test: the type-check failed (its errors are above)' >&2
  exit 1
fi
exit "$tests"
