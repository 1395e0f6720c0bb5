#!/usr/bin/env bash
# A real, single-node Apache Kafka (KRaft, combined broker+controller) for
# Copycat's tests and demo. The jars come from Maven Central (no tarball, no
# Docker); everything lives under $COPYCAT_CACHE (default ~/.cache/copycat).
#
#   scripts/kafka.sh fetch                 download Kafka jars (idempotent)
#   scripts/kafka.sh start                 format (first time) + start + wait until it answers
#   scripts/kafka.sh restart               stop + start, keeping the data whatever its size
#   scripts/kafka.sh stop                  SIGTERM, wait, SIGKILL (idempotent)
#   scripts/kafka.sh status                exit 0 iff our broker is running and answering
#   scripts/kafka.sh bootstrap             print the bootstrap address (127.0.0.1:PORT)
#   scripts/kafka.sh run-class CLASS ARGS  run a Kafka class (tools) with the Kafka classpath
#   scripts/kafka.sh logs [N]              tail the broker log
#   scripts/kafka.sh reset                 stop and delete the broker's data (next start reformats)
#   scripts/kafka.sh secure-env            print the secure listeners and test credentials (KEY=value lines)
#   scripts/kafka.sh acl ARGS              kafka-acls.sh against the broker (e.g. --add --deny-principal User:copycat ...)
#
# Besides PLAINTEXT on KAFKA_PORT the broker listens, for the secure-cluster
# tests, on KAFKA_PORT+2 SSL (server certificate only), +3 SASL_SSL (SCRAM-SHA-256,
# SCRAM-SHA-512, PLAIN), +4 SASL_PLAINTEXT (PLAIN, SCRAM-SHA-512, OAUTHBEARER
# with unsecured JWTs), +5 SSL with client certificates required (mutual TLS),
# +6 SSL serving an expired certificate, +7 SSL serving a certificate for
# another host name (both for the failure tests) and +8 OIDC, SASL_SSL with
# OAUTHBEARER tokens that Kafka's OAuthBearerValidatorCallbackHandler checks:
# signed with an RSA key made here ($RUN_DIR/tls/oidc.key, published to the
# broker as a JWKS file), issued by http://127.0.0.1:$OAUTH_PORT/realms/copycat
# for the audience kafka. scripts/oauth.sh runs Keycloak signing with that key;
# the broker does not need it running to start.
# A test CA, the broker's certificates and a client certificate are generated
# with openssl under $RUN_DIR/tls; the SCRAM and PLAIN user is copycat /
# copycat-secret. The broker runs Kafka's StandardAuthorizer: User:ANONYMOUS
# (PLAINTEXT, SSL without a client certificate) is a super user; copycat and
# the mutual-TLS client (User:CN=client) may do anything through wildcard
# ACLs, unless a test denies them something with `scripts/kafka.sh acl`; the
# SCRAM-SHA-512 user copycat-limited / copycat-limited-secret may do only what
# a test grants it.
#
# A running broker whose configuration differs from what this script would
# write (an older checkout's) is restarted, keeping its data.
#
# Environment:
#   KAFKA_BOOTSTRAP        use this existing cluster: start/stop do nothing, bootstrap prints it
#   KAFKA_PORT             client (PLAINTEXT) port, default 9092
#   KAFKA_CONTROLLER_PORT  KRaft controller port, default KAFKA_PORT+1
#   KAFKA_START_TIMEOUT    seconds to wait for the broker to answer, default 90
#   KAFKA_MAX_PARTITIONS   start deletes the data first when it holds more partitions
#                          than this (tests never delete their topics), default 1000
#   KAFKA_HEAP_OPTS        broker heap, default "-Xms256m -Xmx512m"
#   OAUTH_PORT             the port of scripts/oauth.sh's Keycloak (the OIDC listener's issuer), default 9180
#   COPYCAT_CACHE          cache root, default ~/.cache/copycat
#
# Useful tool classes (Kafka 4.4):
#   org.apache.kafka.tools.TopicCommand                 (kafka-topics.sh)
#   org.apache.kafka.tools.ConsoleProducer              (kafka-console-producer.sh)
#   org.apache.kafka.tools.consumer.ConsoleConsumer     (kafka-console-consumer.sh)
#   org.apache.kafka.tools.GetOffsetShell               (kafka-get-offsets.sh)
#   org.apache.kafka.tools.consumer.group.ConsumerGroupCommand (kafka-consumer-groups.sh)
#   org.apache.kafka.tools.BrokerApiVersionsCommand     (kafka-broker-api-versions.sh)
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib/maven.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/maven.sh"

KAFKA_VERSION=4.4.0
LOG4J_VERSION=2.24.3
CACHE="${COPYCAT_CACHE:-$HOME/.cache/copycat}"
KAFKA_HOME="$CACHE/kafka-$KAFKA_VERSION"
LIBS="$KAFKA_HOME/libs"
RUN_DIR="$CACHE/kafka-run"
DATA_DIR="$RUN_DIR/data"
CONF="$RUN_DIR/server.properties"
PID_FILE="$RUN_DIR/kafka.pid"
ADDR_FILE="$RUN_DIR/bootstrap"
LOG_FILE="$RUN_DIR/kafka.log"
PORT="${KAFKA_PORT:-9092}"
CONTROLLER_PORT="${KAFKA_CONTROLLER_PORT:-$((PORT + 1))}"
START_TIMEOUT="${KAFKA_START_TIMEOUT:-90}"
STOP_TIMEOUT="${KAFKA_STOP_TIMEOUT:-60}"
TLS_DIR="$RUN_DIR/tls"
SSL_PORT=$((PORT + 2))
SASL_SSL_PORT=$((PORT + 3))
SASL_PLAINTEXT_PORT=$((PORT + 4))
MTLS_PORT=$((PORT + 5))
EXPIRED_PORT=$((PORT + 6))
WRONG_HOST_PORT=$((PORT + 7))
OIDC_PORT=$((PORT + 8))
OIDC_ISSUER="http://127.0.0.1:${OAUTH_PORT:-9180}/realms/copycat"
OIDC_AUDIENCE=kafka
OIDC_JWKS_URL="file://$TLS_DIR/oidc-jwks.json"
SASL_USER=copycat
SASL_PASSWORD=copycat-secret
SASL_LIMITED_USER=copycat-limited
SASL_LIMITED_PASSWORD=copycat-limited-secret
# user mechanism password
SCRAM_CREDENTIALS=(
    "$SASL_USER SCRAM-SHA-256 $SASL_PASSWORD"
    "$SASL_USER SCRAM-SHA-512 $SASL_PASSWORD"
    "$SASL_LIMITED_USER SCRAM-SHA-512 $SASL_LIMITED_PASSWORD"
)
SELF="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")"

log() { echo "kafka.sh: $*" >&2; }
die() {
    log "error: $*"
    exit 1
}

# ---------------------------------------------------------------- fetch

fetch() {
    if [[ -f "$LIBS/.complete" ]]; then
        return 0
    fi
    command -v java >/dev/null || die "java not found (Kafka $KAFKA_VERSION needs Java 17+)"
    command -v mvn >/dev/null || die "mvn not found (used to fetch Kafka jars from Maven Central)"
    log "fetching Apache Kafka $KAFKA_VERSION jars from Maven Central into $LIBS"
    mkdir -p "$KAFKA_HOME"
    local tmp="$KAFKA_HOME/libs.tmp.$$"
    maven_resolve "$KAFKA_HOME/pom.xml" "$tmp" scripts/kafka.sh "Kafka $KAFKA_VERSION" kafka-runtime "
    <dependency>
      <groupId>org.apache.kafka</groupId>
      <artifactId>kafka_2.13</artifactId>
      <version>$KAFKA_VERSION</version>
    </dependency>
    <dependency>
      <!-- TopicCommand, ConsoleProducer/Consumer, GetOffsetShell, ... -->
      <groupId>org.apache.kafka</groupId>
      <artifactId>kafka-tools</artifactId>
      <version>$KAFKA_VERSION</version>
      <exclusions>
        <!-- only needed by connect-plugin-path; drags in Jetty/Jersey -->
        <exclusion>
          <groupId>org.apache.kafka</groupId>
          <artifactId>connect-runtime</artifactId>
        </exclusion>
      </exclusions>
    </dependency>" "Kafka logs through slf4j 1.7"
    maven_require_jars "$tmp" "$KAFKA_VERSION" kafka_2.13
    maven_install "$tmp" "$LIBS"
    write_log4j_configs
    maven_complete "$LIBS"
}

write_log4j_configs() {
    # Broker: INFO to stdout (redirected to $LOG_FILE). Tools: WARN to stderr.
    cat >"$KAFKA_HOME/log4j2-broker.properties" <<'EOF'
status = warn
appender.out.type = Console
appender.out.name = OUT
appender.out.target = SYSTEM_OUT
appender.out.layout.type = PatternLayout
appender.out.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = info
rootLogger.appenderRef.out.ref = OUT
logger.request.name = kafka.request.logger
logger.request.level = warn
logger.statechange.name = state.change.logger
logger.statechange.level = warn
logger.controller.name = org.apache.kafka.controller
logger.controller.level = info
EOF
    cat >"$KAFKA_HOME/log4j2-tools.properties" <<'EOF'
status = warn
appender.err.type = Console
appender.err.name = ERR
appender.err.target = SYSTEM_ERR
appender.err.layout.type = PatternLayout
appender.err.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = warn
rootLogger.appenderRef.err.ref = ERR
EOF
}

# ---------------------------------------------------------------- helpers

# Run a Kafka class in the foreground with JVM flags tuned for short-lived tools.
run_class() {
    fetch
    local class="$1"
    shift
    exec java -Xmx512m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xshare:auto \
        -Djava.awt.headless=true -Dlog4j.shutdownHookEnabled=false \
        -Dlog4j2.configurationFile="$KAFKA_HOME/log4j2-tools.properties" \
        -cp "$LIBS/*" "$class" "$@"
}

# Same, but as a child process (for use inside this script).
tool() { (run_class "$@"); }

our_pid() {
    # Prints the pid of the broker we started, if it is still alive.
    [[ -f "$PID_FILE" ]] || return 1
    local pid
    pid="$(cat "$PID_FILE")"
    [[ "$pid" =~ ^[0-9]+$ ]] || return 1
    kill -0 "$pid" 2>/dev/null || return 1
    # Guard against pid reuse: it must be a JVM running our server.properties.
    tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$CONF" || return 1
    echo "$pid"
}

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

running_bootstrap() {
    if [[ -f "$ADDR_FILE" ]]; then cat "$ADDR_FILE"; else echo "127.0.0.1:$PORT"; fi
}

# One real round-trip: list topics through the admin client (metadata request).
answers() {
    local addr="$1"
    printf 'request.timeout.ms=5000\ndefault.api.timeout.ms=8000\n' >"$RUN_DIR/admin.properties"
    timeout 30 bash "$SELF" run-class org.apache.kafka.tools.TopicCommand \
        --bootstrap-server "$addr" --command-config "$RUN_DIR/admin.properties" --list >/dev/null 2>&1
}

log_tail() {
    if [[ -f "$LOG_FILE" ]]; then
        log "---- last 60 lines of $LOG_FILE ----"
        tail -n 60 "$LOG_FILE" >&2
        log "----"
    fi
}

# ---------------------------------------------------------------- start/stop

random_cluster_id() {
    # A Kafka Uuid: 16 random bytes, base64url without padding; must not start with '-'.
    local id
    while :; do
        id="$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=\n')"
        [[ "$id" != -* && ${#id} -eq 22 ]] && break
    done
    echo "$id"
}

# The test CA, the broker's key and certificate (one PEM file, for 127.0.0.1
# and localhost), a client's, an expired one and one for another host name,
# made once per run directory.
tls_material() {
    [[ -f "$TLS_DIR/wrong-host.pem" ]] && return 0
    command -v openssl >/dev/null || die "openssl is needed for the broker's TLS listeners (apt-get install openssl)"
    rm -rf "$TLS_DIR"
    mkdir -p "$TLS_DIR"
    local d="$TLS_DIR" name
    openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj "/CN=copycat-test-ca" \
        -keyout "$d/ca.key" -out "$d/ca.pem" 2>/dev/null
    # `openssl ca` rather than `openssl x509 -req`: it alone can set a validity
    # window in the past (OpenSSL 3.0).
    cat >"$d/ca.cnf" <<CNF
[ca]
default_ca = test
[test]
database = $d/index.txt
new_certs_dir = $d
serial = $d/serial
default_md = sha256
policy = any
copy_extensions = none
unique_subject = no
[any]
commonName = supplied
[local]
subjectAltName = IP:127.0.0.1,DNS:localhost
[elsewhere]
subjectAltName = DNS:kafka.elsewhere.invalid
CNF
    : >"$d/index.txt"
    echo 01 >"$d/serial"
    for name in broker client expired wrong-host; do
        openssl req -newkey rsa:2048 -nodes -subj "/CN=$name" \
            -keyout "$d/$name.key" -out "$d/$name.csr" 2>/dev/null
        local validity=(-days 3650) ext=local
        [[ $name == expired ]] && validity=(-startdate 20200101000000Z -enddate 20200102000000Z)
        [[ $name == wrong-host ]] && ext=elsewhere
        openssl ca -batch -notext -config "$d/ca.cnf" -cert "$d/ca.pem" -keyfile "$d/ca.key" \
            -in "$d/$name.csr" -out "$d/$name.crt" -extensions "$ext" "${validity[@]}" 2>"$d/ca.log" || {
            cat "$d/ca.log" >&2
            die "signing the test certificate $name failed"
        }
        # PKCS#8 key then certificate: Kafka's PEM keystore format.
        openssl pkcs8 -topk8 -nocrypt -in "$d/$name.key" -out "$d/$name.p8"
        cat "$d/$name.p8" "$d/$name.crt" >"$d/$name.pem"
    done
    log "generated the test CA and certificates in $TLS_DIR"
}

# The OIDC listener's token signing key (PKCS#8 PEM, for the identity
# provider) and its public half as a JWKS file (for the broker), made once
# per run directory. The key id is Keycloak's: the base64url SHA-256 of the
# public key's DER encoding.
oidc_material() {
    [[ -f "$TLS_DIR/oidc-jwks.json" ]] && return 0
    local d="$TLS_DIR" kid hex bytes="" i
    openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$d/oidc.key" 2>/dev/null ||
        die "generating the OIDC signing key failed"
    kid="$(openssl pkey -in "$d/oidc.key" -pubout -outform DER | openssl dgst -sha256 -binary | base64 -w0 | tr '+/' '-_' | tr -d '=')"
    # The modulus, hex to bytes to base64url; the exponent is openssl's 65537 (AQAB).
    hex="$(openssl rsa -in "$d/oidc.key" -noout -modulus 2>/dev/null | cut -d= -f2)"
    for ((i = 0; i < ${#hex}; i += 2)); do bytes+="\\x${hex:i:2}"; done
    printf '{"keys":[{"kty":"RSA","use":"sig","alg":"RS256","kid":"%s","e":"AQAB","n":"%s"}]}\n' "$kid" \
        "$(printf '%b' "$bytes" | base64 -w0 | tr '+/' '-_' | tr -d '=')" \
        >"$d/oidc-jwks.json.tmp"
    mv "$d/oidc-jwks.json.tmp" "$d/oidc-jwks.json"
    log "generated the OIDC signing key and JWKS (kid $kid) in $TLS_DIR"
}

# The test users' SCRAM credentials, and the ACLs that give the full-access
# principals everything (idempotent; needs the broker up). Those wildcard
# ACLs make every resource one "with ACLs", so the limited user gets only
# what a test grants it (allow.everyone.if.no.acl.found no longer applies).
add_users_and_acls() {
    local marker="$DATA_DIR/.copycat-users-acls-v2" entry user mech password
    [[ -f "$marker" ]] && return 0
    # A data directory formatted by an older checkout: add the credentials
    # now, one per request (the broker refuses two for one user).
    if [[ ! -f "$DATA_DIR/.copycat-scram-at-format" ]]; then
        for entry in "${SCRAM_CREDENTIALS[@]}"; do
            read -r user mech password <<<"$entry"
            tool org.apache.kafka.tools.ConfigCommand --bootstrap-server "127.0.0.1:$PORT" --alter \
                --add-config "$mech=[iterations=4096,password=$password]" \
                --entity-type users --entity-name "$user" >"$RUN_DIR/scram.log" 2>&1 || {
                cat "$RUN_DIR/scram.log" >&2
                die "adding the SCRAM user $user failed"
            }
        done
    fi
    tool org.apache.kafka.tools.AclCommand --bootstrap-server "127.0.0.1:$PORT" --add \
        --allow-principal "User:$SASL_USER" --allow-principal "User:CN=client" --operation All \
        --topic '*' --group '*' --transactional-id '*' --cluster >"$RUN_DIR/acls.log" 2>&1 || {
        cat "$RUN_DIR/acls.log" >&2
        die "adding the test ACLs failed"
    }
    touch "$marker"
}

secure_env() {
    cat <<ENV
KAFKA_SSL_BOOTSTRAP=127.0.0.1:$SSL_PORT
KAFKA_SASL_SSL_BOOTSTRAP=127.0.0.1:$SASL_SSL_PORT
KAFKA_SASL_PLAINTEXT_BOOTSTRAP=127.0.0.1:$SASL_PLAINTEXT_PORT
KAFKA_MTLS_BOOTSTRAP=127.0.0.1:$MTLS_PORT
KAFKA_EXPIRED_CERT_BOOTSTRAP=127.0.0.1:$EXPIRED_PORT
KAFKA_WRONG_HOST_BOOTSTRAP=127.0.0.1:$WRONG_HOST_PORT
KAFKA_OIDC_BOOTSTRAP=127.0.0.1:$OIDC_PORT
KAFKA_OIDC_ISSUER=$OIDC_ISSUER
KAFKA_OIDC_AUDIENCE=$OIDC_AUDIENCE
KAFKA_OIDC_SIGNING_KEY=$TLS_DIR/oidc.key
KAFKA_OIDC_JWKS=$TLS_DIR/oidc-jwks.json
KAFKA_TLS_CA=$TLS_DIR/ca.pem
KAFKA_TLS_CLIENT=$TLS_DIR/client.pem
KAFKA_SASL_USER=$SASL_USER
KAFKA_SASL_PASSWORD=$SASL_PASSWORD
KAFKA_SASL_LIMITED_USER=$SASL_LIMITED_USER
KAFKA_SASL_LIMITED_PASSWORD=$SASL_LIMITED_PASSWORD
ENV
}

write_config() {
    local out="${1:-$CONF}"
    cat >"$out" <<EOF
# Generated by scripts/kafka.sh -- single-node KRaft (combined broker+controller) for tests.
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$CONTROLLER_PORT
listeners=PLAINTEXT://127.0.0.1:$PORT,CONTROLLER://127.0.0.1:$CONTROLLER_PORT,SSL://127.0.0.1:$SSL_PORT,SASL_SSL://127.0.0.1:$SASL_SSL_PORT,SASL_PLAINTEXT://127.0.0.1:$SASL_PLAINTEXT_PORT,MTLS://127.0.0.1:$MTLS_PORT,EXPIRED://127.0.0.1:$EXPIRED_PORT,WRONG_HOST://127.0.0.1:$WRONG_HOST_PORT,OIDC://127.0.0.1:$OIDC_PORT
advertised.listeners=PLAINTEXT://127.0.0.1:$PORT,SSL://127.0.0.1:$SSL_PORT,SASL_SSL://127.0.0.1:$SASL_SSL_PORT,SASL_PLAINTEXT://127.0.0.1:$SASL_PLAINTEXT_PORT,MTLS://127.0.0.1:$MTLS_PORT,EXPIRED://127.0.0.1:$EXPIRED_PORT,WRONG_HOST://127.0.0.1:$WRONG_HOST_PORT,OIDC://127.0.0.1:$OIDC_PORT
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_SSL:SASL_SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,MTLS:SSL,EXPIRED:SSL,WRONG_HOST:SSL,OIDC:SASL_SSL
# TLS (PEM files from tls_material); mutual TLS only on MTLS.
ssl.keystore.type=PEM
ssl.keystore.location=$TLS_DIR/broker.pem
ssl.truststore.type=PEM
ssl.truststore.location=$TLS_DIR/ca.pem
listener.name.mtls.ssl.client.auth=required
listener.name.expired.ssl.keystore.type=PEM
listener.name.expired.ssl.keystore.location=$TLS_DIR/expired.pem
listener.name.wrong_host.ssl.keystore.type=PEM
listener.name.wrong_host.ssl.keystore.location=$TLS_DIR/wrong-host.pem
# ACLs: open unless a test adds one for a resource.
authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer
allow.everyone.if.no.acl.found=true
super.users=User:ANONYMOUS
# SASL: SCRAM users live in the cluster metadata (added after start), PLAIN's in
# the JAAS config; OAUTHBEARER takes unsecured JWTs (Kafka's default validator).
listener.name.sasl_ssl.sasl.enabled.mechanisms=SCRAM-SHA-256,SCRAM-SHA-512,PLAIN
listener.name.sasl_plaintext.sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-512,OAUTHBEARER
listener.name.sasl_ssl.scram-sha-256.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;
listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;
listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;
listener.name.sasl_ssl.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required user_$SASL_USER="$SASL_PASSWORD";
listener.name.sasl_plaintext.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required user_$SASL_USER="$SASL_PASSWORD";
listener.name.sasl_plaintext.oauthbearer.sasl.jaas.config=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required unsecuredLoginStringClaim_sub="admin";
# OIDC: signed OAUTHBEARER tokens checked against the JWKS file (the broker's
# JVM runs with -Dorg.apache.kafka.sasl.oauthbearer.allowed.urls=$OIDC_JWKS_URL);
# the principal is the token's azp claim, the client id (User:copycat).
listener.name.oidc.sasl.enabled.mechanisms=OAUTHBEARER
listener.name.oidc.oauthbearer.sasl.jaas.config=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required;
listener.name.oidc.oauthbearer.sasl.server.callback.handler.class=org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallbackHandler
listener.name.oidc.oauthbearer.sasl.oauthbearer.jwks.endpoint.url=$OIDC_JWKS_URL
listener.name.oidc.oauthbearer.sasl.oauthbearer.expected.issuer=$OIDC_ISSUER
listener.name.oidc.oauthbearer.sasl.oauthbearer.expected.audience=$OIDC_AUDIENCE
listener.name.oidc.oauthbearer.sasl.oauthbearer.sub.claim.name=azp
log.dirs=$DATA_DIR
num.partitions=1
auto.create.topics.enable=true
delete.topic.enable=true
offsets.topic.replication.factor=1
offsets.topic.num.partitions=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
num.network.threads=2
num.io.threads=4
log.retention.hours=24
log.segment.bytes=67108864
EOF
}

# `start keep-data` (restart) never deletes the data: a restart stands for a
# broker bouncing under running clients, which must find their topics again.
start() {
    local keep_data="${1:-}"
    if [[ -n "${KAFKA_BOOTSTRAP:-}" ]]; then
        log "KAFKA_BOOTSTRAP is set; using the existing cluster at $KAFKA_BOOTSTRAP"
        echo "$KAFKA_BOOTSTRAP"
        return 0
    fi
    fetch
    mkdir -p "$RUN_DIR"

    local pid addr
    if pid="$(our_pid)"; then
        write_config "$CONF.wanted"
        if ! cmp -s "$CONF" "$CONF.wanted"; then
            log "the running broker's configuration is not this script's; restarting it (data kept)"
            rm -f "$CONF.wanted"
            stop
            start keep-data
            return
        fi
        rm -f "$CONF.wanted"
        addr="$(running_bootstrap)"
        if [[ -n "${KAFKA_PORT:-}" && "$addr" != "127.0.0.1:$KAFKA_PORT" ]]; then
            die "our broker is already running at $addr (pid $pid) but KAFKA_PORT=$KAFKA_PORT; run 'scripts/kafka.sh stop' first"
        fi
        if wait_until_answering "$pid" "$addr"; then
            add_users_and_acls
            log "already running (pid $pid)"
            echo "$addr"
            return 0
        fi
        die "our broker (pid $pid) is running but not answering at $addr; try 'scripts/kafka.sh stop'"
    fi
    rm -f "$PID_FILE" "$ADDR_FILE"

    for p in "$PORT" "$CONTROLLER_PORT" "$SSL_PORT" "$SASL_SSL_PORT" "$SASL_PLAINTEXT_PORT" "$MTLS_PORT" "$EXPIRED_PORT" "$WRONG_HOST_PORT" "$OIDC_PORT"; do
        if port_open "$p"; then
            die "port $p on 127.0.0.1 is already in use by something else; set KAFKA_PORT (and/or KAFKA_CONTROLLER_PORT), or KAFKA_BOOTSTRAP to use an existing cluster"
        fi
    done

    write_config
    tls_material
    oidc_material
    [[ "$keep_data" == keep-data ]] || drop_data_if_overgrown
    if [[ ! -f "$DATA_DIR/meta.properties" ]]; then
        local cluster_id
        cluster_id="$(random_cluster_id)"
        log "formatting $DATA_DIR (cluster id $cluster_id)"
        # The SCRAM users are part of the formatted metadata (--add-scram).
        local scram=() entry user mech password
        for entry in "${SCRAM_CREDENTIALS[@]}"; do
            read -r user mech password <<<"$entry"
            scram+=(--add-scram "$mech=[name=$user,iterations=4096,password=$password]")
        done
        tool kafka.tools.StorageTool format --cluster-id "$cluster_id" --config "$CONF" "${scram[@]}" \
            >"$RUN_DIR/format.log" 2>&1 || {
            cat "$RUN_DIR/format.log" >&2
            die "kafka-storage format failed"
        }
        touch "$DATA_DIR/.copycat-scram-at-format"
    fi

    [[ -f "$LOG_FILE" ]] && mv -f "$LOG_FILE" "$LOG_FILE.1"
    addr="127.0.0.1:$PORT"
    log "starting Kafka $KAFKA_VERSION at $addr (controller 127.0.0.1:$CONTROLLER_PORT, log $LOG_FILE)"
    # setsid: own session, so the broker outlives the caller (just/CI shell) and
    # does not get the caller's Ctrl-C. The inner shell records its own pid and
    # exec's the JVM, so the pid file holds the JVM's pid.
    # shellcheck disable=SC2016,SC2086
    setsid bash -c 'echo $$ >"$0"; exec "$@"' "$PID_FILE" \
        java ${KAFKA_HEAP_OPTS:--Xms256m -Xmx512m} \
        -server -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35 \
        -XX:+ExplicitGCInvokesConcurrent -Djava.awt.headless=true \
        -Dorg.apache.kafka.sasl.oauthbearer.allowed.urls="$OIDC_JWKS_URL" \
        -Dlog4j2.configurationFile="$KAFKA_HOME/log4j2-broker.properties" \
        -Dkafka.logs.dir="$RUN_DIR" \
        -cp "$LIBS/*" kafka.Kafka "$CONF" \
        </dev/null >"$LOG_FILE" 2>&1 9>&- &
    local launcher=$!

    # Wait for the pid file to be written.
    local i
    for ((i = 0; i < 100; i++)); do
        [[ -s "$PID_FILE" ]] && break
        sleep 0.05
    done
    pid="$(cat "$PID_FILE" 2>/dev/null || echo "$launcher")"
    echo "$addr" >"$ADDR_FILE"

    if wait_until_answering "$pid" "$addr"; then
        add_users_and_acls
        log "Kafka is up (pid $pid)"
        echo "$addr"
        return 0
    fi
    log_tail
    if kill -0 "$pid" 2>/dev/null; then
        log "broker did not answer within ${START_TIMEOUT}s; stopping it"
        stop >/dev/null 2>&1 || true
    fi
    die "Kafka failed to start"
}

# Every test, demo and benchmark run makes topics with new names and leaves them
# behind. A broker loads every partition before it answers, so a data directory
# that only grows ends up taking longer to load than START_TIMEOUT (6,700
# partitions took over 90 s on a 2-core machine). Past the limit, start over:
# this broker only ever holds test data.
drop_data_if_overgrown() {
    local max="${KAFKA_MAX_PARTITIONS:-1000}" n
    [[ "$max" =~ ^[0-9]+$ ]] || die "KAFKA_MAX_PARTITIONS must be a whole number, not '$max'"
    [[ -d "$DATA_DIR" ]] || return 0
    n="$(find "$DATA_DIR" -mindepth 1 -maxdepth 1 -type d ! -name '__cluster_metadata-*' | wc -l)"
    if ((n > max)); then
        log "$DATA_DIR holds $n partitions (over KAFKA_MAX_PARTITIONS=$max); deleting it so the broker starts fresh"
        rm -rf "$DATA_DIR"
    fi
}

wait_until_answering() {
    local pid="$1" addr="$2" port="${2##*:}"
    local deadline=$((SECONDS + START_TIMEOUT))
    # Cheap poll until the client port accepts connections...
    until port_open "$port"; do
        kill -0 "$pid" 2>/dev/null || {
            log "broker process $pid exited"
            return 1
        }
        ((SECONDS < deadline)) || {
            log "timed out after ${START_TIMEOUT}s waiting for $addr to accept connections"
            return 1
        }
        sleep 0.2
    done
    # ...then a real metadata round-trip through the admin client.
    until answers "$addr"; do
        kill -0 "$pid" 2>/dev/null || {
            log "broker process $pid exited"
            return 1
        }
        ((SECONDS < deadline)) || {
            log "timed out after ${START_TIMEOUT}s waiting for $addr to answer a metadata request"
            return 1
        }
        sleep 0.5
    done
}

stop() {
    if [[ -n "${KAFKA_BOOTSTRAP:-}" ]]; then
        log "KAFKA_BOOTSTRAP is set; not stopping the external cluster"
        return 0
    fi
    local pid
    if ! pid="$(our_pid)"; then
        rm -f "$PID_FILE" "$ADDR_FILE"
        log "not running"
        return 0
    fi
    log "stopping Kafka (pid $pid)"
    kill -TERM "$pid" 2>/dev/null || true
    local deadline=$((SECONDS + STOP_TIMEOUT))
    while kill -0 "$pid" 2>/dev/null; do
        if ((SECONDS >= deadline)); then
            log "still running after ${STOP_TIMEOUT}s; sending SIGKILL"
            kill -KILL "$pid" 2>/dev/null || true
            break
        fi
        sleep 0.2
    done
    while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
    rm -f "$PID_FILE" "$ADDR_FILE"
    log "stopped"
}

status() {
    if [[ -n "${KAFKA_BOOTSTRAP:-}" ]]; then
        echo "external cluster: $KAFKA_BOOTSTRAP (KAFKA_BOOTSTRAP)"
        return 0
    fi
    local pid addr
    if ! pid="$(our_pid)"; then
        echo "not running"
        return 1
    fi
    addr="$(running_bootstrap)"
    if answers "$addr"; then
        echo "running: pid $pid, bootstrap $addr, data $DATA_DIR, log $LOG_FILE"
        return 0
    fi
    echo "running but NOT answering: pid $pid, bootstrap $addr, log $LOG_FILE"
    return 1
}

bootstrap() {
    if [[ -n "${KAFKA_BOOTSTRAP:-}" ]]; then
        echo "$KAFKA_BOOTSTRAP"
    elif our_pid >/dev/null; then
        running_bootstrap
    else
        echo "127.0.0.1:$PORT"
    fi
}

usage() {
    sed -n '2,/^set -euo/p' "$SELF" | sed -e '$d' -e 's/^# \{0,1\}//' >&2
    exit 2
}

# Serialise start/stop/reset (e.g. two `just test` at once). The broker itself
# must not inherit the lock fd (see `9>&-` on its command line).
lock() {
    mkdir -p "$CACHE"
    exec 9>"$CACHE/kafka-run.lock"
    flock -w 300 9 || die "timed out waiting for $CACHE/kafka-run.lock"
}

cmd="${1:-}"
[[ $# -gt 0 ]] && shift
case "$cmd" in
fetch)
    lock
    fetch
    ;;
start)
    lock
    start
    ;;
stop)
    lock
    stop
    ;;
restart)
    lock
    stop
    start keep-data
    ;;
status) status ;;
bootstrap) bootstrap ;;
run-class)
    [[ $# -ge 1 ]] || usage
    run_class "$@"
    ;;
logs) tail -n "${1:-100}" "$LOG_FILE" ;;
secure-env) secure_env ;;
acl) tool org.apache.kafka.tools.AclCommand --bootstrap-server "$(bootstrap)" "$@" ;;
reset)
    lock
    stop
    rm -rf "$RUN_DIR"
    log "removed $RUN_DIR"
    ;;
*) usage ;;
esac
