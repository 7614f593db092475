//! `cargo xtask litmus` / `stage-litmus`: the litmus runner and its PTX in one folder that runs
//! on any x86-64 Linux machine with an NVIDIA driver (no Rust, no CUDA toolkit there).

use crate::stage::{build_bin, check_dir, copy_into, io, strip, write_script};
use crate::{build_ptx, ptxas_check, workspace_root, Arch};
use std::fs;
use std::path::Path;

const RUN_SH: &str = r#"#!/usr/bin/env bash
# Runs the ptx-sync litmus suite from this folder; needs an NVIDIA driver, not Rust or CUDA.
# Writes LITMUS.md, litmus.csv and litmus.json into $LITMUS_OUT (default: this folder).
# Options are the runner's (./litmus --help): --full, --filter SUBSTR, --seed N, ...
cd "$(dirname "$0")" || exit 2
exec ./litmus --ptx-dir ./ptx --out "${LITMUS_OUT:-.}" "$@"
"#;

const MARK: &str = "ptx-sync litmus suite, staged by `cargo xtask stage-litmus`";

/// Builds the litmus kernels for `arch` (ptxas-checked) and the release `litmus` runner, and
/// puts them with run.sh into `dir` (`litmus`, `ptx/ptx_sync_litmus_kernels.ptx`).
pub fn stage_litmus(dir: &Path, arch: Arch) -> Result<(), String> {
    check_dir(dir, MARK)?;
    let ptx = build_ptx(&workspace_root().join("litmus/kernels"), arch)?;
    ptxas_check(&ptx, arch)?;
    let runner = build_bin("ptx-sync-litmus", "litmus")?;
    copy_into(&[ptx], &dir.join("ptx"))?;
    let bin = dir.join("litmus");
    let _ = fs::remove_file(&bin);
    io(&runner, fs::copy(&runner, &bin))?;
    strip(&bin);
    write_script(&dir.join("run.sh"), RUN_SH)?;
    let readme = format!(
        "{MARK} for {arch}.\n\n./run.sh [--full] [--filter SUBSTR] [--seed N] on a machine with an NVIDIA driver.\n\
         Writes LITMUS.md, litmus.csv, litmus.json ($LITMUS_OUT, default here). Exit status: 0 every\n\
         row passed, 1 a forbidden or impossible outcome or an error, 2 no CUDA driver.\n"
    );
    io(dir, fs::write(dir.join("README.txt"), readme))
}
