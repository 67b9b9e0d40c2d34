/* One binary, no bundle file: runs the MLP and the affine functions from the
 * bundles linked in by graft_add_bundle(... EMBED), through the typed entry
 * points of the generated headers mlp.h and affine.h. */
#include <stdio.h>
#include <stdlib.h>

#include "affine.h"
#include "mlp.h"

/* Prints |t| as "name: <text form>" and releases it. */
static graft_status_t print_tensor(const char* name, graft_tensor_t* t) {
  char* text = NULL;
  graft_status_t status = graft_tensor_format(t, &text);
  if (!status) printf("%s: %s\n", name, text);
  free(text);
  graft_tensor_release(t);
  return status;
}

static graft_status_t run_mlp(void) {
  graft_module_t* module = NULL;
  graft_tensor_t lhs = {0}, rhs = {0}, result = {0};
  graft_status_t status = mlp_open(NULL, &module);
  if (!status) status = graft_tensor_parse("2x2xf32=[[2 2][-2 -2]]", &lhs);
  if (!status) status = graft_tensor_parse("2x2xf32=[[3 -3][3 -3]]", &rhs);
  /* result.data is NULL: the runtime allocates it. */
  if (!status) status = mlp_mlp(module, &lhs, &rhs, &result);
  if (!status) status = print_tensor("mlp", &result);
  graft_tensor_release(&lhs);
  graft_tensor_release(&rhs);
  graft_tensor_release(&result);
  mlp_close(module);
  return status;
}

static graft_status_t run_affine(void) {
  graft_runtime_options_t options;
  graft_runtime_options_initialize(&options);
  options.threads = 2;
  graft_module_t* module = NULL;
  graft_tensor_t x = {0}, y = {0}, n = {0}, counted = {0};
  int64_t twice = 0;
  graft_status_t status = affine_open(&options, &module);
  if (!status) status = graft_tensor_parse("3xf32=[1 2 3]", &x);
  if (!status) status = affine_affine(module, &x, 0.5f, &y, &twice);
  if (!status) status = print_tensor("affine", &y);
  if (!status) printf("twice: %lld\n", (long long)twice);
  if (!status) status = graft_tensor_parse("4xi32=[1 2 3 4]", &n);
  /* Caller storage for the result: filled in place. */
  int32_t storage[4] = {0};
  counted.data = storage;
  counted.size = sizeof storage;
  if (!status) status = affine_count_up(module, &n, &counted);
  if (!status)
    printf("count.up: %d %d %d %d\n", storage[0], storage[1], storage[2], storage[3]);
  /* A wrong input is the runtime's usual error, not a crash. */
  if (!status) {
    graft_status_t wrong = affine_count_up(module, &x, &counted);
    printf("wrong input: %s\n", wrong ? graft_status_message(wrong) : "accepted");
    graft_status_free(wrong);
  }
  graft_tensor_release(&x);
  graft_tensor_release(&y);
  graft_tensor_release(&n);
  affine_close(module);
  return status;
}

int main(void) {
  graft_status_t status = run_mlp();
  if (!status) status = run_affine();
  if (status) {
    fprintf(stderr, "embed_app: error: %s\n", graft_status_message(status));
    graft_status_free(status);
    return 1;
  }
  return 0;
}
