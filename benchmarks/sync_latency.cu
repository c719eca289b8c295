// The latencies a small BFS level is made of (benchmarks/sync_latency.py): one barrier of
// the grid, of a thread-block cluster and of a block, and one dependent load through L2, from
// DRAM, and one dependent atomic. Each kernel loops `iters` times; block 0's thread 0 writes
// the %globaltimer span (ns) to out[0] and a value that keeps the loop alive to out[1].
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__device__ __forceinline__ unsigned long long sl_clock() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %globaltimer;" : "=l"(t));
  return t;
}

// mode 0: grid.sync(); 1: the cluster's barrier (a cluster of one block without a cluster
// launch); 2: __syncthreads().
extern "C" __global__ void sl_barriers(int mode, int iters, unsigned long long* out) {
  const unsigned long long t0 = sl_clock();
  if (mode == 0) {
    cg::grid_group grid = cg::this_grid();
    for (int i = 0; i < iters; ++i) grid.sync();
  } else if (mode == 1) {
    cg::cluster_group cluster = cg::this_cluster();
    for (int i = 0; i < iters; ++i) cluster.sync();
  } else {
    for (int i = 0; i < iters; ++i) __syncthreads();
  }
  const unsigned long long t1 = sl_clock();
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    out[0] = t1 - t0;
    out[1] = (unsigned long long)cg::this_cluster().num_blocks();
  }
}

// One thread follows next[] (a random cycle): mode 0 loads through L2 (__ldcg), mode 1
// atomicAdd(&next[j], 0) (the round trip of an atomic that returns its value).
extern "C" __global__ void sl_chase(int mode, int iters, unsigned* next,
                                    unsigned long long* out) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  unsigned j = 0;
  const unsigned long long t0 = sl_clock();
  if (mode == 0) {
    for (int i = 0; i < iters; ++i) j = __ldcg(&next[j]);
  } else {
    for (int i = 0; i < iters; ++i) j = atomicAdd(&next[j], 0u);
  }
  const unsigned long long t1 = sl_clock();
  out[0] = t1 - t0;
  out[1] = j;
}
