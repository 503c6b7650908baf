# Shared helpers for the suite runners. Sourced, not executed.
# shellcheck shell=bash disable=SC2034  # variables set here are used by the sourcing script

SUITE_NAME=${SUITE_NAME:?SUITE_NAME must be set before sourcing lib.sh}

die() {
    echo "$SUITE_NAME: error: $*" >&2
    exit 2
}

# Print the last lines of a file to stderr, to explain a failure.
show_tail() {
    local file=$1 lines=${2:-30}
    if [[ -s $file ]]; then
        echo "---- last $lines lines of $file ----" >&2
        tail -n "$lines" "$file" >&2
        echo "----" >&2
    fi
}

is_uint() { [[ $1 =~ ^[0-9]+$ ]]; }

# Common argument parsing. Sets DIR, LABEL, MAX_FAILURES, EXTRA_ARGS (after --)
# and any suite-specific option through the optional callback
# `suite_option NAME VALUE` (returns 0 if it consumed the option).
parse_args() {
    MAX_FAILURES=""
    EXTRA_ARGS=()
    local positional=()
    while (($#)); do
        case $1 in
            --max-failures)
                (($# >= 2)) || die "--max-failures needs a number"
                is_uint "$2" || die "--max-failures needs a non-negative integer, got '$2'"
                MAX_FAILURES=$2
                shift 2
                ;;
            --max-failures=*)
                MAX_FAILURES=${1#*=}
                is_uint "$MAX_FAILURES" || die "--max-failures needs a non-negative integer, got '$MAX_FAILURES'"
                shift
                ;;
            -h | --help)
                usage
                exit 0
                ;;
            --)
                shift
                EXTRA_ARGS=("$@")
                break
                ;;
            --*)
                if declare -F suite_option >/dev/null; then
                    local name=${1%%=*} value
                    if [[ $1 == *=* ]]; then
                        value=${1#*=}
                        shift
                    else
                        (($# >= 2)) || die "$name needs a value"
                        value=$2
                        shift 2
                    fi
                    suite_option "$name" "$value" || die "unknown option $name (see --help)"
                else
                    die "unknown option $1 (see --help)"
                fi
                ;;
            *)
                positional+=("$1")
                shift
                ;;
        esac
    done
    ((${#positional[@]} >= 1 && ${#positional[@]} <= 2)) || {
        usage >&2
        exit 2
    }
    DIR=${positional[0]}
    [[ -d $DIR ]] || die "'$DIR' is not a directory"
    DIR=$(cd "$DIR" && pwd -P)
    LABEL=${positional[1]:-$(basename "$DIR")}
    LOGDIR=${LOGDIR:-/tmp}
    mkdir -p "$LOGDIR" || die "cannot create LOGDIR '$LOGDIR'"
    LOGDIR=$(cd "$LOGDIR" && pwd -P)
    # The label ends up in file names: keep it tame there.
    LOG_STEM="$LOGDIR/$SUITE_NAME-$(printf '%s' "$LABEL" | tr -c 'A-Za-z0-9._-' '_')"
}

# Print the result and exit according to --max-failures.
# finish PASSED FAILED SKIPPED [FAILED_NAMES...]
finish() {
    local passed=$1 failed=$2 skipped=$3
    shift 3
    if ((failed > 0)); then
        echo "  failed: $*"
        echo "  log: $LOG"
    fi
    echo "$SUITE_NAME $LABEL: $passed passed, $failed failed, $skipped skipped"
    if [[ -n $MAX_FAILURES ]] && ((failed > MAX_FAILURES)); then
        echo "$SUITE_NAME: $failed failures exceed --max-failures $MAX_FAILURES" >&2
        exit 1
    fi
    exit 0
}
