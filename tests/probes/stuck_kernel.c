// What the driver does around a kernel that never finishes: which calls block, whether a
// context reset or destroy ends it, how long the process takes to exit. One step per process
// (tests/probes/stuck_kernel.sh runs them all). host/src/watchdog.rs is built on the answers.
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *PTX =
".version 8.0\n.target sm_90\n.address_size 64\n"
".visible .entry spin(.param .u64 flag) {\n .reg .u64 %rd<2>; .reg .u32 %r<2>; .reg .pred %p;\n"
" ld.param.u64 %rd1, [flag];\nL: ld.volatile.global.u32 %r1, [%rd1];\n setp.eq.u32 %p, %r1, 0;\n @%p bra L;\n ret;\n}\n"
".visible .entry one(.param .u64 out) {\n .reg .u64 %rd<2>; .reg .u32 %r<2>;\n ld.param.u64 %rd1, [out];\n mov.u32 %r1, 7;\n st.global.u32 [%rd1], %r1;\n ret;\n}\n";

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
static double T0;
#define CK(x) do { CUresult r_ = (x); const char *n_ = 0; cuGetErrorName(r_, &n_); printf("  %-48s -> %s (%.3f s)\n", #x, n_ ? n_ : "?", now() - T0); fflush(stdout); } while (0)
#define STEP(name) do { T0 = now(); printf("[%s]\n", name); fflush(stdout); } while (0)

static CUdevice dev; static CUcontext ctx; static CUmodule mod; static CUfunction spin, one; static CUdeviceptr flag, out;

static void launch_stuck(CUstream s) {
  void *args[] = { &flag };
  CK(cuLaunchKernel(spin, 1, 1, 1, 1, 1, 1, 0, s, args, 0));
  sleep(1);
  CK(cuStreamQuery(s));
}
static int run_one_kernel(CUcontext c) {
  CUmodule m; CUfunction f; CUdeviceptr o; unsigned v = 0;
  CK(cuCtxSetCurrent(c)); CK(cuModuleLoadData(&m, PTX)); CK(cuModuleGetFunction(&f, m, "one"));
  CK(cuMemAlloc(&o, 4)); void *a[] = { &o };
  CK(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, 0, a, 0)); CK(cuCtxSynchronize());
  CK(cuMemcpyDtoH(&v, o, 4)); printf("  fresh kernel wrote %u (want 7)\n", v); return v == 7;
}

int main(int argc, char **argv) {
  const char *step = argc > 1 ? argv[1] : "exit";
  double start = now(); T0 = start;
  cuInit(0); cuDeviceGet(&dev, 0);
  CK(cuDevicePrimaryCtxRetain(&ctx, dev)); CK(cuCtxSetCurrent(ctx));
  CK(cuModuleLoadData(&mod, PTX)); cuModuleGetFunction(&spin, mod, "spin"); cuModuleGetFunction(&one, mod, "one");
  CK(cuMemAlloc(&flag, 4)); cuMemsetD32(flag, 0, 1); CK(cuMemAlloc(&out, 4)); cuCtxSynchronize();
  STEP("launch on the NULL stream"); launch_stuck(0);
  STEP(step);
  if (!strcmp(step, "exit")) { printf("  returning from main\n"); fflush(stdout); return 0; }
  if (!strcmp(step, "load")) { CUmodule m2; CK(cuModuleLoadData(&m2, PTX)); }
  if (!strcmp(step, "free_async")) { CK(cuMemFreeAsync(out, 0)); }
  if (!strcmp(step, "free_sync")) { CK(cuMemFree(out)); }
  if (!strcmp(step, "unload")) { CK(cuModuleUnload(mod)); }
  if (!strcmp(step, "stream_create")) { CUstream s; CK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING)); CK(cuStreamDestroy(s)); }
  if (!strcmp(step, "event")) { CUevent e; CK(cuEventCreate(&e, CU_EVENT_DISABLE_TIMING)); CK(cuEventRecord(e, 0)); CK(cuEventQuery(e)); CK(cuEventDestroy(e)); }
  if (!strcmp(step, "alloc")) { CUdeviceptr p; CK(cuMemAlloc(&p, 1 << 20)); CK(cuMemAllocAsync(&p, 1 << 20, 0)); }
  if (!strcmp(step, "copy_other_stream")) { CUstream s; unsigned v = 1; CK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING)); CK(cuMemcpyDtoHAsync(&v, out, 4, s)); CK(cuStreamQuery(s)); sleep(1); CK(cuStreamQuery(s)); }
  if (!strcmp(step, "retain_again")) { CUcontext c2; CK(cuDevicePrimaryCtxRetain(&c2, dev)); CK(cuCtxSetCurrent(c2)); }
  if (!strcmp(step, "release")) { CK(cuDevicePrimaryCtxRelease(dev)); }
  if (!strcmp(step, "reset")) {
    CK(cuDevicePrimaryCtxReset(dev));
    CUcontext c2; CK(cuDevicePrimaryCtxRetain(&c2, dev));
    printf("  recovered: %d\n", run_one_kernel(c2));
  }
  if (!strcmp(step, "unstick")) { unsigned one_ = 1; CUstream s; CK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING)); CK(cuMemcpyHtoDAsync(flag, &one_, 4, s)); CK(cuStreamSynchronize(s)); CK(cuCtxSynchronize()); }
  if (!strcmp(step, "ctx_destroy")) {
    // A non-primary context with its own stuck kernel.
    CUcontext c; CUmodule m; CUfunction f; CUdeviceptr fl;
    CK(cuCtxCreate(&c, NULL, 0, dev)); CK(cuModuleLoadData(&m, PTX)); cuModuleGetFunction(&f, m, "spin");
    CK(cuMemAlloc(&fl, 4)); cuMemsetD32(fl, 0, 1); void *a[] = { &fl };
    CK(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, 0, a, 0)); sleep(1); CK(cuStreamQuery(0));
    T0 = now(); CK(cuCtxDestroy(c));
    CUcontext c2; CK(cuCtxCreate(&c2, NULL, 0, dev)); printf("  recovered (new context): %d\n", run_one_kernel(c2));
  }
  printf("  step done after %.3f s; exiting\n", now() - T0); fflush(stdout);
  return 0;
}
