/* --expected_output: comparing a result with an expected tensor. */
#ifndef GRAFT_RUN_COMPARE_H_
#define GRAFT_RUN_COMPARE_H_

#include "graft/tensor.h"

/* OK when |got| matches |expected|: same dtype and shape; floats within
 * |atol| + |rtol| * |expected| (numpy's allclose; nan matches nan,
 * infinities must be equal); integers exactly. Otherwise an error naming
 * the first differing element and both values. */
graft_status_t graft_run_compare(const graft_tensor_t* got,
                                 const graft_tensor_t* expected, double atol,
                                 double rtol);

#endif /* GRAFT_RUN_COMPARE_H_ */
