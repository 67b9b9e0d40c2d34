/* Printing types and signatures for listings and error messages:
 * declared types as "tensor<?x4xf32>" / "f32", actual tensors as
 * "3x5xf32" (the text form's prefix). Internal to graft_runtime. */
#ifndef GRAFT_RUNTIME_SIGNATURE_H_
#define GRAFT_RUNTIME_SIGNATURE_H_

#include <stddef.h>

#include "graft/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* "3x5xf32", or "f32" for a scalar. Same contract as snprintf. */
size_t graft_tensor_type_format(const graft_tensor_t* t, char* buffer,
                                size_t capacity);

/* "name(arg, ...) -> result" into a malloc'd string (free()). */
graft_status_t graft_function_format_signature(const graft_function_v1_t* f,
                                               char** out_text);

#ifdef __cplusplus
}
#endif

#endif /* GRAFT_RUNTIME_SIGNATURE_H_ */
