# Shared by the CI scripts (source it): logging, the services the tests
# need, a fresh PostgreSQL database for a run, and pinned tools.
# shellcheck shell=bash

export PATH="/usr/local/go/bin:$HOME/go/bin:$PATH"

# -trimpath: builds do not record the checkout's path, so the build cache
# (compiles, vet) is shared by clones at other paths: CI's fresh clone
# reuses what an earlier run on the machine compiled instead of
# recompiling the module (about 4 minutes each for vet and staticcheck).
export GOFLAGS="${GOFLAGS:+$GOFLAGS }-trimpath"

PGHOST=${PGHOST:-127.0.0.1} PGPORT=${PGPORT:-5432} PGUSER=${PGUSER:-postgres}
NATS_PORT=${NATS_PORT:-4222}

# CI_START: when the outermost script began; log prints the time since,
# so a run's output shows where its minutes go.
CI_START=${CI_START:-$(date +%s)}
export CI_START
log() { printf '\n== %s [+%ss]\n' "$*" "$(($(date +%s) - CI_START))"; }

wait_for() { # wait_for SECONDS COMMAND...
	local n=$1
	shift
	for _ in $(seq "$n"); do "$@" >/dev/null 2>&1 && return 0; sleep 1; done
	return 1
}
pg_up() { pg_isready -h "$PGHOST" -p "$PGPORT" -q; }
nats_up() { (exec 3<>"/dev/tcp/127.0.0.1/$NATS_PORT") 2>/dev/null; }

# start_services starts PostgreSQL and NATS JetStream when they do not answer.
start_services() {
	if ! pg_up; then
		echo "PostgreSQL is not answering: starting it"
		pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n1)" main start || true
		wait_for 30 pg_up || { echo "PostgreSQL did not start"; return 1; }
	fi
	if ! nats_up; then
		echo "NATS is not answering: starting it"
		mkdir -p /var/lib/nats-server
		start-stop-daemon --start --oknodo --background --exec /usr/sbin/nats-server -- \
			-a 127.0.0.1 -p "$NATS_PORT" -js -sd /var/lib/nats-server
		wait_for 30 nats_up || { echo "NATS did not start"; return 1; }
	fi
	echo "PostgreSQL and NATS answer"
}

# fresh_database creates a database for this run (dropped on exit) and
# exports the URLs the tests read; tests create (and drop) their own
# databases from it.
fresh_database() {
	CI_DB="commerce_ci_$$_$(date +%s)"
	psql -h "$PGHOST" -p "$PGPORT" -U "$PGUSER" -d postgres -qc "CREATE DATABASE $CI_DB"
	trap drop_database EXIT
	export COMMERCE_TEST_POSTGRES_URL="postgres://$PGUSER@$PGHOST:$PGPORT/$CI_DB?sslmode=disable"
	export COMMERCE_TEST_NATS_URL="nats://127.0.0.1:$NATS_PORT"
}
drop_database() {
	psql -h "$PGHOST" -p "$PGPORT" -U "$PGUSER" -d postgres -qc "DROP DATABASE IF EXISTS $CI_DB WITH (FORCE)" >/dev/null 2>&1 || true
}

# Linters, pinned: bump the versions here (and nowhere else).
STATICCHECK=honnef.co/go/tools/cmd/staticcheck@v0.8.2
GOVULNCHECK=golang.org/x/vuln/cmd/govulncheck@v1.9.0

# tool MODULE@VERSION prints the path of the tool's binary, installing it
# with `go install` (into a cache directory per version) the first time.
tool() {
	local dir bin
	dir="${XDG_CACHE_HOME:-$HOME/.cache}/commerce-tools/$(echo "$1" | tr '/@' '__')"
	bin="$dir/$(basename "${1%@*}")"
	if [ ! -x "$bin" ]; then
		echo "installing $1" >&2
		GOBIN="$dir" go install "$1" >&2 || return 1
	fi
	echo "$bin"
}
