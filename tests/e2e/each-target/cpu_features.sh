# CPU feature detection of one target ($TARGET; e2e/cpu_features/<target>):
# graft_cpu_data_print (runtime/src/loader/cpu_data_main.c) prints what the
# runtime's graft_cpu_data detects.
#  1. Every CPU feature a level of targets/$TARGET.cpp requires is one the
#     loader's arch/$TARGET.c can detect (else no CPU could ever run it).
#  2. On the host, the detected features agree with the kernel's
#     /proc/cpuinfo flags.
#  3. Under qemu, for each -cpu model the target lists (qemu-cpu records of
#     `graft targets --format=tsv`), the features of the level it names are
#     all detected and those of the next level are not.
tsv=$("$GRAFT" targets --format=tsv)
host_print=$BIN/runtime/src/loader/graft_cpu_data_print
cross_print=$BIN/cross/$TARGET/build/runtime/src/loader/graft_cpu_data_print
[[ -x $host_print ]] || { echo "error: no $host_print" >&2; exit 1; }

# 1. Levels only require detectable features.
table=" $("$host_print" --table | awk -v t="$TARGET" '$1 == "table" && $2 == t { $1 = $2 = ""; print }') "
[[ -n ${table// /} ]] || { echo "error: the loader has no feature table for $TARGET" >&2; exit 1; }
declare -a level_names=()
declare -A level_features=()
while IFS=$'\t' read -r kind target name _bits _regs features; do
  [[ $kind == level && $target == "$TARGET" ]] || continue
  level_names+=("$name")
  level_features[$name]=$features
  for f in $features; do
    if [[ $table != *" $f "* ]]; then
      echo "error: level $name of $TARGET requires '$f', which runtime/src/loader/arch/$TARGET.c cannot detect" >&2
      exit 1
    fi
  done
done <<<"$tsv"
[[ ${#level_names[@]} -gt 0 ]] || { echo "error: $TARGET has no levels" >&2; exit 1; }

detected_features() { # <print command...>: the "features" line's names
  local out
  out=$("$@") || return 1
  grep -q "^arch $TARGET$" <<<"$out" || { echo "error: '$*' printed: $out" >&2; return 1; }
  echo " $(sed -n 's/^features//p' <<<"$out") "
}

# 2. The host against /proc/cpuinfo: LLVM name -> kernel flag name.
if [[ $TARGET == "$HOST_TARGET" ]]; then
  declare -A kernel_name=()
  case $TARGET in
    x86_64)
      kernel_name=([sse3]=pni [ssse3]=ssse3 [sse4.1]=sse4_1 [sse4.2]=sse4_2
        [sse4a]=sse4a [avx]=avx [fma]=fma [fma4]=fma4 [xop]=xop [f16c]=f16c
        [avx2]=avx2 [avx512f]=avx512f [avx512cd]=avx512cd [avx512vl]=avx512vl
        [avx512dq]=avx512dq [avx512bw]=avx512bw [avx512ifma]=avx512ifma
        [avx512vbmi]=avx512vbmi [avx512vpopcntdq]=avx512_vpopcntdq
        [avx512vnni]=avx512_vnni [avx512vbmi2]=avx512_vbmi2
        [avx512bitalg]=avx512_bitalg [avx512bf16]=avx512_bf16
        [avx512fp16]=avx512_fp16 [amx-tile]=amx_tile [amx-int8]=amx_int8
        [amx-bf16]=amx_bf16 [popcnt]=popcnt [cx16]=cx16 [sahf]=lahf_lm
        [bmi]=bmi1 [bmi2]=bmi2 [lzcnt]=abm [movbe]=movbe [xsave]=xsave
        [avxvnni]=avx_vnni)
      flags=" $(grep -m1 '^flags' /proc/cpuinfo | cut -d: -f2) " ;;
    aarch64)
      kernel_name=([fp-armv8]=fp [neon]=asimd [lse]=atomics [crc]=crc32
        [rdm]=asimdrdm [fullfp16]=asimdhp [fp16fml]=asimdfhm [dotprod]=asimddp
        [i8mm]=i8mm [bf16]=bf16 [sve]=sve [sve2]=sve2 [sme]=sme)
      flags=" $(grep -m1 '^Features' /proc/cpuinfo | cut -d: -f2) " ;;
    *)
      echo "error: cpu_features.sh has no /proc/cpuinfo names for host $TARGET" >&2
      exit 1 ;;
  esac
  # Some hypervisors (Firecracker, this project's CI among them) hide
  # leaf 0x80000001 ABM/SSE4A from the kernel's list although cpuid reports
  # them to user space: for those only "the kernel's flag implies detected"
  # is checked.
  declare -A cpuid_only=([sse4a]=1 [lzcnt]=1)
  detected=$(detected_features "$host_print") || exit 1
  echo "detected:$detected"
  bad=0
  for f in "${!kernel_name[@]}"; do
    in_kernel=0; in_graft=0
    [[ $flags == *" ${kernel_name[$f]} "* ]] && in_kernel=1
    [[ $detected == *" $f "* ]] && in_graft=1
    [[ $in_kernel == "$in_graft" ]] && continue
    [[ $in_graft == 1 && -n ${cpuid_only[$f]:-} ]] && continue
    echo "error: $f: /proc/cpuinfo says $in_kernel (${kernel_name[$f]}), graft_cpu_data says $in_graft" >&2
    bad=1
  done
  [[ $bad == 0 ]] || exit 1
  return 0
fi

# 3. qemu CPU models.
qemu=${TARGET_QEMU[$TARGET]}
[[ -x $cross_print ]] || { echo "error: no $cross_print (build it: ninja graft-run-$TARGET)" >&2; exit 1; }
models=0
while IFS=$'\t' read -r kind target model level; do
  [[ $kind == qemu-cpu && $target == "$TARGET" ]] || continue
  models=$((models + 1))
  detected=$(detected_features "$qemu" -cpu "$model" "$cross_print") || exit 1
  echo "$model:$detected"
  next=
  for ((i = 0; i < ${#level_names[@]}; ++i)); do
    [[ ${level_names[i]} == "$level" ]] && next=${level_names[i + 1]:-}
  done
  [[ -n ${level_features[$level]+set} ]] || { echo "error: qemu model $model names unknown level $level" >&2; exit 1; }
  for f in ${level_features[$level]}; do
    if [[ $detected != *" $f "* ]]; then
      echo "error: qemu -cpu $model runs $level, but graft_cpu_data did not detect '$f'" >&2
      exit 1
    fi
  done
  if [[ -n $next ]]; then
    missing=0
    for f in ${level_features[$next]}; do
      [[ $detected == *" $f "* ]] || missing=1
    done
    if [[ $missing == 0 ]]; then
      echo "error: qemu -cpu $model is listed as $level, but it has every feature of $next" >&2
      exit 1
    fi
  fi
done <<<"$tsv"
[[ $models -gt 0 ]] || { echo "error: $TARGET lists no qemu CPU models to test detection under" >&2; exit 1; }
