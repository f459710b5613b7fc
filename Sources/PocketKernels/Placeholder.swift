/// Placeholder until the kernels land.
enum _PocketKernelsPlaceholder {}
