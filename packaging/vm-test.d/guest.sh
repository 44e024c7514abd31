#!/bin/bash
# packaging/vm-test's side inside the booted VM: run by the image's
# vmtest-early.service (PART=early, before tocada.service starts) and
# vmtest-hook.service (PART=main, once it has started or failed), from the
# share disk the host made for this boot. Its standard output is the
# results port, one record a line, read by the host:
#   OK what | FAIL what | LOG text      checks and notes
#   OUT json                            the daemon's standard output (journal)
#   LINE seq json                       a line a reader saw committed
#   PLAYING                             the game is under way: cut when you like
#   EXPOSURE x.y | WATCHDOG s | ...     figures
#   DONE                                this boot's part is over
# PHASE (the share's `phase` file): lifecycle (the package's life: previous
# release, upgrade mid-game, watchdog, bad config, journal, security,
# remove, purge, then the power-cut game), cut (after a power cut: the
# store checked, the game played on until the host cuts again), final
# (after the last cut: checked, played on, stopped cleanly).
set -u
PART=$1
share=$2
phase=$(cat "$share/phase")
export DEBIAN_FRONTEND=noninteractive PATH=/usr/sbin:/usr/bin:/sbin:/bin

db=/var/lib/tocada/games.sqlite
feed=/var/lib/tocada-feed/game.jsonl
dropin=/etc/systemd/system/tocada.service.d/vm-test-feed.conf

ok() { echo "OK $*"; }
bad() { echo "FAIL $*"; }
log() { echo "LOG $*"; }
as_tocada() { setpriv --reuid=tocada --regid=tocada --clear-groups "$@"; }
prop() { systemctl show -P "$1" tocada.service; }
apt_install() {
    apt install -y -q -o Dpkg::Use-Pty=0 -o Dpkg::Options::=--force-confold "$@" 2>&1 |
        sed 's/^/LOG apt: /'
    return "${PIPESTATUS[0]}"
}

# The game the simulated hands play, fed by systemd as the daemon's standard
# input (board.stdin = "script": each line at its time), and the settings.
setup_game() {
    mkdir -p /var/lib/tocada-feed "$(dirname "$dropin")"
    cp "$share/game.jsonl" "$feed"
    cat >/etc/tocada/tocada.toml <<'EOF'
# packaging/vm-test: the simulated board, fed a game on standard input.
[clock]
preset = "rapid"
[board]
kind = "sim"
stdin = "script"
# The presets, one of which the daemon warns about (15 s, not 15 minutes),
# so that the journal carries a warning too.
[[preset]]
name = "rapid"
time_control = "900+10"
mode = "rapid"
[[preset]]
name = "typo"
time_control = "15+10"
EOF
    cat >"$dropin" <<EOF
# packaging/vm-test: the game the simulated hands play (docs/src/run.md,
# "Under systemd").
[Service]
StandardInput=file:$feed
StandardOutput=journal
EOF
    systemctl daemon-reload
    # These files are the test's, not the package's: on disk before any
    # cut (a power cut after a plain write leaves an empty file on ext4).
    sync
}

# The journal's words for "since $1": a Unix time, or "boot" for this boot.
since() { if [ "$1" = boot ]; then echo -b; else echo "--since=@$1"; fi; }

# The daemon's standard output since $1, from the journal, as OUT lines.
stream_out() {
    journalctl "$(since "$1")" -u tocada.service -o cat -f -n all 2>/dev/null |
        grep --line-buffered '^{' | sed -u 's/^/OUT /'
}

# Every line committed to the store, as a reader sees it: LINE seq json.
stream_lines() {
    local last=-1 rows
    while true; do
        if [ -f "$db" ]; then
            rows=$(as_tocada sqlite3 -batch -separator ' ' "file:$db?mode=ro" \
                "select seq, line from event where game = (select max(id) from game) and seq > $last order by seq" 2>/dev/null) || rows=
            if [ -n "$rows" ]; then
                # One write a record (sed -u): the daemon's lines share the port.
                printf '%s\n' "$rows" | sed -u 's/^/LINE /'
                last=$(printf '%s\n' "$rows" | tail -n 1 | cut -d' ' -f1)
            fi
        fi
        sleep 0.25
    done
}

moves_in() { grep -c '"effect":"move"' "$1" || true; }
sans() { grep '"effect":"move"' "$1" | sed -n 's/.*"san":"\([^"]*\)".*/\1/p' | tr '\n' ' '; }

# The journal's OUT lines until one matches PATTERN (or TIMEOUT s).
wait_out() {
    local pattern=$1 timeout=$2 since=$3 i=0
    while [ $i -lt $((timeout * 4)) ]; do
        journalctl -u tocada.service "$(since "$since")" -o cat 2>/dev/null | grep -q -- "$pattern" && return 0
        sleep 0.25
        i=$((i + 1))
    done
    return 1
}
moves_since() { journalctl -u tocada.service "$(since "$1")" -o cat 2>/dev/null | grep -c '"effect":"move"' || true; }

# --- After a power cut, before the daemon opens the store -------------------
check_store() {
    if [ ! -f "$db" ]; then
        bad "no $db after the cut"
        return
    fi
    # A copy as the cut left it (the WAL with it, the shared-memory index
    # rebuilt), so that checking it changes nothing the daemon will see.
    local copy=/run/vmtest/cut
    rm -rf "$copy"
    mkdir -p "$copy"
    cp "$db" "$copy/games.sqlite"
    [ -f "$db-wal" ] && cp "$db-wal" "$copy/games.sqlite-wal"
    local integrity
    integrity=$(sqlite3 -batch "$copy/games.sqlite" 'PRAGMA integrity_check' 2>&1 | tr '\n' ' ')
    echo "INTEGRITY ${integrity% }"
    sqlite3 -batch -separator ' ' "$copy/games.sqlite" \
        'select seq, line from event where game = (select max(id) from game) order by seq' \
        >"$copy/stored" 2>&1
    echo "STORED_LINES $(wc -l <"$copy/stored")"
    # Every line a reader saw committed before the cut is still there.
    touch "$share/precut"
    local lost
    lost=$(sort "$share/precut" | comm -23 - <(sort "$copy/stored") | wc -l)
    echo "LOST_LINES $lost"
    # The moves in them, replayed by tocada: the ones before the cut are the
    # first ones after it.
    cut -d' ' -f2- "$share/precut" | tocada replay >"$copy/before.out" 2>/dev/null
    cut -d' ' -f2- "$copy/stored" | tocada replay >"$copy/after.out" 2>/dev/null
    local before after
    before=$(sans "$copy/before.out")
    after=$(sans "$copy/after.out")
    echo "MOVES_BEFORE $(moves_in "$copy/before.out") MOVES_AFTER $(moves_in "$copy/after.out")"
    case $after in
    "$before"*) echo "LOST_MOVES 0" ;;
    *)
        echo "LOST_MOVES $(moves_in "$copy/before.out")"
        log "before the cut: $before"
        log "after the cut:  $after"
        ;;
    esac
}

# --- The package's life ------------------------------------------------------
lifecycle() {
    local since pid0 pid1 n0 t0 t1 m

    mkdir -p /root/debs/previous /root/debs/new
    cp "$share"/previous/*.deb /root/debs/previous/
    cp "$share"/new/*.deb /root/debs/new/
    local previous new
    previous=$(dpkg-deb -f /root/debs/previous/*.deb Version)
    new=$(dpkg-deb -f /root/debs/new/*.deb Version)

    # The previous release, a game under way on it.
    (cd /root/debs/previous && apt_install ./tocada_*.deb) &&
        ok "apt install the previous release ($previous)" || bad "apt install the previous release"
    [ "$(dpkg-query -W -f '${Version}' tocada)" = "$previous" ] || bad "installed: $(dpkg-query -W -f '${Version}' tocada)"
    [ "$(prop UnitFileState)" = disabled ] && ok "installed neither enabled" || bad "unit file state $(prop UnitFileState)"
    [ "$(prop ActiveState)" = inactive ] && ok "nor started" || bad "started by the install"
    setup_game
    since=$(date +%s)
    if systemctl start tocada.service && [ "$(prop ActiveState)" = active ]; then
        ok "the previous release reaches READY"
    else
        bad "the previous release does not start: $(systemctl status tocada.service 2>&1 | tail -n 5 | tr '\n' '|')"
    fi
    for _ in $(seq 120); do
        [ "$(moves_since "$since")" -ge 4 ] && break
        sleep 0.5
    done
    m=$(moves_since "$since")
    [ "$m" -ge 4 ] && ok "a game under way on the previous release ($m moves)" ||
        bad "no game on the previous release ($m moves)"

    # The upgrade, mid-game.
    pid0=$(prop MainPID)
    since=$(date +%s)
    (cd /root/debs/new && apt_install ./tocada_*.deb) &&
        ok "apt install the new release ($new) over it, mid-game" || bad "the upgrade"
    [ "$(dpkg-query -W -f '${Version}' tocada)" = "$new" ] || bad "installed after the upgrade: $(dpkg-query -W -f '${Version}' tocada)"
    pid1=$(prop MainPID)
    [ "$pid1" != "$pid0" ] && [ "$(prop ActiveState)" = active ] &&
        ok "the upgrade restarted the running clock on the new binary" ||
        bad "the clock was not restarted by the upgrade (pid $pid0, now $pid1, $(prop ActiveState))"
    if wait_out game_restored 60 "$since"; then
        ok "the new release restored the game: $(journalctl -u tocada.service --since "@$since" -o cat | grep game_restored | tail -n 1)"
    else
        bad "no game_restored after the upgrade"
    fi
    # Moves played by the new binary: after its game_restored line.
    new_moves() {
        journalctl -u tocada.service "$(since "$since")" -o cat 2>/dev/null |
            sed -n '/game_restored/,$p' | grep -c '"effect":"move"' || true
    }
    for _ in $(seq 120); do
        [ "$(new_moves)" -ge 3 ] && break
        sleep 0.5
    done
    m=$(new_moves)
    [ "$m" -ge 3 ] && ok "the game continues on the new release ($m moves after it restored the game)" ||
        bad "the game does not continue after the upgrade ($m moves)"
    journalctl -u tocada.service --since "@$since" -o cat | grep -q 'not the restored game' &&
        bad "the new release refused the script after the upgrade"

    # The publisher beside the clock (issue 14): installed neither enabled
    # nor started, under its own user, who can read the live store (its
    # WAL and shared-memory index too) read-only through the tocada group.
    [ "$(systemctl show -P UnitFileState tocada-publish.service)" = disabled ] &&
        [ "$(systemctl show -P ActiveState tocada-publish.service)" = inactive ] &&
        ok "tocada-publish.service installed, neither enabled nor started" ||
        bad "tocada-publish.service: $(systemctl show -P LoadState,UnitFileState,ActiveState tocada-publish.service | tr '\n' ' ')"
    local readable
    readable=$(setpriv --reuid=tocada-publish --regid=tocada-publish --init-groups \
        sqlite3 -readonly "$db" 'select count(*) from event' 2>&1)
    [[ $readable =~ ^[0-9]+$ ]] && [ "$readable" -gt 0 ] &&
        ok "the tocada-publish user reads the live store, read-only ($readable events)" ||
        bad "the tocada-publish user cannot read the store: $readable ($(ls -la /var/lib/tocada | tr '\n' '|'))"

    # The watchdog: a stopped loop is killed and restarted. Timed from the
    # monotonic clock before the signal to the new process's start as
    # systemd stamped it, so this script's polling adds nothing.
    pid0=$(prop MainPID)
    n0=$(prop NRestarts)
    t0=$(cut -d' ' -f1 /proc/uptime)
    systemctl kill -s SIGSTOP tocada.service
    t1=
    for _ in $(seq 200); do
        pid1=$(prop MainPID)
        if [ "$pid1" != "$pid0" ] && [ "$pid1" != 0 ]; then
            t1=$(prop ExecMainStartTimestampMonotonic)
            break
        fi
        sleep 0.2
    done
    if [ -n "$t1" ]; then
        local took limit
        took=$(awk "BEGIN { printf \"%.1f\", $t1 / 1000000 - $t0 }")
        echo "WATCHDOG $took"
        # WatchdogSec=10s + RestartSec=2s, and a second for systemctl
        # itself to deliver the signal under emulation.
        limit=$(($(systemctl show -P WatchdogUSec tocada.service | sed 's/s$//') + 2 + 1))
        awk "BEGIN { exit !($took <= $limit) }" &&
            ok "SIGSTOP: killed by the watchdog and restarted in ${took}s (limit ${limit}s)" ||
            bad "SIGSTOP: restarted only after ${took}s (limit ${limit}s)"
        [ "$(prop NRestarts)" -gt "$n0" ] || bad "NRestarts did not grow"
        journalctl -u tocada.service -b | grep -q -i 'watchdog timeout' &&
            ok "the journal says it was the watchdog" || bad "no watchdog message in the journal"
    else
        bad "SIGSTOP: not restarted within 40 s"
    fi
    for _ in $(seq 100); do [ "$(prop ActiveState)" = active ] && break; sleep 0.3; done
    [ "$(prop ActiveState)" = active ] && ok "READY again after the watchdog" || bad "not active after the watchdog: $(prop ActiveState)"

    # A bad configuration: exit 78 and no restart loop.
    cp /etc/tocada/tocada.toml /root/tocada.toml.good
    printf '[clock]\nwhite = "middle"\n' >/etc/tocada/tocada.toml
    systemctl restart tocada.service 2>/dev/null
    sleep 1
    local status state n1
    # A manual restart sets NRestarts to 0: it must stay there.
    n0=$(prop NRestarts)
    sleep 8
    status=$(prop ExecMainStatus)
    state=$(prop ActiveState)
    n1=$(prop NRestarts)
    [ "$status" = 78 ] && [ "$state" = failed ] && [ "$n1" = "$n0" ] &&
        ok "a bad configuration: exit 78, failed, not restarted (NRestarts $n1 after 8 s)" ||
        bad "a bad configuration: status $status, $state, NRestarts $n1 (was $n0)"
    cp /root/tocada.toml.good /etc/tocada/tocada.toml
    systemctl reset-failed tocada.service
    systemctl start tocada.service && ok "started again once the configuration is fixed" || bad "no start after the fix"

    # The journal: the daemon's own messages, each with its level.
    local levels
    levels=$(journalctl -u tocada.service -o json --output-fields=PRIORITY,SYSLOG_IDENTIFIER |
        grep '"SYSLOG_IDENTIFIER":"tocada"' | sed -n 's/.*"PRIORITY":"\([0-7]\)".*/\1/p' |
        sort | uniq -c | tr -s ' \n' ' ')
    log "the daemon's journal entries by priority (count priority): $levels"
    # tracing-journald's priorities: error 3, warning 4, info 5 (notice).
    journalctl -u tocada.service -p notice..notice -o cat | grep -q 'clock and board answer' &&
        journalctl -u tocada.service -p warning..warning -o cat | grep -q 'typo' &&
        journalctl -u tocada.service -p err..err -o cat | grep -q 'white' &&
        ok "the journal carries the daemon's messages at their levels: info (notice), warning, error; count by priority: $levels" ||
        bad "the journal's levels (count priority): $levels"

    # systemd's own verdict on the sandbox, on the running system.
    systemd-analyze security tocada.service 2>&1 | sed 's/^/LOG security: /'
    local exposure
    exposure=$(systemd-analyze security tocada.service 2>&1 | sed -n 's/.*Overall exposure level for tocada.service: \([0-9.]*\).*/\1/p')
    echo "EXPOSURE ${exposure:-none}"
    [ -n "$exposure" ] && awk "BEGIN { exit !($exposure <= 1.0) }" &&
        ok "systemd-analyze security: exposure $exposure" || bad "exposure ${exposure:-unknown} (at most 1.0)"

    # Remove keeps the games; purge removes them, the user, and the unit.
    local games
    games=$(as_tocada sqlite3 "$db" 'select count(*) from game' 2>&1)
    apt-get remove -y -q tocada 2>&1 | sed 's/^/LOG apt: /'
    [ "$(as_tocada sqlite3 "$db" 'select count(*) from game' 2>&1)" = "$games" ] && [ "$games" -ge 1 ] &&
        ok "apt remove keeps the games ($games in $db)" || bad "apt remove: games $games, now $(ls -la /var/lib/tocada 2>&1)"
    [ ! -e /usr/lib/systemd/system/tocada.service ] && [ "$(prop ActiveState)" != active ] &&
        ok "apt remove stops the clock and removes the unit" || bad "apt remove left the unit running"
    rm -rf "$(dirname "$dropin")"
    apt-get purge -y -q tocada 2>&1 | sed 's/^/LOG apt: /'
    systemctl daemon-reload
    ! getent passwd tocada >/dev/null && ok "apt purge removes the tocada user" || bad "apt purge left the tocada user"
    [ ! -e /var/lib/tocada ] && [ ! -e /etc/tocada ] && ok "apt purge removes the games and the settings" ||
        bad "apt purge left $(ls -d /var/lib/tocada /etc/tocada 2>/dev/null)"
    local left
    left=$(find /etc/systemd /usr/lib/systemd /lib/systemd /run/systemd/system /var/lib/systemd -name '*tocada*' 2>/dev/null)
    [ -z "$left" ] && [ "$(systemctl show -P LoadState tocada.service)" = not-found ] &&
        ok "apt purge leaves no unit behind" || bad "apt purge left: $left (LoadState $(systemctl show -P LoadState tocada.service))"

    # The power-cut game: the new release, enabled, so every boot starts it.
    (cd /root/debs/new && apt_install ./tocada_*.deb) || bad "apt install for the power cuts"
    setup_game
    game_since=$(date +%s)
    systemctl enable --now tocada.service 2>&1 | sed 's/^/LOG /'
    sync
    [ "$(prop ActiveState)" = active ] && ok "the power-cut game starts" || bad "the power-cut game does not start"
}

# --- Play on until the host cuts the power -----------------------------------
play() {
    local since=$1
    stream_out "$since" &
    stream_lines &
    # Wait until the game is being played (resumed after a restore).
    wait_out '"effect":"\(started\|resumed\|move\)"' 120 "$since" || bad "the game is not under way"
    echo PLAYING
}

case $PART in
early)
    case $phase in cut | final) check_store ;; esac
    ;;
main)
    echo "LOG boot: $(systemd-analyze 2>/dev/null | head -n 1)"
    case $phase in
    lifecycle)
        lifecycle
        play "$game_since"
        ;;
    cut | final)
        [ "$(prop ActiveState)" = active ] && ok "tocada is up after the cut" ||
            bad "tocada is $(prop ActiveState) after the cut: $(journalctl -b -u tocada.service -o cat | tail -n 5 | tr '\n' '|')"
        play boot
        if [ "$phase" = final ]; then
            before=$(moves_since boot)
            for _ in $(seq 60); do
                [ "$(moves_since boot)" -gt "$before" ] && break
                sleep 0.5
            done
            systemctl stop tocada.service
            [ "$(prop ExecMainStatus)" = 0 ] && ok "a clean stop (exit 0)" || bad "stop: status $(prop ExecMainStatus)"
            echo "FINAL_INTEGRITY $(as_tocada sqlite3 "$db" 'PRAGMA integrity_check' 2>&1 | tr '\n' ' ')"
            echo DONE
            sync
            systemctl poweroff
        fi
        ;;
    esac
    wait
    ;;
esac
