# A chain of 100,000 element-wise maps (issue 11): it builds, in time linear
# in its length, and computes the right thing. Fusion puts at most
# kMaxFusedScalarOps (256) scalar ops into one dispatch, so the chain becomes
# ceil(100000 / 256) = 391 dispatches; every walk over a fused body is
# iterative.
"$PYTHON" - > chain.graph <<'PY'
n = 100000
print("func @chain(%x: tensor<64xf32>) -> tensor<64xf32> {")
print("  %one = constant 1.0 : f32")
prev = "%x"
for i in range(n):
    print(f"  %v{i} = map {prev} : tensor<64xf32> {{\n  ^bb0(%a: f32):\n"
          f"    %0 = add %a, %one : f32\n    yield %0\n  }}")
    prev = f"%v{i}"
print(f"  return {prev}\n}}")
PY
"$GRAFT" build chain.graph -o chain.graft -v 2> build.txt
check "$TEST_DIR/long_chain.sh" --check-prefix=BUILD < build.txt
# BUILD: graft: x86_64 x86-64-v2: 391 dispatch(es)

"$GRAFT_RUN" chain.graft --input 64xf32=0 --threads 2 > run.txt
"$GRAFT" eval chain.graph --input 64xf32=0 > eval.txt
check "$TEST_DIR/long_chain.sh" --check-prefix=RESULT < run.txt
check "$TEST_DIR/long_chain.sh" --check-prefix=RESULT < eval.txt
# RESULT: 64xf32=100000 100000 {{.*}} 100000{{$}}
