// LAGraph's direction-switch rule for BFS, one level at a time: the C statement of
// gblas/backend/bfs_rule.py's direction_rule (which the Python level loop and, compiled by
// Numba, the CPU searches run), so that every search takes the same direction at every
// level. Included by formats/csr/bfs_common.cuh (the fused and level kernels of one GPU)
// and distributed/bfs_levels.cu (the distributed search); the Python side inlines it
// (gblas.backend.cuda.inline_includes).
//
// Before level k: nq, last_nq the frontier sizes of levels k - 1 and k - 2, scout the
// frontier's out-edges (read only before the first pull). Updates the four state words.
__device__ __forceinline__ void bfs_direction_rule(long long& do_push, long long& push_pull,
                                                   long long& any_pull,
                                                   long long& edges_unexplored, long long nq,
                                                   long long last_nq, long long scout,
                                                   long long n, double alpha, double beta1,
                                                   double beta2) {
  if (!push_pull) return;
  if (do_push) {
    const bool growing = nq > last_nq;
    bool sw;
    if (edges_unexplored < n) {  // little is left: stay push
      push_pull = 0;
      sw = false;
    } else if (any_pull) {
      sw = growing && (double)nq > (double)n / beta1;
    } else {
      edges_unexplored -= scout;
      sw = growing && (double)scout > (double)edges_unexplored / alpha;
    }
    do_push = !sw;
  } else if (nq < last_nq && (double)nq <= (double)n / beta2) {
    do_push = 1;
  }
  any_pull = any_pull || !do_push;
}
