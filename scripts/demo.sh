#!/usr/bin/env bash
# The end-to-end demo (`just demo`): one standalone Copycat worker running five
# WebAssembly connectors against a real Kafka broker and a real PostgreSQL.
#
#   datagen          (source)  4 streams x 2500 records  ->  topic demo-datagen-<run>
#   file-sink        (sink)    topic demo-datagen-<run>  ->  demo-output/output/*
#   file-source      (source)  demo-output/input/*.txt   ->  topic demo-lines-<run>
#   postgres-source  (source)  table demo_<run>.orders   ->  topic demo-pg-<run>-orders (with its schema)
#   postgres-sink    (sink)    topic demo-pg-<run>-orders ->  table demo_<run>.orders_copy (exactly-once)
#   hdfs-sink        (sink)    topic demo-pg-<run>-orders ->  HDFS /demo/<run>/ (Avro files, exactly-once)
#
# PostgreSQL and HDFS are the project's own (scripts/postgres.sh,
# scripts/hdfs.sh: a private cluster, a MiniDFSCluster with WebHDFS),
# started here if they are not running.
#
# It prepares demo-output/ (wiped first: inputs, output dir, configs rendered
# from demo/*.properties.in), creates the topics, starts
# `copycat standalone ...` in the background (log: demo-output/copycat.log),
# waits until every record has arrived, stops the worker with SIGTERM, shows
# what happened (topics, output files, committed offsets, consumer group, task
# summaries) and ends with PASS, or FAIL and a non-zero exit.
#
# `just demo` builds everything and starts Kafka first. By hand:
#   just build && scripts/kafka.sh start
#   KAFKA_BOOTSTRAP=$(scripts/kafka.sh bootstrap) scripts/demo.sh
#
# Environment:
#   KAFKA_BOOTSTRAP      broker (default: scripts/kafka.sh bootstrap)
#   COPYCAT_PLUGIN_DIR   connector components (default: build/plugins)
#   COPYCAT_BIN          the copycat binary (default: $CARGO_TARGET_DIR/debug/copycat)
#   DEMO_TIMEOUT         seconds to wait for all records (default 120)
#   DEMO_RATE            datagen records/s per task (default 1000, so ~5 s; 0 = unpaced)
#   DEMO_STOP_TIMEOUT    seconds to wait for the worker to exit after SIGTERM (default 60)
#   RUST_LOG             copycat's log filter (default info)
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT="$(pwd -P)" # physical path: grants must not go through symlinks

BOOTSTRAP="${KAFKA_BOOTSTRAP:-$(scripts/kafka.sh bootstrap)}"
PLUGIN_DIR="${COPYCAT_PLUGIN_DIR:-$ROOT/build/plugins}"
COPYCAT="${COPYCAT_BIN:-${CARGO_TARGET_DIR:-$HOME/.cache/copycat/target}/debug/copycat}"
TIMEOUT="${DEMO_TIMEOUT:-120}"
STOP_TIMEOUT="${DEMO_STOP_TIMEOUT:-60}"

DEMO="$ROOT/demo-output"
INPUT_DIR="$DEMO/input"
OUTPUT_DIR="$DEMO/output"
LOG="$DEMO/copycat.log"
STREAMS=4
COUNT=2500
EXPECTED_RECORDS=$((STREAMS * COUNT))
RATE="${DEMO_RATE:-1000}" # datagen records per second per task (2 tasks); 0 = unpaced
INPUT_NAMES=(lines-a.txt lines-b.txt)
INPUT_LINES=(300 200)

# A fresh suffix per run: new topics and new connector names. Offsets are keyed
# by connector name, so reusing a name would resume the previous run's
# connectors (datagen would find all its streams finished and emit nothing).
RUN="$(date +%m%d-%H%M%S)"
DATAGEN="demo-datagen-$RUN"
SINK="demo-file-sink-$RUN"
SOURCE="demo-file-source-$RUN"
DATAGEN_TOPIC="demo-datagen-$RUN"
LINES_TOPIC="demo-lines-$RUN"
OFFSETS_TOPIC="copycat-demo-offsets"
PG_SCHEMA="demo_${RUN//-/_}"
PG_TOPIC_PREFIX="demo-pg-$RUN-"
PG_TOPIC="${PG_TOPIC_PREFIX}orders"
PG_SOURCE="demo-postgres-source-$RUN"
PG_SINK="demo-postgres-sink-$RUN"
PG_ROWS=500
pg() { scripts/postgres.sh psql -X -q -t -A "$@"; }
HDFS_SINK="demo-hdfs-sink-$RUN"
HDFS_DIR="/demo/$RUN"
# Records in hdfs-sink's committed files of the orders topic (the offset
# ranges in their names), then the number of files and of temporary files.
hdfs_report() {
    python3 - "$HDFS_URL" "$HDFS_DIR" "$PG_TOPIC" <<'PY'
import json, sys, urllib.request
url, root, topic = sys.argv[1:4]
def ls(path):
    try:
        with urllib.request.urlopen(f"{url}/webhdfs/v1{path}?op=LISTSTATUS&user.name=copycat", timeout=10) as r:
            return json.load(r)["FileStatuses"]["FileStatus"]
    except Exception:
        return []
records = files = 0
for part in ls(f"{root}/{topic}"):
    for f in ls(f"{root}/{topic}/{part['pathSuffix']}"):
        name = f["pathSuffix"].rsplit(".", 1)[0].split("+")
        records += int(name[-1]) - int(name[-2]) + 1
        files += 1
tmp = sum(len(ls(f"{root}/+tmp/{t['pathSuffix']}/{p['pathSuffix']}")) for t in ls(f"{root}/+tmp") for p in ls(f"{root}/+tmp/{t['pathSuffix']}"))
print(records, files, tmp)
PY
}

if [[ -t 1 && -z "${NO_COLOR:-}" ]]; then
    BOLD=$'\e[1m' DIM=$'\e[2m' RED=$'\e[31m' GREEN=$'\e[32m' OFF=$'\e[0m'
else
    BOLD="" DIM="" RED="" GREEN="" OFF=""
fi

step() { printf '\n%s==> %s%s\n' "$BOLD" "$*" "$OFF"; }
info() { printf '    %s\n' "$*"; }
rel() { printf '%s' "${1#"$ROOT"/}"; }
kafka_tool() { scripts/kafka.sh run-class "$@"; }
strip_ansi() { sed -e $'s/\e\\[[0-9;]*m//g' "$@"; }

log_tail() {
    if [[ -s "$LOG" ]]; then
        printf '\n%s---- last 40 lines of %s ----%s\n' "$DIM" "$(rel "$LOG")" "$OFF"
        tail -n 40 "$LOG" | strip_ansi
        printf '%s----%s\n' "$DIM" "$OFF"
    fi
}

die() {
    printf '\n%sFAIL%s: %s\n' "$RED$BOLD" "$OFF" "$*"
    log_tail
    exit 1
}

# ------------------------------------------------------------ cleanup

# fd 3: the original stderr, for the traps (which can run while a command's
# stderr is redirected, e.g. to /dev/null).
exec 3>&2
COPYCAT_PID=""
TMP=""
copycat_alive() { [[ -n "$COPYCAT_PID" ]] && kill -0 "$COPYCAT_PID" 2>/dev/null; }
cleanup() {
    local rc=$?
    if copycat_alive; then
        echo "demo: stopping copycat (pid $COPYCAT_PID)" >&3
        kill -TERM "$COPYCAT_PID" 2>/dev/null || true
        local i
        for ((i = 0; i < 100; i++)); do
            copycat_alive || break
            sleep 0.1
        done
        copycat_alive && kill -KILL "$COPYCAT_PID" 2>/dev/null || true
    fi
    [[ -n "$TMP" ]] && rm -rf "$TMP"
    exit "$rc"
}
trap cleanup EXIT
trap 'echo "demo: interrupted" >&3; exit 130' INT
trap 'echo "demo: terminated" >&3; exit 143' TERM

# ------------------------------------------------------------ preflight

[[ -x "$COPYCAT" ]] || die "no copycat binary at $COPYCAT (run 'just build', or set COPYCAT_BIN)"
for plugin in datagen file-sink file-source postgres-source postgres-sink hdfs-sink; do
    [[ -f "$PLUGIN_DIR/$plugin.wasm" ]] ||
        die "no $plugin.wasm in $PLUGIN_DIR (run 'just build', or set COPYCAT_PLUGIN_DIR)"
done
TMP="$(mktemp -d)"
scripts/postgres.sh start >"$TMP/postgres.out" 2>&1 || {
    cat "$TMP/postgres.out" >&2
    die "PostgreSQL did not start (scripts/postgres.sh start)"
}
PG_ADDRESS="$(scripts/postgres.sh url | sed -e 's|.*@||' -e 's|/.*||')"
scripts/hdfs.sh start >"$TMP/hdfs.out" 2>&1 || {
    cat "$TMP/hdfs.out" >&2
    die "HDFS did not start (scripts/hdfs.sh start)"
}
HDFS_URL="$(scripts/hdfs.sh url)"
HDFS_GRANTS="${HDFS_URL#http://},127.0.0.1:${HDFS_DATANODE_HTTP_PORT:-9864}"

printf '%sCopycat demo%s: six WebAssembly connectors in one standalone worker\n' "$BOLD" "$OFF"
info "Kafka:    $BOOTSTRAP"
plugins=("$PLUGIN_DIR"/*.wasm)
plugins=("${plugins[@]##*/}")
info "plugins:  $(rel "$PLUGIN_DIR")/ (${plugins[*]})"
info "copycat:  $COPYCAT"
info "this run: $RUN (suffix of this run's topics and connector names)"
printf '\n'
info "datagen      source  $STREAMS streams x $COUNT generated records  ->  topic $DATAGEN_TOPIC"
info "file-sink    sink    topic $DATAGEN_TOPIC  ->  $(rel "$OUTPUT_DIR")/<topic>-<partition>.txt"
info "file-source  source  lines of $(rel "$INPUT_DIR")/*.txt  ->  topic $LINES_TOPIC"
info "postgres-source  source  table $PG_SCHEMA.orders ($PG_ROWS rows, PostgreSQL at $PG_ADDRESS)  ->  topic $PG_TOPIC"
info "postgres-sink    sink    topic $PG_TOPIC  ->  table $PG_SCHEMA.orders_copy (created from the schema; exactly-once)"
info "hdfs-sink        sink    topic $PG_TOPIC  ->  HDFS $HDFS_DIR/ at $HDFS_URL (Avro files; exactly-once)"

# ------------------------------------------------------------ demo-output/

step "Preparing $(rel "$DEMO")/ (wiped first)"
rm -rf "$DEMO"
mkdir -p "$INPUT_DIR" "$OUTPUT_DIR"

INPUT_FILES=()
total_input=0
for i in "${!INPUT_LINES[@]}"; do
    name="${INPUT_NAMES[$i]}"
    file="$INPUT_DIR/$name"
    awk -v n="${INPUT_LINES[$i]}" -v f="$name" 'BEGIN {
        split("alpha bravo charlie delta echo foxtrot golf hotel india juliett kilo lima", w, " ")
        for (l = 1; l <= n; l++)
            printf "%s line %04d: %s %s %s\n", f, l, w[(l % 12) + 1], w[(l * 7 % 12) + 1], w[(l * 5 % 12) + 1]
    }' >"$file"
    INPUT_FILES+=("$file")
    total_input=$((total_input + INPUT_LINES[i]))
    info "input:  $(rel "$file") (${INPUT_LINES[$i]} lines)"
done
info "output: $(rel "$OUTPUT_DIR")/ (empty; the file sink writes here)"
SECRETS_DIR="$DEMO/secrets"
mkdir -p "$SECRETS_DIR"
PG_SECRETS="$SECRETS_DIR/postgres.properties"
printf 'password=%s\n' "$(scripts/postgres.sh url | sed -e 's|^postgresql://[^:]*:||' -e 's|@.*||')" >"$PG_SECRETS"
chmod 600 "$PG_SECRETS"
info "secret: $(rel "$PG_SECRETS") (the database password; configs name it, never hold it)"
pg -c "CREATE SCHEMA $PG_SCHEMA;
  CREATE TABLE $PG_SCHEMA.orders (id bigserial PRIMARY KEY, customer text NOT NULL, amount numeric(10,2) NOT NULL,
    tags text[], placed_on date NOT NULL, updated_at timestamptz NOT NULL DEFAULT now());
  INSERT INTO $PG_SCHEMA.orders (customer, amount, tags, placed_on)
    SELECT 'customer-' || (g % 37), round((g * 7.31)::numeric % 1000, 2), ARRAY['t' || (g % 3)], date '2026-01-01' + (g % 300)
    FROM generate_series(1, $PG_ROWS) g;" >/dev/null || die "creating the demo table failed"
info "table:  $PG_SCHEMA.orders ($PG_ROWS rows) in $(scripts/postgres.sh url | sed 's|//[^@]*@|//|')"

# Render demo/<name>.properties.in into demo-output/<name>.properties.
render() {
    local name="$1" text key
    text="$(<"$ROOT/demo/$name.properties.in")"
    local -A vars=(
        [BOOTSTRAP]="$BOOTSTRAP"
        [PLUGIN_DIR]="$PLUGIN_DIR"
        [SUFFIX]="$RUN"
        [DATAGEN_TOPIC]="$DATAGEN_TOPIC"
        [LINES_TOPIC]="$LINES_TOPIC"
        [STREAMS]="$STREAMS"
        [COUNT]="$COUNT"
        [RATE]="$RATE"
        [INPUT_DIR]="$INPUT_DIR"
        [INPUT_FILES]="$(
            IFS=,
            echo "${INPUT_FILES[*]}"
        )"
        [OUTPUT_DIR]="$OUTPUT_DIR"
        [STATE_DIR]="$DEMO/state"
        [SECRETS_DIR]="$SECRETS_DIR"
        [PG_SECRETS]="$PG_SECRETS"
        [PG_ADDRESS]="$PG_ADDRESS"
        [PG_SCHEMA]="$PG_SCHEMA"
        [PG_TOPIC_PREFIX]="$PG_TOPIC_PREFIX"
        [PG_TOPIC]="$PG_TOPIC"
        [HDFS_URL]="$HDFS_URL"
        [HDFS_DIR]="$HDFS_DIR"
        [HDFS_GRANTS]="$HDFS_GRANTS"
    )
    for key in "${!vars[@]}"; do
        text="${text//"@$key@"/"${vars[$key]}"}"
    done
    if [[ "$text" =~ @[A-Z_]+@ ]]; then
        die "demo/$name.properties.in: unknown placeholder ${BASH_REMATCH[0]}"
    fi
    printf '%s\n' "$text" >"$DEMO/$name.properties"
    printf '    %s%s%s\n' "$BOLD" "$(rel "$DEMO/$name.properties")" "$OFF"
    grep -v -e '^[[:space:]]*#' -e '^[[:space:]]*$' "$DEMO/$name.properties" | sed 's/^/        /'
}
CONFIGS=(worker datagen file-sink file-source postgres-source postgres-sink hdfs-sink)
for c in "${CONFIGS[@]}"; do render "$c"; done

# ------------------------------------------------------------ topics

step "Creating topics $DATAGEN_TOPIC, $LINES_TOPIC and $PG_TOPIC (4 partitions each)"
for t in "$DATAGEN_TOPIC" "$LINES_TOPIC" "$PG_TOPIC"; do
    kafka_tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$BOOTSTRAP" \
        --create --if-not-exists --topic "$t" --partitions 4 >"$TMP/create-$t.out" 2>&1 &
done
for t in "$DATAGEN_TOPIC" "$LINES_TOPIC" "$PG_TOPIC"; do
    wait -n || {
        cat "$TMP"/create-*.out >&2
        die "creating the topics failed (is Kafka running at $BOOTSTRAP? try 'just kafka-start')"
    }
done
grep -h . "$TMP"/create-*.out | sed 's/^/    /'

# ------------------------------------------------------------ start

step "Starting the worker"
CMD=("$COPYCAT" standalone)
for c in "${CONFIGS[@]}"; do CMD+=("$DEMO/$c.properties"); done
CMDLINE="$(printf '%q ' "${CMD[@]}")"
CMDLINE="${CMDLINE% }"
info "$CMDLINE"
info "${DIM}(log: $(rel "$LOG"); Ctrl-C or SIGTERM stops it gracefully)${OFF}"
NO_COLOR=1 RUST_LOG="${RUST_LOG:-info}" "${CMD[@]}" >"$LOG" 2>&1 </dev/null 3>&- &
COPYCAT_PID=$!
info "pid $COPYCAT_PID"

# ------------------------------------------------------------ wait

# Latest offsets of both topics, one "topic:partition:offset" per line. The
# topics are fresh and written without transactions, so offset = record count.
topic_offsets() {
    kafka_tool org.apache.kafka.tools.GetOffsetShell --bootstrap-server "$BOOTSTRAP" \
        --topic "^($DATAGEN_TOPIC|$LINES_TOPIC)\$" 2>/dev/null
}
topic_total() { awk -F: -v t="$1" '$1 == t { s += $NF } END { print s + 0 }' "$2"; }
sink_files() { find "$OUTPUT_DIR" -type f -print0 | sort -z; }
sink_lines() {
    local n
    n="$(sink_files | xargs -0 -r cat | wc -l)"
    echo $((n))
}

step "Waiting for every record (deadline ${TIMEOUT}s)"
start=$SECONDS
deadline=$((SECONDS + TIMEOUT))
datagen_n=0 lines_n=0 sink_n=0 pg_n=0 hdfs_n=0
: >"$TMP/offsets"
while :; do
    copycat_alive || {
        rc=0
        wait "$COPYCAT_PID" || rc=$?
        COPYCAT_PID=""
        die "copycat exited early (exit code $rc)"
    }
    # GetOffsetShell is a JVM (~1.3 s): skip it once both topics are complete.
    if ((datagen_n < EXPECTED_RECORDS || lines_n < total_input)); then
        if topic_offsets >"$TMP/offsets.new"; then
            mv "$TMP/offsets.new" "$TMP/offsets"
            datagen_n="$(topic_total "$DATAGEN_TOPIC" "$TMP/offsets")"
            lines_n="$(topic_total "$LINES_TOPIC" "$TMP/offsets")"
        fi
    fi
    sink_n="$(sink_lines)"
    pg_n="$(pg -c "SELECT CASE WHEN to_regclass('$PG_SCHEMA.orders_copy') IS NULL THEN 0 END" 2>/dev/null)"
    [[ "$pg_n" == 0 ]] || pg_n="$(pg -c "SELECT count(*) FROM $PG_SCHEMA.orders_copy" 2>/dev/null || echo 0)"
    read -r hdfs_n _ _ < <(hdfs_report)
    printf '    [%3ds] %s: %5d/%d records | file sink: %5d/%d lines | %s: %d/%d records | orders_copy: %d/%d rows | HDFS: %d/%d\n' \
        $((SECONDS - start)) "$DATAGEN_TOPIC" "$datagen_n" "$EXPECTED_RECORDS" \
        "$sink_n" "$EXPECTED_RECORDS" "$LINES_TOPIC" "$lines_n" "$total_input" "${pg_n:-0}" "$PG_ROWS" "${hdfs_n:-0}" "$PG_ROWS"
    if ((datagen_n >= EXPECTED_RECORDS && sink_n >= EXPECTED_RECORDS && lines_n >= total_input && ${pg_n:-0} >= PG_ROWS && ${hdfs_n:-0} >= PG_ROWS)); then
        break
    fi
    ((SECONDS < deadline)) || die "timed out after ${TIMEOUT}s waiting for the records"
    sleep 1
done
info "${GREEN}all records arrived after $((SECONDS - start))s${OFF}"

# ------------------------------------------------------------ stop

step "Stopping the worker (SIGTERM: stop polling, flush, commit offsets)"
kill -TERM "$COPYCAT_PID"
stop_deadline=$((SECONDS + STOP_TIMEOUT))
while copycat_alive; do
    ((SECONDS < stop_deadline)) || die "copycat did not exit within ${STOP_TIMEOUT}s of SIGTERM"
    sleep 0.2
done
exit_code=0
wait "$COPYCAT_PID" || exit_code=$?
COPYCAT_PID=""
info "copycat exited with code $exit_code"

# ------------------------------------------------------------ report

# The Kafka tools are JVMs: run them all at once, then print in order.
bg_tool() {
    local out="$1"
    shift
    (
        if kafka_tool "$@" >"$TMP/$out" 2>"$TMP/$out.err"; then
            echo 0 >"$TMP/$out.rc"
        else
            echo $? >"$TMP/$out.rc"
        fi
    ) &
}
bg_tool offsets.final org.apache.kafka.tools.GetOffsetShell --bootstrap-server "$BOOTSTRAP" \
    --topic "^($DATAGEN_TOPIC|$LINES_TOPIC)\$"
bg_tool sample.datagen org.apache.kafka.tools.consumer.ConsoleConsumer --bootstrap-server "$BOOTSTRAP" \
    --topic "$DATAGEN_TOPIC" --from-beginning --max-messages 3 --timeout-ms 15000 \
    --formatter-property print.partition=true --formatter-property print.key=true \
    --formatter-property key.separator=' | '
bg_tool sample.lines org.apache.kafka.tools.consumer.ConsoleConsumer --bootstrap-server "$BOOTSTRAP" \
    --topic "$LINES_TOPIC" --from-beginning --max-messages 3 --timeout-ms 15000 \
    --formatter-property print.partition=true --formatter-property print.key=true \
    --formatter-property key.separator=' | '
bg_tool source.offsets org.apache.kafka.tools.consumer.ConsoleConsumer --bootstrap-server "$BOOTSTRAP" \
    --topic "$OFFSETS_TOPIC" --from-beginning --timeout-ms 4000 \
    --formatter-property print.key=true --formatter-property key.separator=$'\t'
bg_tool group org.apache.kafka.tools.consumer.group.ConsumerGroupCommand --bootstrap-server "$BOOTSTRAP" \
    --describe --group "connect-$SINK"
wait

PROBLEMS=()
expect() { # expect CONDITION-EXIT-CODE MESSAGE: records MESSAGE as a problem unless true
    local ok="$1"
    shift
    if [[ "$ok" == 0 ]]; then
        printf '    %s✓%s %s\n' "$GREEN" "$OFF" "$*"
    else
        printf '    %s✗ %s%s\n' "$RED" "$*" "$OFF"
        PROBLEMS+=("$*")
    fi
}
tool_ok() { [[ "$(cat "$TMP/$1.rc" 2>/dev/null)" == 0 ]]; }
tool_failed() {
    printf '    %s%s failed:%s\n' "$RED" "$1" "$OFF"
    sed 's/^/      /' "$TMP/$2.err" | tail -n 5
}

step "Records per topic partition"
if tool_ok offsets.final; then
    for t in "$DATAGEN_TOPIC" "$LINES_TOPIC"; do
        info "$t:"
        awk -F: -v t="$t" '$1 == t { printf "      partition %s: %6d records\n", $2, $3 }' \
            "$TMP/offsets.final" | sort -k2n
    done
    datagen_n="$(topic_total "$DATAGEN_TOPIC" "$TMP/offsets.final")"
    lines_n="$(topic_total "$LINES_TOPIC" "$TMP/offsets.final")"
else
    tool_failed GetOffsetShell offsets.final
fi

step "Sample records of $DATAGEN_TOPIC (partition | key | value)"
if tool_ok sample.datagen; then sed 's/^/    /' "$TMP/sample.datagen"; else tool_failed ConsoleConsumer sample.datagen; fi
step "Sample records of $LINES_TOPIC (partition | key | value; file-source sets no key)"
if tool_ok sample.lines; then sed 's/^/    /' "$TMP/sample.lines"; else tool_failed ConsoleConsumer sample.lines; fi

step "Files written by the file sink in $(rel "$OUTPUT_DIR")/"
mapfile -d '' -t OUT_FILES < <(sink_files)
for f in "${OUT_FILES[@]}"; do
    printf '    %6d lines  %s\n' "$(wc -l <"$f")" "$(rel "$f")"
done
sink_n="$(sink_lines)"
sink_distinct="$(sink_files | xargs -0 -r cat | sort -u | wc -l)"
sink_distinct=$((sink_distinct))
if ((${#OUT_FILES[@]} > 0)); then
    info "head -3 $(rel "${OUT_FILES[0]}"):"
    head -n 3 "${OUT_FILES[0]}" | sed 's/^/      /'
fi

step "Committed source offsets (topic $OFFSETS_TOPIC, latest per key)"
# Keys are ["<connector>",{<source partition>}] (Kafka Connect's maps: datagen's
# {"stream":"stream-<i>"} -> {"seq":<n>}, file-source's {"filename":<path>} ->
# {"position":<byte>}); each flush writes a new record,
# compaction eventually keeps the latest per key.
: >"$TMP/source.latest"
if tool_ok source.offsets || [[ -s "$TMP/source.offsets" ]]; then
    awk -F'\t' -v a="[\"$DATAGEN\"," -v b="[\"$SOURCE\"," '
        index($1, a) == 1 || index($1, b) == 1 {
            if (!($1 in last)) order[++n] = $1
            last[$1] = $2; commits[$1]++
        }
        END { for (i = 1; i <= n; i++) printf "%s\t%s\t%d\n", order[i], last[order[i]], commits[order[i]] }
    ' "$TMP/source.offsets" | sort >"$TMP/source.latest"
    info "${DIM}key [connector, source partition] -> offset: datagen's last sequence number per stream,${OFF}"
    info "${DIM}file-source's byte position after the last line of each file${OFF}"
    awk -F'\t' 'NR == FNR { if (length($1) > w) w = length($1); next }
        { printf "    %-*s -> %-8s (written %d time%s)\n", w, $1, $2, $3, $3 == 1 ? "" : "s" }' \
        "$TMP/source.latest" "$TMP/source.latest"
else
    tool_failed ConsoleConsumer source.offsets
fi

step "Committed offsets of the file sink's consumer group connect-$SINK"
group_committed=-1 group_lag=-1
if tool_ok group; then
    grep -v '^[[:space:]]*$' "$TMP/group" | sed 's/^/    /'
    # Columns: GROUP TOPIC PARTITION CURRENT-OFFSET LOG-END-OFFSET LAG ...
    read -r group_committed group_lag < <(awk -v t="$DATAGEN_TOPIC" '
        $2 == t { if ($4 ~ /^[0-9]+$/) c += $4; else bad = 1; if ($6 ~ /^[0-9]+$/) l += $6; else bad = 1; n++ }
        END { if (bad || n == 0) print -1, -1; else print c, l }' "$TMP/group")
else
    tool_failed ConsumerGroupCommand group
fi

step "PostgreSQL: $PG_SCHEMA.orders -> Kafka -> $PG_SCHEMA.orders_copy"
pg -c "SELECT column_name || ' ' || data_type || CASE WHEN is_nullable = 'NO' THEN ' not null' ELSE '' END
       FROM information_schema.columns WHERE table_schema = '$PG_SCHEMA' AND table_name = 'orders_copy' ORDER BY ordinal_position" |
    sed 's/^/    orders_copy column: /'
pg -F ' | ' -c "SELECT id, customer, amount, tags, placed_on, updated_at FROM $PG_SCHEMA.orders_copy ORDER BY id LIMIT 3" | sed 's/^/    /'
# A Connect Timestamp holds milliseconds (as in Kafka Connect): the source's
# microseconds are compared truncated.
PG_FROM="SELECT id, customer, amount, tags, placed_on, date_trunc('milliseconds', updated_at) AT TIME ZONE 'UTC' FROM $PG_SCHEMA.orders"
PG_TO="SELECT id, customer, amount, tags, placed_on, updated_at FROM $PG_SCHEMA.orders_copy"
pg_missing="$(pg -c "SELECT count(*) FROM ($PG_FROM EXCEPT ALL $PG_TO) d" 2>"$TMP/pg.err" || echo -1)"
pg_extra="$(pg -c "SELECT count(*) FROM ($PG_TO EXCEPT ALL $PG_FROM) d" 2>>"$TMP/pg.err" || echo -1)"
# A partition the sink opened but never got a record of holds -1 (no
# offset yet): not counted (demo49: the records all went to one partition).
pg_offsets="$(pg -c "SELECT coalesce(sum(next_offset), 0) FROM copycat_sink_offsets WHERE connector = '$PG_SINK' AND next_offset >= 0" 2>>"$TMP/pg.err" || echo -1)"
[[ ! -s "$TMP/pg.err" ]] || sed 's/^/    /' "$TMP/pg.err"
info "offsets committed with the rows (copycat_sink_offsets): $pg_offsets records consumed"

step "HDFS: topic $PG_TOPIC -> $HDFS_DIR/ (Avro container files, named <topic>+<partition>+<first>+<last>)"
python3 - "$HDFS_URL" "$HDFS_DIR/$PG_TOPIC" <<'PY' | sed 's/^/    /'
import json, sys, urllib.request
url, root = sys.argv[1:3]
def ls(path):
    with urllib.request.urlopen(f"{url}/webhdfs/v1{path}?op=LISTSTATUS&user.name=copycat", timeout=10) as r:
        return json.load(r)["FileStatuses"]["FileStatus"]
shown = 0
for part in sorted(ls(root), key=lambda p: p["pathSuffix"]):
    for f in sorted(ls(f"{root}/{part['pathSuffix']}"), key=lambda f: f["pathSuffix"]):
        if shown < 6:
            print(f"{root}/{part['pathSuffix']}/{f['pathSuffix']}  {f['length']} bytes")
        shown += 1
if shown > 6:
    print(f"... {shown - 6} more")
PY
read -r hdfs_n hdfs_files hdfs_tmp < <(hdfs_report)

step "Task summaries (from $(rel "$LOG"))"
strip_ansi "$LOG" | grep 'task summary' >"$TMP/summary" || true
field() { grep -m 1 -o " $1=\"[^\"]*\"\| $1=[^ ]*" <<<"$2" | head -n 1 | cut -d= -f2- | tr -d '"'; }
info "${DIM}sources: records polled from the component / acknowledged by Kafka; sinks: consumed / flushed by the component${OFF}"
printf '    %s%-32s %4s  %-8s %10s %11s %8s%s\n' "$DIM" connector task state records_in records_out commits "$OFF"
while IFS= read -r line; do
    printf '    %-32s %4s  %-8s %10s %11s %8s\n' "$(field connector "$line")" "$(field task "$line")" \
        "$(field state "$line")" "$(field records_in "$line")" "$(field records_out "$line")" \
        "$(field offset_commits "$line")"
    trace="$(field trace "$line")"
    [[ -z "$trace" ]] || printf '      %strace: %s%s\n' "$RED" "$trace" "$OFF"
done <"$TMP/summary"

# ------------------------------------------------------------ verdict

step "Checks"
expect "$((exit_code != 0))" "copycat exited with code 0 after SIGTERM (got $exit_code)"
expect "$((datagen_n != EXPECTED_RECORDS))" "$DATAGEN_TOPIC holds $EXPECTED_RECORDS records ($STREAMS streams x $COUNT; got $datagen_n)"
expect "$((sink_n != EXPECTED_RECORDS))" "the file sink wrote $EXPECTED_RECORDS lines (got $sink_n)"
expect "$((sink_distinct != EXPECTED_RECORDS))" "... all distinct: none lost, none repeated (got $sink_distinct distinct)"
expect "$((lines_n != total_input))" "$LINES_TOPIC holds all $total_input input lines (got $lines_n)"
expect "$((group_committed != EXPECTED_RECORDS || group_lag != 0))" \
    "group connect-$SINK committed all $EXPECTED_RECORDS offsets, lag 0 (got $group_committed, lag $group_lag)"
datagen_final="$(awk -F'\t' -v a="[\"$DATAGEN\"," -v last="{\"seq\":$((COUNT - 1))}" \
    'index($1, a) == 1 && $2 == last { n++ } END { print n + 0 }' "$TMP/source.latest")"
expect "$((datagen_final != STREAMS))" \
    "datagen committed offset $((COUNT - 1)) for all $STREAMS streams (got $datagen_final)"
# file-source: a file's source offset is the byte position after its last line.
source_done=0
for f in "${INPUT_FILES[@]}"; do
    size="$(wc -c <"$f")"
    awk -F'\t' -v k="[\"$SOURCE\",{\"filename\":\"$f\"}]" -v want="{\"position\":$((size))}" \
        '$1 == k && $2 == want { found = 1 } END { exit !found }' "$TMP/source.latest" &&
        source_done=$((source_done + 1))
done
expect "$((source_done != ${#INPUT_FILES[@]}))" \
    "file-source committed each file's end (its size in bytes) as offset ($source_done of ${#INPUT_FILES[@]} files)"
summary_n="$(wc -l <"$TMP/summary")"
failed_n="$(grep -c 'FAILED' "$TMP/summary" || true)"
expect "$((pg_n != PG_ROWS))" "postgres-sink wrote all $PG_ROWS rows into $PG_SCHEMA.orders_copy (got $pg_n)"
expect "$((pg_missing != 0 || pg_extra != 0))" \
    "... equal to $PG_SCHEMA.orders, row for row (missing $pg_missing, extra $pg_extra)"
expect "$((pg_offsets != PG_ROWS))" "... with the $PG_ROWS consumed offsets committed in the same transactions (got $pg_offsets)"
expect "$((hdfs_n != PG_ROWS || hdfs_tmp != 0))" \
    "hdfs-sink committed all $PG_ROWS records in $hdfs_files Avro files, each record in exactly one file, no temporary file left (got $hdfs_n records, $hdfs_tmp temporary)"
connectors_n="$(for c in "$DATAGEN" "$SINK" "$SOURCE" "$PG_SOURCE" "$PG_SINK" "$HDFS_SINK"; do grep -q -F "connector=$c " "$TMP/summary" && echo "$c"; done | wc -l)"
expect "$((summary_n == 0 || failed_n != 0 || connectors_n != 6))" \
    "task summaries: all 6 connectors, no FAILED task ($summary_n tasks, $failed_n failed)"
warn_n="$(strip_ansi "$LOG" | grep -c -E '^[^ ]+ +(WARN|ERROR) ' || true)"
if ((warn_n > 0)); then
    info "${DIM}note: $warn_n WARN/ERROR line(s) in the log:${OFF}"
    # grep -m, not `| head`: under pipefail, head closing the pipe early
    # would fail the demo with SIGPIPE (exit 141) when there are many lines.
    strip_ansi "$LOG" | grep -m 10 -E '^[^ ]+ +(WARN|ERROR) ' | sed 's/^/      /' || true
fi

step "Where everything is"
info "configs:   $(rel "$DEMO")/{worker,datagen,file-sink,file-source,postgres-source,postgres-sink,hdfs-sink}.properties (from demo/*.properties.in)"
info "HDFS:      curl '$HDFS_URL/webhdfs/v1$HDFS_DIR/$PG_TOPIC?op=LISTSTATUS&user.name=copycat'"
info "database:  scripts/postgres.sh psql -c 'SELECT * FROM $PG_SCHEMA.orders_copy LIMIT 5'"
info "input:     $(rel "$INPUT_DIR")/"
info "output:    $(rel "$OUTPUT_DIR")/"
info "log:       $(rel "$LOG")"
info "rerun the worker (it resumes from the committed offsets: nothing new to do):"
info "  $CMDLINE"
info "inspect Kafka: just kafka-tool org.apache.kafka.tools.TopicCommand --bootstrap-server $BOOTSTRAP --list"
info "earlier runs' demo topics stay in Kafka (each run uses new ones); 'just kafka-reset' deletes all broker data"
info "Kafka is still running at $BOOTSTRAP; stop it with: just kafka-stop"

if ((${#PROBLEMS[@]} > 0)); then
    printf '\n%sFAIL%s: %d check(s) failed:\n' "$RED$BOLD" "$OFF" "${#PROBLEMS[@]}"
    printf '  - %s\n' "${PROBLEMS[@]}"
    log_tail
    exit 1
fi
printf '\n%sPASS%s: %d records datagen -> Kafka -> file sink, %d lines file-source -> Kafka, %d rows PostgreSQL -> Kafka -> PostgreSQL and HDFS, clean shutdown\n' \
    "$GREEN$BOLD" "$OFF" "$EXPECTED_RECORDS" "$total_input" "$PG_ROWS"
