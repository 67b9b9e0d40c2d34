# The e2e harness itself (lib/run-one.sh): a failing test is named with its
# own line, also when the command failed inside a helper of common.sh, and
# a passing one says PASS.
cat > fails_in_helper.sh <<'EOF'
echo "hello moon" > "$T/out"
check_out GREETING
# GREETING: hello world
EOF
cat > fails_directly.sh <<'EOF'
true
false
EOF
printf 'true\n' > passes.sh

expect_fail bash "$SRC/tests/e2e/lib/run-one.sh" fails_in_helper.sh
check_out HELPER
# HELPER: FAIL fails_in_helper: {{.*}}/fails_in_helper.sh:2 (in check_out): exit 1:
expect_fail bash "$SRC/tests/e2e/lib/run-one.sh" fails_directly.sh
check_out DIRECT
# DIRECT: FAIL fails_directly: {{.*}}/fails_directly.sh:2: exit 1: false
bash "$SRC/tests/e2e/lib/run-one.sh" passes.sh > "$T/out"
check_out PASS
# PASS: PASS passes
