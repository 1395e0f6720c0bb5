# shellcheck shell=bash
# Choosing the JDK a service runs with, the one copy of it that
# scripts/oauth.sh (Keycloak: Java 17, 21 or 25) and scripts/registry.sh
# (Apicurio Registry: Java 21 or newer) both source. The default `java` of a
# machine may be older than a service needs while a newer JDK sits beside it
# under /usr/lib/jvm.
#
# The sourcing script defines log and die.

# java_major JAVA: the feature version of that java (17, 21, 25, ...).
java_major() {
    "$1" -version 2>&1 | sed -n 's/.* version "\([0-9]*\)[."].*/\1/p' | head -1
}

# java_pick HOME_VAR WHAT VERSIONS...: print the newest java among those
# found whose feature version VERSIONS accepts: each is N (exactly N) or N+
# (N or newer). If the variable named HOME_VAR (OAUTH_JAVA_HOME,
# SCHEMA_REGISTRY_JAVA_HOME) is set, its JDK is the only one considered;
# otherwise /usr/lib/jvm/*, $JAVA_HOME and `java` on the PATH. Dies naming
# WHAT (e.g. "Keycloak 26.7.3") and the candidates when none fits.
java_pick() {
    local home_var="$1" what="$2" home candidates=() j v want best="" best_v=0 ok
    shift 2
    home="${!home_var:-}"
    if [[ -n "$home" ]]; then
        candidates=("$home/bin/java")
    else
        candidates=(/usr/lib/jvm/*/bin/java)
        [[ -n "${JAVA_HOME:-}" ]] && candidates+=("$JAVA_HOME/bin/java")
        command -v java >/dev/null && candidates+=("$(command -v java)")
    fi
    for j in "${candidates[@]}"; do
        [[ -x "$j" ]] || continue
        v="$(java_major "$j")"
        [[ "$v" =~ ^[0-9]+$ ]] || continue
        ok=0
        for want in "$@"; do
            if [[ "$want" == *+ ]]; then
                ((v >= ${want%+})) && ok=1
            elif ((v == want)); then
                ok=1
            fi
        done
        if ((ok && v > best_v)); then
            best="$j"
            best_v="$v"
        fi
    done
    [[ -n "$best" ]] || die "no JDK that $what supports (Java $*) among ${candidates[*]:-nothing}; install one (apt-get install openjdk-21-jre-headless; Temurin from https://adoptium.net) or set $home_var"
    echo "$best"
}
