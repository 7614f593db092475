//! `cargo xtask bench-gpu`: stages the benchmark runner, the Rust benchmark PTX and the CUDA C++
//! references (as source: nvcc builds them on the GPU machine), and runs them.

use crate::stage::{build_bin, check_dir, copy_into, io, strip, write_script};
use crate::{build_all, workspace_root, Arch};
use std::fs;
use std::path::Path;

const RUN_SH: &str = r#"#!/usr/bin/env bash
# Runs the ptx-sync benchmarks from this folder: builds the CUDA C++ references with nvcc when
# there is one (else the Rust side runs alone and the table says so), dumps both sides' SASS,
# then runs bench-gpu. Results: $BENCH_OUT/BENCHMARKS.md and bench.json (default: this folder).
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
exec ./bench-gpu "${args[@]}" "$@"
"#;

const MARK: &str = "ptx-sync benchmarks, staged by `cargo xtask stage-bench`";

/// Puts `bench-gpu`, every kernel crate's PTX, bench/cpp and run.sh into `dir`.
pub fn stage_bench(dir: &Path, arch: Arch) -> Result<(), String> {
    check_dir(dir, MARK)?;
    let runner = build_bin("ptx-sync-bench", "bench-gpu")?;
    let ptx = build_all(arch)?;
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
    let readme = format!(
        "{MARK} for {arch}.\n\n./run.sh [--filter SUBSTR] [--reps N] on a machine with an NVIDIA driver; with\n\
         nvcc there (CUDA toolkit) the C++ references are built and measured side by side.\n\
         Writes BENCHMARKS.md and bench.json ($BENCH_OUT, default here).\n"
    );
    io(dir, fs::write(dir.join("README.txt"), readme))
}
