// The distributed loader's Kronecker edges drawn on the device (CuPy RawModule;
// gblas/distributed/kron_device.py drives it). loader.kronecker draws the m edges in chunks
// of `chunk`; chunk c has its own NumPy PCG64 stream (XSL-RR 128/64, SeedSequence(seed,
// spawn_key=(c,))) whose state and increment the host computes (cst: 4 words a chunk, state
// hi, lo, increment hi, lo) and draws, as generators.kronecker_chunk does, one 64-bit output
// per two levels for all the chunk's kc edges at once: level pair r of edge e is output
// r * kc + e of the chunk's stream. Here a thread takes an edge and jumps its chunk's
// stream there (pcg_kron.cuh; tab: the jump table).
// The edge (i, j) after the permutation gives the keys i << bits | j and j << bits | i
// (self-loops dropped); a key in [key_lo, key_hi) (this process's rows) is written less
// key_lo, in no particular order (the caller sorts). With keys null the kernel only counts.

#include "pcg_kron.cuh"

extern "C" __global__ void dkron_keys(const unsigned long long* __restrict__ cst,
                                      const unsigned long long* __restrict__ tab, long long m,
                                      long long chunk, int scale,
                                      const unsigned int* __restrict__ thr,
                                      const unsigned int* __restrict__ perm, int bits,
                                      unsigned long long key_lo, unsigned long long key_hi,
                                      unsigned long long* keys, unsigned long long* count) {
  const int lane = threadIdx.x & 31;
  const long long stride = (long long)gridDim.x * blockDim.x;
  // whole warps step together (the ballots below): t runs past m in the last step
  for (long long base = (long long)blockIdx.x * blockDim.x + (threadIdx.x & ~31);
       base < m; base += stride) {
    const long long t = base + lane;
    unsigned long long k1 = 0, k2 = 0;
    bool keep1 = false, keep2 = false;
    if (t < m) {
      const long long c = t / chunk, e = t - c * chunk;
      const long long kc = min(chunk, m - c * chunk);
      unsigned int ik, jk;
      kron_edge(u128{cst[4 * c], cst[4 * c + 1]}, u128{cst[4 * c + 2], cst[4 * c + 3]}, e, kc,
                scale, thr, tab, ik, jk);
      const unsigned long long i = perm[ik], j = perm[jk];
      if (i != j) {
        k1 = (i << bits) | j;
        k2 = (j << bits) | i;
        keep1 = k1 >= key_lo && k1 < key_hi;
        keep2 = k2 >= key_lo && k2 < key_hi;
      }
    }
    const unsigned b1 = __ballot_sync(0xffffffffu, keep1);
    const unsigned b2 = __ballot_sync(0xffffffffu, keep2);
    const unsigned total = __popc(b1) + __popc(b2);
    unsigned long long at = 0;
    if (lane == 0 && total) at = atomicAdd(count, (unsigned long long)total);
    if (!keys) continue;
    at = __shfl_sync(0xffffffffu, at, 0);
    const unsigned below = (1u << lane) - 1u;
    if (keep1) keys[at + __popc(b1 & below)] = k1 - key_lo;
    if (keep2) keys[at + __popc(b1) + __popc(b2 & below)] = k2 - key_lo;
  }
}
