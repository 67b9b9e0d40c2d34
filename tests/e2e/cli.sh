# The command line as a user meets it: `graft` alone prints the usage to
# stderr and exits 2; each command has its own --help page (synopsis,
# options, examples, exit status, environment); --color=always|never|auto
# colours diagnostics (clang's too for C kernels) and -q drops warnings.

# No command: the overview on stderr, exit 2, nothing on stdout.
set +e
"$GRAFT" >stdout.txt 2>stderr.txt
rc=$?
set -e
[[ $rc == 2 ]]
[[ ! -s stdout.txt ]]
check "$TEST_DIR/cli.sh" --check-prefix=USAGE <stderr.txt
# USAGE: usage: graft <command> [options]
# USAGE: commands:
# USAGE-NEXT: build compile a graph
# USAGE-NEXT: import print an ONNX model as a graph
# USAGE-NEXT: check parse and verify a graph
# USAGE-NEXT: eval run a graph with the reference evaluator
# USAGE-NEXT: inspect list the slices of a bundle
# USAGE-NEXT: plugin build a bare-metal plugin
# USAGE-NEXT: spec print the C prototypes
# USAGE-NEXT: targets list the known targets and their feature levels
# USAGE: --color auto|always|never
# USAGE: -q

# Per-command pages, the same with `graft help CMD` and `graft CMD --help`.
"$GRAFT" build --help >build.txt
"$GRAFT" help build | cmp - build.txt
check "$TEST_DIR/cli.sh" --check-prefix=BUILD <build.txt
# BUILD: usage: graft build GRAPH [options]
# BUILD: options:
# BUILD: --spec FILE
# BUILD: --embed STEM
# BUILD: common options:
# BUILD: --color auto|always|never
# BUILD: examples:
# BUILD: graft build mlp.graph --target x86_64,aarch64 -o mlp.graft
# BUILD: exit status:
# BUILD-NEXT: 0 success
# BUILD-NEXT: 1 bad input
# BUILD-NEXT: 2 a usage error
# BUILD: environment:
# BUILD: GRAFT_CLANG
# BUILD: GRAFT_INCLUDE_DIR
# BUILD: TMPDIR
"$GRAFT" check x.graph --help | check "$TEST_DIR/cli.sh" --check-prefix=CHECK
# CHECK: usage: graft check GRAPH [--print]
# CHECK: --print
# CHECK-NOT: --spec
# CHECK: examples:
# CHECK: graft check mlp.graph --print
"$GRAFT" eval -h | check "$TEST_DIR/cli.sh" --check-prefix=EVAL
# EVAL: usage: graft eval GRAPH [--function F] --input T... [--output -|@F.npy]
# EVAL: --input T
expect_fail "$GRAFT" help frobnicate
check "$TEST_DIR/cli.sh" --check-prefix=HELPBAD <"$T/out"
# HELPBAD: graft: error: unknown command 'frobnicate'

# Colour: never by default on a pipe; always on request, in clang's style.
cat >bad.graph <<'G'
func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = frobnicate %x : tensor<2xf32>
  return %y
}
G
expect_fail "$GRAFT" check bad.graph
cp "$T/out" plain.txt
not grep -q $'\033' plain.txt
expect_fail "$GRAFT" check bad.graph --color=never
cmp plain.txt "$T/out"
expect_fail "$GRAFT" --color=always check bad.graph
cp "$T/out" before.txt
expect_fail "$GRAFT" check --color always bad.graph
grep -qF $'\033[1mbad.graph:2:8:\033[0m \033[1;31merror:\033[0m \033[1munknown op' "$T/out"
grep -qF $'\033[1;32m^\033[0m' "$T/out"
# Stripped of its colours it is the plain text; the option may come first.
sed 's/\x1b\[[0-9;]*m//g' "$T/out" | cmp - plain.txt
cmp before.txt "$T/out"
expect_fail "$GRAFT" check bad.graph --color=sometimes
check "$TEST_DIR/cli.sh" --check-prefix=WHEN <"$T/out"
# WHEN: graft: error: --color takes auto, always or never, found 'sometimes'

# clang's own colours for a C kernel's errors.
mkdir k
cat >k/g.graph <<'G'
func @neg(%x: tensor<?xf32>) -> tensor<?xf32> {
  %r = map %x : tensor<?xf32> {
  ^bb0(%v: f32):
    %0 = neg %v : f32
    yield %0
  }
  return %r
}
G
cat >k/s.yaml <<'Y'
graft-spec: 1
rules:
  - name: neg
    match: |
      pattern @neg(%x: tensor<?xf32>) -> tensor<?xf32> {
        %r = map %x : tensor<?xf32> {
        ^bb0(%v: f32):
          %0 = neg %v : f32
          yield %0
        }
        return %r
      }
    replace:
      call: neg_kernel
      outputs: [result]
      args: [x, result, "dim(x, 0) : i64"]
      kernels:
        x86_64: {source: k.c}
Y
echo 'void neg_kernel(const float *x, float *r, long n) { undeclared(); }' >k/k.c
expect_fail "$GRAFT" build k/g.graph --spec k/s.yaml --target x86_64 -o k.graft --color=always
grep -q $'\033\[0;1;31merror: \033\[0m' "$T/out"
expect_fail "$GRAFT" build k/g.graph --spec k/s.yaml --target x86_64 -o k.graft
not grep -q $'\033' "$T/out"

# -q: warnings (an input without functions) go, errors stay.
echo '// nothing here' >empty.graph
"$GRAFT" check empty.graph 2>warn.txt
check "$TEST_DIR/cli.sh" --check-prefix=WARN <warn.txt
# WARN: empty.graph: warning:
"$GRAFT" check -q empty.graph 2>quiet.txt
[[ ! -s quiet.txt ]]
expect_fail "$GRAFT" -q check bad.graph
check "$TEST_DIR/cli.sh" --check-prefix=QERR <"$T/out"
# QERR: bad.graph:2:8: error: unknown op 'frobnicate'
