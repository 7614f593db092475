//! `cargo xtask bench-gpu`: stages the benchmark runner, the Rust benchmark PTX and the CUDA C++
//! references (as source: nvcc builds them on the GPU machine), and runs them.

use crate::stage::{build_bin, check_dir, copy_into, io, strip, write_script};
use crate::{build_all, build_nvshmem_all, workspace_root, Arch};
use std::fs;
use std::path::Path;

const RUN_SH: &str = r#"#!/usr/bin/env bash
# Runs the ptx-sync benchmarks from this folder: builds the CUDA C++ references with nvcc when
# there is one (else the Rust side runs alone and the table says so), dumps both sides' SASS,
# then runs bench-gpu, and on a machine with two GPUs run-nvshmem.sh. Results:
# $BENCH_OUT/BENCHMARKS.md, bench.json and BENCHMARKS-nvshmem.md (default: this folder).
cd "$(dirname "$0")" || exit 2
out=${BENCH_OUT:-.}
arch=$(cat ARCH)
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
cuda_bin=$(dirname "$nvcc")
args=(--ptx-dir ./ptx --json "$out/bench.json" --markdown "$out/BENCHMARKS.md" --meta "date=$(date -u +%F)")
if command -v nvidia-smi >/dev/null; then
    args+=(--meta "driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)")
fi
if [ -x "$nvcc" ]; then
    echo "building the C++ references: $nvcc -O3 -arch=$arch -std=c++17 -shared"
    if "$nvcc" -O3 -arch="$arch" -std=c++17 -shared -Xcompiler -fPIC -o libreference.so cpp/reference.cu; then
        args+=(--reference ./libreference.so --meta "C++=$("$nvcc" --version | tail -1 | sed 's/^Build //'), nvcc -O3 -arch=$arch, libcu++ and cooperative_groups")
        if [ -x "$cuda_bin/cuobjdump" ] && "$cuda_bin/ptxas" -arch="$arch" -o rust.cubin ptx/ptx_sync_bench_kernels.ptx; then
            "$cuda_bin/cuobjdump" -sass rust.cubin >rust.sass && "$cuda_bin/cuobjdump" -sass libreference.so >cpp.sass &&
                args+=(--sass-rust rust.sass --sass-cpp cpp.sass)
        fi
    else
        echo "nvcc failed: the C++ reference will not be measured"
    fi
else
    echo "nvcc not found: the C++ reference will not be measured"
fi
args+=(--meta "Rust=$(cat RUSTC) nvptx64-nvidia-cuda, -C target-cpu=$arch, PTX ISA 8.4, loaded with cudarc")
./bench-gpu "${args[@]}" "$@"
rc=$?
# The NVSHMEM rows (run-nvshmem.sh) need two GPUs.
if [ "$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')" -ge 2 ]; then
    ./run-nvshmem.sh || rc=1
else
    echo "fewer than two GPUs here: the NVSHMEM rows (run-nvshmem.sh) are not measured"
fi
exit $rc
"#;

const RUN_NVSHMEM_SH: &str = r#"#!/usr/bin/env bash
# Runs the NVSHMEM benchmarks from this folder on two GPUs of this machine (one PE per GPU):
# builds the CUDA C++ side (cpp/nvshmem.cu: nvcc -rdc, then a device link with
# libnvshmem_device.a into one cubin) when nvcc and NVSHMEM's headers are there, then runs
# bench-nvshmem, which loads both modules into the same processes. NVSHMEM comes from
# $NVSHMEM_HOME or python3's nvidia.nvshmem (pip install nvidia-nvshmem-cu13==3.4.5).
# Results: $BENCH_OUT/BENCHMARKS-nvshmem.md and bench-nvshmem.json (default: this folder).
cd "$(dirname "$0")" || exit 2
out=${BENCH_OUT:-.}
arch=$(cat ARCH)
# NVLink multicast stays off unless asked for.
export NVSHMEM_DISABLE_NVLS=${NVSHMEM_DISABLE_NVLS:-1}
nv=${NVSHMEM_HOME:-$(python3 -c 'import nvidia.nvshmem as m; print(list(m.__path__)[0])' 2>/dev/null)}
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
args=(--ptx ptx/ptx_sync_nvshmem_test_kernels.ptx --markdown "$out/BENCHMARKS-nvshmem.md" --json "$out/bench-nvshmem.json")
if [ -x "$nvcc" ] && [ -f "$nv/include/nvshmem.h" ]; then
    echo "building the C++ side: $nvcc -O3 -arch=$arch -rdc=true, device link with $nv/lib/libnvshmem_device.a"
    if "$nvcc" -O3 -arch="$arch" -rdc=true -std=c++17 -I"$nv/include" -c cpp/nvshmem.cu -o nvshmem_ref.o &&
        "$nvcc" -arch="$arch" -dlink -cubin -o nvshmem_ref.cubin nvshmem_ref.o -L"$nv/lib" -lnvshmem_device; then
        args+=(--reference nvshmem_ref.cubin)
    else
        echo "the C++ side did not build: the Rust side runs alone"
    fi
else
    echo "nvcc or NVSHMEM's headers not found (nvcc: $nvcc, NVSHMEM: ${nv:-none}): the Rust side runs alone"
fi
exec ./bench-nvshmem "${args[@]}" "$@"
"#;

const MARK: &str = "ptx-sync benchmarks, staged by `cargo xtask stage-bench`";

/// Puts `bench-gpu`, every kernel crate's PTX, bench/cpp and run.sh into `dir`.
pub fn stage_bench(dir: &Path, arch: Arch) -> Result<(), String> {
    check_dir(dir, MARK)?;
    let runner = build_bin("ptx-sync-bench", "bench-gpu")?;
    let nvshmem_runner = build_bin("ptx-sync-bench", "bench-nvshmem")?;
    let mut ptx = build_all(arch)?;
    ptx.extend(build_nvshmem_all(arch)?);
    copy_into(&ptx, &dir.join("ptx"))?;
    let cpp_dir = workspace_root().join("bench/cpp");
    let mut cpp = Vec::new();
    for entry in io(&cpp_dir, fs::read_dir(&cpp_dir))? {
        cpp.push(io(&cpp_dir, entry)?.path());
    }
    copy_into(&cpp, &dir.join("cpp"))?;
    let bin = dir.join("bench-gpu");
    let _ = fs::remove_file(&bin);
    io(&runner, fs::copy(&runner, &bin))?;
    strip(&bin);
    let bin = dir.join("bench-nvshmem");
    let _ = fs::remove_file(&bin);
    io(&nvshmem_runner, fs::copy(&nvshmem_runner, &bin))?;
    strip(&bin);
    io(dir, fs::write(dir.join("ARCH"), arch.to_string()))?;
    // The toolchain that built the PTX, for the report's header (`rustc 1.99.1`).
    let tc = ptx_sync_build::toolchain::Toolchain::detect_in(&workspace_root())
        .map_err(|e| e.to_string())?;
    let (major, minor, patch) = tc.version;
    io(
        dir,
        fs::write(dir.join("RUSTC"), format!("rustc {major}.{minor}.{patch}")),
    )?;
    write_script(&dir.join("run.sh"), RUN_SH)?;
    write_script(&dir.join("run-nvshmem.sh"), RUN_NVSHMEM_SH)?;
    let readme = format!(
        "{MARK} for {arch}.\n\n./run.sh [--filter SUBSTR] [--reps N] on a machine with an NVIDIA driver; with\n\
         nvcc there (CUDA toolkit) the C++ references are built and measured side by side.\n\
         Writes BENCHMARKS.md and bench.json ($BENCH_OUT, default here).\n\n\
         ./run-nvshmem.sh on a machine with two GPUs and NVSHMEM (python3's nvidia.nvshmem or\n\
         $NVSHMEM_HOME): the NVSHMEM rows, Rust against CUDA C++ (BENCHMARKS-nvshmem.md).\n"
    );
    io(dir, fs::write(dir.join("README.txt"), readme))
}
