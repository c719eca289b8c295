// The device generators and the naive BFS's update of benchmarks/bfs_gpu.py (CuPy
// RawModule through gblas.backend.cuda.inline_includes: pcg_kron.cuh is gblas/backend's).
#include "pcg_kron.cuh"

__device__ __forceinline__ void put(unsigned long long* keys, long long m, long long t,
                                    unsigned long long i, unsigned long long j, int bits) {
  const unsigned long long loop = ~0ULL;
  keys[t] = i == j ? loop : (i << bits) | j;
  keys[m + t] = i == j ? loop : (j << bits) | i;
}

// Graph500 Kronecker edge t of gblas.generators.kronecker: one stream (s, inc) for all
// chunks, chunk c's draws from stream position c * chunk * h on (h = ceil(scale / 2) draws
// an edge), edge e of the chunk as kron_edge draws it.
extern "C" __global__ void kron_keys(unsigned long long s_hi, unsigned long long s_lo,
    unsigned long long inc_hi, unsigned long long inc_lo, const unsigned long long* tab,
    long long m, int scale, long long chunk, const unsigned int* thr,
    const unsigned int* perm, int bits, unsigned long long* keys) {
  const int h = (scale + 1) / 2;
  const u128 inc{inc_hi, inc_lo};
  for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; t < m;
       t += (long long)gridDim.x * blockDim.x) {
    const long long c = t / chunk, e = t % chunk;
    const long long kc = min(chunk, m - c * chunk);
    const u128 sc = pcg_jump(u128{s_hi, s_lo}, (unsigned long long)(c * chunk * h), inc, tab);
    unsigned int ik, jk;
    kron_edge(sc, inc, e, kc, scale, thr, tab, ik, jk);
    put(keys, m, t, perm[ik], perm[jk], bits);
  }
}

// uniform random edge t: both ends from the stream's output t
extern "C" __global__ void urand_keys(unsigned long long s_hi, unsigned long long s_lo,
    unsigned long long inc_hi, unsigned long long inc_lo, const unsigned long long* tab,
    long long m, unsigned long long mask, int bits, unsigned long long* keys) {
  const u128 inc{inc_hi, inc_lo};
  for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; t < m;
       t += (long long)gridDim.x * blockDim.x) {
    const unsigned long long raw =
        pcg_output(pcg_jump(u128{s_hi, s_lo}, (unsigned long long)t + 1, inc, tab));
    put(keys, m, t, raw & mask, (raw >> 32) & mask, bits);
  }
}

// naive BFS update: new = y > 0 and not visited; x = new; levels[new] = k; count new
extern "C" __global__ void naive_update(const float* y, bool* visited, long long* levels,
    float* x, long long n, long long k, unsigned long long* count) {
  unsigned long long c = 0;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    const bool nw = y[i] > 0.0f && !visited[i];
    if (nw) { visited[i] = true; levels[i] = k; ++c; }
    x[i] = nw ? 1.0f : 0.0f;
  }
  for (int off = 16; off > 0; off >>= 1) c += __shfl_xor_sync(0xffffffffu, c, off);
  if ((threadIdx.x & 31) == 0 && c) atomicAdd(count, c);
}
