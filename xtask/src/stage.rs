use crate::ptx::{cargo, tail};
use crate::{build_all, build_nvshmem_all, workspace_root, Arch};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The runner's binary target (tests/src/bin/gpu-tests.rs in package ptx-sync-tests).
const RUNNER: &str = "gpu-tests";

/// The examples app (examples/app in the examples/ project, outside the workspace), staged
/// under this name next to the runner, whose test `examples_app` runs it.
const EXAMPLES_APP: &str = "examples-app";

/// The NVSHMEM example (examples/ring-allreduce), staged under its own name next to the
/// runner, whose case `nvshmem_example_ring_allreduce` runs it.
const RING_ALLREDUCE: &str = "ring-allreduce";

/// The examples project's manifest, relative to the workspace root.
const EXAMPLES_MANIFEST: &str = "examples/Cargo.toml";

/// First line of the staged README.txt; marks a folder `stage` may overwrite.
const MARK: &str = "ptx-sync GPU suite, staged by `cargo xtask stage`";

const RUN_SH: &str = r#"#!/usr/bin/env bash
# Runs the ptx-sync GPU suite from this folder; needs an NVIDIA driver, not Rust or CUDA.
# Options are the runner's: --list, --filter SUBSTR, --timeout-scale F.
cd "$(dirname "$0")"
exec ./gpu-tests --ptx-dir ./ptx "$@"
"#;

pub(crate) fn io<T>(what: &Path, r: std::io::Result<T>) -> Result<T, String> {
    r.map_err(|e| format!("{}: {e}", what.display()))
}

/// Builds the release `gpu-tests` runner, every kernel crate's PTX and the examples app
/// (examples/, its kernels embedded) for `arch`, and puts them with `run.sh` and a README.txt
/// into `dir` (`gpu-tests`, `ptx/*.ptx`, `examples-app`): a folder that runs the GPU suite on
/// any x86-64 Linux machine with an NVIDIA driver (no cargo, no CUDA toolkit). The binaries
/// are stripped. `dir` must be missing, empty, or an earlier stage.
pub fn stage(dir: &Path, arch: Arch) -> Result<(), String> {
    check_dir(dir, MARK)?;
    let runner = build_bin("ptx-sync-tests", RUNNER)?;
    let mut ptx = build_all(arch)?;
    ptx.extend(build_nvshmem_all(arch)?);
    let examples = build_examples_app(arch)?;
    let ring = build_example_bin(RING_ALLREDUCE, arch)?;

    copy_into(&ptx, &dir.join("ptx"))?;
    let bin = dir.join(RUNNER);
    let _ = fs::remove_file(&bin);
    io(&runner, fs::copy(&runner, &bin))?;
    strip(&bin);
    let app = dir.join(EXAMPLES_APP);
    let _ = fs::remove_file(&app);
    io(&examples, fs::copy(&examples, &app))?;
    strip(&app);
    let ring_bin = dir.join(RING_ALLREDUCE);
    let _ = fs::remove_file(&ring_bin);
    io(&ring, fs::copy(&ring, &ring_bin))?;
    strip(&ring_bin);
    write_script(&dir.join("run.sh"), RUN_SH)?;
    let readme = dir.join("README.txt");
    let names: Vec<String> = ptx
        .iter()
        .map(|p| p.file_name().unwrap_or_default().to_string_lossy().into())
        .collect();
    let text = format!(
        "{MARK} for {arch} (PTX ISA {}.{}: needs a CUDA 12.4+ driver).\n\n\
         ./run.sh                 run every GPU test (one process each, under a watchdog)\n\
         ./run.sh --list          list the tests\n\
         ./run.sh --filter SUBSTR run the tests whose name contains SUBSTR\n\n\
         The last line is `N passed, N failed`. Exit status: 0 all passed, 1 failures,\n\
         2 no CUDA driver. Needs no Rust and no CUDA toolkit, only libcuda.so.\n\n\
         ./examples-app           the examples/ project (a user's crate: its kernels built by\n\
         \x20                        ptx-sync-build, embedded, run through ptx-sync-host): prints\n\
         \x20                        `example NAME: ok (...)` for each of its 5 examples; exit 0\n\
         \x20                        all passed, 1 a failure, 2 no CUDA driver. The suite runs\n\
         \x20                        it as the test examples_app.\n\
         Files: gpu-tests (the runner), run.sh, {EXAMPLES_APP}, ptx/{}.\n",
        Arch::PTX_ISA.0,
        Arch::PTX_ISA.1,
        names.join(", ptx/"),
    );
    io(&readme, fs::write(&readme, text))
}

/// Empties (or creates) `to` and copies `files` into it.
pub(crate) fn copy_into(files: &[PathBuf], to: &Path) -> Result<(), String> {
    if to.exists() {
        io(to, fs::remove_dir_all(to))?;
    }
    io(to, fs::create_dir_all(to))?;
    for f in files {
        io(f, fs::copy(f, to.join(f.file_name().unwrap_or_default())))?;
    }
    Ok(())
}

/// Writes an executable script.
pub(crate) fn write_script(path: &Path, text: &str) -> Result<(), String> {
    io(path, fs::write(path, text))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        io(
            path,
            fs::set_permissions(path, fs::Permissions::from_mode(0o755)),
        )?;
    }
    Ok(())
}

/// Refuses to write into a non-empty folder that is not an earlier stage of the same kind
/// (its README.txt starts with `mark`); creates it if missing.
pub(crate) fn check_dir(dir: &Path, mark: &str) -> Result<(), String> {
    if !dir.exists() {
        return io(dir, fs::create_dir_all(dir));
    }
    let empty = io(dir, fs::read_dir(dir))?.next().is_none();
    let ours = fs::read_to_string(dir.join("README.txt")).is_ok_and(|t| t.starts_with(mark));
    if empty || ours {
        Ok(())
    } else {
        Err(format!(
            "{} is neither empty nor an earlier stage (`{mark}`); not writing there",
            dir.display()
        ))
    }
}

/// `cargo build --release -p <package> --bin <bin>`; returns the executable's path (from
/// cargo's JSON messages, so `CARGO_TARGET_DIR` and `build.target-dir` are honoured).
pub(crate) fn build_bin(package: &str, bin: &str) -> Result<PathBuf, String> {
    let mut cmd = cargo();
    cmd.current_dir(workspace_root())
        .args(["build", "--release", "-p", package, "--bin", bin]);
    cargo_executable(cmd, bin, &format!("package {package}"))
}

/// `cargo build --release --manifest-path examples/Cargo.toml --bin examples-app` with
/// `PTX_SYNC_ARCH=<arch>` (its build.rs builds the kernels for that arch); returns the
/// executable's path. The examples are their own workspace, with their own target directory
/// (examples/target), as a user's project would be.
pub fn build_examples_app(arch: Arch) -> Result<PathBuf, String> {
    let root = workspace_root();
    let mut cmd = cargo();
    cmd.current_dir(&root)
        .args(["build", "--release", "--manifest-path"])
        .arg(root.join(EXAMPLES_MANIFEST))
        .args(["--bin", EXAMPLES_APP])
        .env(crate::build::ARCH_ENV, arch.to_string());
    cargo_executable(cmd, EXAMPLES_APP, EXAMPLES_MANIFEST)
}

/// `cargo build --release --manifest-path examples/Cargo.toml --bin <bin>` with
/// `PTX_SYNC_ARCH=<arch>`; returns the executable's path.
pub fn build_example_bin(bin: &str, arch: Arch) -> Result<PathBuf, String> {
    let root = workspace_root();
    let mut cmd = cargo();
    cmd.current_dir(&root)
        .args(["build", "--release", "--manifest-path"])
        .arg(root.join(EXAMPLES_MANIFEST))
        .args(["--bin", bin])
        .env(crate::build::ARCH_ENV, arch.to_string());
    cargo_executable(cmd, bin, EXAMPLES_MANIFEST)
}

/// Runs `cmd` (a `cargo build` of binary `bin` from `what`) with JSON messages and returns the
/// executable's path from them.
fn cargo_executable(mut cmd: Command, bin: &str, what: &str) -> Result<PathBuf, String> {
    let out = cmd
        .arg("--message-format=json-render-diagnostics")
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("could not run cargo: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "building {bin} ({what}) failed; cargo's output is above"
        ));
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    let name = format!("\"name\":\"{bin}\"");
    stdout
        .lines()
        .filter(|l| l.contains("\"reason\":\"compiler-artifact\"") && l.contains(&name))
        .find_map(|l| {
            let rest = &l[l.find("\"executable\":\"")? + 14..];
            Some(PathBuf::from(&rest[..rest.find('"')?]))
        })
        .ok_or_else(|| format!("cargo built no {bin} executable:\n{}", tail(&out.stdout, 5)))
}

/// Strips `bin` in place with the toolchain's `llvm-strip` (component llvm-tools) or `strip`;
/// leaves it as it is (with a note) when neither works.
pub(crate) fn strip(bin: &Path) {
    let mut tools = Vec::new();
    let sysroot = Command::new("rustc")
        .current_dir(workspace_root())
        .args(["--print", "sysroot"])
        .output();
    if let Ok(out) = sysroot {
        let rustlib =
            PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()).join("lib/rustlib");
        for entry in fs::read_dir(rustlib).into_iter().flatten().flatten() {
            tools.push(entry.path().join("bin/llvm-strip"));
        }
    }
    tools.retain(|t| t.is_file());
    tools.push("strip".into());
    for tool in tools {
        let ok = Command::new(&tool).arg("--strip-all").arg(bin).output();
        if ok.is_ok_and(|o| o.status.success()) {
            return;
        }
    }
    eprintln!(
        "note: could not strip {} (no llvm-strip or strip)",
        bin.display()
    );
}
