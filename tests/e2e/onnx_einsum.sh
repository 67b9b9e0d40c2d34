# Einsum (lib/onnx/OnnxEinsum.cpp): operands aligned to one label order,
# multiplied in one map, summed with reduce; repeated labels give
# diagonals; "..." broadcast dims; an implicit output. Values worked by hand.

# a = [[1 2][3 4]], b = [[1 0][1 1]]: ij,jk->ik is a b; ii->i the
# diagonal; "ji" alone means output "ij", a transpose; ...i,...i->... the
# dot of each row pair: 1*1 + 2*0, 3*1 + 4*1.
"$GRAFT" build "$ONNX_MODELS/einsum.onnx" -o einsum.graft
"$GRAFT_RUN" einsum.graft --input "2x2xf32=[[1 2][3 4]]" --input "2x2xf32=[[1 0][1 1]]" > "$T/out"
check_out EINSUM
# EINSUM: 2x2xf32=[3 2][7 4]
# EINSUM-NEXT: 2xf32=1 4
# EINSUM-NEXT: 2x2xf32=[1 3][2 4]
# EINSUM-NEXT: 2xf32=1 7

# The reference evaluator agrees.
"$GRAFT" eval "$ONNX_MODELS/einsum.onnx" --input "2x2xf32=[[1 2][3 4]]" --input "2x2xf32=[[1 0][1 1]]" > "$T/out"
check_out EINSUM
