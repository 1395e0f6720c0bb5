# shellcheck shell=bash
# Sourced by the golden scripts beside it (kafka-connect-*.sh),
# from the repository root: compiles one of
# their Java programs together with NeutralJson.java (the neutral JSON
# writers they share; single-file source launch cannot see a second file)
# against Kafka Connect 4.4.0's jars (scripts/kafka-connect.sh classpath),
# runs it with the JVM flags that make the output deterministic, and checks
# or installs the file it wrote.
#
#   golden_check_flag SCRIPT [ARG]                 prints 1 for --check, 0 for none; any other
#                                                   argument prints SCRIPT's header (its usage) and exits 2
#   golden_java PROGRAM OUT                         javac + java PROGRAM OUT
#   golden_finish SCRIPT GOLDEN TMP CHECK START     CHECK=1: diff GOLDEN and TMP (exit 1 if they differ);
#                                                   else move TMP to GOLDEN; START is the script's $SECONDS at start
#
# GOLDEN_JAVA selects the java (default: java on the PATH, which should be
# Java 17: see the scripts' headers); javac is the one beside it, or
# GOLDEN_JAVAC.

GOLDEN_JAVA="${GOLDEN_JAVA:-java}"
GOLDEN_JAVAC="${GOLDEN_JAVAC:-$(dirname "$(command -v "$GOLDEN_JAVA")")/javac}"

golden_check_flag() {
    local script=$1
    case "${2:-}" in
    "") echo 0 ;;
    --check) echo 1 ;;
    *)
        sed -n '2,/^set -euo/p' "$script" | sed -e '$d' -e 's/^# \{0,1\}//' >&2
        exit 2
        ;;
    esac
}

# Runs in a subshell so that its EXIT trap removes the classes directory.
golden_java() (
    local program=$1 out=$2 classpath classes
    classpath="$(scripts/kafka-connect.sh classpath)"
    classes="$(mktemp -d "${TMPDIR:-/tmp}/golden-classes.XXXXXX")"
    trap 'rm -rf "$classes"' EXIT
    "$GOLDEN_JAVAC" -nowarn -d "$classes" -cp "$classpath" \
        scripts/golden/NeutralJson.java "scripts/golden/$program.java"
    # The time zone and locale are pinned (Kafka Connect formats and parses
    # dates with the JVM's defaults in places); Kafka's classes log through
    # slf4j/log4j2: errors only (SimpleHeaderConverter warns about every
    # header it falls back to bytes for).
    "$GOLDEN_JAVA" -Dlog4j2.level=ERROR -Duser.timezone=UTC -Duser.language=en -Duser.country=US \
        -Dfile.encoding=UTF-8 -cp "$classes:$classpath" "$program" "$out"
)

golden_finish() {
    local script=$1 golden=$2 tmp=$3 check=$4 start=$5
    echo >>"$tmp"
    if ((check)); then
        if ! diff -u "$golden" "$tmp"; then
            echo "$script: $golden is not what Kafka Connect gives: rerun without --check" >&2
            exit 1
        fi
        echo "$script: $golden is up to date ($((SECONDS - start)) s)" >&2
    else
        mkdir -p "$(dirname "$golden")"
        chmod 644 "$tmp"
        mv "$tmp" "$golden"
        echo "$script: wrote $golden ($((SECONDS - start)) s)" >&2
    fi
}
