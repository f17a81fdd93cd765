"""The keys under which ``sched-to-nvvm`` returns facts of the kernel it lowered, in the
driver's compile metadata.  Imports nothing, so the runtime can read a cached compile's
metadata on a machine without the MLIR and LLVM toolchains."""

DATA_PATH_KEY = "nv_data_path"
"""The description of the data path the lowering chose (``warpsched-compile --report``)."""
LOWERED_KEY = "nv_lowered_kernel"
"""The ``LoweredKernel`` (launch facts) ``sched-to-nvvm`` returns for a ``sched.nv_kernel``."""
CROSS_VENDOR_PATH = (
    "an AMD schedule (sched.kernel) on sm_90a: cp.async into its LDS layout, ldmatrix, mma.sync"
)
"""The data path of an AMD schedule lowered for sm_90a."""
