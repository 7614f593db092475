// Grid barrier experiments for issue 13 (see README.md): a cluster-hierarchical grid barrier
// under a cooperative + cluster launch, and variants of the one-word grid barrier.
// Usage: grid_barrier VARIANT BLOCKS CLUSTER COOPERATIVE [PTX]; VARIANT 9 = grid.sync(),
// 8 = the Rust GridBarrier bench kernel loaded from PTX.
#include <cstdio>
#include <cstdlib>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); return 1; } } while (0)

__device__ __forceinline__ unsigned sreg_ncl() { unsigned x, y, z;
  asm volatile("mov.u32 %0, %%nclusterid.x;" : "=r"(x)); asm volatile("mov.u32 %0, %%nclusterid.y;" : "=r"(y));
  asm volatile("mov.u32 %0, %%nclusterid.z;" : "=r"(z)); return x * y * z; }
__device__ __forceinline__ unsigned sreg_clid() { unsigned x; asm volatile("mov.u32 %0, %%clusterid.x;" : "=r"(x)); return x; }
__device__ __forceinline__ unsigned sreg_crank() { unsigned x; asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(x)); return x; }
__device__ __forceinline__ unsigned sreg_cn() { unsigned x; asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(x)); return x; }
__device__ __forceinline__ unsigned atom_add(unsigned* p, unsigned v) { unsigned r;
  asm volatile("atom.acq_rel.gpu.add.u32 %0, [%1], %2;" : "=r"(r) : "l"(p), "r"(v) : "memory"); return r; }
__device__ __forceinline__ unsigned ld_rlx(unsigned* p) { unsigned r;
  asm volatile("ld.relaxed.gpu.b32 %0, [%1];" : "=r"(r) : "l"(p) : "memory"); return r; }
__device__ __forceinline__ unsigned ld_acq(unsigned* p) { unsigned r;
  asm volatile("ld.acquire.gpu.b32 %0, [%1];" : "=r"(r) : "l"(p) : "memory"); return r; }

// V 0: divergent arrive (leader .release, others .relaxed), 1: reconverged, all .release,
// 2: plain grid barrier (block::sync + one word per block).
template <int V>
__global__ void cgb(unsigned* word, int rounds, int* slots, unsigned* errors, unsigned* info) {
  unsigned nb = gridDim.x, err = 0;
  constexpr bool G = V == 2 || V == 4 || V == 5 || V == 6 || V == 7;
  unsigned ncl = G ? nb : sreg_ncl();
  bool leader = (G ? true : sreg_crank() == 0) && threadIdx.x == 0;
  bool first = G ? blockIdx.x == 0 : sreg_clid() == 0;
  if (blockIdx.x == 0 && threadIdx.x == 0) { info[0] = ncl; info[1] = G ? 1 : sreg_cn(); info[4] = first; info[5] = leader; }
  for (int r = 0; r < rounds; r++) {
    if (threadIdx.x == 0) {
      if (V == 4 || V == 7) asm volatile("st.volatile.b32 [%0], %1;" :: "l"(slots + (r & 1) * nb + blockIdx.x), "r"(r) : "memory");
      else ((volatile int*)slots)[(r & 1) * nb + blockIdx.x] = r;
    }
    if (V == 4 || V == 6) asm volatile("barrier.sync 0;" ::: "memory");
    else if (G) __syncthreads(); else asm volatile("barrier.cluster.arrive.release;\n\tbarrier.cluster.wait.acquire;" ::: "memory");
    if (leader) {
      unsigned add = first ? 0x80000000u - (ncl - 1) : 1u;
      unsigned before = atom_add(word, add);
      if (!((before ^ (before + add)) & 0x80000000u)) {
        long long spins = 0;
        unsigned w;
        while (!(((w = (V == 5 ? ld_rlx(word) : ld_acq(word))) ^ before) & 0x80000000u)) {
          if ((++spins & 255) == 0 && ((volatile unsigned*)info)[8]) return;
          if (spins > 2000000) { atomicAdd(&info[2], 1); info[3] = w; info[6] = before; info[7] = r; ((volatile unsigned*)info)[8] = 1; return; }
        }
        if (V == 5) asm volatile("fence.acq_rel.gpu;" ::: "memory");
      }
    }
    if (V == 0) {
      if (leader) asm volatile("barrier.cluster.arrive.release;" ::: "memory");
      else asm volatile("barrier.cluster.arrive.relaxed;" ::: "memory");
      asm volatile("barrier.cluster.wait.acquire;" ::: "memory");
    } else if (V == 1 || V == 3) {
      if (V == 1) __syncwarp();
      asm volatile("barrier.cluster.arrive.release;\n\tbarrier.cluster.wait.acquire;" ::: "memory");
    } else if (V == 4 || V == 6) asm volatile("barrier.sync 0;" ::: "memory");
    else __syncthreads();
    if (threadIdx.x == 0) err += ((volatile int*)slots)[(r & 1) * nb + (blockIdx.x + 1) % nb] != r;
  }
  if (err) atomicAdd(errors, err);
}

__global__ void gsync(int rounds, int* slots, unsigned* errors) {
  cg::grid_group g = cg::this_grid();
  unsigned nb = gridDim.x, err = 0;
  for (int r = 0; r < rounds; r++) {
    if (threadIdx.x == 0) ((volatile int*)slots)[(r & 1) * nb + blockIdx.x] = r;
    g.sync();
    if (threadIdx.x == 0) err += ((volatile int*)slots)[(r & 1) * nb + (blockIdx.x + 1) % nb] != r;
  }
  if (err) atomicAdd(errors, err);
}

template <int V>
static int run(unsigned blocks, unsigned c, bool coop, int rounds) {
  unsigned *word, *errors, *info; int* slots;
  CK(cudaMalloc(&word, 4)); CK(cudaMalloc(&errors, 4)); CK(cudaMalloc(&info, 64)); CK(cudaMalloc(&slots, 8 * blocks));
  CK(cudaMemset(word, 0, 4)); CK(cudaMemset(errors, 0, 4)); CK(cudaMemset(info, 0, 64)); CK(cudaMemset(slots, 0xff, 8 * blocks));
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(blocks); cfg.blockDim = dim3(128);
  cudaLaunchAttribute a[2]; int n = 0;
  if (coop) { a[n].id = cudaLaunchAttributeCooperative; a[n].val.cooperative = 1; n++; }
  if (c) { a[n].id = cudaLaunchAttributeClusterDimension; a[n].val.clusterDim.x = c; a[n].val.clusterDim.y = 1; a[n].val.clusterDim.z = 1; n++; }
  cfg.attrs = a; cfg.numAttrs = n;
  int maxcl = -1;
  if (c) { cudaOccupancyMaxActiveClusters(&maxcl, cgb<V>, &cfg); }
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  // warm-up + timed
  float best = 1e30f; cudaError_t le = cudaSuccess;
  for (int rep = 0; rep < 5; rep++) {
    cudaEventRecord(e0);
    le = cudaLaunchKernelEx(&cfg, cgb<V>, word, rounds, slots, errors, info);
    cudaEventRecord(e1);
    if (le != cudaSuccess) break;
    cudaError_t se = cudaEventSynchronize(e1);
    if (se != cudaSuccess) { le = se; break; }
    float ms; cudaEventElapsedTime(&ms, e0, e1); if (rep && ms < best) best = ms;
    unsigned t; cudaMemcpy(&t, info + 2, 4, cudaMemcpyDeviceToHost); if (t) break;
  }
  unsigned h[8] = {}, e = 0;
  cudaMemcpy(h, info, 32, cudaMemcpyDeviceToHost); cudaMemcpy(&e, errors, 4, cudaMemcpyDeviceToHost);
  printf("V%d blocks %4u cluster %u coop %d maxActiveClusters %d: launch %s | ncl %u cn %u first %u leader %u | timeouts %u word %#x before %#x round %u | errors %u | %.0f ns/barrier\n",
         V, blocks, c, coop, maxcl, cudaGetErrorString(le), h[0], h[1], h[4], h[5], h[2], h[3], h[6], h[7], e, best * 1e6 / rounds);
  cudaFree(word); cudaFree(errors); cudaFree(info); cudaFree(slots);
  return le != cudaSuccess;
}

static void run_gsync(unsigned blocks, int rounds) {
  unsigned* errors; int* slots; cudaMalloc(&errors, 4); cudaMalloc(&slots, 8 * blocks); cudaMemset(errors, 0, 4);
  void* args[] = {&rounds, &slots, &errors};
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1); float best = 1e30f;
  for (int rep = 0; rep < 5; rep++) {
    cudaEventRecord(e0);
    cudaError_t le = cudaLaunchCooperativeKernel((void*)gsync, dim3(blocks), dim3(128), args, 0, 0);
    cudaEventRecord(e1); cudaEventSynchronize(e1);
    if (le != cudaSuccess) { printf("gsync %u: %s\n", blocks, cudaGetErrorString(le)); return; }
    float ms; cudaEventElapsedTime(&ms, e0, e1); if (rep && ms < best) best = ms;
  }
  unsigned e; cudaMemcpy(&e, errors, 4, cudaMemcpyDeviceToHost);
  printf("grid.sync blocks %4u: errors %u | %.0f ns/barrier\n", blocks, e, best * 1e6 / rounds);
}

#include <cuda.h>
// The Rust bench kernel grid_barrier__grid_sync(bar, slots, rounds, errors), from its PTX.
static int run_rust(const char* ptx, unsigned blocks, int rounds) {
  cudaFree(0);
  CUmodule m; CUfunction f;
  if (cuModuleLoad(&m, ptx) != CUDA_SUCCESS) { printf("cuModuleLoad %s failed\n", ptx); return 1; }
  if (cuModuleGetFunction(&f, m, "grid_barrier__grid_sync") != CUDA_SUCCESS) { printf("no kernel\n"); return 1; }
  unsigned *word, *errors; int* slots;
  CK(cudaMalloc(&word, 4)); CK(cudaMalloc(&errors, 4)); CK(cudaMalloc(&slots, 8 * blocks));
  CK(cudaMemset(word, 0, 4)); CK(cudaMemset(errors, 0, 4));
  void* args[] = {&word, &slots, &rounds, &errors};
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1); float best = 1e30f;
  for (int rep = 0; rep < 5; rep++) {
    cudaEventRecord(e0);
    CUresult r = cuLaunchCooperativeKernel(f, blocks, 1, 1, 128, 1, 1, 0, 0, args);
    cudaEventRecord(e1); cudaEventSynchronize(e1);
    if (r != CUDA_SUCCESS) { printf("rust launch failed %d\n", r); return 1; }
    float ms; cudaEventElapsedTime(&ms, e0, e1); if (rep && ms < best) best = ms;
  }
  unsigned e; cudaMemcpy(&e, errors, 4, cudaMemcpyDeviceToHost);
  printf("Rust GridBarrier blocks %4u: errors %u | %.0f ns/barrier\n", blocks, e, best * 1e6 / rounds);
  return 0;
}

int main(int argc, char** argv) {
  setvbuf(stdout, NULL, _IONBF, 0);
  const int R = 2000;
  if (argc < 5 + (argc > 1 && atoi(argv[1]) == 8)) { printf("usage: cgb V blocks cluster coop\n"); return 2; }
  int v = atoi(argv[1]); unsigned b = atoi(argv[2]), c = atoi(argv[3]); bool coop = atoi(argv[4]);
  if (v == 9) { run_gsync(b, R); return 0; }
  if (v == 0) return run<0>(b, c, coop, R);
  if (v == 1) return run<1>(b, c, coop, R);
  if (v == 2) return run<2>(b, 0, true, R);
  if (v == 3) return run<3>(b, c, coop, R);
  if (v == 4) return run<4>(b, 0, true, R);
  if (v == 5) return run<5>(b, 0, true, R);
  if (v == 6) return run<6>(b, 0, true, R);
  if (v == 7) return run<7>(b, 0, true, R);
  if (v == 8) return run_rust(argv[5], b, R);
  return 2;
}
