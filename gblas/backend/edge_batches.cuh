// Warp-level helpers of the GPU BFS kernels: the one-GPU fused and level kernels
// (formats/csr/bfs_common.cuh), the BVSS kernels (formats/bvss/bvss_common.cuh) and the
// distributed level loop (distributed/bfs_levels.cu). Included by several headers of one
// translation unit, hence the guard.
#ifndef GB_EDGE_BATCHES_CUH
#define GB_EDGE_BATCHES_CUH

// Warp-synchronous (every lane calls it): the inclusive prefix sum of x over the lanes.
__device__ __forceinline__ int warp_inclusive_scan(int x, int lane) {
#pragma unroll
  for (int off = 1; off < 32; off <<= 1) {
    const int t = __shfl_up_sync(0xffffffffu, x, off);
    if (lane >= off) x += t;
  }
  return x;
}

// Warp-synchronous: the lane whose list holds item i of the lanes' lists laid end to end in
// lane order, given each lane's inclusive sum of the lengths (warp_inclusive_scan): the
// number of lanes whose sum is <= i, found in 5 shuffles, at most 31 (an i past the total
// maps to lane 31; the caller masks it). Lets a warp's lanes take consecutive items of its
// lanes' rows or blocks, each finding its owner, so one long list does not hold one lane.
__device__ __forceinline__ int warp_owner(int incl, int i) {
  int owner = 0;
#pragma unroll
  for (int step = 16; step >= 1; step >>= 1) {
    if (__shfl_sync(0xffffffffu, incl, owner + step - 1) <= i) owner += step;
  }
  return min(owner, 31);
}

// A chunk of a row's entries [s, e) of source vertex u, PB entries a lane at a time (entry
// p0 + 32 b + lane for b < PB): f(ok, uu, vv), arrays of PB, ok[b] false past e, uu[b] = u,
// vv[b] the entry's column id. A lane's PB ids are independent loads, in flight together.
// Shared by the pushes of the one-GPU fused kernel (bfs_common.cuh) and of the distributed
// level loop (distributed/bfs_levels.cu).
template <int PB, class Idx, class F>
__device__ __forceinline__ void edge_batches(int u, long long s, long long e,
                                             const Idx* __restrict__ idx, int lane, F&& f) {
  bool ok[PB];
  int uu[PB], vv[PB];
  for (long long p0 = s; p0 < e; p0 += 32 * PB) {
#pragma unroll
    for (int b = 0; b < PB; ++b) {
      const long long p = p0 + 32 * b + lane;
      ok[b] = p < e;
      uu[b] = u;
      vv[b] = ok[b] ? (int)idx[p] : 0;
    }
    f(ok, uu, vv);
  }
}

// Warp-synchronous (every lane calls it): the rows [s, s + d) of the lanes laid end to end
// in lane order, PB entries a lane at a time, lane after lane (entry t0 + 32 b + lane): each
// finds its row with warp_owner, so one long row does not hold one lane. f(ok, uu, vv),
// arrays of PB: ok[b] false past the end, uu[b] the owning lane's `u`, vv[b] the entry's
// column id (0 where not ok). The pushes of the fused kernel's queue (bfs_common.cuh), of
// the distributed level loop (distributed/bfs_levels.cu) and of the barrier-free kernel
// (formats/csr/bfs_async.cu).
template <int PB, class Idx, class F>
__device__ __forceinline__ void row_list_batches(int u, long long s, int d,
                                                 const Idx* __restrict__ idx, int lane,
                                                 F&& f) {
  const int incl = warp_inclusive_scan(d, lane);
  const int excl = incl - d;
  const int total = __shfl_sync(0xffffffffu, incl, 31);
  bool ok[PB];
  int uu[PB], vv[PB];
  for (int t0 = 0; t0 < total; t0 += 32 * PB) {
#pragma unroll
    for (int b = 0; b < PB; ++b) {
      const int ei = t0 + 32 * b + lane;
      const int owner = warp_owner(incl, ei);
      uu[b] = __shfl_sync(0xffffffffu, u, owner);
      const long long so = __shfl_sync(0xffffffffu, s, owner);
      const int eo = __shfl_sync(0xffffffffu, excl, owner);
      ok[b] = ei < total;
      vv[b] = ok[b] ? (int)idx[so + (ei - eo)] : 0;
    }
    f(ok, uu, vv);
  }
}

// The first entry of a row's [s, head) whose id `seen(id)` holds, in row order, or -1: one
// lane alone, B ids loaded at once (independent loads, in flight together). The serial head
// of a pull's in-row scan, in the fused kernel (bfs_common.cuh) and in the distributed claim.
template <int B, class Idx, class Seen>
__device__ __forceinline__ int first_seen_batched(const Idx* __restrict__ idx, long long s,
                                                  long long head, Seen&& seen) {
  int found = -1;
  for (long long p0 = s; p0 < head; p0 += B) {
    int uu[B];
#pragma unroll
    for (int t = 0; t < B; ++t) uu[t] = p0 + t < head ? (int)idx[p0 + t] : -1;
    bool hh[B];
#pragma unroll
    for (int t = 0; t < B; ++t) hh[t] = uu[t] >= 0 && seen(uu[t]);
#pragma unroll
    for (int t = B - 1; t >= 0; --t) {
      if (hh[t]) found = uu[t];  // the first hit in row order wins
    }
    if (found >= 0) break;
  }
  return found;
}

// The first entry of a row's [s, e) whose id `seen(id)` holds, in row order, or -1 (on every
// lane): the whole warp, 32 entries a step, the ballot's lowest lane first. The rest of a
// pull's long in-row, and a heavy row's chunk, in the fused kernel and the distributed claim.
template <class Idx, class Seen>
__device__ __forceinline__ int warp_first_seen(const Idx* __restrict__ idx, long long s,
                                               long long e, int lane, Seen&& seen) {
  for (long long p0 = s; p0 < e; p0 += 32) {
    const long long p = p0 + lane;
    int u = 0;
    bool h = false;
    if (p < e) {
      u = (int)idx[p];
      h = seen(u);
    }
    const unsigned hb = __ballot_sync(0xffffffffu, h);
    if (hb) return __shfl_sync(0xffffffffu, u, __ffs(hb) - 1);
  }
  return -1;
}

// Warp-synchronous: the sum of x over the lanes, on every lane.
__device__ __forceinline__ unsigned warp_sum_u32(unsigned x) {
#if __CUDA_ARCH__ >= 800
  return __reduce_add_sync(0xffffffffu, x);
#else
#pragma unroll
  for (int off = 16; off >= 1; off >>= 1) x += __shfl_xor_sync(0xffffffffu, x, off);
  return x;
#endif
}

// Warp-synchronous: the chunk-list entries (u << 32 | j, j < nch) of the lanes of `m` (a
// ballot of hubs), hub by hub in lane order, from out[base] on (base advances past them).
__device__ __forceinline__ void warp_write_chunks(unsigned m, int u, unsigned nch,
                                                  long long* __restrict__ out,
                                                  unsigned long long& base, int lane) {
  for (; m; m &= m - 1) {
    const int h = __ffs(m) - 1;
    const unsigned cnt = __shfl_sync(0xffffffffu, nch, h);
    const long long row = (long long)__shfl_sync(0xffffffffu, u, h) << 32;
    for (unsigned j = lane; j < cnt; j += 32) out[base + j] = row | (long long)j;
    base += cnt;
  }
}

// Warp-synchronous (every lane calls it): the chunk-list entries (u << 32 | j, j < nch) of
// the lanes' hubs (nch > 0 where `hub`), appended with one reservation for the whole warp,
// `base = reserve(hubs, entries)` on lane 0, then written hub by hub by the whole warp. A
// level of a Kronecker graph claims ~10^5 hubs at once: an atomicAdd per hub on the same
// counters serialised it. Few live registers (a warp sum, no prefix scan): the fused and
// BVSS kernels have 64, and a prefix-sum version made the BVSS kernel spill.
template <class Reserve>
__device__ __forceinline__ void warp_append_chunks(bool hub, int u, unsigned nch,
                                                   long long* __restrict__ out, int lane,
                                                   Reserve&& reserve) {
  unsigned m = __ballot_sync(0xffffffffu, hub);
  if (m == 0u) return;
  const unsigned total = warp_sum_u32(hub ? nch : 0u);
  unsigned long long base = 0;
  if (lane == 0) base = reserve((unsigned)__popc(m), total);
  base = __shfl_sync(0xffffffffu, base, 0);
  warp_write_chunks(m, u, nch, out, base, lane);
}

#endif  // GB_EDGE_BATCHES_CUH
