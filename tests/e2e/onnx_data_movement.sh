# ONNX Pad, Tile and Split import to graft's pad, tile and split (not to
# gathers and concats), with a dynamic batch, and the bundle built straight
# from the model agrees with numpy. The model comes from
# tests/e2e/inputs/onnx/gen_data_movement.py.
"$GRAFT" import "$ONNX_MODELS/data_movement_dyn.onnx" > "$T/out"
check_out IMPORT
# IMPORT: func @data_movement_dyn(%x: tensor<?x4xf32>) -> (tensor<?x3xf32>, tensor<?x4xf32>, tensor<?x8xf32>) {
# IMPORT: %padded = pad %x, %padded.pad {low = [0, 1], high = [0, 2], mode = constant} : tensor<?x7xf32>
# IMPORT-NEXT: %tiled = tile %padded {repeats = [2, 1]} : tensor<?x7xf32>
# IMPORT-NEXT: %left, %right = split %tiled {axis = 1, sizes = [3, 4]} : tensor<?x3xf32>, tensor<?x4xf32>
# IMPORT-NEXT: %mirror = pad %x {low = [0, 2], high = [0, 2], mode = reflect} : tensor<?x8xf32>

"$GRAFT" build "$ONNX_MODELS/data_movement_dyn.onnx" --target "$HOST_TARGET" -o "$T/dm.graft"
"$PYTHON" -c "
import numpy as np
np.save('$T/x.npy', np.arange(12, dtype=np.float32).reshape(3, 4))"
"$GRAFT_RUN" "$T/dm.graft" --input "@$T/x.npy" --output "@$T/left.npy" --output "@$T/right.npy" \
  --output "@$T/mirror.npy"
"$PYTHON" -c "
import numpy as np
x = np.load('$T/x.npy')
tiled = np.tile(np.pad(x, [(0, 0), (1, 2)], constant_values=0.5), (2, 1))
want = [tiled[:, :3], tiled[:, 3:], np.pad(x, [(0, 0), (2, 2)], mode='reflect')]
for name, w in zip(['left', 'right', 'mirror'], want):
    got = np.load('$T/%s.npy' % name)
    assert got.shape == w.shape and np.array_equal(got, w), (name, got, w)
print('numpy agrees')" > "$T/out"
check_out NUMPY
# NUMPY: numpy agrees
