# Feature levels and how to run each one (sourced by common.sh), from
# `graft targets --format=tsv`:
#   TARGET_LEVELS[<target>]   its levels, lowest first, space-separated
#   LEVEL_FEATURES[<t>/<lvl>] every CPU feature the level needs
#   QEMU_MODELS[<target>]     "model=level ..." of its qemu-cpu records
declare -A TARGET_LEVELS=() LEVEL_FEATURES=() QEMU_MODELS=()
while IFS=$'\t' read -r _kind _t _name _a _b _features; do
  case $_kind in
    level)
      TARGET_LEVELS[$_t]+="${TARGET_LEVELS[$_t]:+ }$_name"
      LEVEL_FEATURES[$_t/$_name]=$_features ;;
    qemu-cpu)
      QEMU_MODELS[$_t]+="${QEMU_MODELS[$_t]:+ }$_name=$_a" ;;
  esac
done < <("$GRAFT" targets --format=tsv)

# level_index <target> <level>: its position among the target's levels.
level_index() {
  local i=0 l
  for l in ${TARGET_LEVELS[$1]}; do
    [[ $l == "$2" ]] && { echo $i; return 0; }
    i=$((i + 1))
  done
  echo "error: $1 has no level '$2' (it has: ${TARGET_LEVELS[$1]})" >&2
  return 1
}

# host_runs_level <target> <level>: the host is <target> and its CPU has
# every feature of <level> (graft_cpu_data_print: what the loader sees).
host_runs_level() {
  [[ $1 == "$HOST_TARGET" ]] || return 1
  local detected f
  detected=" $("$BIN/runtime/src/loader/graft_cpu_data_print" | sed -n 's/^features//p') "
  for f in ${LEVEL_FEATURES[$1/$2]}; do
    [[ $detected == *" $f "* ]] || return 1
  done
}

# cpu_for_level <target> <level>: prints "" when the host runs the level
# natively, else the first qemu model of the target whose best level is
# at least <level>; fails when nothing here can run it.
cpu_for_level() {
  if host_runs_level "$1" "$2"; then
    echo ""
    return 0
  fi
  local want m
  want=$(level_index "$1" "$2") || return 1
  for m in ${QEMU_MODELS[$1]:-}; do
    if [[ $(level_index "$1" "${m##*=}") -ge $want ]]; then
      echo "${m%=*}"
      return 0
    fi
  done
  return 1
}

# levels_here <target>: LEVELS_HERE=("<level>=<qemu model>" ...), the
# levels of <target> something on this machine runs, lowest first (the
# model "" where the host runs it: cpu_for_level); notes each level
# nothing runs, and fails when none is left.
levels_here() {
  LEVELS_HERE=()
  local level model
  for level in ${TARGET_LEVELS[$1]:-}; do
    if model=$(cpu_for_level "$1" "$level"); then
      LEVELS_HERE+=("$level=$model")
    else
      echo "note: nothing on this machine runs $1 $level (host CPU or a qemu model); not run"
    fi
  done
  [[ ${#LEVELS_HERE[@]} -gt 0 ]] || { echo "error: no feature level of $1 runs here" >&2; return 1; }
}

# run_cpu <target> <qemu model or ""> <graft-run args...>: graft-run for
# <target> under that qemu CPU model ("" = natively on the host, or the
# target's qemu with its default CPU).
run_cpu() {
  local target=$1 model=$2 RUNNER
  shift 2
  runner_of "$target" || return 1
  if [[ -n $model ]]; then
    local bin=${RUNNER[-1]}
    RUNNER=("${TARGET_QEMU[$target]}" -cpu "$model" "$bin")
  fi
  "${RUNNER[@]}" "$@"
}
