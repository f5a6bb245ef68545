#!/usr/bin/env bash
# Starts a ClickHouse server for the tests on loopback, on non-default ports
# (native 19000, HTTP 18123), with its data under .cache/clickhouse in the
# project. Idempotent: a server already answering is left alone. No systemd
# or Docker needed: Debian's clickhouse-server binary runs as a plain process.
#
#   .ci/clickhouse.sh          start the server (make test / .ci/deps.sh)
#   .ci/clickhouse.sh config   only write its configuration into CLICKHOUSE_DIR: the
#                              tests' own servers (adapters/clickhouse/chtest) use it
set -euo pipefail
cd "$(dirname "$0")/.."

TCP_PORT="${CLICKHOUSE_TCP_PORT:-19000}"
HTTP_PORT="${CLICKHOUSE_HTTP_PORT:-18123}"
DIR="${CLICKHOUSE_DIR:-$PWD/.cache/clickhouse}"

answers() { curl -fsS "http://127.0.0.1:${HTTP_PORT}/?query=SELECT%201" 2>/dev/null | grep -q '^1$'; }

write_config() {
mkdir -p "$DIR"/{data,tmp,user_files,format_schemas,log}
cat >"$DIR/config.xml" <<XML
<?xml version="1.0"?>
<yandex>
  <logger>
    <level>warning</level>
    <log>$DIR/log/server.log</log>
    <errorlog>$DIR/log/error.log</errorlog>
    <size>10M</size>
    <count>2</count>
  </logger>
  <listen_host>127.0.0.1</listen_host>
  <tcp_port>$TCP_PORT</tcp_port>
  <http_port>$HTTP_PORT</http_port>
  <interserver_http_port>$((HTTP_PORT + 1))</interserver_http_port>
  <max_connections>512</max_connections>
  <keep_alive_timeout>3</keep_alive_timeout>
  <max_concurrent_queries>200</max_concurrent_queries>
  <mark_cache_size>268435456</mark_cache_size>
  <path>$DIR/data/</path>
  <tmp_path>$DIR/tmp/</tmp_path>
  <user_files_path>$DIR/user_files/</user_files_path>
  <format_schema_path>$DIR/format_schemas/</format_schema_path>
  <users_config>$DIR/users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <timezone>UTC</timezone>
  <mlock_executable>false</mlock_executable>
</yandex>
XML
cat >"$DIR/users.xml" <<XML
<?xml version="1.0"?>
<yandex>
  <profiles>
    <default>
      <max_memory_usage>4000000000</max_memory_usage>
      <load_balancing>random</load_balancing>
    </default>
  </profiles>
  <users>
    <default>
      <password></password>
      <networks><ip>127.0.0.1</ip><ip>::1</ip></networks>
      <profile>default</profile>
      <quota>default</quota>
    </default>
  </users>
  <quotas>
    <default>
      <interval><duration>3600</duration><queries>0</queries><errors>0</errors><result_rows>0</result_rows><read_rows>0</read_rows><execution_time>0</execution_time></interval>
    </default>
  </quotas>
</yandex>
XML
}

if [ "${1:-}" = config ]; then
  write_config
  exit 0
fi
if answers; then
  exit 0
fi
command -v clickhouse-server >/dev/null 2>&1 || { echo "clickhouse: clickhouse-server is not installed" >&2; exit 1; }
write_config

echo "clickhouse: starting clickhouse-server on 127.0.0.1:${TCP_PORT} (data in $DIR)"
nohup clickhouse-server --config-file="$DIR/config.xml" >"$DIR/log/stdout.log" 2>&1 &
echo $! >"$DIR/server.pid"
for _ in $(seq 1 120); do
  if answers; then
    exit 0
  fi
  if ! kill -0 "$(cat "$DIR/server.pid")" 2>/dev/null; then
    echo "clickhouse: server exited; see $DIR/log" >&2
    tail -20 "$DIR/log/stdout.log" "$DIR/log/error.log" 2>/dev/null >&2 || true
    exit 1
  fi
  sleep 0.5
done
echo "clickhouse: server did not answer within 60 s; see $DIR/log" >&2
exit 1
