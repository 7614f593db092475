//! Bad allocations and bad PTX on a real GPU: the driver's out-of-memory, sizes refused before
//! the driver, PTX text the driver cannot load, names a module does not have. Each answers its
//! exact error, and the GPU works after all of them.

use crate::{Ctx, GpuTest, KERNELS_PTX};
use ptx_sync_host::cudarc::driver::sys::CUresult;
use ptx_sync_host::cudarc::driver::{DriverError, PushKernelArg};
use ptx_sync_host::{Error, MappedBuffer};
use ptx_sync_testkit::{one_thread, Result};
use std::time::Duration;

const TIMEOUT: Duration = Duration::from_secs(60);

/// "Ok", or the error with its variant.
fn shown<T>(r: &ptx_sync_host::Result<T>) -> String {
    match r {
        Ok(_) => "Ok".into(),
        Err(e) => format!("{e:?}"),
    }
}

fn driver_code<T>(r: &ptx_sync_host::Result<T>) -> Option<CUresult> {
    match r {
        Err(Error::Driver {
            source: DriverError(c),
            ..
        }) => Some(*c),
        _ => None,
    }
}

/// Expected: zeros::<u8>(1 TiB) -> driver CUDA_ERROR_OUT_OF_MEMORY; zeros(0) and upload(&[])
/// -> `Error::Empty("buffer length")`; MappedBuffer::new(0) -> `Error::Empty("mapped buffer
/// length")`; zeros::<u64>(usize::MAX / 4), zeros::<u32>(isize::MAX / 4 + 1) and
/// MappedBuffer::<u64>::new(usize::MAX / 2) -> `Error::TooLarge`; then a launch and download
/// work.
fn allocations(ctx: &Ctx) -> Result<String> {
    let gpu = &ctx.gpu;
    let mut bad = Vec::new();
    let oom = gpu.zeros::<u8>(1 << 40);
    if driver_code(&oom) != Some(CUresult::CUDA_ERROR_OUT_OF_MEMORY) {
        bad.push(format!(
            "zeros(1 TiB): expected CUDA_ERROR_OUT_OF_MEMORY, got {}",
            shown(&oom)
        ));
    }
    let empty = [
        (
            "zeros(0)",
            shown(&gpu.zeros::<u32>(0)),
            "Empty(\"buffer length\")",
        ),
        (
            "upload(&[])",
            shown(&gpu.upload::<u32>(&[])),
            "Empty(\"buffer length\")",
        ),
        (
            "MappedBuffer::new(0)",
            shown(&MappedBuffer::<u32>::new(gpu, 0)),
            "Empty(\"mapped buffer length\")",
        ),
    ];
    for (what, got, want) in empty {
        if got != want {
            bad.push(format!("{what}: expected {want}, got {got}"));
        }
    }
    let too_large = [
        (
            "zeros::<u64>(usize::MAX / 4)",
            shown(&gpu.zeros::<u64>(usize::MAX / 4)),
        ),
        (
            "zeros::<u32>(isize::MAX / 4 + 1)",
            shown(&gpu.zeros::<u32>(isize::MAX as usize / 4 + 1)),
        ),
        (
            "MappedBuffer::<u64>::new(usize::MAX / 2)",
            shown(&MappedBuffer::<u64>::new(gpu, usize::MAX / 2)),
        ),
    ];
    for (what, got) in too_large {
        if !got.starts_with("TooLarge") {
            bad.push(format!("{what}: expected TooLarge, got {got}"));
        }
    }
    still_works(ctx).map_err(|e| format!("after the bad allocations: {e}"))?;
    if !bad.is_empty() {
        return Err(bad.join("; ").into());
    }
    Ok("1 TiB: CUDA_ERROR_OUT_OF_MEMORY; zero lengths: Empty; overflowing sizes: TooLarge; the GPU worked after".into())
}

/// A launch of `misuse_fault_write` and a download of what it wrote.
fn still_works(ctx: &Ctx) -> Result<()> {
    let writer = ctx.kernel("misuse_fault_write")?;
    let out = ctx.gpu.zeros::<u32>(1)?;
    // SAFETY: misuse_fault_write(ptr, value) to a live one-word buffer.
    unsafe {
        ctx.gpu
            .launch(&writer)
            .arg(&out)
            .arg(42u32)
            .launch(one_thread())
    }?;
    ctx.gpu.wait(TIMEOUT)?;
    let got = ctx.gpu.download(&out)?;
    if got != [42] {
        return Err(format!("the kernel wrote {got:?}, expected [42]").into());
    }
    Ok(())
}

/// Expected: load_ptx_str of "this is not PTX" -> CUDA_ERROR_INVALID_IMAGE (seen on an H200:
/// the driver takes it for a binary image); of "" -> CUDA_ERROR_INVALID_IMAGE (the same); of
/// the first half of the suite's PTX -> CUDA_ERROR_INVALID_PTX; of the
/// suite's PTX with `.target sm_200` -> CUDA_ERROR_INVALID_PTX; of text with a NUL ->
/// CUDA_ERROR_INVALID_PTX (refused before the driver); kernel "no_such_kernel" ->
/// `KernelNotFound`; global "NO_SUCH_GLOBAL" and the kernel name "misuse_set_word" as a global
/// -> `GlobalNotFound`; then a launch and download work.
fn bad_ptx(ctx: &Ctx) -> Result<String> {
    let gpu = &ctx.gpu;
    let real = std::fs::read_to_string(ctx.ptx_dir.join(KERNELS_PTX))?;
    let half = &real[..real.len() / 2];
    let Some(target) = real.lines().find(|l| l.trim_start().starts_with(".target")) else {
        return Err("the suite's PTX has no .target line".into());
    };
    let future = real.replacen(target, ".target sm_200", 1);
    let invalid = [CUresult::CUDA_ERROR_INVALID_PTX];
    let image = [CUresult::CUDA_ERROR_INVALID_IMAGE];
    let texts: [(&str, &str, &[CUresult]); 5] = [
        // Text that does not start like PTX (or none) is taken for a binary image.
        ("garbage", "this is not PTX\n", &image),
        ("empty", "", &image),
        ("truncated", half, &invalid),
        ("future arch (.target sm_200)", &future, &invalid),
        ("with a NUL", "// PTX\0\n", &invalid),
    ];
    let mut bad = Vec::new();
    let mut seen = Vec::new();
    for (what, text, want) in texts {
        let r = gpu.load_ptx_str(what, text);
        match driver_code(&r) {
            Some(c) if want.contains(&c) => seen.push(format!("{what}: {c:?}")),
            _ => bad.push(format!(
                "{what}: expected one of {want:?}, got {}",
                shown(&r)
            )),
        }
    }
    let module = gpu.load_ptx(&ctx.ptx_dir.join(KERNELS_PTX))?;
    let k = module.kernel("no_such_kernel");
    if !matches!(k, Err(Error::KernelNotFound { .. })) {
        bad.push(format!(
            "kernel no_such_kernel: expected KernelNotFound, got {}",
            shown(&k)
        ));
    }
    for name in ["NO_SUCH_GLOBAL", "misuse_set_word"] {
        let g = module.read_global::<u32>(gpu, name);
        if !matches!(g, Err(Error::GlobalNotFound { .. })) {
            bad.push(format!(
                "global {name}: expected GlobalNotFound, got {}",
                shown(&g)
            ));
        }
    }
    still_works(ctx).map_err(|e| format!("after the bad PTX: {e}"))?;
    if !bad.is_empty() {
        return Err(bad.join("; ").into());
    }
    Ok(format!(
        "{}; missing kernel and globals not found; the GPU worked after",
        seen.join(", ")
    ))
}

pub fn tests() -> Vec<GpuTest> {
    crate::cases![TIMEOUT;
        "misuse_bad_allocations" => allocations,
        "misuse_bad_ptx_and_names" => bad_ptx,
    ]
}
