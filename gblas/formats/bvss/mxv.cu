// mxv over a BVSS matrix M (y = M x, pattern semirings), in three launches:
//   bvss_pack      one thread per column block b: the operand byte F_b (x's bits of columns
//                  8b .. 8b+7, read through the reordering), kept when nonzero, and the VSSs
//                  of an active block appended to the queue (one atomic per warp);
//   bvss_process   one warp per queued VSS (warp-strided over the queue, whose length it
//                  reads on the device): the TC or CUDA-core slice test, lazy updates into
//                  the bitmap seen;
//   bvss_finalise  one thread per row position p: y's bit of row perm[p] = seen bit p and
//                  the mask allows it (coalesced over p).
// So no warp works on a zero operand byte, and the host reads nothing between launches.

#include "bvss_common.cuh"

extern "C" __global__ void bvss_pack(const bool* __restrict__ x, const long long* __restrict__ perm,
                                     int use_perm, long long ncols, long long nsets,
                                     const long long* __restrict__ set_ptr,
                                     const long long* __restrict__ vss_ptr, longlong2* vq,
                                     unsigned long long* vq_len) {
  const int lane = threadIdx.x & 31;
  const long long stride = (long long)gridDim.x * blockDim.x;
  // warp-uniform trip count: every lane runs bv_enqueue (shuffles) on every round
  const long long first = (long long)blockIdx.x * blockDim.x + (threadIdx.x & ~31);
  for (long long b0 = first; b0 < nsets; b0 += stride) {
    const long long b = b0 + lane;
    unsigned F = 0u;
    int cnt = 0;
    long long v0 = 0;
    if (b < nsets) {
#pragma unroll
      for (int t = 0; t < 8; ++t) {
        const long long c = 8 * b + t;
        if (c < ncols && x[use_perm ? perm[c] : c]) F |= 1u << t;
      }
      if (F) {
        v0 = set_ptr[b];
        cnt = (int)(set_ptr[b + 1] - v0);
      }
    }
    bv_enqueue(vss_ptr, v0, cnt, b, F, vq, vq_len, lane);
  }
}

template <bool TC>
__global__ void bvss_process(const int* __restrict__ row_ids,
                             const unsigned char* __restrict__ masks, const longlong2* vq,
                             const unsigned long long* __restrict__ vq_len, unsigned int* seen) {
  const long long gwarp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const long long nwarps = ((long long)gridDim.x * blockDim.x) >> 5;
  bv_process<TC, false>(row_ids, masks, vq, (long long)*vq_len, seen, nullptr, gwarp, nwarps,
                        threadIdx.x & 31);
}

extern "C" __global__ void bvss_finalise(const unsigned int* __restrict__ seen,
                                         const long long* __restrict__ perm, int use_perm,
                                         long long nrows, const bool* __restrict__ mask,
                                         int use_mask, int mask_comp, bool* out_bits) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x; p < nrows; p += stride) {
    const long long row = use_perm ? perm[p] : p;
    const bool allowed = !use_mask || (mask[row] != (bool)mask_comp);
    out_bits[row] = ((seen[p >> 5] >> (p & 31)) & 1u) && allowed;
  }
}
