# A transpose read only as a matmul's rhs is not written out: the matmul's
# packing reads the [N, K] operand directly (lib/dispatch/Views.cpp), so
# q @ k^T is one dispatch and --explain says its rhs is transposed. A
# transpose that is also returned stays a dispatch of its own.
cat > qkt.graph <<'G'
func @qkt(%q: tensor<5x3xf32>, %k: tensor<4x3xf32>) -> tensor<5x4xf32> {
  %z = constant 0.0 : f32
  %kt = transpose %k {perm = [1, 0]} : tensor<3x4xf32>
  %e = empty : tensor<5x4xf32>
  %f = fill %z, %e : tensor<5x4xf32>
  %r = matmul %q, %kt, %f : tensor<5x4xf32>
  return %r
}
func @both(%q: tensor<5x3xf32>, %k: tensor<4x3xf32>) -> (tensor<5x4xf32>, tensor<3x4xf32>) {
  %z = constant 0.0 : f32
  %kt = transpose %k {perm = [1, 0]} : tensor<3x4xf32>
  %e = empty : tensor<5x4xf32>
  %f = fill %z, %e : tensor<5x4xf32>
  %r = matmul %q, %kt, %f : tensor<5x4xf32>
  return %r, %kt
}
G
"$GRAFT" build qkt.graph -o qkt.graft --explain > explain.txt
check "$TEST_DIR/transpose_view.sh" < explain.txt
# CHECK: x86-64-v4 (
# CHECK-NEXT: qkt_dispatch_0_matmul_pack: packs the matmul's rhs (kc x 32 per workgroup, kc 1360) where 2 or more rows of workgroups read it, its lhs (12 x kc per workgroup) where several columns do, once per call
# CHECK-NEXT: qkt_dispatch_0_matmul: packed matmul, register tile 12x32, block up to 384x256, lhs block 96, kc 184 (1360 where its rhs is packed before), rhs transposed
# CHECK-NEXT: both_dispatch_1_transpose: tile 128x64, transposed in 8x8 squares through registers
# CHECK-NEXT: both_dispatch_2_matmul_pack: packs the matmul's rhs (kc x 32 per workgroup, kc 1360) where 3 or more rows of workgroups read it, its lhs (12 x kc per workgroup) where several columns do, once per call
# CHECK-NEXT: both_dispatch_2_matmul: packed matmul, register tile 12x32, block up to 384x256, lhs block 96, kc 184 (1360 where its rhs is packed before){{$}}

# Exact results (small integers in f32), the same from graft eval, on
# every variant the CPU runs.
q="5x3xf32=1 2 0 -1 0 3 2 2 2 0 1 -2 4 0 1"
k="4x3xf32=1 0 2 -1 3 0 0 0 1 2 2 2"
"$GRAFT" eval qkt.graph --function qkt --input "$q" --input "$k" > want.txt
check "$TEST_DIR/transpose_view.sh" --check-prefix=QKT < want.txt
# QKT: 5x4xf32=[1 5 0 6][5 1 3 4][6 4 2 12][-4 3 -2 -2][6 -4 1 10]{{$}}
ran=0
for level in ${TARGET_LEVELS[$HOST_TARGET]}; do
  host_runs_level "$HOST_TARGET" "$level" || continue
  ran=$((ran + 1))
  "$GRAFT_RUN" qkt.graft --function qkt --isa "$level" --input "$q" --input "$k" > got.txt
  diff want.txt got.txt
  "$GRAFT_RUN" qkt.graft --function both --isa "$level" --input "$q" --input "$k" > both.txt
  check "$TEST_DIR/transpose_view.sh" --check-prefix=BOTH < both.txt
done
[[ $ran -gt 0 ]] || { echo "error: no feature level of $HOST_TARGET runs here"; exit 1; }
# BOTH: 5x4xf32=[1 5 0 6][5 1 3 4][6 4 2 12][-4 3 -2 -2][6 -4 1 10]{{$}}
# BOTH-NEXT: 3x4xf32=[1 -1 0 2][0 3 0 2][2 0 1 2]{{$}}
