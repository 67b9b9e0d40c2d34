# ONNX TensorProto (.pb) files in graft-run and graft eval (runtime/src/io/pb.c):
# read as inputs, written as outputs, round trips, and bad files.
G=$TEST_DIR/inputs/mlp.graph
"$GRAFT" build "$G" -o mlp.graft
"$GRAFT_RUN" mlp.graft --function mlp --input "2x2xf32=[[2 2][-2 -2]]" \
  --input "2x2xf32=[[3 -3][3 -3]]" --output @r.pb
# The file is a TensorProto: dims 2, 2 (field 1), FLOAT (field 2 = 1), raw_data (field 9).
od -An -tx1 -N8 r.pb | tr -s ' ' > "$T/out"
check_out BYTES
# BYTES: 08 02 08 02 10 01 4a 10
"$GRAFT_RUN" mlp.graft --function mlp --input "@r.pb" --input "2x2xf32=[[1 0][0 1]]" > "$T/out"
"$GRAFT" eval "$G" --input "@r.pb" --input "2x2xf32=[[1 0][0 1]]" --output @e.pb
"$GRAFT_RUN" mlp.graft --function mlp --input "@e.pb" --input "2x2xf32=[[1 0][0 1]]" \
  --expected_output "2x2xf32=[[0 0][0 0]]" --atol 0 --rtol 0 >> "$T/out"
check_out ROUND
# r = [[-12 0][0 -12]]; relu(r) = 0, neg -> -0 = 0
# ROUND: 2x2xf32=[0 0][0 0]
# ROUND-NEXT: [SUCCESS] all 1 results of 'mlp' matched the expected values

# --atol / --rtol: numpy's allclose, the ONNX backend tests' tolerances.
expect_fail "$GRAFT_RUN" mlp.graft --function mlp --input "2x2xf32=[[2 2][-2 -2]]" \
  --input "2x2xf32=[[3 -3][3 -3]]" --expected_output "2x2xf32=[[-12.01 0][0 -12]]" \
  --rtol 1e-4 --atol 1e-7
check_out TOL
# TOL: element [0, 0] differs: got -12, expected -12.01 (atol 1e-07, rtol 0.0001)
expect_fail "$GRAFT_RUN" mlp.graft --rtol -1
check_out BADTOL
# BADTOL: --rtol '-1': expected a number >= 0

# Bad files: truncated, a type graft lacks, a shape the data does not fill.
head -c 9 r.pb > short.pb
expect_fail "$GRAFT_RUN" mlp.graft --function mlp --input @short.pb --input "2x2xf32=1"
check_out SHORT
# SHORT: 'short.pb': malformed TensorProto at offset 8: field runs past the end of the data or has a bad wire type
printf '\x08\x02\x10\x02\x4a\x02\x01\x02' > u8.pb
expect_fail "$GRAFT_RUN" mlp.graft --function mlp --input @u8.pb --input "2x2xf32=1"
check_out U8
# U8: 'u8.pb': TensorProto data_type 2 is not supported (graft reads FLOAT, DOUBLE, FLOAT16, BFLOAT16, INT8, INT16, INT32, INT64, BOOL)
printf '\x08\x02\x08\x02\x10\x01\x4a\x04\x00\x00\x80\x3f' > few.pb
expect_fail "$GRAFT_RUN" mlp.graft --function mlp --input @few.pb --input "2x2xf32=1"
check_out FEW
# FEW: 'few.pb': raw_data holds 4 bytes, the shape needs 16
# A shape of 2^50 floats with 4 bytes of data is refused for the data
# before anything is allocated (not "cannot allocate").
printf '\x08\x80\x80\x40\x08\x80\x80\x40\x08\x80\x08\x10\x01\x4a\x04\x00\x00\x80\x3f' > huge.pb
expect_fail "$GRAFT_RUN" mlp.graft --function mlp --input @huge.pb --input "2x2xf32=1"
check_out HUGE
# HUGE: 'huge.pb': raw_data holds 4 bytes, the shape needs 4503599627370496
# float_data (field 4, packed): the typed form ONNX writers also use.
# The identity [[1 0][0 1]] as float_data, unpacked dims.
printf '\x08\x02\x08\x02\x10\x01\x22\x10\x00\x00\x80\x3f\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80\x3f' > typed.pb
"$GRAFT_RUN" mlp.graft --function mlp --input @typed.pb --input "2x2xf32=[[-1 2][3 -4]]" > "$T/out"
check_out TYPED
# TYPED: 2x2xf32=[0 -2][-3 0]
printf '\x08\x02\x10\x01\x22\x04\x00\x00\x80\x3f' > onefloat.pb
expect_fail "$GRAFT_RUN" mlp.graft --function mlp --input @onefloat.pb --input "2x2xf32=1"
check_out COUNT
# COUNT: 'onefloat.pb': the TensorProto holds 1 elements for its data type (and 0 in other fields), its shape needs 2
