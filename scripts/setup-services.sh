#!/usr/bin/env bash
# Prepares the local PostgreSQL and MariaDB that dbmon's tests run against, and the
# tools the tests call (promtool, systemd-analyze). Run as root. Idempotent: a second
# run changes nothing and restarts nothing.
#
#   PostgreSQL: pg_stat_statements preloaded (other preloaded libraries kept),
#               track_io_timing = on, pg_stat_statements.track = all, extension
#               pg_stat_statements in postgres, template1 and test; hypopg available.
#   MariaDB:    performance_schema = ON with the statement-digest consumers, the
#               QUERY_RESPONSE_TIME plugin installed with query_response_time_stats = ON.
#   Debian:     postgresql-<ver>-hypopg, prometheus (promtool, and the server the exporter
#               parity test starts itself), prometheus-postgres-exporter and
#               prometheus-mysqld-exporter (run by that test beside dbmon; not as services),
#               systemd (for systemd-analyze), chromium (the browser the page tests drive
#               with playwright-core; no tool downloads a browser of its own), golang-go
#               (the Go client's tests; only when no `go` is on PATH), each installed only
#               when missing.
set -euo pipefail

export DEBIAN_FRONTEND=noninteractive
export PGCONNECT_TIMEOUT=5

PG_WAIT_SECONDS=${PG_WAIT_SECONDS:-90}
MARIADB_WAIT_SECONDS=${MARIADB_WAIT_SECONDS:-180}

MARIADB_BIN=/usr/sbin/mariadbd
MARIADB_CONF_DIR=/etc/mysql/mariadb.conf.d
MARIADB_CONF=$MARIADB_CONF_DIR/90-dbmon.cnf
MARIADB_MAIN_CONF=/etc/mysql/my.cnf

started_at=$(date +%s)
changes=()      # what this run changed, for the summary
restarts=()     # which services this run restarted

log() { printf '[setup-services] %s\n' "$*"; }
die() { printf '[setup-services] ERROR: %s\n' "$*" >&2; exit 1; }
changed() { changes+=("$1"); log "changed: $1"; }

# Clean-up actions registered while running, executed on any exit.
cleanup_actions=()
cleanup() {
  local action
  for action in "${cleanup_actions[@]+"${cleanup_actions[@]}"}"; do
    eval "$action" || true
  done
}
trap cleanup EXIT

[ "$(id -u)" -eq 0 ] || die "must run as root (it installs packages and edits server configuration)"

# Writes stdin to $1 only when the content differs; returns 0 if it wrote, 1 if unchanged.
write_if_changed() {
  local target=$1 tmp
  tmp=$(mktemp)
  cat >"$tmp"
  if [ -f "$target" ] && cmp -s "$tmp" "$target"; then
    rm -f "$tmp"
    return 1
  fi
  install -m 0644 "$tmp" "$target"
  rm -f "$tmp"
  return 0
}

# --- PostgreSQL helpers -------------------------------------------------------------
pg_versions=$(ls /etc/postgresql 2>/dev/null || true)
[ -n "$pg_versions" ] || die "no PostgreSQL cluster configured under /etc/postgresql"
[ "$(printf '%s\n' "$pg_versions" | wc -l)" -eq 1 ] ||
  die "expected one PostgreSQL version under /etc/postgresql, found: $(echo $pg_versions)"
PG_VERSION=$pg_versions

psql_q() { # psql_q DB SQL -> unaligned, tuples only
  local db=$1; shift
  psql -X -q -A -t -v ON_ERROR_STOP=1 -h 127.0.0.1 -U postgres -d "$db" -c "$1"
}

pg_wait_ready() {
  local deadline=$(( $(date +%s) + PG_WAIT_SECONDS ))
  until pg_isready -q -h 127.0.0.1 -p 5432; do
    [ "$(date +%s)" -lt "$deadline" ] ||
      die "PostgreSQL $PG_VERSION did not accept connections on 127.0.0.1:5432 within ${PG_WAIT_SECONDS}s (see /var/log/postgresql/postgresql-$PG_VERSION-main.log)"
    sleep 1
  done
}

pg_ensure_running() {
  if pg_isready -q -h 127.0.0.1 -p 5432; then
    return 0
  fi
  # Down, or still starting: start only if the cluster is not running at all.
  if ! pg_ctlcluster --skip-systemctl-redirect "$PG_VERSION" main status >/dev/null 2>&1; then
    log "PostgreSQL $PG_VERSION is down; starting it"
    pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql)" main start ||
      die "could not start PostgreSQL $PG_VERSION (see /var/log/postgresql/postgresql-$PG_VERSION-main.log)"
    changed "started PostgreSQL"
  fi
  pg_wait_ready
}

# --- MariaDB helpers ----------------------------------------------------------------
my_q() { # my_q SQL -> tab-separated, no column names
  mariadb -uroot -h127.0.0.1 --connect-timeout=5 --batch --skip-column-names -e "$1"
}

mariadb_pids() { pgrep -x mariadbd || true; }

mariadb_wait_ready() {
  local deadline=$(( $(date +%s) + MARIADB_WAIT_SECONDS ))
  until mariadb -uroot -h127.0.0.1 --connect-timeout=2 -e 'select 1' >/dev/null 2>&1; do
    [ "$(date +%s)" -lt "$deadline" ] ||
      die "MariaDB did not accept connections on 127.0.0.1:3306 within ${MARIADB_WAIT_SECONDS}s (see /var/log/mysql/error.log)"
    sleep 1
  done
}

mariadb_start() {
  # mariadbd switches to the 'mysql' user itself (user = mysql in /etc/mysql/my.cnf);
  # it needs its socket/pid directory, which a fresh /run may not have.
  install -d -o mysql -g mysql -m 0755 /run/mysqld
  start-stop-daemon --start --oknodo --background --exec "$MARIADB_BIN" ||
    die "could not start MariaDB with start-stop-daemon"
}

mariadb_ensure_running() {
  if mariadb -uroot -h127.0.0.1 --connect-timeout=2 -e 'select 1' >/dev/null 2>&1; then
    return 0
  fi
  if [ -z "$(mariadb_pids)" ]; then
    log "MariaDB is down; starting it"
    mariadb_start
    changed "started MariaDB"
  fi
  mariadb_wait_ready
}

mariadb_restart() {
  local pids deadline
  pids=$(mariadb_pids)
  log "restarting MariaDB (clean shutdown, then start)"
  mariadb-admin -uroot -h127.0.0.1 --connect-timeout=5 shutdown ||
    die "mariadb-admin shutdown failed"
  deadline=$(( $(date +%s) + MARIADB_WAIT_SECONDS ))
  for pid in $pids; do
    while kill -0 "$pid" 2>/dev/null; do
      [ "$(date +%s)" -lt "$deadline" ] ||
        die "MariaDB (pid $pid) did not exit within ${MARIADB_WAIT_SECONDS}s after shutdown"
      sleep 1
    done
  done
  mariadb_start
  mariadb_wait_ready
  restarts+=("MariaDB")
}

# === 1. Services up =================================================================
log "checking PostgreSQL $PG_VERSION and MariaDB are up"
pg_ensure_running
mariadb_ensure_running

# === 2. Debian packages =============================================================
HYPOPG_PKG=postgresql-$PG_VERSION-hypopg
# openssl: the agent's https test makes its certificates with it.
wanted_pkgs=("$HYPOPG_PKG" prometheus prometheus-postgres-exporter prometheus-mysqld-exporter systemd chromium openssl)
# The Go client's tests (clients/go) need a Go toolchain: any `go` on PATH will do.
command -v go >/dev/null 2>&1 || wanted_pkgs+=(golang-go)
missing_pkgs=()
for pkg in "${wanted_pkgs[@]}"; do
  if [ "$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)" != "install ok installed" ]; then
    missing_pkgs+=("$pkg")
  fi
done

if [ "${#missing_pkgs[@]}" -gt 0 ]; then
  log "installing Debian packages: ${missing_pkgs[*]}"
  # Keep package maintainer scripts from starting services (the prometheus and exporter
  # packages ship servers we do not want running; the tests start their own).
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
    chmod 0755 /usr/sbin/policy-rc.d
    cleanup_actions+=("rm -f /usr/sbin/policy-rc.d")
  fi
  prometheus_before=$(pgrep -x prometheus || true)
  apt_log=$(mktemp)
  cleanup_actions+=("rm -f '$apt_log'")
  apt-get update -q >"$apt_log" 2>&1 ||
    { tail -n 30 "$apt_log" >&2; die "apt-get update failed"; }
  apt-get install -y -q --no-install-recommends "${missing_pkgs[@]}" >>"$apt_log" 2>&1 ||
    { tail -n 30 "$apt_log" >&2; die "apt-get install ${missing_pkgs[*]} failed"; }
  changed "installed ${missing_pkgs[*]}"
  # Should a prometheus server have been started by the install anyway, stop it.
  for pid in $(pgrep -x prometheus || true); do
    if ! grep -qx -- "$pid" <<<"$prometheus_before"; then
      log "stopping prometheus server (pid $pid) started by the package install"
      kill "$pid" 2>/dev/null || true
    fi
  done
else
  log "Debian packages present: ${wanted_pkgs[*]}"
fi

promtool_version=$(promtool --version 2>&1) || die "promtool --version failed: $promtool_version"
log "promtool: ${promtool_version%%$'\n'*}"
analyze_version=$(systemd-analyze --version 2>&1) || die "systemd-analyze --version failed: $analyze_version"
log "systemd-analyze: ${analyze_version%%$'\n'*}"
# The Debian launcher script warns on stderr about the machine's memory; the version is on stdout.
chromium_version=$(chromium --version 2>/dev/null) || die "chromium --version failed (Debian package chromium)"
log "chromium: ${chromium_version%%$'\n'*}"
go_version=$(go version 2>&1) || die "go version failed (Debian package golang-go): $go_version"
log "go: $go_version"

# === 3. PostgreSQL ==================================================================
log "configuring PostgreSQL"
# The configured list (last file setting wins) and the running one, merged, so
# libraries preloaded by anyone else are kept.
preload_running=$(psql_q postgres "SHOW shared_preload_libraries")
preload_configured=$(psql_q postgres \
  "SELECT setting FROM pg_file_settings WHERE name = 'shared_preload_libraries' ORDER BY seqno DESC LIMIT 1")
preload_merged=$(
  printf '%s,%s,pg_stat_statements' "$preload_configured" "$preload_running" |
    tr ',' '\n' | sed -e 's/^[[:space:]"]*//' -e 's/[[:space:]"]*$//' | awk 'NF && !seen[$0]++' |
    paste -sd, - | sed 's/,/, /g'
)
if [ "$preload_configured" != "$preload_merged" ]; then
  psql_q postgres "ALTER SYSTEM SET shared_preload_libraries = '$preload_merged'" >/dev/null
  changed "PostgreSQL shared_preload_libraries = '$preload_merged' (ALTER SYSTEM)"
fi

has_pgss() { tr ',' '\n' <<<"$1" | sed 's/[[:space:]"]//g' | grep -x pg_stat_statements >/dev/null; }
if ! has_pgss "$preload_running"; then
  log "pg_stat_statements is not loaded in the running server; restarting PostgreSQL $PG_VERSION"
  pg_ctlcluster --skip-systemctl-redirect "$PG_VERSION" main restart ||
    die "could not restart PostgreSQL $PG_VERSION (see /var/log/postgresql/postgresql-$PG_VERSION-main.log)"
  pg_wait_ready
  restarts+=("PostgreSQL")
  preload_running=$(psql_q postgres "SHOW shared_preload_libraries")
  has_pgss "$preload_running" ||
    die "PostgreSQL restarted but shared_preload_libraries is '$preload_running' (no pg_stat_statements)"
fi

# Reloadable settings: set when different, then reload once.
pg_reload=0
pg_set() { # pg_set NAME VALUE
  local current
  current=$(psql_q postgres "SELECT current_setting('$1', true)")
  if [ "$current" != "$2" ]; then
    psql_q postgres "ALTER SYSTEM SET $1 = '$2'" >/dev/null
    changed "PostgreSQL $1 = $2"
    pg_reload=1
  fi
}
pg_set track_io_timing on
pg_set pg_stat_statements.track all
if [ "$pg_reload" -eq 1 ]; then
  psql_q postgres "SELECT pg_reload_conf()" >/dev/null
  sleep 1
fi
[ "$(psql_q postgres "SHOW track_io_timing")" = on ] || die "PostgreSQL track_io_timing is not on after reload"

# pg_stat_statements in postgres, template1 (so new databases get it) and test.
for db in postgres template1 test; do
  [ "$(psql_q postgres "SELECT count(*) FROM pg_database WHERE datname = '$db'")" = 1 ] || continue
  if [ "$(psql_q "$db" "SELECT count(*) FROM pg_extension WHERE extname = 'pg_stat_statements'")" != 1 ]; then
    psql_q "$db" "CREATE EXTENSION IF NOT EXISTS pg_stat_statements" >/dev/null
    changed "CREATE EXTENSION pg_stat_statements in $db"
  fi
done
psql_q postgres "SELECT count(*) FROM pg_stat_statements" >/dev/null ||
  die "pg_stat_statements view is not readable in database postgres"

# hypopg must be available; prove it in a throwaway database made from template1,
# which also proves new databases come with pg_stat_statements.
[ "$(psql_q postgres "SELECT count(*) FROM pg_available_extensions WHERE name = 'hypopg'")" = 1 ] ||
  die "extension hypopg is not available (package $HYPOPG_PKG)"
scratch_db="dbmon_setup_check_$$"
cleanup_actions+=("psql -X -q -h 127.0.0.1 -U postgres -d postgres -c 'DROP DATABASE IF EXISTS $scratch_db' >/dev/null 2>&1")
created=0
for _ in 1 2 3 4 5; do  # template1 may briefly be in use by another session
  if psql_q postgres "CREATE DATABASE $scratch_db TEMPLATE template1" >/dev/null 2>&1; then
    created=1; break
  fi
  sleep 1
done
[ "$created" -eq 1 ] || die "could not create scratch database $scratch_db from template1"
[ "$(psql_q "$scratch_db" "SELECT count(*) FROM pg_extension WHERE extname = 'pg_stat_statements'")" = 1 ] ||
  die "a database created from template1 lacks pg_stat_statements"
psql_q "$scratch_db" "SELECT count(*) FROM pg_stat_statements" >/dev/null ||
  die "pg_stat_statements is not usable in a database created from template1"
psql_q "$scratch_db" "CREATE EXTENSION IF NOT EXISTS hypopg; SELECT hypopg_reset()" >/dev/null ||
  die "CREATE EXTENSION hypopg failed"
psql_q postgres "DROP DATABASE $scratch_db" >/dev/null
log "PostgreSQL: shared_preload_libraries = '$preload_running', track_io_timing = on, pg_stat_statements and hypopg OK"

# === 4. MariaDB =====================================================================
log "configuring MariaDB"
install -d -m 0755 "$MARIADB_CONF_DIR"
if write_if_changed "$MARIADB_CONF" <<'EOF'
# Written by dbmon scripts/setup-services.sh; rewritten on every run.
[mariadbd]
performance_schema = ON
performance_schema_consumer_global_instrumentation = ON
performance_schema_consumer_thread_instrumentation = ON
performance_schema_consumer_statements_digest = ON
performance_schema_consumer_events_statements_current = ON
performance_schema_consumer_events_statements_history = ON
# Provided by the query_response_time plugin (INSTALL SONAME 'query_response_time');
# 'loose-' keeps the server starting should the plugin ever be missing.
loose-query_response_time_stats = ON
EOF
then
  changed "wrote $MARIADB_CONF"
fi

# The machine's my.cnf may not include the conf.d directory (Debian's stock one does).
reads_dbmon_cnf() { grep -qx -- '--performance_schema=ON' <<<"$(my_print_defaults --mariadbd 2>/dev/null || true)"; }
if ! reads_dbmon_cnf; then
  printf '\n!includedir %s/\n' "$MARIADB_CONF_DIR" >>"$MARIADB_MAIN_CONF"
  changed "added !includedir $MARIADB_CONF_DIR/ to $MARIADB_MAIN_CONF"
  reads_dbmon_cnf ||
    die "MariaDB does not read $MARIADB_CONF (check $MARIADB_MAIN_CONF)"
fi

# performance_schema is not dynamic: restart only when it is off.
if [ "$(my_q "SELECT @@GLOBAL.performance_schema")" != 1 ]; then
  log "MariaDB performance_schema is OFF; a restart is needed"
  mariadb_restart
  [ "$(my_q "SELECT @@GLOBAL.performance_schema")" = 1 ] ||
    die "MariaDB restarted but performance_schema is still OFF"
fi

# Consumers for statement digests (also set in the cnf; this covers a server whose
# consumers were switched off at runtime).
consumers="'global_instrumentation','thread_instrumentation','statements_digest','events_statements_current','events_statements_history'"
if [ "$(my_q "SELECT count(*) FROM performance_schema.setup_consumers WHERE NAME IN ($consumers) AND ENABLED <> 'YES'")" != 0 ]; then
  my_q "UPDATE performance_schema.setup_consumers SET ENABLED = 'YES' WHERE NAME IN ($consumers)"
  changed "enabled performance_schema consumers"
fi
if [ "$(my_q "SELECT count(*) FROM performance_schema.setup_instruments WHERE NAME LIKE 'statement/%' AND (ENABLED <> 'YES' OR TIMED <> 'YES')")" != 0 ]; then
  my_q "UPDATE performance_schema.setup_instruments SET ENABLED = 'YES', TIMED = 'YES' WHERE NAME LIKE 'statement/%'"
  changed "enabled statement instruments"
fi

# QUERY_RESPONSE_TIME plugin (library query_response_time.so, Debian package mariadb-server).
plugin_dir=$(my_q "SELECT @@GLOBAL.plugin_dir")
[ -f "${plugin_dir%/}/query_response_time.so" ] ||
  die "${plugin_dir%/}/query_response_time.so not found (it ships in Debian package mariadb-server)"
if [ "$(my_q "SELECT count(*) FROM information_schema.PLUGINS WHERE PLUGIN_NAME LIKE 'QUERY\\_RESPONSE\\_TIME%'")" = 0 ]; then
  my_q "INSTALL SONAME 'query_response_time'"
  changed "INSTALL SONAME 'query_response_time'"
fi
for plugin in QUERY_RESPONSE_TIME QUERY_RESPONSE_TIME_AUDIT; do
  status=$(my_q "SELECT PLUGIN_STATUS FROM information_schema.PLUGINS WHERE PLUGIN_NAME = '$plugin'")
  if [ -z "$status" ]; then
    my_q "INSTALL PLUGIN $plugin SONAME 'query_response_time'"
    changed "installed MariaDB plugin $plugin"
  elif [ "$status" != ACTIVE ]; then
    die "MariaDB plugin $plugin is installed but $status"
  fi
done
if [ "$(my_q "SELECT @@GLOBAL.query_response_time_stats")" != 1 ]; then
  my_q "SET GLOBAL query_response_time_stats = ON"
  changed "MariaDB query_response_time_stats = ON"
fi
my_q "SELECT count(*) FROM information_schema.QUERY_RESPONSE_TIME" >/dev/null ||
  die "information_schema.QUERY_RESPONSE_TIME is not readable"
log "MariaDB: performance_schema = ON, statement digests on, QUERY_RESPONSE_TIME active"

# === 5. Summary =====================================================================
elapsed=$(( $(date +%s) - started_at ))
if [ "${#restarts[@]}" -gt 0 ]; then restarted="restarted ${restarts[*]}"; else restarted="no restarts"; fi
log "OK in ${elapsed}s: PostgreSQL $PG_VERSION + MariaDB ready; ${#changes[@]} change(s), $restarted"
